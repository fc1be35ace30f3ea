//===- ConstantEvaluationRules.h - scalar rules of constant ops -*- C++ -*-===//
//
// Part of the Wrapper project.
//
// Private to lib/Dialect/TensorProgram/IR: the per-element rules of the
// elementwise ops (ConstantEvaluationRules.cpp), which ConstantEvaluation.cpp
// applies over whole constants.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_LIB_DIALECT_TENSORPROGRAM_IR_CONSTANTEVALUATIONRULES_H
#define WRAPPER_LIB_DIALECT_TENSORPROGRAM_IR_CONSTANTEVALUATIONRULES_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"

#include <cstdint>
#include <functional>

namespace mlir {
namespace tensor_program {
namespace detail {

/// One element of an operand: `f` for float operands, `i` for integers.
struct Scalar {
  double f = 0;
  int64_t i = 0;
};

/// One element's rule: reads the operands' elements, writes the result's
/// (as a double for float results, an int64_t otherwise); false when the
/// value is left open by the op's definition.
using Rule = std::function<bool(ArrayRef<Scalar>, Scalar &)>;

/// Two's-complement arithmetic on int64_t through uint64_t (no undefined
/// overflow).
inline uint64_t bits(int64_t x) { return static_cast<uint64_t>(x); }
inline int64_t wrap(uint64_t x) { return static_cast<int64_t>(x); }

/// The rule of `op` (elementwise) whose operands have `operandFloat`
/// element kinds (true: float) and whose result has element type `result`;
/// null for an op kind without a rule.
Rule elementwiseRule(Operation *op, ArrayRef<bool> operandFloat, Type result);

} // namespace detail
} // namespace tensor_program
} // namespace mlir

#endif // WRAPPER_LIB_DIALECT_TENSORPROGRAM_IR_CONSTANTEVALUATIONRULES_H
