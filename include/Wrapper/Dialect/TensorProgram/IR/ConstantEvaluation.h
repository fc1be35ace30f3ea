//===- ConstantEvaluation.h - tensor_program ops on constants ---*- C++ -*-===//
//
// Part of the Wrapper project.
//
// The dialect's evaluation helper: the value of an op whose operands are all
// constants, computed from the op's definition. --tensor-program-fold-constants
// folds through it. It is written apart from the reference interpreter
// (lib/Interpreter), which stays the integration tests' independent oracle:
// a folding bug shows up as a difference between the two.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_TENSORPROGRAM_IR_CONSTANTEVALUATION_H
#define WRAPPER_DIALECT_TENSORPROGRAM_IR_CONSTANTEVALUATION_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

namespace mlir {
namespace tensor_program {

/// Whether evaluateConstantOp knows `op`'s kind: every elementwise op
/// (arithmetic, math functions, comparisons, where, casts, gelu), full,
/// iota, the layout ops reshape, permute, broadcast, slice, concat and pad,
/// the reductions reduce_sum/prod/max/min/mean, and matmul and batch_matmul
/// (up to 2^26 multiply-adds). Convolutions, composites, indexing and scans
/// are computed at run time instead.
bool canEvaluateConstantOp(Operation *op);

/// Whether `op` can be computed ahead of the calls that use its value
/// (folded at compile time, or run once per set of weights): its kind is
/// one canEvaluateConstantOp knows and each of its results is a static
/// tensor of at most `maxElements` elements.
bool canPrecomputeOp(Operation *op, int64_t maxElements);

/// The results of `op` when its operands have the values `operands` (one
/// dense attribute per operand, in order), each of its static result type.
/// Floats are computed in double and rounded to the result type once per
/// op (round to nearest even); integers exactly in 64 bits and wrapped to
/// the result width. Fails (and the op stays) where the definition leaves a
/// value open: integer division or remainder by zero, a negative integer
/// power, a NaN or out-of-range float converted to an integer, and the op
/// kinds canEvaluateConstantOp refuses.
FailureOr<SmallVector<DenseElementsAttr>>
evaluateConstantOp(Operation *op, ArrayRef<DenseElementsAttr> operands);

} // namespace tensor_program
} // namespace mlir

#endif // WRAPPER_DIALECT_TENSORPROGRAM_IR_CONSTANTEVALUATION_H
