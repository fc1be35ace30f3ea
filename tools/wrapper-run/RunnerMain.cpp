//===- RunnerMain.cpp - the wrapper-run tool ------------------------------===//
//
// Part of the Wrapper project.
//
// Compiles a tensor_program (or linalg-on-tensors) module with the CPU
// pipeline, JIT-compiles it, runs its entry function on inputs read from
// .npy files or generated from a seed, and prints, saves or checks the
// outputs: against .npy references (--compare) or against the reference
// interpreter (--verify). --benchmark times repeated runs.
//
//===----------------------------------------------------------------------===//

#include "CompilerOptions.h"
#include "HostArrays.h"
#include "Runner.h"
#include "ToolSupport.h"
#include "ToolVersion.h"

#include "Wrapper/Dialect/TensorProgram/Analysis/ShapeRequirements.h"
#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"
#include "Wrapper/InitAll.h"
#include "Wrapper/Interpreter/Interpreter.h"
#include "Wrapper/Pipelines/Pipelines.h"
#include "Wrapper/Runtime/WrapperCuda.h"
#include "Wrapper/Runtime/WrapperRuntime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>
#include <cstdlib>
#include <malloc.h>

using namespace mlir;
using namespace mlir::wrapper;
namespace cl = llvm::cl;

static cl::OptionCategory category("wrapper-run options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<module.mlir>"),
                                      cl::init("-"), cl::cat(category));
static cl::opt<std::string> entry("entry",
                                  cl::desc("Function to run (default: the "
                                           "only public function, or main)"),
                                  cl::cat(category));
static cl::list<std::string> inputs("input",
                                    cl::desc("A .npy file per argument, in "
                                             "order (default: random data)"),
                                    cl::cat(category));
static cl::opt<unsigned> seed("seed", cl::desc("Seed of the random inputs"),
                              cl::init(0), cl::cat(category));
static cl::opt<int64_t>
    dynamicSize("dynamic-size",
                cl::desc("Size of every dynamic dimension of random inputs"),
                cl::init(5), cl::cat(category));
static cl::opt<bool> print("print", cl::desc("Print the outputs"),
                           cl::init(true), cl::cat(category));
static cl::opt<std::string>
    savePrefix("save", cl::desc("Save output #i to <prefix><i>.npy"),
               cl::cat(category));
static cl::opt<std::string>
    saveInputsPrefix("save-inputs",
                     cl::desc("Save input #i to <prefix><i>.npy"),
                     cl::cat(category));
static cl::list<std::string>
    compare("compare", cl::desc("A reference .npy file per output, in order"),
            cl::cat(category));
static cl::opt<bool> verifyWithInterpreter(
    "verify",
    cl::desc("Also run the reference interpreter and compare the outputs"),
    cl::cat(category));
static cl::opt<bool>
    interpretOnly("interpret", cl::desc("Run only the reference interpreter"),
                  cl::cat(category));
static cl::opt<std::string>
    target("target",
           cl::desc("Where the program runs: cpu, or cuda (an NVIDIA GPU "
                    "through --wrapper-cuda-pipeline; inputs are copied to "
                    "the device and outputs back)"),
           cl::init("cpu"), cl::cat(category));
static cl::opt<bool> differential(
    "differential",
    cl::desc("Compile the function with every fusion setting (on, off) and "
             "memory-planning strategy (none, reuse, pool), small and default "
             "tiles alternating, run each on the same inputs and compare "
             "each with the reference interpreter"),
    cl::cat(category));
