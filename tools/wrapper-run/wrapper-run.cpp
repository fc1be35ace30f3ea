//===- wrapper-run.cpp - compile and run a module on the CPU --------------===//
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
#include "ToolSupport.h"

#include "Wrapper/Dialect/TensorProgram/Analysis/ShapeRequirements.h"
#include "Wrapper/Dialect/TensorProgram/IR/ShapeInference.h"
#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"
#include "Wrapper/InitAll.h"
#include "Wrapper/Interpreter/Interpreter.h"
#include "Wrapper/Pipelines/Pipelines.h"
#include "Wrapper/Runtime/WrapperCuda.h"
#include "Wrapper/Runtime/WrapperRuntime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <malloc.h>
#include <random>

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

/// Default tolerances by element type.
std::pair<double, double> tolerances(Type element) {
  double r = 1e-4, a = 1e-5;
  if (element.isF16())
    r = 1e-2, a = 1e-3;
  else if (element.isBF16())
    r = 2e-2, a = 1e-2;
  else if (element.isF64())
    r = 1e-9, a = 1e-12;
  else if (isa<IntegerType>(element))
    r = 0, a = 0;
  return {relTolerance >= 0 ? double(relTolerance) : r,
          absTolerance >= 0 ? double(absTolerance) : a};
}

/// Compares `actual` with `expected`; prints a line; returns whether close.
bool compareTensors(StringRef what, const HostTensor &actual,
                    const HostTensor &expected) {
  if (actual.shape != expected.shape) {
    llvm::outs() << what << ": shape " << formatShape(actual.shape)
                 << " differs from the reference's "
                 << formatShape(expected.shape) << ": FAIL\n";
    return false;
  }
  auto [r, a] = tolerances(actual.elementType);
  double maxAbs = 0, maxRel = 0;
  int64_t bad = 0, firstBad = -1;
  for (size_t i = 0; i < actual.values.size(); ++i) {
    double x = actual.values[i], y = expected.values[i];
    if (std::isnan(x) && std::isnan(y))
      continue;
    double diff = std::fabs(x - y);
    if (std::isinf(x) && std::isinf(y) && (x > 0) == (y > 0))
      diff = 0;
    if (std::isnan(diff))
      diff = INFINITY;
    maxAbs = std::max(maxAbs, diff);
    if (y != 0)
      maxRel = std::max(maxRel, diff / std::fabs(y));
    if (diff > a + r * std::fabs(y)) {
      if (firstBad < 0)
        firstBad = i;
      ++bad;
    }
  }
  llvm::outs() << what << ": max abs error " << llvm::format("%.3g", maxAbs)
               << ", max rel error " << llvm::format("%.3g", maxRel)
               << " (rtol " << llvm::format("%g", r) << ", atol "
               << llvm::format("%g", a) << "): ";
  if (bad) {
    llvm::outs() << "FAIL, " << bad << " of " << actual.values.size()
                 << " elements differ; first at flat index " << firstBad << ": "
                 << actual.values[firstBad] << " vs "
                 << expected.values[firstBad] << "\n";
    return false;
  }
  llvm::outs() << "ok\n";
  return true;
}

