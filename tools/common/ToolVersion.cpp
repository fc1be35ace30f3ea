//===- ToolVersion.cpp - version and install layout of the tools ----------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "ToolVersion.h"

#include "Wrapper/Runtime/WrapperCuda.h"
#include "Wrapper/Runtime/WrapperModel.h"
#include "Wrapper/Runtime/WrapperTraining.h"
#include "Wrapper/Version.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::wrapper;

/// `dir` when it holds `file`, else `fallback`.
static std::string dirHolding(llvm::StringRef dir, llvm::StringRef file,
                              llvm::StringRef fallback) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, file);
  return llvm::sys::fs::exists(path) ? dir.str() : fallback.str();
}

InstallLayout mlir::wrapper::findInstallLayout(const char *argv0) {
  InstallLayout layout{WRAPPER_INCLUDE_DIR, WRAPPER_RUNTIME_LIBRARY_DIR,
                       WRAPPER_LLVM_LIBRARY_DIR};
  // Any function of the executable locates it; this library is linked in
  // statically.
  std::string exe = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&findInstallLayout));
  if (exe.empty())
    return layout;
  llvm::SmallString<256> prefix(llvm::sys::path::parent_path(
      llvm::sys::path::parent_path(llvm::StringRef(exe))));
  llvm::SmallString<256> include(prefix), lib(prefix);
  llvm::sys::path::append(include, "include");
  llvm::sys::path::append(lib, "lib");
  layout.includeDir =
      dirHolding(include, "Wrapper/Runtime/WrapperModel.h", layout.includeDir);
  layout.runtimeLibraryDir =
      dirHolding(lib, "libwrapper_runtime.so", layout.runtimeLibraryDir);
  layout.openmpLibraryDir =
      dirHolding(lib, "libomp.so", layout.openmpLibraryDir);
  return layout;
}

void mlir::wrapper::addVersionPrinter(const InstallLayout *layout) {
  // The printer outlives this call: keep a copy of the layout.
  static InstallLayout printed;
  static bool withLayout = false;
  if (layout) {
    printed = *layout;
    withLayout = true;
  }
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "Wrapper " << WRAPPER_VERSION << " (commit " << WRAPPER_COMMIT
       << ")\n"
       << "  model ABI " << WRAPPER_MODEL_ABI_VERSION << ", training ABI "
       << WRAPPER_TRAIN_ABI_VERSION << ", CUDA runtime ABI "
       << WRAPPER_CUDA_ABI_VERSION << "\n"
       << "  built with LLVM " << WRAPPER_LLVM_VERSION << "\n";
    if (withLayout)
      os << "  headers: " << printed.includeDir << "\n"
         << "  runtime libraries: " << printed.runtimeLibraryDir << "\n"
         << "  OpenMP library: " << printed.openmpLibraryDir << "\n";
  });
}