static cl::opt<bool> cudaGraph(
    "cuda-graph",
    cl::desc("With --target=cuda: capture one call into a CUDA graph and "
             "replay it (outputs come from a replay; --benchmark times "
             "replays)"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> wrapperHost(
    "wrapper-host",
    cl::desc("Compile through kernels and a wrapper host graph (memory "
             "planning); false: each function as a whole"),
    cl::init(true), cl::cat(category));
static cl::opt<double>
    relTolerance("rtol", cl::desc("Relative tolerance (default: by dtype)"),
                 cl::init(-1), cl::cat(category));
static cl::opt<double>
    absTolerance("atol", cl::desc("Absolute tolerance (default: by dtype)"),
                 cl::init(-1), cl::cat(category));
static cl::opt<unsigned>
    benchmark("benchmark", cl::desc("Time this many runs after a warm-up run"),
              cl::init(0), cl::cat(category));
static cl::opt<int> numThreads("num-threads",
                               cl::desc("Worker threads (OMP_NUM_THREADS; "
                                        "default: all cores)"),
                               cl::init(0), cl::cat(category));
static cl::opt<DebugPrinterLevel>
    debugPrinter("debug-printer", cl::desc("Debug output around kernel calls"),
                 cl::init(DebugPrinterLevel::Off), getDebugPrinterLevelValues(),
                 cl::cat(category));
static cl::list<std::string>
    debugKernels("debug-kernels",
                 cl::desc("Kernels the debug printer instruments (comma "
                          "separated; all when not given)"),
                 cl::CommaSeparated, cl::cat(category));
static cl::opt<std::string>
    debugDir("debug-dir",
             cl::desc("Directory of the .npy files of --debug-printer=save"),
             cl::init("."), cl::cat(category));
static cl::opt<uint64_t> maxAllocBytes(
    "max-alloc-bytes",
    cl::desc("Refuse inputs and outputs above this many bytes in total"),
    cl::init(uint64_t(16) << 30), cl::cat(category));
static cl::opt<bool> timing("time",
                            cl::desc("Report the compile time (pipeline and "
                                     "LLVM JIT)"),
                            cl::cat(category));
static cl::opt<bool> timePasses("pass-timing",
                                cl::desc("Report the time of every pass"),
                                cl::cat(category));

namespace {
/// Reports an error and returns the exit code of the tool.
int fail(const llvm::Twine &message) {
  llvm::errs() << "wrapper-run: error: " << message << "\n";
  return 1;
}

/// The tolerances of --rtol and --atol.
Tolerances tolerances() { return {relTolerance, absTolerance}; }

/// The function or graph that runs, with its argument and result types as
/// tensors (a graph's buffers are read and written as tensors of their
/// shape).
struct Entry {
  GraphOp graph;
  func::FuncOp func;
  std::string name;
  SmallVector<Type> argTypes, resultTypes;
};
} // namespace

/// The CPU that --mcpu/--mattr (or the host) describe, as the code
/// generator records it. A target that cannot be created leaves the choice
/// to the pipeline (the host); the JIT reports the problem.
static std::optional<CPUTarget> commandLineCPUTarget() {
  static const std::optional<CPUTarget> target =
      []() -> std::optional<CPUTarget> {
    std::string error;
    std::unique_ptr<llvm::TargetMachine> machine =
        createHostTargetMachine(getCommandLineCPU(), getCommandLineFeatures(),
                                /*pic=*/false, error);
    if (!machine)
      return std::nullopt;
    return cpuTargetOf(*machine);
  }();
  return target;
}

/// Sets `options` to what the command line asks for (checked).
static LogicalResult setPipelineOptions(CPUPipelineOptions &options,
                                        std::string &error) {
  options.cInterface = true;
  options.profile = benchmark > 0;
  if (std::optional<CPUTarget> target = commandLineCPUTarget()) {
    options.targetCPU = target->cpu;
    options.targetFeatures = target->features;
    options.vectorWidth = target->vectorWidth;
  }
  options.wrapperHost = wrapperHost;
  options.debugPrinter = debugPrinter;
  options.debugKernels = ArrayRef<std::string>(debugKernels);
  options.debugDir = debugDir;
  return setCPUPipelineOptions(options, error);
}

/// --differential: `source` compiled with each fusion setting and planning
/// strategy, each run on `args` and compared with `reference`.
static int runDifferential(ModuleOp source, StringRef entryName,
                           ArrayRef<HostTensor> args, TypeRange argTypes,
                           TypeRange resultTypes,
                           const InterpreterResult &reference) {
  bool ok = true;
  unsigned index = 0;
  std::string error;
  CPUPipelineOptions commandLine;
  if (failed(setPipelineOptions(commandLine, error))) {
    llvm::outs() << error << "\n";
    return 1;
  }
  for (bool fused : {true, false}) {
    for (MemoryPlanStrategy strategy :
         {MemoryPlanStrategy::None, MemoryPlanStrategy::Reuse,
          MemoryPlanStrategy::Pool}) {
      int64_t tile = (index % 2) ? 5 : int64_t(commandLine.tileElements);
      // The last configuration lowers matmuls to plain loops.
      bool useGemm = commandLine.gemm && ++index != 6;
      std::string config;
      llvm::raw_string_ostream(config)
          << "fuse=" << (fused ? "on" : "off") << " plan-memory=" << strategy
          << " tile-elements=" << tile << " gemm=" << (useGemm ? "on" : "off");
      OwningOpRef<ModuleOp> module = source.clone();
      auto func = module->lookupSymbol<func::FuncOp>(entryName);
      privatizeAllBut(*module, func);
      PassManager pm(source.getContext());
      pm.addPass(createSymbolDCEPass());
      CPUPipelineOptions options;
      (void)setPipelineOptions(options, error);
      options.fuse = fused;
      options.planMemory = strategy;
      options.tileElements = tile;
      options.gemm = useGemm;
      // The small-tile configurations also put small GEMMs on threads, so
      // that the template's thread split meets the random programs.
      if (tile == 5) {
        GemmTemplateOptions &gemm = options.gemmOptions;
        gemm.minParallelWork = 0;
      }
      buildCPUPipeline(pm, options);
      if (failed(pm.run(*module))) {
        llvm::outs() << config << ": compilation failed\n";
        ok = false;
        continue;
      }
      std::unique_ptr<ExecutionEngine> engine =
          createJIT(*module,
                    JITOptions{getCommandLineCPU(), getCommandLineFeatures(),
                               options.parallel},
                    error);
      if (!engine) {
        llvm::outs() << config << ": " << error << "\n";
        ok = false;
        continue;
      }
      CallFrame frame(args, argTypes, resultTypes);
      if (llvm::Error err = engine->invokePacked(
              ("_mlir_ciface_" + entryName).str(), frame.packed())) {
        llvm::outs() << config
                     << ": run failed: " << llvm::toString(std::move(err))
                     << "\n";
        ok = false;
        continue;
      }
      SmallVector<HostTensor> outputs = frame.takeResults();
      for (auto [i, output] : llvm::enumerate(outputs))
        ok &= compareTensors(config + ": output #" + std::to_string(i) +
                                 " vs interpreter",
                             output, reference.results[i], tolerances());
    }
  }
  llvm::outs() << "differential: "
               << (ok ? "all configurations agree" : "MISMATCH") << "\n";
  return ok ? 0 : 1;
}

/// The options, checked before the input is read.
static LogicalResult checkCommandLine(std::string &error) {
  if (numThreads.getNumOccurrences() && numThreads < 1) {
    error = "--num-threads must be at least 1, got " +
            std::to_string(int(numThreads)) +
            " (leave it out to use every core)";
    return failure();
  }
  if (numThreads > 0)
    setenv("OMP_NUM_THREADS", std::to_string(numThreads).c_str(), 1);
  if (target != "cpu" && target != "cuda") {
    error = "--target must be cpu or cuda, got '" + target + "'";
    return failure();
  }
  if ((!getCommandLineCPU().empty() || !getCommandLineFeatures().empty()) &&
      !createHostTargetMachine(getCommandLineCPU(), getCommandLineFeatures(),
                               /*pic=*/false, error))
    return failure();
  CPUPipelineOptions cpuOptions;
  CUDAPipelineOptions cudaOptions;
  if (target == "cpu" ? failed(setPipelineOptions(cpuOptions, error)) ||
                            failed(refuseCUDAOnlyOptions(error))
                      : failed(setCUDAPipelineOptions(cudaOptions, error)))
    return failure();
  if (debugPrinter == DebugPrinterLevel::Save) {
    if (std::error_code ec = llvm::sys::fs::create_directories(debugDir)) {
      error = "cannot create --debug-dir '" + debugDir + "': " + ec.message();
      return failure();
    }
  }
  if (target == "cuda" && differential) {
    error = "--target=cuda does not support --differential yet";
    return failure();
  }
  if (cudaGraph && target != "cuda") {
    error = "--cuda-graph needs --target=cuda";
    return failure();
  }
  return success();
}

/// The entry: --entry, else the one public function or graph, or the one
/// named main; several others are ambiguous (never pick one silently).
static LogicalResult selectEntry(ModuleOp module, Entry &result,
                                 std::string &error) {
  if (!entry.empty()) {
    result.graph = module.lookupSymbol<GraphOp>(entry);
  } else {
    SmallVector<std::string> names;
    for (auto f : module.getOps<func::FuncOp>())
      if (f.isPublic() && !f.isExternal())
        names.push_back("function " + f.getName().str());
    auto graphs = llvm::to_vector(module.getOps<GraphOp>());
    for (GraphOp g : graphs)
      names.push_back("graph " + g.getSymName().str());
    if (graphs.size() == 1 && names.size() == 1) {
      result.graph = graphs.front();
    } else if (auto main = module.lookupSymbol<GraphOp>("main")) {
      result.graph = main;
    } else if (names.size() > 1 && !module.lookupSymbol<func::FuncOp>("main")) {
      error = "the module has " + std::to_string(names.size()) +
              " entry candidates (" + llvm::join(names, ", ") +
              "); name one with --entry";
      return failure();
    }
  }
  if (!result.graph) {
    result.func = findEntryFunction(module, entry, error);
    if (!result.func)
      return failure();
  }
  if (failed(checkKernelImplementations(module, error)))
    return failure();
  GraphOp graph = result.graph;
  result.name = graph ? graph.getSymName().str() : result.func.getName().str();
  auto asTensors = [](ArrayRef<Type> types) {
    SmallVector<Type> tensors;
    for (Type type : types) {
      auto memref = dyn_cast<MemRefType>(type);
      tensors.push_back(memref ? RankedTensorType::get(memref.getShape(),
                                                       memref.getElementType())
                               : type);
    }
    return tensors;
  };
  result.argTypes = asTensors(graph ? graph.getArgumentTypes()
                                    : result.func.getArgumentTypes());
  result.resultTypes =
      asTensors(graph ? graph.getResultTypes() : result.func.getResultTypes());
  if (graph && (verifyWithInterpreter || interpretOnly)) {
    error = "the reference interpreter runs tensor_program functions, not "
            "wrapper graphs; use --compare with reference files";
    return failure();
  }
  for (auto [index, type] : llvm::enumerate(result.resultTypes)) {
    if (isa<RankedTensorType>(type))
      continue;
    error = "result #" + std::to_string(index) + " of '" + result.name +
            "' has type " + typeToString(type) +
            "; wrapper-run returns ranked tensors only";
    return failure();
  }
  return success();
}

/// The inputs: --input files or random ones, checked against the size
/// limit and the shape relations the compiled code relies on (those the
/// model container of wrapper-compile checks), saved with --save-inputs.
static LogicalResult prepareInputs(const Entry &run,
                                   SmallVector<HostTensor> &args,
                                   std::string &error) {
  if (!inputs.empty()) {
    if (inputs.size() != run.argTypes.size()) {
      error = "'" + run.name + "' takes " +
              std::to_string(run.argTypes.size()) + " arguments, but " +
              std::to_string(inputs.size()) + " --input files were given";
      return failure();
    }
    for (auto [index, path] : llvm::enumerate(inputs)) {
      FailureOr<HostTensor> t =
          loadInput(path, run.argTypes[index], index, error);
      if (failed(t))
        return failure();
      args.push_back(std::move(*t));
    }
  } else {
    if (dynamicSize < 0) {
      error = "--dynamic-size must be non-negative, got " +
              std::to_string(int64_t(dynamicSize));
      return failure();
    }
    FailureOr<SmallVector<HostTensor>> random = randomInputs(
        run.argTypes, RandomInputOptions{seed, dynamicSize, maxAllocBytes},
        error);
    if (failed(random))
      return failure();
    args = std::move(*random);
  }
  uint64_t inputBytes = 0;
  for (const HostTensor &t : args)
    inputBytes += hostBytes(t);
  if (inputBytes > maxAllocBytes) {
    error = "the inputs need " + std::to_string(inputBytes) +
            " bytes, more than --max-alloc-bytes=" +
            std::to_string(uint64_t(maxAllocBytes));
    return failure();
  }
  if (!saveInputsPrefix.empty())
    for (auto [index, arg] : llvm::enumerate(args))
      if (failed(saveOutput(saveInputsPrefix + std::to_string(index) + ".npy",
                            arg, error)))
        return failure();
  if (run.func) {
    SmallVector<SmallVector<int64_t>> shapes;
    for (const HostTensor &arg : args)
      shapes.emplace_back(arg.shape.begin(), arg.shape.end());
    if (std::optional<std::string> shapeError =
            tensor_program::ShapeRequirements::collect(run.func).check(
                shapes)) {
      error = *shapeError;
      return failure();
    }
  }
  return success();
}

/// Compiles `module` for the entry with the pipeline the command line asks
/// for, and JIT-compiles it.
static std::unique_ptr<ExecutionEngine>
compileEntry(ModuleOp module, const Entry &run, std::string &error) {
  DefaultTimingManager tm;
  tm.setEnabled(timePasses);
  TimingScope rootTiming = tm.getRootScope();
  PassManager pm(module.getContext());
  pm.enableTiming(rootTiming);
  bool openmp = false;
  // Compile only what the entry needs: other functions become private and
  // symbol-dce removes those it does not call.
  if (run.func) {
    privatizeAllBut(module, run.func);
    pm.addPass(createSymbolDCEPass());
  }
  if (target == "cuda") {
    if (!run.func) {
      error = "--target=cuda compiles tensor_program functions, not wrapper "
              "graphs";
      return nullptr;
    }
    CUDAPipelineOptions options;
    if (failed(setCUDAPipelineOptions(options, error)))
      return nullptr;
    options.cInterface = true;
    options.deviceArguments = true;
    options.wrapperHost = wrapperHost;
    buildCUDAPipeline(pm, options);
  } else {
    CPUPipelineOptions options;
    if (failed(setPipelineOptions(options, error)))
      return nullptr;
    openmp = options.parallel;
    // A wrapper-level module: its kernels and host graph go straight to the
    // code generator, with its share of the same options.
    if (run.func)
      buildCPUPipeline(pm, options);
    else
      buildCPUCodegenPipeline(pm, options);
  }
  auto start = std::chrono::steady_clock::now();
  if (failed(pm.run(module))) {
    error = "compilation failed";
    return nullptr;
  }
  auto compiled = std::chrono::steady_clock::now();
  std::unique_ptr<ExecutionEngine> engine = createJIT(
      module, JITOptions{getCommandLineCPU(), getCommandLineFeatures(), openmp},
      error);
  auto jitted = std::chrono::steady_clock::now();
  if (engine && timing) {
    using Milliseconds = std::chrono::duration<double, std::milli>;
    llvm::errs() << "compile: pipeline "
                 << llvm::format("%.1f", Milliseconds(compiled - start).count())
                 << " ms, LLVM JIT "
                 << llvm::format("%.1f",
                                 Milliseconds(jitted - compiled).count())
                 << " ms\n";
  }
  return engine;
}

/// Runs the compiled entry on `args` (once, then --cuda-graph replays and
/// --benchmark runs); its outputs in `outputs`.
static LogicalResult runCompiled(ModuleOp module, ExecutionEngine &engine,
                                 const Entry &run, ArrayRef<HostTensor> args,
                                 SmallVector<HostTensor> &outputs,
                                 std::string &error) {
  bool cuda = target == "cuda";
  if (cuda && !wrapper_cuda_available()) {
    error = std::string("--target=cuda: ") + wrapper_last_error();
    return failure();
  }
  CallFrame frame(args, run.argTypes, run.resultTypes, /*device=*/cuda);
  if (!frame.error().empty()) {
    error = "--target=cuda: " + frame.error();
    return failure();
  }
  // The entry is looked up once (a JIT lookup per call would cost
  // microseconds, which the GPU benchmark's per-call time would show).
  // Global constructors (the GPU module loads) run first.
  engine.initialize();
  auto entryPoint = engine.lookupPacked("_mlir_ciface_" + run.name);
  if (!entryPoint) {
    error = "running '" + run.name +
            "' failed: " + llvm::toString(entryPoint.takeError());
    return failure();
  }
  auto call = [&] {
    frame.reset();
    (*entryPoint)(frame.packed().data());
  };
  auto release = [&] { frame.releaseResults(); };
  call();
  // Errors of the device calls (the host code's mgpu* calls return none).
  if (cuda && wrapper_cuda_synchronize() != WRAPPER_OK) {
    error = std::string("running '") + run.name +
            "' on the GPU failed: " + wrapper_last_error();
    return failure();
  }
  outputs = frame.takeResults();
  if (!frame.error().empty()) {
    error = "--target=cuda: " + frame.error();
    return failure();
  }
  // --cuda-graph: one call (after the one above, which made the constants'
  // device copies) captured into a graph; its results are the buffers every
  // replay rewrites.
  wrapper_cuda_graph *graph = nullptr;
  llvm::scope_exit destroyGraph([&] {
    (void)wrapper_cuda_graph_destroy(graph);
    frame.releaseResults();
  });
  if (cudaGraph) {
    if (wrapper_cuda_graph_begin() != WRAPPER_OK) {
      error = std::string("--cuda-graph: ") + wrapper_last_error();
      return failure();
    }
    call();
    if (wrapper_cuda_graph_end(&graph) != WRAPPER_OK) {
      error = "--cuda-graph: capturing a call of '" + run.name +
              "' failed: " + wrapper_last_error();
      return failure();
    }
    if (wrapper_cuda_graph_launch(graph) != WRAPPER_OK ||
        wrapper_cuda_synchronize() != WRAPPER_OK) {
      error = "--cuda-graph: replaying '" + run.name +
              "' failed: " + wrapper_last_error();
      return failure();
    }
    outputs = frame.readResults();
    if (!frame.error().empty()) {
      error = "--cuda-graph: " + frame.error();
      return failure();
    }
  }
  if (benchmark > 0 && cuda) {
    if (failed(benchmarkOnGPU(benchmark, graph, call, release, error))) {
      error = "running '" + run.name + "' on the GPU failed: " + error;
      return failure();
    }
  } else if (benchmark > 0) {
    benchmarkOnCPU(module, benchmark, call, release);
  }
  return success();
}

/// Prints, saves and compares the outputs; whether all agree.
static LogicalResult report(ArrayRef<HostTensor> outputs,
                            const std::optional<InterpreterResult> &reference,
                            bool &ok, std::string &error) {
  if (compare.size() > outputs.size()) {
    error = std::to_string(compare.size()) + " --compare files for " +
            std::to_string(outputs.size()) + " outputs";
    return failure();
  }
  ok = true;
  for (auto [index, output] : llvm::enumerate(outputs)) {
    std::string name = "output #" + std::to_string(index);
    if (print && !benchmark)
      printTensor(llvm::outs(), name, output);
    if (!savePrefix.empty()) {
      std::string path = savePrefix + std::to_string(index) + ".npy";
      if (failed(saveOutput(path, output, error)))
        return failure();
    }
    if (index < compare.size()) {
      FailureOr<HostTensor> expected =
          loadInput(compare[index],
                    RankedTensorType::get(output.shape, output.elementType),
                    index, error, /*what=*/"reference");
      if (failed(expected))
        return failure();
      ok &= compareTensors(name + " vs " + compare[index], output, *expected,
                           tolerances());
    }
    if (reference && !interpretOnly)
      ok &= compareTensors(name + " vs interpreter", output,
                           reference->results[index], tolerances());
  }
  return success();
}

int mlir::wrapper::wrapperRunMain(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerCompilerCLOptions(category);
  cl::HideUnrelatedOptions(category);
  showDefaults(seed, dynamicSize, print, target, wrapperHost, debugDir,
               maxAllocBytes);
  appendDefaultToHelp(debugPrinter, "off");
  addVersionPrinter();
  cl::ParseCommandLineOptions(argc, argv,
                              "wrapper-run: compile and run a module on the "
                              "CPU, or on an NVIDIA GPU with --target=cuda\n");
  // Large buffers are reused between runs instead of being mapped and
  // faulted in again on every call (glibc maps blocks above 32 MiB).
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  std::string error;
  if (failed(checkCommandLine(error)))
    return fail(error);
  std::unique_ptr<ToolInput> input = ToolInput::load(inputFile, error);
  if (!input)
    return error.empty() ? 1 : fail(error);
  ModuleOp module = input->getModule();
  Entry run;
  SmallVector<HostTensor> args;
  if (failed(selectEntry(module, run, error)) ||
      failed(prepareInputs(run, args, error)))
    return fail(error);

  // The oracle.
  std::optional<InterpreterResult> reference;
  if (verifyWithInterpreter || interpretOnly || differential) {
    if (!run.func)
      return fail("--differential compiles tensor_program functions, not "
                  "wrapper graphs");
    FailureOr<InterpreterResult> r = interpret(run.func, args, error);
    if (failed(r))
      return fail("reference interpreter: " + error);
    reference = std::move(*r);
  }
  if (differential)
    return runDifferential(module, run.name, args, run.argTypes,
                           run.resultTypes, *reference);

  SmallVector<HostTensor> outputs;
  if (interpretOnly) {
    outputs = reference->results;
  } else {
    std::unique_ptr<ExecutionEngine> engine = compileEntry(module, run, error);
    if (!engine ||
        failed(runCompiled(module, *engine, run, args, outputs, error)))
      return fail(error);
  }
  bool ok = false;
  if (failed(report(outputs, reference, ok, error)))
    return fail(error);
  return ok ? 0 : 1;
}