/// Random inputs for `types`: floats uniform in [-1, 1), integers in
/// [-5, 5], booleans fair coins; dynamic dimensions get --dynamic-size.
FailureOr<SmallVector<HostTensor>> randomInputs(TypeRange types,
                                                std::string &error) {
  std::mt19937_64 rng(seed);
  SmallVector<HostTensor> result;
  for (auto [index, type] : llvm::enumerate(types)) {
    HostTensor t;
    if (auto tensor = dyn_cast<RankedTensorType>(type)) {
      t.elementType = tensor.getElementType();
      for (int64_t size : tensor.getShape())
        t.shape.push_back(ShapedType::isDynamic(size) ? int64_t(dynamicSize)
                                                      : size);
    } else if (type.isIntOrIndexOrFloat()) {
      t.elementType = type;
    } else {
      error = "argument #" + std::to_string(index) + " has type " +
              typeToString(type) + ", which wrapper-run cannot generate";
      return failure();
    }
    // Count before allocating: a huge shape must be refused, not overflow.
    int64_t count = 1;
    bool overflow = false;
    for (int64_t size : t.shape)
      overflow |= llvm::MulOverflow<int64_t>(count, size, count);
    int64_t bytes = 0;
    int64_t width =
        t.elementType.isIntOrFloat()
            ? std::max<int64_t>(1,
                                (t.elementType.getIntOrFloatBitWidth() + 7) / 8)
            : 8;
    overflow |= llvm::MulOverflow<int64_t>(count, width, bytes);
    if (overflow || uint64_t(bytes) > maxAllocBytes) {
      error =
          "argument #" + std::to_string(index) + " of type " +
          typeToString(type) + " needs " +
          (overflow ? std::string("more than 2^63") : std::to_string(bytes)) +
          " bytes, more than --max-alloc-bytes=" +
          std::to_string(uint64_t(maxAllocBytes));
      return failure();
    }
    t.values.resize(count);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    std::uniform_int_distribution<int> integers(-5, 5);
    for (double &v : t.values) {
      if (isa<FloatType>(t.elementType))
        v = roundToElementType(uniform(rng), t.elementType);
      else if (t.elementType.isInteger(1))
        v = rng() & 1;
      else if (isa<IndexType>(t.elementType))
        v = dynamicSize;
      else
        v = integers(rng);
    }
    result.push_back(std::move(t));
  }
  return result;
}

} // namespace

