//===- OpVerification.h - helpers of the op verifiers -----------*- C++ -*-===//
//
// Part of the Wrapper project.
//
// Private to lib/Dialect/TensorProgram/IR: what the verifiers and type
// inference of TensorProgramOps.cpp and TensorProgramIndexingOps.cpp share.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_LIB_DIALECT_TENSORPROGRAM_IR_OPVERIFICATION_H
#define WRAPPER_LIB_DIALECT_TENSORPROGRAM_IR_OPVERIFICATION_H

#include "Wrapper/Dialect/TensorProgram/IR/ShapeInference.h"
#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

#include <string>

namespace mlir {
namespace tensor_program {
namespace detail {

/// Emits "'<op>' op <message>" at `loc` when there is one, as a verifier
/// would; inference also runs without a location (builders), silently.
template <typename OpTy>
LogicalResult inferError(std::optional<Location> loc, const Twine &message) {
  return emitOptionalError(loc, "'", OpTy::getOperationName(), "' op ",
                           message);
}

inline RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

inline std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text = "[";
  llvm::interleave(
      shape, [&](int64_t size) { text += formatSize(size); },
      [&] { text += ", "; });
  return text + "]";
}

inline std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// Checks that all `values` share one element type and returns it.
template <typename OpTy>
FailureOr<Type> commonElementType(std::optional<Location> loc,
                                  ValueRange values,
                                  unsigned firstOperand = 0) {
  Type element = tensorType(values.front()).getElementType();
  for (auto [index, value] : llvm::enumerate(values.drop_front())) {
    Type other = tensorType(value).getElementType();
    if (other != element)
      return inferError<OpTy>(loc,
                              "operand #" + Twine(firstOperand + index + 1) +
                                  " has element type " + typeString(other) +
                                  ", but operand #" + Twine(firstOperand) +
                                  " has " + typeString(element));
  }
  return element;
}

/// Broadcasts `values` together; the result element type is `element`.
template <typename OpTy>
LogicalResult inferBroadcast(std::optional<Location> loc, ValueRange values,
                             Type element, SmallVectorImpl<Type> &results,
                             unsigned firstOperand = 0) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value value : values)
    shapes.push_back(tensorType(value).getShape());
  ShapeResult shape = broadcastShapes(shapes);
  if (!shape.ok()) {
    // Renumber operands when the broadcast group does not start at #0.
    std::string message = shape.error;
    if (firstOperand != 0)
      message = "(operands numbered from #" + std::to_string(firstOperand) +
                ") " + message;
    return inferError<OpTy>(loc, message);
  }
  results.push_back(RankedTensorType::get(shape.shape, element));
  return success();
}

/// Checks that a dynamic-sizes operand list gives one size per dynamic
/// dimension of `type`.
inline LogicalResult verifyDynamicSizes(Operation *op, RankedTensorType type,
                                        ValueRange sizes) {
  if (sizes.size() != static_cast<size_t>(type.getNumDynamicDims()))
    return op->emitOpError()
           << "expects " << type.getNumDynamicDims()
           << " dynamic size operands (one per dynamic dimension of " << type
           << "), got " << sizes.size();
  return success();
}

} // namespace detail
} // namespace tensor_program
} // namespace mlir

#endif // WRAPPER_LIB_DIALECT_TENSORPROGRAM_IR_OPVERIFICATION_H
