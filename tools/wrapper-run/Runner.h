//===- Runner.h - wrapper-run as a library ----------------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
// What wrapper-run does, as functions a tool or a test can call (as
// mlir-runner is a main over mlir::JitRunnerMain): JIT compilation of a
// lowered module, timing of repeated calls on the CPU and the GPU, and the
// whole tool behind wrapperRunMain. Host arrays, .npy files, call frames,
// comparisons and random inputs are in HostArrays.h.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_TOOLS_WRAPPER_RUN_RUNNER_H
#define WRAPPER_TOOLS_WRAPPER_RUN_RUNNER_H

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>

struct wrapper_cuda_graph;

namespace mlir {
namespace wrapper {

/// What the JIT generates code for and links.
struct JITOptions {
  /// The CPU and its features (empty: the host's).
  StringRef cpu, features;
  /// Load libomp for the kernels' parallel loops.
  bool openmp = true;
};

/// A JIT for `module` (already in the LLVM dialect), optimized for the
/// target of `options` (LLVM -O2, aggressive code generation), with MLIR's C
/// runner utilities (and libomp) loaded. Null with `error` set on failure.
std::unique_ptr<ExecutionEngine>
createJIT(ModuleOp module, const JITOptions &options, std::string &error);

/// Times `runs` calls of `run` on the CPU (each followed by `release`,
/// untimed) and prints the minimum and median and, when the module was
/// compiled with profiling, each kernel's share (its
/// `wrapper.profile_kernels`).
void benchmarkOnCPU(ModuleOp module, unsigned runs, function_ref<void()> run,
                    function_ref<void()> release);

/// Times `runs` calls of `run` (or replays of `graph` when given) queued
/// back to back on the GPU, after two warm-up calls, waiting once at the
/// end; prints the mean per call and the runtime's launch counters.
/// Failure with `error` set when the GPU reports an error.
LogicalResult benchmarkOnGPU(unsigned runs, wrapper_cuda_graph *graph,
                             function_ref<void()> run,
                             function_ref<void()> release, std::string &error);

/// The wrapper-run tool: parses the command line, compiles, runs, reports.
/// Returns the process's exit code.
int wrapperRunMain(int argc, char **argv);

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_TOOLS_WRAPPER_RUN_RUNNER_H
