//===- TensorProgramToLinalg.h - tensor_program to linalg -------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_CONVERSION_TENSORPROGRAMTOLINALG_H
#define WRAPPER_CONVERSION_TENSORPROGRAMTOLINALG_H

#include <cstdint>

namespace mlir {
class ConversionTarget;
class DialectRegistry;
class Location;
class OpBuilder;
class Operation;
class RewritePatternSet;
class Value;

namespace wrapper {
/// Adds the patterns lowering tensor_program ops (but extern and copy_back)
/// to linalg, tensor, arith and math on tensors. With `parallelScans`,
/// cumsum becomes ceil(log2 n) parallel steps instead of a sequential loop
/// over the scanned dimension (for targets where each iteration of that
/// loop would be a kernel launch).
void populateTensorProgramToLinalgPatterns(RewritePatternSet &patterns,
                                           bool parallelScans = false);

/// Whether `op` (a tensor_program.scatter) adds with atomics when
/// convert-tensor-program-to-linalg runs with atomic-scatter-add: a scatter
/// with reduce add of f32, f64, i32 or i64 values that is not a row scatter
/// (one index per full row, which becomes a parallel select). Such an op
/// stays tensor_program.scatter until bufferization, which writes it in
/// place as a parallel loop of memref.atomic_rmw (a GPU kernel on CUDA,
/// where the sequential loop nest would be host code).
bool isAtomicScatterAdd(Operation *op);

/// The legality of lowering tensor_program to linalg: every tensor_program
/// op is illegal but, with `atomicScatterAdd`, the scatters
/// isAtomicScatterAdd accepts; other ops are legal.
void configureTensorProgramToLinalgTarget(ConversionTarget &target,
                                          bool atomicScatterAdd);

/// Registers the bufferization of tensor_program.scatter (for the scatters
/// isAtomicScatterAdd accepts).
void registerAtomicScatterBufferization(DialectRegistry &registry);

/// The size of aten.slice(start, end, step) of a dimension of run-time size
/// `size` (an index): ceildiv(max(min(end, size) - min(start, size), 0),
/// step).
Value buildSliceSize(OpBuilder &b, Location loc, Value size, int64_t start,
                     int64_t end, int64_t step);
} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_CONVERSION_TENSORPROGRAMTOLINALG_H
