//===- wrapper-compile.cpp - compile a model into model.so ----------------===//
//
// Part of the Wrapper project.
//
// wrapper-compile model.mlir -o model.so: compiles the entry function with
// the CPU pipeline into an object file for the host CPU, generates the C
// model container (WrapperModel.h's ABI) and links both with the runtime
// into a shared library.
//
//===----------------------------------------------------------------------===//

#include "ContainerSource.h"
#include "ToolSupport.h"

#include "Wrapper/InitAll.h"
#include "Wrapper/Pipelines/Pipelines.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;
using namespace mlir::wrapper;
namespace cl = llvm::cl;

static cl::OptionCategory category("wrapper-compile options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.mlir>"),
                                      cl::init("-"), cl::cat(category));
static cl::opt<std::string> outputFile("o", cl::desc("The model.so to write"),
                                       cl::value_desc("file"), cl::Required,
                                       cl::cat(category));
static cl::opt<std::string> entry("entry",
                                  cl::desc("Function to compile (default: "
                                           "the only public function, or "
                                           "main)"),
                                  cl::cat(category));
static cl::opt<bool> parallel("parallel",
                              cl::desc("Run kernels on OpenMP threads"),
                              cl::init(true), cl::cat(category));
static cl::opt<std::string> planMemory(
    "plan-memory",
    cl::desc("Storage planning of the host graph: none, reuse or pool"),
    cl::init("reuse"));
static cl::opt<std::string> cc("cc",
                               cl::desc("C compiler that links the library"),
                               cl::init(WRAPPER_C_COMPILER), cl::cat(category));
static cl::opt<std::string>
    targetCPU("mcpu", cl::desc("Compile for this CPU instead of the host"),
              cl::cat(category));
static cl::opt<std::string> targetFeatures(
    "mattr",
    cl::desc("CPU features to add or remove, as '+avx2,-avx512f' (the "
             "vector width follows)"),
    cl::cat(category));
static cl::opt<bool> keepTemps(
    "keep-temps",
    cl::desc("Keep the object file and the container source next to the "
             "output (<output>.o, <output>.container.c)"),
    cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "wrapper-compile: error: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "wrapper-compile: compile a model into an AOT "
                              "shared library\n");
  std::string error;
  std::unique_ptr<ToolInput> input = ToolInput::load(inputFile, error);
  if (!input)
    return error.empty() ? 1 : fail(error);
  MLIRContext &context = input->getContext();
  ModuleOp module = input->getModule();
  func::FuncOp func = findEntryFunction(module, entry, error);
  if (!func)
    return fail(error);
  std::string entryName = func.getName().str();
  std::string container = generateContainerSource(
      entryName, func.getArgumentTypes(), func.getResultTypes(), error);
  if (container.empty())
    return fail(error);

  // Compile.
  privatizeAllBut(module, func);
  PassManager pm(&context);
  pm.addPass(createSymbolDCEPass());
  CPUPipelineOptions options;
  options.parallel = parallel;
  options.planMemory = planMemory;
  options.cInterface = true;
  buildCPUPipeline(pm, options);
  if (failed(pm.run(module)))
    return fail("compilation failed");

  // LLVM IR for the host CPU (or --mcpu/--mattr), position independent.
  std::unique_ptr<llvm::TargetMachine> machine =
      createHostTargetMachine(targetCPU, targetFeatures, /*pic=*/true, error);
  if (!machine)
    return fail(error);
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "model");
  if (!llvmModule)
    return fail("translation to LLVM IR failed");
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(machine->getTargetTriple());
  if (llvm::Error err =
          makeOptimizingTransformer(3, 0, machine.get())(llvmModule.get()))
    return fail("LLVM optimization failed: " + llvm::toString(std::move(err)));

  // Object file and container source.
  std::string objectPath = outputFile + ".o";
  std::string sourcePath = outputFile + ".container.c";
  {
    std::error_code ec;
    llvm::raw_fd_ostream object(objectPath, ec, llvm::sys::fs::OF_None);
    if (ec)
      return fail("cannot write '" + objectPath + "': " + ec.message());
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, object, nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
      return fail("the target cannot emit object files");
    codegen.run(*llvmModule);
    llvm::raw_fd_ostream source(sourcePath, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return fail("cannot write '" + sourcePath + "': " + ec.message());
    source << container;
  }

  // Link: object + container + runtime (+ OpenMP, + MLIR's C runner utils
  // for strided copies), with rpaths so the library loads where it is.
  auto compiler = llvm::sys::findProgramByName(cc);
  if (!compiler)
    return fail("cannot find the C compiler '" + cc + "'");
  std::string runtimeDir = WRAPPER_RUNTIME_LIBRARY_DIR;
  std::string llvmLibDir = WRAPPER_LLVM_LIBRARY_DIR;
  SmallVector<std::string> args = {*compiler,
                                   "-shared",
                                   "-fPIC",
                                   "-O2",
                                   "-o",
                                   outputFile,
                                   objectPath,
                                   sourcePath,
                                   "-I" WRAPPER_INCLUDE_DIR,
                                   "-L" + runtimeDir,
                                   "-lwrapper_runtime",
                                   "-Wl,-rpath," + runtimeDir,
                                   "-L" + llvmLibDir,
                                   "-lmlir_c_runner_utils",
                                   "-Wl,-rpath," + llvmLibDir,
                                   "-lm"};
  if (parallel)
    args.append({"-lomp"});
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::string linkError;
  int status = llvm::sys::ExecuteAndWait(*compiler, argRefs, std::nullopt, {},
                                         0, 0, &linkError);
  if (!keepTemps) {
    llvm::sys::fs::remove(objectPath);
    llvm::sys::fs::remove(sourcePath);
  }
  if (status != 0)
    return fail("linking '" + outputFile + "' failed" +
                (linkError.empty() ? "" : ": " + linkError));
  return 0;
}
