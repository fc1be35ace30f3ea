//===- PopulatePatterns.h - private helpers of the lowering -----*- C++ -*-===//
//
// Part of the Wrapper project.
//
// Shared by the topic files of the tensor_program to linalg lowering
// (Elementwise, Reductions, Layout, Contractions).
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_LIB_CONVERSION_TENSORPROGRAMTOLINALG_POPULATEPATTERNS_H
#define WRAPPER_LIB_CONVERSION_TENSORPROGRAMTOLINALG_POPULATEPATTERNS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace wrapper {
namespace tp_to_linalg {

void populateElementwisePatterns(RewritePatternSet &patterns);
void populateReductionPatterns(RewritePatternSet &patterns);
void populateLayoutPatterns(RewritePatternSet &patterns);
void populateContractionPatterns(RewritePatternSet &patterns);
/// With `parallelScans`, cumsum as log2(n) parallel steps instead of a loop
/// over the scanned dimension (populateTensorProgramToLinalgPatterns).
void populateIndexingPatterns(RewritePatternSet &patterns, bool parallelScans);
void populateConvolutionPatterns(RewritePatternSet &patterns);

/// The type arithmetic on `element` is done in: f32 for f16 and bf16 (and
/// other floats narrower than 32 bits), `element` otherwise.
Type getComputeType(Type element);

/// Converts a scalar between element types with PyTorch's rules (float
/// rounding, truncation toward zero, signed integers, `!= 0` to i1).
Value convertScalar(OpBuilder &b, Location loc, Value value, Type to);

/// A scalar constant of `type` (float or integer) with `value`.
Value scalarConstant(OpBuilder &b, Location loc, Type type, double value);

/// The map from a result iteration space of rank `resultRank` to an operand
/// of `operandType` broadcast NumPy-style into it: trailing alignment, and a
/// static size-1 dimension of the operand that meets a larger result
/// dimension reads index 0.
AffineMap getBroadcastMap(RankedTensorType operandType,
                          ArrayRef<int64_t> resultShape, MLIRContext *context);

/// The sizes of the dynamic dimensions of `resultType`, read from operands
/// that broadcast into it (the first operand with that dimension dynamic).
SmallVector<Value> getBroadcastDynamicSizes(OpBuilder &b, Location loc,
                                            RankedTensorType resultType,
                                            ValueRange operands);

/// `tensor.empty` of `type` with element type `element` (defaults to the
/// type's own) and the given dynamic sizes.
Value createEmpty(OpBuilder &b, Location loc, RankedTensorType type,
                  ValueRange dynamicSizes, Type element = {});

/// A tensor of `type` (with `element`) filled with `value`.
Value createFilled(OpBuilder &b, Location loc, RankedTensorType type,
                   ValueRange dynamicSizes, Type element, Value value);

/// Maps `input` elementwise into a new tensor of `resultType`, applying
/// `fn` to each element (identity indexing).
Value mapElements(OpBuilder &b, Location loc, Value input,
                  RankedTensorType resultType,
                  function_ref<Value(OpBuilder &, Location, Value)> fn);

/// Identity of a reduction kind for `type`.
enum class ReductionKind { Sum, Prod, Max, Min };
Value reductionIdentity(OpBuilder &b, Location loc, ReductionKind kind,
                        Type type);
/// Combines an accumulator and a value; float combiners may reassociate.
Value reductionCombine(OpBuilder &b, Location loc, ReductionKind kind,
                       Value acc, Value value);
/// The same, without fast-math flags.
Value reductionCombineImpl(OpBuilder &b, Location loc, ReductionKind kind,
                           Value acc, Value value);

/// Whether a scatter writes one index per row along its dimension, rows as
/// wide as the input's (what nll_loss's backward scatters): a parallel
/// select, with no write conflicts.
bool isRowScatter(Value input, Value index, Value src, int64_t dim);

/// An index value read from an integer element: counted from the end when
/// negative (PyTorch's rule), then clamped into [0, n - 1].
Value clampedIndex(OpBuilder &b, Location loc, Value element, Value n);
} // namespace tp_to_linalg
} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_LIB_CONVERSION_TENSORPROGRAMTOLINALG_POPULATEPATTERNS_H
