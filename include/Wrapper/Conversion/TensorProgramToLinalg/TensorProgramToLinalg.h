//===- TensorProgramToLinalg.h - tensor_program to linalg -------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_CONVERSION_TENSORPROGRAMTOLINALG_H
#define WRAPPER_CONVERSION_TENSORPROGRAMTOLINALG_H

#include <cstdint>

namespace mlir {
class Location;
class OpBuilder;
class RewritePatternSet;
class Value;

namespace wrapper {
/// Adds the patterns lowering tensor_program ops (but extern and copy_back)
/// to linalg, tensor, arith and math on tensors.
void populateTensorProgramToLinalgPatterns(RewritePatternSet &patterns);

/// The size of aten.slice(start, end, step) of a dimension of run-time size
/// `size` (an index): ceildiv(max(min(end, size) - min(start, size), 0),
/// step).
Value buildSliceSize(OpBuilder &b, Location loc, Value size, int64_t start,
                     int64_t end, int64_t step);
} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_CONVERSION_TENSORPROGRAMTOLINALG_H