/// A JIT for `module` (already in the LLVM dialect), optimized for the host
/// CPU or --mcpu/--mattr.
static std::unique_ptr<ExecutionEngine> createEngine(ModuleOp module,
                                                     std::string &error,
                                                     bool openmp) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  ExecutionEngineOptions engineOptions;
  // Optimize for the host CPU (or --mcpu/--mattr): without its
  // TargetMachine, LLVM's cost model knows no vector units and vectorizes
  // nothing.
  std::unique_ptr<llvm::TargetMachine> hostMachine =
      createHostTargetMachine(getCommandLineCPU(), getCommandLineFeatures(), /*pic=*/false, error);
  if (!hostMachine)
    return nullptr;
  auto transformer = makeOptimizingTransformer(2, 0, hostMachine.get());
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  SmallVector<StringRef> libs;
  // libomp runs the parallel loops; MLIR's C runner utils provide
  // memrefCopy for copies between strided buffers.
  // (The mgpu* functions of --target=cuda come from libwrapper_cuda_runtime,
  // which wrapper-run links.) Libraries the build found but this machine
  // lacks (tools moved elsewhere) are left to the process's own symbols.
  std::string omp = WRAPPER_LIBOMP_PATH;
  std::string runnerUtils = WRAPPER_C_RUNNER_UTILS_PATH;
  if (openmp && llvm::sys::fs::exists(omp))
    libs.push_back(omp);
  if (llvm::sys::fs::exists(runnerUtils))
    libs.push_back(runnerUtils);
  engineOptions.sharedLibPaths = libs;
  // The JIT generates code for the same CPU and features.
  std::unique_ptr<llvm::TargetMachine> jitMachine =
      createHostTargetMachine(getCommandLineCPU(), getCommandLineFeatures(), /*pic=*/false, error);
  if (!jitMachine)
    return nullptr;
  auto engine =
      ExecutionEngine::create(module, engineOptions, std::move(jitMachine));
  if (!engine) {
    error = "JIT compilation failed: " + llvm::toString(engine.takeError());
    return nullptr;
  }
  return std::move(*engine);
}

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
          createEngine(*module, error, options.parallel);
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
                             output, reference.results[i]);
    }
  }
  llvm::outs() << "differential: "
               << (ok ? "all configurations agree" : "MISMATCH") << "\n";
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerCompilerCLOptions(category);
  cl::HideUnrelatedOptions(category);
  showDefaults(seed, dynamicSize, print, target, wrapperHost, debugDir,
               maxAllocBytes);
  appendDefaultToHelp(debugPrinter, "off");
  cl::ParseCommandLineOptions(argc, argv,
                              "wrapper-run: compile and run a module on the "
                              "CPU, or on an NVIDIA GPU with --target=cuda\n");
  // Large buffers are reused between runs instead of being mapped and
  // faulted in again on every call (glibc maps blocks above 32 MiB).
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  if (numThreads.getNumOccurrences() && numThreads < 1)
    return fail("--num-threads must be at least 1, got " +
                llvm::Twine(int(numThreads)) +
                " (leave it out to use every core)");
  if (numThreads > 0)
    setenv("OMP_NUM_THREADS", std::to_string(numThreads).c_str(), 1);
  if (target != "cpu" && target != "cuda")
    return fail("--target must be cpu or cuda, got '" + target + "'");
  // The options, checked before the input is read.
  if (!getCommandLineCPU().empty() || !getCommandLineFeatures().empty()) {
    std::string machineError;
    if (!createHostTargetMachine(getCommandLineCPU(), getCommandLineFeatures(),
                                 /*pic=*/false, machineError))
      return fail(machineError);
  }
  {
    std::string problem;
    CPUPipelineOptions cpuOptions;
    CUDAPipelineOptions cudaOptions;
    if (target == "cpu" ? failed(setPipelineOptions(cpuOptions, problem))
                        : failed(setCUDAPipelineOptions(cudaOptions, problem)))
      return fail(problem);
  }
  if (debugPrinter == DebugPrinterLevel::Save) {
    if (std::error_code ec = llvm::sys::fs::create_directories(debugDir))
      return fail("cannot create --debug-dir '" + debugDir +
                  "': " + ec.message());
  }
  if (target == "cuda" && differential)
    return fail("--target=cuda does not support --differential yet");
  if (cudaGraph && target != "cuda")
    return fail("--cuda-graph needs --target=cuda");

  std::string error;
  std::unique_ptr<ToolInput> input = ToolInput::load(inputFile, error);
  if (!input)
    return error.empty() ? 1 : fail(error);
  MLIRContext &context = input->getContext();
  ModuleOp module = input->getModule();
  // The entry: a tensor_program function, or a wrapper.graph (whose buffer
  // arguments and results are read and written as tensors of their shape).
  GraphOp graph;
  func::FuncOp func;
  if (!entry.empty()) {
    graph = module.lookupSymbol<GraphOp>(entry);
  } else {
    // One public function or graph, or the one named main; several others
    // are ambiguous (never pick one silently).
    SmallVector<std::string> names;
    for (auto f : module.getOps<func::FuncOp>())
      if (f.isPublic() && !f.isExternal())
        names.push_back("function " + f.getName().str());
    auto graphs = llvm::to_vector(module.getOps<GraphOp>());
    for (GraphOp g : graphs)
      names.push_back("graph " + g.getSymName().str());
    if (graphs.size() == 1 && names.size() == 1)
      graph = graphs.front();
    else if (auto main = module.lookupSymbol<GraphOp>("main"))
      graph = main;
    else if (names.size() > 1 && !module.lookupSymbol<func::FuncOp>("main"))
      return fail("the module has " + std::to_string(names.size()) +
                  " entry candidates (" + llvm::join(names, ", ") +
                  "); name one with --entry");
  }
  if (!graph) {
    func = findEntryFunction(module, entry, error);
    if (!func)
      return fail(error);
  }
  if (failed(checkKernelImplementations(module, error)))
    return fail(error);
  std::string entryName =
      graph ? graph.getSymName().str() : func.getName().str();
  auto asTensors = [](ArrayRef<Type> types) {
    SmallVector<Type> result;
    for (Type type : types) {
      auto memref = dyn_cast<MemRefType>(type);
      result.push_back(memref ? RankedTensorType::get(memref.getShape(),
                                                      memref.getElementType())
                              : type);
    }
    return result;
  };
  SmallVector<Type> argTypesStorage =
      asTensors(graph ? graph.getArgumentTypes() : func.getArgumentTypes());
  SmallVector<Type> resultTypesStorage =
      asTensors(graph ? graph.getResultTypes() : func.getResultTypes());
  TypeRange argTypes = argTypesStorage;
  TypeRange resultTypes = resultTypesStorage;
  if (graph && (verifyWithInterpreter || interpretOnly))
    return fail("the reference interpreter runs tensor_program functions, "
                "not wrapper graphs; use --compare with reference files");
  for (auto [index, type] : llvm::enumerate(resultTypes))
    if (!isa<RankedTensorType>(type))
      return fail("result #" + llvm::Twine(index) + " of '" + entryName +
                  "' has type " + typeToString(type) +
                  "; wrapper-run returns ranked tensors only");

  // Inputs.
  SmallVector<HostTensor> args;
  if (!inputs.empty()) {
    if (inputs.size() != argTypes.size())
      return fail("'" + entryName + "' takes " + llvm::Twine(argTypes.size()) +
                  " arguments, but " + llvm::Twine(inputs.size()) +
                  " --input files were given");
    for (auto [index, path] : llvm::enumerate(inputs)) {
      FailureOr<HostTensor> t = loadInput(path, argTypes[index], index, error);
      if (failed(t))
        return fail(error);
      args.push_back(std::move(*t));
    }
  } else {
    if (dynamicSize < 0)
      return fail("--dynamic-size must be non-negative, got " +
                  llvm::Twine(int64_t(dynamicSize)));
    FailureOr<SmallVector<HostTensor>> random = randomInputs(argTypes, error);
    if (failed(random))
      return fail(error);
    args = std::move(*random);
  }
  uint64_t inputBytes = 0;
  for (const HostTensor &t : args)
    inputBytes += hostBytes(t);
  if (inputBytes > maxAllocBytes)
    return fail("the inputs need " + llvm::Twine(inputBytes) +
                " bytes, more than --max-alloc-bytes=" +
                llvm::Twine(uint64_t(maxAllocBytes)));
  if (!saveInputsPrefix.empty())
    for (auto [index, arg] : llvm::enumerate(args))
      if (failed(saveOutput(saveInputsPrefix + std::to_string(index) + ".npy",
                            arg, error)))
        return fail(error);
  if (func) {
    // The relations the compiled code relies on (the model container of
    // wrapper-compile checks the same ones).
    SmallVector<SmallVector<int64_t>> shapes;
    for (const HostTensor &arg : args)
      shapes.emplace_back(arg.shape.begin(), arg.shape.end());
    if (std::optional<std::string> shapeError =
            tensor_program::ShapeRequirements::collect(func).check(shapes))
      return fail(*shapeError);
  }

  // The oracle.
  std::optional<InterpreterResult> reference;
  if (verifyWithInterpreter || interpretOnly) {
    FailureOr<InterpreterResult> r = interpret(func, args, error);
    if (failed(r))
      return fail("reference interpreter: " + error);
    reference = std::move(*r);
  }

  if (differential) {
    if (!func)
      return fail("--differential compiles tensor_program functions, not "
                  "wrapper graphs");
    FailureOr<InterpreterResult> r =
        reference ? FailureOr<InterpreterResult>(std::move(*reference))
                  : interpret(func, args, error);
    if (failed(r))
      return fail("reference interpreter: " + error);
    return runDifferential(module, entryName, args, argTypes, resultTypes, *r);
  }

  SmallVector<HostTensor> outputs;
  if (interpretOnly) {
    outputs = reference->results;
  } else {
    // Compile.
    DefaultTimingManager tm;
    tm.setEnabled(timePasses);
    TimingScope rootTiming = tm.getRootScope();
    PassManager pm(&context);
    bool openmp = false;
    pm.enableTiming(rootTiming);
    // Compile only what the entry needs: other functions become private and
    // symbol-dce removes those it does not call.
    if (func && target == "cuda") {
      privatizeAllBut(module, func);
      pm.addPass(createSymbolDCEPass());
      CUDAPipelineOptions options;
      if (failed(setCUDAPipelineOptions(options, error)))
        return fail(error);
      options.cInterface = true;
      options.deviceArguments = true;
      options.wrapperHost = wrapperHost;
      buildCUDAPipeline(pm, options);
    } else if (target == "cuda") {
      return fail("--target=cuda compiles tensor_program functions, not "
                  "wrapper graphs");
    } else if (func) {
      privatizeAllBut(module, func);
      pm.addPass(createSymbolDCEPass());
      CPUPipelineOptions options;
      if (failed(setPipelineOptions(options, error)))
        return fail(error);
      openmp = options.parallel;
      buildCPUPipeline(pm, options);
    } else {
      // A wrapper-level module: its kernels and host graph go straight to
      // the codegen pipeline, with the code generator's share of the same
      // options.
      CPUPipelineOptions options;
      if (failed(setPipelineOptions(options, error)))
        return fail(error);
      openmp = options.parallel;
      buildCPUCodegenPipeline(pm, options);
    }
    auto start = std::chrono::steady_clock::now();
    if (failed(pm.run(module)))
      return fail("compilation failed");
    auto compiled = std::chrono::steady_clock::now();

    std::unique_ptr<ExecutionEngine> engine =
        createEngine(module, error, openmp);
    if (!engine)
      return fail(error);
    auto jitted = std::chrono::steady_clock::now();
    if (timing)
      llvm::errs() << "compile: pipeline "
                   << llvm::format("%.1f",
                                   std::chrono::duration<double, std::milli>(
                                       compiled - start)
                                       .count())
                   << " ms, LLVM JIT "
                   << llvm::format("%.1f",
                                   std::chrono::duration<double, std::milli>(
                                       jitted - compiled)
                                       .count())
                   << " ms\n";

    // Run.
    bool cuda = target == "cuda";
    if (cuda && !wrapper_cuda_available())
      return fail(std::string("--target=cuda: ") + wrapper_last_error());
    CallFrame frame(args, argTypes, resultTypes, /*device=*/cuda);
    if (!frame.error().empty())
      return fail("--target=cuda: " + frame.error());
    // The entry is looked up once (a JIT lookup per call would cost
    // microseconds, which the GPU benchmark's per-call time would show).
    // Global constructors (the GPU module loads) run first.
    std::string symbol = "_mlir_ciface_" + entryName;
    engine->initialize();
    auto entry = engine->lookupPacked(symbol);
    if (!entry)
      return fail("running '" + entryName +
                  "' failed: " + llvm::toString(entry.takeError()));
    auto run = [&] {
      frame.reset();
      (*entry)(frame.packed().data());
    };
    run();
    // Errors of the device calls (the host code's mgpu* calls return none).
    if (target == "cuda" && wrapper_cuda_synchronize() != WRAPPER_OK)
      return fail(std::string("running '") + entryName +
                  "' on the GPU failed: " + wrapper_last_error());
    outputs = frame.takeResults();
    if (!frame.error().empty())
      return fail("--target=cuda: " + frame.error());
    // --cuda-graph: one call (after the one above, which made the
    // constants' device copies) captured into a graph; its results are the
    // buffers every replay rewrites.
    wrapper_cuda_graph *graph = nullptr;
    llvm::scope_exit destroyGraph([&] {
      (void)wrapper_cuda_graph_destroy(graph);
      frame.releaseResults();
    });
    if (cudaGraph) {
      if (wrapper_cuda_graph_begin() != WRAPPER_OK)
        return fail(std::string("--cuda-graph: ") + wrapper_last_error());
      run();
      if (wrapper_cuda_graph_end(&graph) != WRAPPER_OK)
        return fail("--cuda-graph: capturing a call of '" + entryName +
                    "' failed: " + wrapper_last_error());
      if (wrapper_cuda_graph_launch(graph) != WRAPPER_OK ||
          wrapper_cuda_synchronize() != WRAPPER_OK)
        return fail("--cuda-graph: replaying '" + entryName +
                    "' failed: " + wrapper_last_error());
      outputs = frame.readResults();
      if (!frame.error().empty())
        return fail("--cuda-graph: " + frame.error());
    }
    if (benchmark > 0 && cuda) {
      // Calls return once their work is queued: time `benchmark` calls
      // back to back (each freeing its results, as a caller would), waiting
      // for the GPU once at the end; the mean is the time per call that
      // the GPU (or the host, for tiny kernels) sustains.
      // `count` calls, then one wait; false (with the message) on a GPU
      // error.
      auto callsThenWait = [&](unsigned count) {
        for (unsigned i = 0; i < count; ++i) {
          if (graph) {
            if (wrapper_cuda_graph_launch(graph) != WRAPPER_OK)
              return false;
            continue;
          }
          run();
          frame.releaseResults();
        }
        return wrapper_cuda_synchronize() == WRAPPER_OK;
      };
      std::string gpuFailed = "running '" + entryName + "' on the GPU failed: ";
      if (!callsThenWait(/*warm-up=*/2))
        return fail(gpuFailed + wrapper_last_error());
      auto t0 = std::chrono::steady_clock::now();
      if (!callsThenWait(benchmark))
        return fail(gpuFailed + wrapper_last_error());
      auto t1 = std::chrono::steady_clock::now();
      double ms = std::chrono::duration<double, std::milli>(t1 - t0).count() /
                  benchmark;
      wrapper_cuda_stats stats;
      wrapper_cuda_get_stats(&stats);
      llvm::outs() << "benchmark: " << benchmark << " runs on the GPU"
                   << (graph ? " (CUDA graph replays)" : "") << ", mean "
                   << llvm::format("%.4f", ms) << " ms ("
                   << llvm::format("%.2f", ms * 1e3) << " us) per run, "
                   << stats.launches << " launches, " << stats.graph_launches
                   << " graph launches, " << stats.modules_loaded
                   << " module loads, " << stats.function_lookups
                   << " function lookups\n";
    } else if (benchmark > 0) {
      SmallVector<StringRef> kernels;
      if (auto names =
              module->getAttrOfType<ArrayAttr>("wrapper.profile_kernels"))
        for (Attribute name : names)
          kernels.push_back(cast<FlatSymbolRefAttr>(name).getValue());
      wrapper_profile_reset();
      std::vector<double> ms;
      for (unsigned i = 0; i < benchmark; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        run();
        auto t1 = std::chrono::steady_clock::now();
        frame.releaseResults();
        ms.push_back(
            std::chrono::duration<double, std::milli>(t1 - t0).count());
      }
      std::sort(ms.begin(), ms.end());
      llvm::outs() << "benchmark: " << benchmark << " runs, min "
                   << llvm::format("%.4f", ms.front()) << " ms, median "
                   << llvm::format("%.4f", ms[ms.size() / 2]) << " ms\n";
      double total = 0;
      for (double t : ms)
        total += t;
      for (auto [id, kernel] : llvm::enumerate(kernels)) {
        uint64_t ns = 0, calls = 0;
        wrapper_profile_read(id, &ns, &calls);
        double perRun = ns * 1e-6 / benchmark;
        llvm::outs() << "  kernel " << kernel << ": "
                     << llvm::format("%.4f", perRun) << " ms per run ("
                     << llvm::format("%.1f", 100.0 * ns * 1e-6 / total)
                     << "%), " << calls / benchmark << " calls per run\n";
      }
    }
  }

  // Report.
  bool ok = true;
  for (auto [index, output] : llvm::enumerate(outputs)) {
    std::string name = "output #" + std::to_string(index);
    if (print && !benchmark)
      printTensor(llvm::outs(), name, output);
    if (!savePrefix.empty()) {
      std::string path = savePrefix + std::to_string(index) + ".npy";
      if (failed(saveOutput(path, output, error)))
        return fail(error);
    }
    if (index < compare.size()) {
      FailureOr<HostTensor> expected =
          loadInput(compare[index],
                    RankedTensorType::get(output.shape, output.elementType),
                    index, error, /*what=*/"reference");
      if (failed(expected))
        return fail(error);
      ok &= compareTensors(name + " vs " + compare[index], output, *expected);
    }
    if (reference && !interpretOnly)
      ok &= compareTensors(name + " vs interpreter", output,
                           reference->results[index]);
  }
  if (compare.size() > outputs.size())
    return fail(llvm::Twine(compare.size()) + " --compare files for " +
                llvm::Twine(outputs.size()) + " outputs");
  return ok ? 0 : 1;
}
