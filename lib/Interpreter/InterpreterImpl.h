//===- InterpreterImpl.h - the interpreter's internals ----------*- C++ -*-===//
//
// Part of the Wrapper project.
//
// Private to lib/Interpreter: the interpreter class and the index helpers
// that Interpreter.cpp and InterpreterCompute.cpp share.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_LIB_INTERPRETER_INTERPRETERIMPL_H
#define WRAPPER_LIB_INTERPRETER_INTERPRETERIMPL_H

#include "Wrapper/Interpreter/Interpreter.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>

namespace mlir {
namespace wrapper {
namespace detail {
using Shape = SmallVector<int64_t>;

/// Row-major strides of `shape`.
inline Shape stridesOf(ArrayRef<int64_t> shape) {
  Shape strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// An index along a dimension of `n` elements as take, gather and scatter
/// read it: negative values count from the end, then clamped into range.
inline int64_t wrapIndex(double value, int64_t n) {
  int64_t raw = static_cast<int64_t>(value);
  return std::clamp<int64_t>(raw < 0 ? raw + n : raw, 0, n - 1);
}

/// The flat offset of multi-index `at` under `strides`, or nothing when a
/// coordinate is outside `shape` (sizes that disagree at run time).
inline std::optional<int64_t> offsetWithin(ArrayRef<int64_t> at,
                                           ArrayRef<int64_t> shape,
                                           ArrayRef<int64_t> strides) {
  int64_t offset = 0;
  for (size_t d = 0; d < at.size(); ++d) {
    if (at[d] >= shape[d])
      return std::nullopt;
    offset += at[d] * strides[d];
  }
  return offset;
}

/// The multi-index of flat position `flat` in `shape`.
inline Shape unflatten(int64_t flat, ArrayRef<int64_t> shape) {
  Shape index(shape.size());
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    index[i] = shape[i] ? flat % shape[i] : 0;
    flat = shape[i] ? flat / shape[i] : 0;
  }
  return index;
}

/// The flat position in `operand` of result index `index`, with NumPy
/// broadcasting (trailing alignment, size-1 dimensions read index 0).
inline int64_t broadcastOffset(const HostTensor &operand,
                               ArrayRef<int64_t> index) {
  int64_t lead = index.size() - operand.shape.size();
  Shape strides = stridesOf(operand.shape);
  int64_t offset = 0;
  for (size_t d = 0; d < operand.shape.size(); ++d)
    if (operand.shape[d] != 1)
      offset += index[lead + d] * strides[d];
  return offset;
}

/// max and min that propagate NaN (torch.max, torch.min).
inline double nanMax(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
}
inline double nanMin(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
}

class Interpreter {
public:
  explicit Interpreter(std::string &error) : error(error) {}

  LogicalResult runBlock(Block &block, ArrayRef<HostTensor> args,
                         SmallVectorImpl<HostTensor> &results,
                         std::map<unsigned, HostTensor> *mutated);

  /// Evaluates `op` alone with `operands` as the values of its operands.
  LogicalResult runOperation(Operation *op, ArrayRef<HostTensor> operands,
                             SmallVectorImpl<HostTensor> &results) {
    for (auto [operand, value] : llvm::zip(op->getOperands(), operands))
      set(operand, value);
    if (failed(evaluate(op)))
      return failure();
    for (Value result : op->getResults()) {
      auto it = values.find(result);
      if (it == values.end())
        return fail(op, "produced no value");
      results.push_back(it->second);
    }
    return success();
  }

private:
  LogicalResult fail(Operation *op, const Twine &message) {
    std::string location;
    llvm::raw_string_ostream os(location);
    op->getLoc().print(os);
    error = (location + ": '" + op->getName().getStringRef() + "': " + message)
                .str();
    return failure();
  }

  const HostTensor &get(Value value) { return values.find(value)->second; }
  int64_t getIndex(Value value) {
    return static_cast<int64_t>(get(value).values.front());
  }

  LogicalResult evaluate(Operation *op);
  LogicalResult evaluateElementwise(Operation *op);
  /// Products, convolution, pooling and the composites
  /// (InterpreterCompute.cpp); nothing when `op` is none of them.
  std::optional<LogicalResult> evaluateCompute(Operation *op);
  HostTensor reduce(const HostTensor &input, ArrayRef<int64_t> dims,
                    bool keepDim, Type element,
                    function_ref<double(double, double)> combine,
                    double identity);

  /// A new tensor of the op's result element type and `shape`.
  HostTensor make(Operation *op, ArrayRef<int64_t> shape) {
    HostTensor t;
    t.elementType =
        cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
    t.shape.assign(shape.begin(), shape.end());
    t.values.assign(t.numel(), 0.0);
    return t;
  }
  void set(Value value, HostTensor tensor) {
    for (double &v : tensor.values)
      v = roundToElementType(v, tensor.elementType);
    values[value] = std::move(tensor);
  }

  /// The shape of a result type whose dynamic dimensions come from
  /// `dynamicSizes`, in order.
  Shape resolveShape(RankedTensorType type, ValueRange dynamicSizes) {
    Shape shape;
    unsigned next = 0;
    for (int64_t size : type.getShape())
      shape.push_back(
          ShapedType::isDynamic(size) ? getIndex(dynamicSizes[next++]) : size);
    return shape;
  }

  std::string &error;
  llvm::DenseMap<Value, HostTensor> values;
  std::map<unsigned, HostTensor> *mutated = nullptr;
};

} // namespace detail
} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_LIB_INTERPRETER_INTERPRETERIMPL_H
