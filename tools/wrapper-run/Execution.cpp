//===- Execution.cpp - JIT compilation and timing of runs -----------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Runner.h"
#include "ToolSupport.h"

#include "Wrapper/Runtime/WrapperCuda.h"
#include "Wrapper/Runtime/WrapperRuntime.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <chrono>
#include <vector>

using namespace mlir;
using namespace mlir::wrapper;

std::unique_ptr<ExecutionEngine>
mlir::wrapper::createJIT(ModuleOp module, const JITOptions &options,
                         std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  ExecutionEngineOptions engineOptions;
  // Optimize for the host CPU (or --mcpu/--mattr): without its
  // TargetMachine, LLVM's cost model knows no vector units and vectorizes
  // nothing.
  std::unique_ptr<llvm::TargetMachine> hostMachine = createHostTargetMachine(
      options.cpu, options.features, /*pic=*/false, error);
  if (!hostMachine)
    return nullptr;
  // (ExecutionEngineOptions holds a function_ref: the callable lives here.)
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(2, 0, hostMachine.get());
  std::function<llvm::Error(llvm::Module *)> transformer =
      [&optimize](llvm::Module *module) {
        exemptHugeFunctionsFromOptimization(*module);
        return optimize(module);
      };
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
  if (options.openmp && llvm::sys::fs::exists(omp))
    libs.push_back(omp);
  if (llvm::sys::fs::exists(runnerUtils))
    libs.push_back(runnerUtils);
  engineOptions.sharedLibPaths = libs;
  // The JIT generates code for the same CPU and features.
  std::unique_ptr<llvm::TargetMachine> jitMachine = createHostTargetMachine(
      options.cpu, options.features, /*pic=*/false, error);
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

void mlir::wrapper::benchmarkOnCPU(ModuleOp module, unsigned runs,
                                   function_ref<void()> run,
                                   function_ref<void()> release) {
  SmallVector<StringRef> kernels;
  if (auto names = module->getAttrOfType<ArrayAttr>("wrapper.profile_kernels"))
    for (Attribute name : names)
      kernels.push_back(cast<FlatSymbolRefAttr>(name).getValue());
  wrapper_profile_reset();
  std::vector<double> ms;
  for (unsigned i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    run();
    auto t1 = std::chrono::steady_clock::now();
    release();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  llvm::outs() << "benchmark: " << runs << " runs, min "
               << llvm::format("%.6f", ms.front()) << " ms, median "
               << llvm::format("%.6f", ms[ms.size() / 2]) << " ms\n";
  double total = 0;
  for (double t : ms)
    total += t;
  uint64_t totalBytes = 0;
  for (auto [id, kernel] : llvm::enumerate(kernels)) {
    uint64_t ns = 0, calls = 0;
    wrapper_profile_read(id, &ns, &calls);
    uint64_t bytes = wrapper_profile_read_bytes(id);
    totalBytes += bytes;
    double perRun = ns * 1e-6 / runs;
    llvm::outs() << "  kernel " << kernel << ": "
                 << llvm::format("%.4f", perRun) << " ms per run ("
                 << llvm::format("%.1f", 100.0 * ns * 1e-6 / total) << "%), "
                 << calls / runs << " calls per run, " << bytes / runs
                 << " bytes per run ("
                 << llvm::format("%.2f", ns ? double(bytes) / ns : 0.0)
                 << " GB/s)\n";
  }
  if (!kernels.empty())
    llvm::outs() << "  kernels moved " << totalBytes / runs
                 << " bytes per run (the buffers each call passes, at their "
                    "run-time sizes)\n";
}

LogicalResult mlir::wrapper::benchmarkOnGPU(unsigned runs,
                                            wrapper_cuda_graph *graph,
                                            function_ref<void()> run,
                                            function_ref<void()> release,
                                            std::string &error) {
  // Calls return once their work is queued: `count` calls back to back
  // (each freeing its results, as a caller would), then one wait; false on
  // a GPU error.
  auto callsThenWait = [&](unsigned count) {
    for (unsigned i = 0; i < count; ++i) {
      if (graph) {
        if (wrapper_cuda_graph_launch(graph) != WRAPPER_OK)
          return false;
        continue;
      }
      run();
      release();
    }
    return wrapper_cuda_synchronize() == WRAPPER_OK;
  };
  if (!callsThenWait(/*warm-up=*/2)) {
    error = wrapper_last_error();
    return failure();
  }
  auto t0 = std::chrono::steady_clock::now();
  if (!callsThenWait(runs)) {
    error = wrapper_last_error();
    return failure();
  }
  auto t1 = std::chrono::steady_clock::now();
  double ms = std::chrono::duration<double, std::milli>(t1 - t0).count() / runs;
  wrapper_cuda_stats stats;
  wrapper_cuda_get_stats(&stats);
  llvm::outs() << "benchmark: " << runs << " runs on the GPU"
               << (graph ? " (CUDA graph replays)" : "") << ", mean "
               << llvm::format("%.4f", ms) << " ms ("
               << llvm::format("%.2f", ms * 1e3) << " us) per run, "
               << stats.launches << " launches, " << stats.graph_launches
               << " graph launches, " << stats.modules_loaded
               << " module loads, " << stats.function_lookups
               << " function lookups\n";
  return success();
}
