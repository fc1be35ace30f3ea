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

#include "CompilerOptions.h"
#include "ContainerSource.h"
#include "ToolSupport.h"
#include "ToolVersion.h"
#include "TrainingSource.h"
#include "WeightsFile.h"

#include "Wrapper/Dialect/TensorProgram/Analysis/ShapeRequirements.h"
#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"
#include "Wrapper/InitAll.h"
#include "Wrapper/Pipelines/Pipelines.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/AsmState.h"
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

#include "llvm/Support/Format.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Support/Threading.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <chrono>
#include <random>
#include <thread>

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
static cl::opt<std::string> weightsMode(
    "weights",
    cl::desc("Where constants live: embedded (in the library's read-only "
             "data), appended (after the library, mapped at load) or "
             "external (a safetensors file, --weights-file)"),
    cl::init("embedded"), cl::cat(category));
static cl::opt<std::string> weightsFile(
    "weights-file",
    cl::desc("With --weights=external: the safetensors file to write, found "
             "next to the library by its name at load unless "
             "wrapper_model_bind_weights binds one (default: the output's "
             "name with .safetensors)"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> cc("cc",
                               cl::desc("C compiler that links the library"),
                               cl::init(WRAPPER_C_COMPILER), cl::cat(category));
static cl::opt<std::string>
    target("target",
           cl::desc("Where the model runs: cpu, or cuda (an NVIDIA GPU "
                    "through --wrapper-cuda-pipeline; wrapper_model_run "
                    "copies host inputs to the device and the outputs back, "
                    "wrapper_model_run_device takes device memory)"),
           cl::init("cpu"), cl::cat(category));
static cl::opt<bool>
    timing("timing",
           cl::desc("Print how long each phase takes (parsing, the MLIR "
                    "pipeline, LLVM optimization, code generation, linking) "
                    "to stderr"),
           cl::init(false), cl::cat(category));
static cl::opt<std::string>
    dumpLLVM("dump-llvm",
             cl::desc("Also write the LLVM IR before optimization to this file "
                      "(for inspecting what the code generator gets)"),
             cl::value_desc("file"), cl::cat(category));
static cl::opt<unsigned> optimizedInstructionLimit(
    "optimized-instruction-limit",
    cl::desc("Functions of more LLVM instructions than this (a host "
             "program of thousands of kernel calls) are compiled without "
             "optimization, in an object file of their own"),
    cl::init(kMaxOptimizedInstructions), cl::cat(category));
static cl::opt<unsigned>
    optLevel("O",
             cl::desc("LLVM optimization level of the generated code (0-3)"),
             cl::init(2), cl::Prefix, cl::cat(category));
static cl::opt<unsigned>
    jobs("jobs",
         cl::desc("Threads that optimize and generate code, each for a part of "
                  "the module (0: one per hardware thread)"),
         cl::init(0), cl::cat(category));
static cl::opt<std::string> emitMLIR(
    "emit-mlir",
    cl::desc("Write the module after a stage of this compilation to -o (- "
             "for stdout) instead of a model.so: frontend (kernels and the "
             "planned host graph; CPU) or llvm (the LLVM dialect)"),
    cl::value_desc("stage"), cl::cat(category));
static cl::opt<bool> profile(
    "profile",
    cl::desc("Count every kernel call's time and bytes in the runtime's "
             "profiling counters (wrapper_profile_read, "
             "wrapper_profile_read_bytes; CPU)"),
    cl::init(false), cl::cat(category));
static cl::opt<uint64_t> maxTensorBytes(
    "max-tensor-bytes",
    cl::desc("Refuse a program with a static tensor above this many bytes "
             "(default: 1 TiB)"),
    cl::init(uint64_t(1) << 40), cl::cat(category));
static cl::opt<bool> keepTemps(
    "keep-temps",
    cl::desc("Keep the object file and the container source next to the "
             "output (<output>.o, <output>.container.c)"),
    cl::cat(category));

/// Phase timing for --timing: each call prints the time since the last.
class PhaseTimer {
public:
  void done(StringRef phase) {
    auto now = std::chrono::steady_clock::now();
    if (timing)
      llvm::errs() << llvm::format(
          "wrapper-compile: %-22s %7.3f s\n", (phase + ":").str().c_str(),
          std::chrono::duration<double>(now - last).count());
    last = now;
  }

private:
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
};

/// Optimizes (-O3 for the target machine) and compiles `module` into object
/// files: with `parts` > 1, split into that many modules (llvm::SplitModule,
/// locals externalized with hidden visibility) that threads compile
/// independently, each in its own LLVMContext. The object files are
/// `<base>` or `<base>.<i>.o`, listed in `objects`.
static LogicalResult optimizeAndEmit(std::unique_ptr<llvm::Module> module,
                                     unsigned parts, StringRef base,
                                     SmallVectorImpl<std::string> &objects,
                                     std::string &error) {
  // Bitcode of each part: the parts share the translation's context, so
  // each thread reads its part into a context of its own. Functions too
  // large to optimize (exemptHugeFunctionsFromOptimization marked them
  // optnone) form a part of their own, generated at -O0: the optimizing
  // code generator's register allocation alone took minutes on them.
  SmallVector<SmallString<0>> bitcode;
  std::optional<size_t> unoptimizedPart;
  auto isHuge = [](const llvm::GlobalValue *value) {
    auto *function = dyn_cast<llvm::Function>(value);
    return function && !function->isDeclaration() &&
           function->hasFnAttribute(llvm::Attribute::OptimizeNone);
  };
  if (llvm::any_of(module->functions(),
                   [&](llvm::Function &f) { return isHuge(&f); })) {
    // Both parts refer to each other's symbols: locals become hidden
    // externals (what SplitModule does for its parts).
    unsigned unnamed = 0;
    for (llvm::GlobalValue &value : module->global_values()) {
      if (!value.hasLocalLinkage())
        continue;
      if (!value.hasName())
        value.setName("__wrapper_unnamed_" + Twine(unnamed++));
      value.setLinkage(llvm::GlobalValue::ExternalLinkage);
      value.setVisibility(llvm::GlobalValue::HiddenVisibility);
    }
    llvm::ValueToValueMapTy hugeMap, restMap;
    std::unique_ptr<llvm::Module> huge =
        llvm::CloneModule(*module, hugeMap, isHuge);
    std::unique_ptr<llvm::Module> rest = llvm::CloneModule(
        *module, restMap,
        [&](const llvm::GlobalValue *value) { return !isHuge(value); });
    bitcode.emplace_back();
    llvm::raw_svector_ostream os(bitcode.back());
    llvm::WriteBitcodeToFile(*huge, os);
    unoptimizedPart = 0;
    module = std::move(rest);
  }
  if (parts <= 1) {
    bitcode.emplace_back();
    llvm::raw_svector_ostream os(bitcode.back());
    llvm::WriteBitcodeToFile(*module, os);
  } else {
    llvm::SplitModule(*module, parts, [&](std::unique_ptr<llvm::Module> part) {
      bitcode.emplace_back();
      llvm::raw_svector_ostream os(bitcode.back());
      llvm::WriteBitcodeToFile(*part, os);
    });
  }
  module.reset();
  SmallVector<std::unique_ptr<llvm::TargetMachine>> machines;
  for (size_t i = 0; i < bitcode.size(); ++i) {
    machines.push_back(createHostTargetMachine(getCommandLineCPU(),
                                               getCommandLineFeatures(),
                                               /*pic=*/true, error));
    if (!machines.back())
      return failure();
    if (unoptimizedPart == i)
      machines.back()->setOptLevel(llvm::CodeGenOptLevel::None);
    objects.push_back(bitcode.size() == 1
                          ? base.str()
                          : (base + "." + Twine(i) + ".o").str());
  }
  SmallVector<std::string> errors(bitcode.size());
  auto compile = [&](size_t i) {
    llvm::LLVMContext context;
    llvm::Expected<std::unique_ptr<llvm::Module>> part = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(StringRef(bitcode[i].data(), bitcode[i].size()),
                              "part"),
        context);
    if (!part) {
      errors[i] = "cannot read back part of the module: " +
                  llvm::toString(part.takeError());
      return;
    }
    llvm::TargetMachine *machine = machines[i].get();
    if (llvm::Error err = makeOptimizingTransformer(
            unoptimizedPart == i ? 0 : optLevel, 0, machine)(part->get())) {
      errors[i] = "LLVM optimization failed: " + llvm::toString(std::move(err));
      return;
    }
    std::error_code ec;
    llvm::raw_fd_ostream object(objects[i], ec, llvm::sys::fs::OF_None);
    if (ec) {
      errors[i] = "cannot write '" + objects[i] + "': " + ec.message();
      return;
    }
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, object, nullptr,
                                     llvm::CodeGenFileType::ObjectFile)) {
      errors[i] = "the target cannot emit object files";
      return;
    }
    codegen.run(**part);
  };
  {
    std::vector<std::thread> threads;
    for (size_t i = 1; i < bitcode.size(); ++i)
      threads.emplace_back(compile, i);
    compile(0);
    for (std::thread &thread : threads)
      thread.join();
  }
  for (const std::string &e : errors)
    if (!e.empty()) {
      error = e;
      return failure();
    }
  return success();
}

