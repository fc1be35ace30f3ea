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
