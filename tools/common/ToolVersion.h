//===- ToolVersion.h - version and install layout of the tools --*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// What `--version` prints (the project's version and commit, the ABIs the
// tools build for, the LLVM they were built with) and where a tool that was
// moved out of its build tree (installed, or bundled in the Python package)
// finds the headers and runtime libraries that models link against.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_TOOLS_COMMON_TOOLVERSION_H
#define WRAPPER_TOOLS_COMMON_TOOLVERSION_H

#include <string>

namespace mlir {
namespace wrapper {

/// The files a model library is compiled and linked with.
struct InstallLayout {
  /// Holds Wrapper/Runtime/WrapperModel.h.
  std::string includeDir;
  /// Holds libwrapper_runtime.so and libwrapper_cuda_runtime.so.
  std::string runtimeLibraryDir;
  /// Holds libomp.so.
  std::string openmpLibraryDir;
};

/// The layout around the running tool: for a tool at <prefix>/bin/<tool>,
/// <prefix>/include and <prefix>/lib where they hold the files (an install
/// tree, the Python package's bundle); otherwise, each directory of the
/// build the tool was built in. `argv0` helps locate the executable
/// (llvm::sys::fs::getMainExecutable).
InstallLayout findInstallLayout(const char *argv0);

/// Adds the project's lines to `--version`: version, commit, ABI versions,
/// LLVM version and, when `layout` is given, its directories.
void addVersionPrinter(const InstallLayout *layout = nullptr);

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_TOOLS_COMMON_TOOLVERSION_H