/// The types of the entry's arguments that the GEMM template made packed
/// weights (`wrapper.packed_b` on the wrapper.graph's argument: the caller
/// passes B's panels, [ceil(N/nr)][K][nr]) replace those of `inputs`.
static LogicalResult applyPackedArguments(ModuleOp module, StringRef entry,
                                          SmallVectorImpl<Type> &inputs,
                                          std::string &error) {
  auto graph = module.lookupSymbol<GraphOp>(entry);
  if (!graph)
    return success();
  if (graph.getNumArguments() != inputs.size()) {
    error = "the compiled graph @" + entry.str() + " takes " +
            std::to_string(graph.getNumArguments()) + " arguments, the model " +
            std::to_string(inputs.size());
    return failure();
  }
  for (unsigned i = 0; i < inputs.size(); ++i) {
    if (!graph.getArgAttr(i, "wrapper.packed_b"))
      continue;
    auto type = cast<MemRefType>(graph.getArgument(i).getType());
    inputs[i] = RankedTensorType::get(type.getShape(), type.getElementType());
  }
  return success();
}

static int fail(const llvm::Twine &message) {
  llvm::errs() << "wrapper-compile: error: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // MLIR's printing flags for --emit-mlir (--mlir-elide-elementsattrs-if-
  // larger, --mlir-print-debuginfo, ...), hidden from --help.
  registerAsmPrinterCLOptions();
  registerCompilerCLOptions(category);
  cl::HideUnrelatedOptions(category);
  showDefaults(weightsMode, cc, target, optLevel);
  InstallLayout layout = findInstallLayout(argv[0]);
  addVersionPrinter(&layout);
  cl::ParseCommandLineOptions(argc, argv,
                              "wrapper-compile: compile a model into an AOT "
                              "shared library\n");
  std::string error;
  PhaseTimer timer;
  if (weightsMode != "embedded" && weightsMode != "appended" &&
      weightsMode != "external")
    return fail("unknown --weights '" + weightsMode +
                "'; expected embedded, appended or external");
  bool external = weightsMode == "external";
  // Appended or external: the constants leave the code.
  bool appended = weightsMode == "appended" || external;
  if (!weightsFile.empty() && !external)
    return fail("--weights-file is for --weights=external");
  std::string externalPath = weightsFile;
  if (external && externalPath.empty()) {
    SmallString<256> path(outputFile);
    llvm::sys::path::replace_extension(path, ".safetensors");
    externalPath = path.str().str();
  }
  if (target != "cpu" && target != "cuda")
    return fail("--target must be cpu or cuda, got '" + target + "'");
  bool cuda = target == "cuda";
  if (!emitMLIR.empty() && emitMLIR != "frontend" && emitMLIR != "llvm")
    return fail("unknown --emit-mlir stage '" + emitMLIR +
                "'; expected frontend or llvm");
  if (cuda && emitMLIR == "frontend")
    return fail("--emit-mlir=frontend is a CPU stage; the CUDA pipeline "
                "has one stage (--emit-mlir=llvm)");
  if (cuda && appended)
    return fail("--weights=" + weightsMode +
                " is not supported with --target=cuda "
                "(the constants are embedded and copied to the device)");

  // The machine code is for the host CPU or --mcpu/--mattr; so is the GEMM
  // template's vector width.
  std::unique_ptr<llvm::TargetMachine> machine = createHostTargetMachine(
      getCommandLineCPU(), getCommandLineFeatures(), /*pic=*/true, error);
  if (!machine)
    return fail(error);
  if (optLevel > 3)
    return fail("-O" + std::to_string(optLevel) +
                ": the optimization level is 0, 1, 2 or 3");
  // The pipeline's options, checked before anything is read.
  CPUPipelineOptions options;
  if (failed(setCPUPipelineOptions(options, error)))
    return fail(error);
  if (cuda && profile)
    return fail("--profile counts CPU kernel calls; --target=cuda has no "
                "profiling counters (time a CUDA model with wrapper-run "
                "--benchmark)");
  options.profile = profile;
  options.parallel = options.parallel && !cuda;
  options.cInterface = true;
  CUDAPipelineOptions cudaOptions;
  if (cuda ? failed(setCUDAPipelineOptions(cudaOptions, error))
           : failed(refuseCUDAOnlyOptions(error)))
    return fail(error);
  cudaOptions.cInterface = true;
  // The entry takes and returns device buffers; the container copies for
  // callers of wrapper_model_run and passes wrapper_model_run_device's
  // through.
  cudaOptions.deviceArguments = true;

  std::unique_ptr<ToolInput> input = ToolInput::load(inputFile, error);
  if (!input)
    return error.empty() ? 1 : fail(error);
  timer.done("parse and load weights");
  MLIRContext &context = input->getContext();
  ModuleOp module = input->getModule();
  func::FuncOp func = findEntryFunction(module, entry, error);
  if (!func)
    return fail(error);
  if (failed(checkTensorSizes(func, maxTensorBytes, error)))
    return fail(error);
  std::string entryName = func.getName().str();
  // Writes the module to -o: the end of a compilation with --emit-mlir.
  auto emit = [&]() -> int {
    std::string message;
    std::unique_ptr<llvm::ToolOutputFile> out =
        openOutputFile(outputFile, &message);
    if (!out)
      return fail("cannot write '" + outputFile + "': " + message);
    module->print(out->os());
    out->keep();
    return 0;
  };
  // The relations between input sizes that the compiled code will rely on,
  // derived from the tensor program before it is lowered.
  std::string shapeChecks;
  {
    llvm::raw_string_ostream os(shapeChecks);
    tensor_program::ShapeRequirements::collect(func).emitC(os);
  }
  // The signature the container checks; a weight argument that the GEMM
  // template takes packed from the caller (gemm-options'
  // prepack-arguments) changes its type below.
  SmallVector<Type> inputTypes(func.getArgumentTypes());
  SmallVector<Type> resultTypes(func.getResultTypes());
  // The arguments the program writes back (tensor_program.copy_back).
  SmallVector<unsigned> writtenInputs;
  func.walk([&](tensor_program::CopyBackOp copy) {
    writtenInputs.push_back(
        cast<BlockArgument>(copy.getTarget()).getArgNumber());
  });
  std::string container = generateContainerSource(
      entryName, inputTypes, resultTypes, target == "cuda", shapeChecks,
      writtenInputs, error);
  if (container.empty())
    return fail(error);
  size_t containerSignatureEnd = container.size();
  // A training step (arguments and results marked as state and loss) gets
  // a trainer over the model container (WrapperTraining.h).
  TrainingSignature training;
  if (collectTrainingSignature(func, training, error))
    container += generateTrainingSource(training, target == "cuda");
  else if (!error.empty())
    return fail("@" + entryName + " is not a valid training step: " + error);

  // Compile: tensor_program to kernels and a host graph, then (with
  // appended weights) the constants out of the IR, then code. On CUDA:
  // --wrapper-cuda-pipeline, whose public function takes and returns
  // device buffers.
  privatizeAllBut(module, func);
  AppendedWeights weights;
  std::vector<char> blob;
  if (cuda) {
    PassManager pm(&context);
    pm.addPass(createSymbolDCEPass());
    buildCUDAPipeline(pm, cudaOptions);
    if (failed(pm.run(module)))
      return fail("compilation failed");
  } else {
    {
      PassManager pm(&context);
      pm.addPass(createSymbolDCEPass());
      buildCPUFrontendPipeline(pm, options);
      if (failed(pm.run(module)))
        return fail("compilation failed");
    }
    if (emitMLIR == "frontend")
      return emit();
    // The code generator's options are the same object's: what the front
    // end got plus the target. Its kernel part runs with the constants'
    // values (the GEMM template packs constant operands at compile time),
    // then (with appended weights) the constants leave the module.
    CPUTarget cpuTarget = cpuTargetOf(*machine);
    options.targetCPU = cpuTarget.cpu;
    options.targetFeatures = cpuTarget.features;
    options.vectorWidth = cpuTarget.vectorWidth;
    options.externalConstants = appended;
    // What the code needs of the CPU, for loaders that check the host
    // (wrapper_package_load).
    container += "const char *wrapper_model_cpu_features(void) {\n  return \"" +
                 cpuTarget.features + "\";\n}\n";
    {
      PassManager pm(&context);
      buildCPUCodegenPipeline(pm, options, CodegenPart::Kernels);
      if (failed(pm.run(module)))
        return fail("compilation failed");
    }
    if (failed(applyPackedArguments(module, entryName, inputTypes, error)))
      return fail(error);
    if (!options.gemmOptions.prepackArguments.empty()) {
      std::string signature = generateContainerSource(
          entryName, inputTypes, resultTypes,
          /*cuda=*/false, shapeChecks, writtenInputs, error);
      if (signature.empty())
        return fail(error);
      container.replace(0, containerSignatureEnd, signature);
    }
    if (appended && failed(takeOutConstants(module, weights, blob, error)))
      return fail(error);
    PassManager pm(&context);
    buildCPUCodegenPipeline(pm, options, CodegenPart::Host);
    if (failed(pm.run(module)))
      return fail("compilation failed");
  }

  timer.done("MLIR pipeline");
  if (emitMLIR == "llvm")
    return emit();
  // LLVM IR for the host CPU (or --mcpu/--mattr), position independent.
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "model");
  if (!llvmModule)
    return fail("translation to LLVM IR failed");
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(machine->getTargetTriple());
  timer.done("translation to LLVM IR");
  if (!dumpLLVM.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream dump(dumpLLVM, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return fail("cannot write '" + dumpLLVM + "': " + ec.message());
    llvmModule->print(dump, nullptr);
  }
  // Optimization and code generation, the module split into one part per
  // job, each optimized and compiled on its own thread into its own object
  // file (the code of large models takes tens of seconds on one core).
  for (const std::string &name : exemptHugeFunctionsFromOptimization(
           *llvmModule, optimizedInstructionLimit))
    if (timing)
      llvm::errs() << "wrapper-compile: '" << name << "' has more than "
                   << optimizedInstructionLimit
                   << " LLVM instructions: compiled without optimization\n";
  std::string objectPath = outputFile + ".o";
  std::string sourcePath = outputFile + ".container.c";
  std::string loaderPath = outputFile + ".weights.c";
  SmallVector<std::string> objectPaths;
  {
    unsigned parts =
        jobs ? jobs : llvm::hardware_concurrency().compute_thread_count();
    parts = std::max(1u, std::min<unsigned>(parts, llvmModule->size()));
    if (failed(optimizeAndEmit(std::move(llvmModule), parts, objectPath,
                               objectPaths, error)))
      return fail(error);
    timer.done("LLVM optimization and code generation");
    std::error_code ec;
    llvm::raw_fd_ostream source(sourcePath, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return fail("cannot write '" + sourcePath + "': " + ec.message());
    source << container;
    llvm::raw_fd_ostream loader(loaderPath, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return fail("cannot write '" + loaderPath + "': " + ec.message());
    loader << generateWeightLoaderSource(
        weights, external ? llvm::sys::path::filename(externalPath) : "");
  }

  // Link: object + container + runtime, with rpaths so the library loads
  // where it is.
  // The compiler the project was built with, else (when --cc was not
  // given, as on a machine with the tools but not that compiler) cc.
  auto compiler = llvm::sys::findProgramByName(cc);
  if ((!compiler || !llvm::sys::fs::can_execute(*compiler)) &&
      cc.getNumOccurrences() == 0)
    compiler = llvm::sys::findProgramByName("cc");
  if (!compiler || !llvm::sys::fs::can_execute(*compiler))
    return fail("cannot find the C compiler '" + cc + "' (nor cc)");
  const std::string &runtimeDir = layout.runtimeLibraryDir;
  const std::string &llvmLibDir = layout.openmpLibraryDir;
  SmallVector<std::string> args = {*compiler,
                                   "-shared",
                                   "-fPIC",
                                   "-O2",
                                   "-o",
                                   outputFile,
                                   sourcePath,
                                   loaderPath,
                                   "-I" + layout.includeDir,
                                   "-L" + runtimeDir,
                                   cuda ? "-lwrapper_cuda_runtime"
                                        : "-lwrapper_runtime",
                                   "-Wl,-rpath," + runtimeDir,
                                   "-lm"};
  // Calls inside the library bind to its own definitions: an entry named
  // like a libc function (step, exp) must not call libc's.
  args.push_back("-Wl,-Bsymbolic");
  // CPU code calls memrefCopy for strided copies (the runtime defines it,
  // so that a model.so needs no MLIR library at run time) and OpenMP for
  // threads; CUDA host code needs neither.
  if (cuda)
    args.append({"-lwrapper_runtime"});
  if (!cuda && options.parallel)
    args.append({"-L" + llvmLibDir, "-lomp", "-Wl,-rpath," + llvmLibDir});
  // The objects first, before the libraries they need.
  args.insert(args.begin() + 6, objectPaths.begin(), objectPaths.end());
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::string linkError;
  int status = llvm::sys::ExecuteAndWait(*compiler, argRefs, std::nullopt, {},
                                         0, 0, &linkError);
  if (!keepTemps) {
    for (const std::string &object : objectPaths)
      llvm::sys::fs::remove(object);
    llvm::sys::fs::remove(sourcePath);
    llvm::sys::fs::remove(loaderPath);
  }
  timer.done("linking");
  if (status != 0)
    return fail("linking '" + outputFile + "' failed" +
                (linkError.empty() ? "" : ": " + linkError));
  if (external && failed(writeSafetensors(externalPath, weights, blob, error)))
    return fail(error);
  if (!external && appended &&
      failed(appendWeights(outputFile, weights, blob, error)))
    return fail(error);
  return 0;
}
