//===- Passes.h - wrapper dialect passes ------------------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_WRAPPER_TRANSFORMS_PASSES_H
#define WRAPPER_DIALECT_WRAPPER_TRANSFORMS_PASSES_H

#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace wrapper {

/// How --wrapper-plan-memory assigns storage (its `strategy` option, and the
/// pipelines' `plan-memory`).
enum class MemoryPlanStrategy {
  /// Every buffer keeps its own allocation.
  None,
  /// A dead buffer's storage is reused by a later one of the same size.
  Reuse,
  /// Buffers of static size are views into one pool, placed by lifetime.
  Pool,
};

/// The command-line spellings of MemoryPlanStrategy.
inline llvm::cl::ValuesClass getMemoryPlanStrategyValues() {
  return llvm::cl::values(
      clEnumValN(MemoryPlanStrategy::None, "none", "no planning"),
      clEnumValN(MemoryPlanStrategy::Reuse, "reuse",
                 "reuse dead buffers' storage"),
      clEnumValN(MemoryPlanStrategy::Pool, "pool",
                 "views into one pool placed by lifetime"));
}

/// What --wrapper-insert-debug-printer inserts around kernel calls (its
/// `level` option, and the CPU pipeline's `debug-printer`).
enum class DebugPrinterLevel {
  /// Nothing; existing debug ops are removed.
  Off,
  /// Every buffer argument saved as .npy before and after the call.
  Save,
  /// Every buffer argument printed before and after the call.
  Print,
  /// The kernel's name printed before the call.
  KernelNames,
};

/// The command-line spellings of DebugPrinterLevel.
inline llvm::cl::ValuesClass getDebugPrinterLevelValues() {
  return llvm::cl::values(
      clEnumValN(DebugPrinterLevel::Off, "off", "no debug output"),
      clEnumValN(DebugPrinterLevel::Save, "save",
                 "save arguments as .npy files"),
      clEnumValN(DebugPrinterLevel::Print, "print", "print arguments"),
      clEnumValN(DebugPrinterLevel::KernelNames, "kernel-names",
                 "print kernel names"));
}

/// The spellings, for remarks and printed pipelines.
StringRef stringifyMemoryPlanStrategy(MemoryPlanStrategy strategy);
StringRef stringifyDebugPrinterLevel(DebugPrinterLevel level);
llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                              MemoryPlanStrategy strategy);
llvm::raw_ostream &operator<<(llvm::raw_ostream &os, DebugPrinterLevel level);

#define GEN_PASS_DECL
#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h.inc"

/// Memory use of a graph, counted over buffers of static size: what
/// --wrapper-plan-memory reports and its tests compare.
struct MemoryProfile {
  /// Largest number of bytes of static-size storage live at once.
  int64_t peakBytes = 0;
  /// Allocations (alloc and extern_alloc; not reuse or view).
  int64_t allocations = 0;
  /// Allocations whose size is only known at run time (not in peakBytes).
  int64_t dynamicAllocations = 0;
};

/// Simulates `graph` in program order.
MemoryProfile computeMemoryProfile(GraphOp graph);

#define GEN_PASS_REGISTRATION
#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h.inc"

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_DIALECT_WRAPPER_TRANSFORMS_PASSES_H
