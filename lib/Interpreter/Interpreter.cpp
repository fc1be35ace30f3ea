//===- Interpreter.cpp - reference interpreter of tensor_program ----------===//
//
// Part of the Wrapper project.
//
// Deliberately naive: index arithmetic over flat row-major storage, one op
// at a time, no shortcuts. Shapes come from the runtime shapes of the
// operands (dynamic dimensions included); composites are computed from
// their mathematical definition in double precision.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Interpreter/Interpreter.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"
#include "Wrapper/Runtime/WrapperRuntime.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>
#include <optional>

using namespace mlir;
using namespace mlir::wrapper;
namespace tp = mlir::tensor_program;

int64_t HostTensor::numel() const {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

double mlir::wrapper::roundToElementType(double value, Type type) {
  if (type.isF64())
    return value;
  if (type.isF32())
    return static_cast<float>(value);
  if (type.isF16())
    return wrapper_f16_to_f32(wrapper_f32_to_f16(static_cast<float>(value)));
  if (type.isBF16())
    return wrapper_bf16_to_f32(wrapper_f32_to_bf16(static_cast<float>(value)));
  if (auto integer = dyn_cast<IntegerType>(type)) {
    if (std::isnan(value))
      return 0;
    unsigned width = integer.getWidth();
    if (width == 1)
      return value != 0 ? 1 : 0;
    // Truncate toward zero, then wrap to the width (two's complement).
    double t = std::trunc(value);
    if (width >= 64)
      return t;
    double modulus = std::ldexp(1.0, width);
    double wrapped = std::fmod(t, modulus);
    if (wrapped < 0)
      wrapped += modulus;
    if (wrapped >= modulus / 2)
      wrapped -= modulus;
    return wrapped;
  }
  return value;
}

namespace {
using Shape = SmallVector<int64_t>;

/// Row-major strides of `shape`.
Shape stridesOf(ArrayRef<int64_t> shape) {
  Shape strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// An index along a dimension of `n` elements as take, gather and scatter
/// read it: negative values count from the end, then clamped into range.
int64_t wrapIndex(double value, int64_t n) {
  int64_t raw = static_cast<int64_t>(value);
  return std::clamp<int64_t>(raw < 0 ? raw + n : raw, 0, n - 1);
}

/// The flat offset of multi-index `at` under `strides`, or nothing when a
/// coordinate is outside `shape` (sizes that disagree at run time).
std::optional<int64_t> offsetWithin(ArrayRef<int64_t> at,
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
Shape unflatten(int64_t flat, ArrayRef<int64_t> shape) {
  Shape index(shape.size());
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    index[i] = shape[i] ? flat % shape[i] : 0;
    flat = shape[i] ? flat / shape[i] : 0;
  }
  return index;
}

/// The flat position in `operand` of result index `index`, with NumPy
/// broadcasting (trailing alignment, size-1 dimensions read index 0).
int64_t broadcastOffset(const HostTensor &operand, ArrayRef<int64_t> index) {
  int64_t lead = index.size() - operand.shape.size();
  Shape strides = stridesOf(operand.shape);
  int64_t offset = 0;
  for (size_t d = 0; d < operand.shape.size(); ++d)
    if (operand.shape[d] != 1)
      offset += index[lead + d] * strides[d];
  return offset;
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
} // namespace

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

static double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

LogicalResult Interpreter::evaluateElementwise(Operation *op) {
  SmallVector<const HostTensor *> operands;
  for (Value operand : op->getOperands())
    operands.push_back(&get(operand));
  // The result shape: the operands' runtime shapes broadcast together.
  size_t rank = 0;
  for (const HostTensor *t : operands)
    rank = std::max(rank, t->shape.size());
  Shape shape(rank, 1);
  for (const HostTensor *t : operands) {
    size_t lead = rank - t->shape.size();
    for (size_t d = 0; d < t->shape.size(); ++d) {
      int64_t &out = shape[lead + d];
      if (t->shape[d] == 1 || t->shape[d] == out)
        continue;
      if (out != 1)
        return fail(op, "operand shapes do not broadcast at run time");
      out = t->shape[d];
    }
  }
  HostTensor result = make(op, shape);
  bool isFloat = isa<FloatType>(operands.back()->elementType);
  for (int64_t flat = 0; flat < result.numel(); ++flat) {
    Shape index = unflatten(flat, shape);
    SmallVector<double, 3> x;
    for (const HostTensor *t : operands)
      x.push_back(t->values[broadcastOffset(*t, index)]);
    double r = 0;
    bool known = true;
    TypeSwitch<Operation *>(op)
        .Case([&](tp::AddOp) { r = x[0] + x[1]; })
        .Case([&](tp::SubOp) { r = x[0] - x[1]; })
        .Case([&](tp::MulOp) { r = x[0] * x[1]; })
        .Case([&](tp::DivOp) {
          r = isFloat ? x[0] / x[1] : (x[1] == 0 ? 0 : std::trunc(x[0] / x[1]));
        })
        .Case([&](tp::MaxOp) {
          r = std::isnan(x[0]) || std::isnan(x[1]) ? NAN : std::max(x[0], x[1]);
        })
        .Case([&](tp::MinOp) {
          r = std::isnan(x[0]) || std::isnan(x[1]) ? NAN : std::min(x[0], x[1]);
        })
        .Case([&](tp::PowOp) { r = std::pow(x[0], x[1]); })
        .Case([&](tp::FloorDivOp) {
          r = x[1] == 0 ? 0 : std::floor(x[0] / x[1]);
        })
        .Case([&](tp::FmodOp) {
          r = isFloat ? std::fmod(x[0], x[1])
                      : (x[1] == 0 ? 0 : std::fmod(x[0], x[1]));
        })
        .Case([&](tp::RemainderOp) {
          if (!isFloat && x[1] == 0) {
            r = 0;
            return;
          }
          r = std::fmod(x[0], x[1]);
          if (r != 0 && ((r < 0) != (x[1] < 0)))
            r += x[1];
        })
        .Case([&](tp::AndOp) {
          r = static_cast<double>(static_cast<int64_t>(x[0]) &
                                  static_cast<int64_t>(x[1]));
        })
        .Case([&](tp::OrOp) {
          r = static_cast<double>(static_cast<int64_t>(x[0]) |
                                  static_cast<int64_t>(x[1]));
        })
        .Case([&](tp::XorOp) {
          r = static_cast<double>(static_cast<int64_t>(x[0]) ^
                                  static_cast<int64_t>(x[1]));
        })
        .Case([&](tp::NotOp) {
          // i1 is 0 or 1: logical not; other widths: ~x.
          r = cast<RankedTensorType>(op->getResult(0).getType())
                      .getElementType()
                      .isInteger(1)
                  ? (x[0] != 0 ? 0 : 1)
                  : static_cast<double>(~static_cast<int64_t>(x[0]));
        })
        .Case([&](tp::Atan2Op) { r = std::atan2(x[0], x[1]); })
        .Case([&](tp::SignOp) {
          r = std::isnan(x[0]) ? NAN : (x[0] > 0 ? 1 : (x[0] < 0 ? -1 : x[0]));
        })
        .Case([&](tp::SinOp) { r = std::sin(x[0]); })
        .Case([&](tp::CosOp) { r = std::cos(x[0]); })
        .Case([&](tp::TanOp) { r = std::tan(x[0]); })
        .Case([&](tp::AsinOp) { r = std::asin(x[0]); })
        .Case([&](tp::AcosOp) { r = std::acos(x[0]); })
        .Case([&](tp::AtanOp) { r = std::atan(x[0]); })
        .Case([&](tp::SinhOp) { r = std::sinh(x[0]); })
        .Case([&](tp::CoshOp) { r = std::cosh(x[0]); })
        .Case([&](tp::AsinhOp) { r = std::asinh(x[0]); })
        .Case([&](tp::AcoshOp) { r = std::acosh(x[0]); })
        .Case([&](tp::AtanhOp) { r = std::atanh(x[0]); })
        .Case([&](tp::Log1pOp) { r = std::log1p(x[0]); })
        .Case([&](tp::Expm1Op) { r = std::expm1(x[0]); })
        .Case([&](tp::Log2Op) { r = std::log2(x[0]); })
        .Case([&](tp::Log10Op) { r = std::log10(x[0]); })
        .Case([&](tp::Exp2Op) { r = std::exp2(x[0]); })
        .Case([&](tp::FloorOp) { r = std::floor(x[0]); })
        .Case([&](tp::CeilOp) { r = std::ceil(x[0]); })
        .Case([&](tp::RoundOp) { r = std::nearbyint(x[0]); })
        .Case([&](tp::TruncOp) { r = std::trunc(x[0]); })
        .Case([&](tp::NegOp) { r = -x[0]; })
        .Case([&](tp::AbsOp) { r = std::fabs(x[0]); })
        .Case([&](tp::ExpOp) { r = std::exp(x[0]); })
        .Case([&](tp::LogOp) { r = std::log(x[0]); })
        .Case([&](tp::SqrtOp) { r = std::sqrt(x[0]); })
        .Case([&](tp::RsqrtOp) { r = 1.0 / std::sqrt(x[0]); })
        .Case([&](tp::TanhOp) { r = std::tanh(x[0]); })
        .Case([&](tp::SigmoidOp) { r = sigmoid(x[0]); })
        .Case([&](tp::ErfOp) { r = std::erf(x[0]); })
        .Case([&](tp::ReluOp) {
          r = std::isnan(x[0]) ? NAN : std::max(x[0], 0.0);
        })
        .Case([&](tp::SiluOp) { r = x[0] * sigmoid(x[0]); })
        .Case([&](tp::GeluOp gelu) {
          if (gelu.getApproximate() == tp::GeluApproximation::none)
            r = 0.5 * x[0] * (1 + std::erf(x[0] / std::sqrt(2.0)));
          else
            r = 0.5 * x[0] *
                (1 + std::tanh(std::sqrt(2.0 / M_PI) *
                               (x[0] + 0.044715 * x[0] * x[0] * x[0])));
        })
        .Case([&](tp::WhereOp) { r = x[0] != 0 ? x[1] : x[2]; })
        .Case([&](tp::CompareOp cmp) {
          bool nan = std::isnan(x[0]) || std::isnan(x[1]);
          switch (cmp.getPredicate()) {
          case tp::ComparePredicate::eq:
            r = !nan && x[0] == x[1];
            break;
          case tp::ComparePredicate::ne:
            r = nan || x[0] != x[1];
            break;
          case tp::ComparePredicate::lt:
            r = !nan && x[0] < x[1];
            break;
          case tp::ComparePredicate::le:
            r = !nan && x[0] <= x[1];
            break;
          case tp::ComparePredicate::gt:
            r = !nan && x[0] > x[1];
            break;
          case tp::ComparePredicate::ge:
            r = !nan && x[0] >= x[1];
            break;
          }
        })
        .Case([&](tp::CastOp) { r = x[0]; })
        .Default([&](Operation *) { known = false; });
    if (!known)
      return fail(op, "no elementwise definition");
    result.values[flat] = r;
  }
  set(op->getResult(0), std::move(result));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

HostTensor Interpreter::reduce(const HostTensor &input, ArrayRef<int64_t> dims,
                               bool keepDim, Type element,
                               function_ref<double(double, double)> combine,
                               double identity) {
  Shape outShape, keptShape;
  for (size_t d = 0; d < input.shape.size(); ++d) {
    bool reduced = llvm::is_contained(dims, static_cast<int64_t>(d));
    keptShape.push_back(reduced ? 1 : input.shape[d]);
    if (!reduced || keepDim)
      outShape.push_back(reduced ? 1 : input.shape[d]);
  }
  HostTensor out;
  out.elementType = element;
  out.shape = outShape;
  out.values.assign(out.numel(), identity);
  Shape keptStrides = stridesOf(keptShape);
  for (int64_t flat = 0; flat < input.numel(); ++flat) {
    Shape index = unflatten(flat, input.shape);
    int64_t o = 0;
    for (size_t d = 0; d < index.size(); ++d)
      if (keptShape[d] != 1)
        o += index[d] * keptStrides[d];
    out.values[o] = combine(out.values[o], input.values[flat]);
  }
  return out;
}

static double nanMax(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
}
static double nanMin(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::evaluate(Operation *op) {
  if (tp::isElementwise(op))
    return evaluateElementwise(op);

  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](tp::ConstantOp c) -> LogicalResult {
        auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
        if (!dense)
          return fail(op, "only dense constants can be interpreted");
        HostTensor t = make(op, c.getType().getShape());
        if (isa<FloatType>(t.elementType)) {
          int64_t i = 0;
          for (const APFloat &v : dense.getValues<APFloat>())
            t.values[i++] = v.convertToDouble(); // exact for every float type
        } else {
          int64_t i = 0;
          bool isBool = t.elementType.isInteger(1);
          for (const APInt &v : dense.getValues<APInt>())
            t.values[i++] = isBool ? (v.isZero() ? 0 : 1)
                                   : static_cast<double>(v.getSExtValue());
        }
        set(c.getResult(), std::move(t));
        return success();
      })
      .Case([&](tp::FullOp f) -> LogicalResult {
        HostTensor t = make(op, resolveShape(f.getType(), f.getDynamicSizes()));
        std::fill(t.values.begin(), t.values.end(),
                  f.getValue().convertToDouble());
        set(f.getResult(), std::move(t));
        return success();
      })
      .Case([&](tp::ReduceSumOp r) -> LogicalResult {
        set(r.getResult(), reduce(
                               get(r.getInput()), r.getDims(), r.getKeepdim(),
                               r.getType().getElementType(),
                               [](double a, double b) { return a + b; }, 0));
        return success();
      })
      .Case([&](tp::ReduceProdOp r) -> LogicalResult {
        set(r.getResult(), reduce(
                               get(r.getInput()), r.getDims(), r.getKeepdim(),
                               r.getType().getElementType(),
                               [](double a, double b) { return a * b; }, 1));
        return success();
      })
      .Case([&](tp::ReduceMaxOp r) -> LogicalResult {
        set(r.getResult(),
            reduce(get(r.getInput()), r.getDims(), r.getKeepdim(),
                   r.getType().getElementType(), nanMax, -INFINITY));
        return success();
      })
      .Case([&](tp::ReduceMinOp r) -> LogicalResult {
        set(r.getResult(),
            reduce(get(r.getInput()), r.getDims(), r.getKeepdim(),
                   r.getType().getElementType(), nanMin, INFINITY));
        return success();
      })
      .Case([&](tp::ReduceMeanOp r) -> LogicalResult {
        const HostTensor &input = get(r.getInput());
        HostTensor sum = reduce(
            input, r.getDims(), r.getKeepdim(), r.getType().getElementType(),
            [](double a, double b) { return a + b; }, 0);
        double count = 1;
        for (int64_t d : r.getDims())
          count *= input.shape[d];
        for (double &v : sum.values)
          v /= count;
        set(r.getResult(), std::move(sum));
        return success();
      })
      .Case([&](tp::ArgMaxOp a) -> LogicalResult {
        const HostTensor &input = get(a.getInput());
        int64_t dim = static_cast<int64_t>(a.getDim());
        Shape outShape;
        for (size_t d = 0; d < input.shape.size(); ++d)
          if (static_cast<int64_t>(d) != dim)
            outShape.push_back(input.shape[d]);
          else if (a.getKeepdim())
            outShape.push_back(1);
        HostTensor out = make(op, outShape);
        std::vector<double> best(out.numel(), -INFINITY);
        std::vector<bool> seen(out.numel(), false);
        // Output position: the input index with `dim` dropped, in row-major
        // order of the remaining dimensions.
        Shape keptShape = input.shape;
        keptShape[dim] = 1;
        Shape keptStrides = stridesOf(keptShape);
        for (int64_t flat = 0; flat < input.numel(); ++flat) {
          Shape index = unflatten(flat, input.shape);
          int64_t o = 0;
          for (size_t d = 0; d < index.size(); ++d)
            if (static_cast<int64_t>(d) != dim)
              o += index[d] * keptStrides[d];
          double x = input.values[flat];
          bool take = !seen[o] ||
                      (!std::isnan(best[o]) && (std::isnan(x) || x > best[o]));
          if (take) {
            best[o] = x;
            out.values[o] = static_cast<double>(index[dim]);
            seen[o] = true;
          }
        }
        set(a.getResult(), std::move(out));
        return success();
      })
      .Case([&](tp::ReshapeOp r) -> LogicalResult {
        HostTensor t = get(r.getInput());
        t.shape = resolveShape(r.getType(), r.getDynamicSizes());
        if (t.numel() != static_cast<int64_t>(t.values.size()))
          return fail(op, "reshape changes the element count at run time");
        set(r.getResult(), std::move(t));
        return success();
      })
      .Case([&](tp::PermuteOp p) -> LogicalResult {
        const HostTensor &input = get(p.getInput());
        ArrayRef<int64_t> perm = p.getPermutation();
        Shape shape;
        for (int64_t d : perm)
          shape.push_back(input.shape[d]);
        HostTensor out = make(op, shape);
        Shape inStrides = stridesOf(input.shape);
        for (int64_t flat = 0; flat < out.numel(); ++flat) {
          Shape index = unflatten(flat, shape);
          int64_t src = 0;
          for (size_t d = 0; d < perm.size(); ++d)
            src += index[d] * inStrides[perm[d]];
          out.values[flat] = input.values[src];
        }
        set(p.getResult(), std::move(out));
        return success();
      })
      .Case([&](tp::BroadcastOp b) -> LogicalResult {
        const HostTensor &input = get(b.getInput());
        Shape shape = resolveShape(b.getType(), b.getDynamicSizes());
        HostTensor out = make(op, shape);
        for (int64_t flat = 0; flat < out.numel(); ++flat)
          out.values[flat] =
              input.values[broadcastOffset(input, unflatten(flat, shape))];
        set(b.getResult(), std::move(out));
        return success();
      })
      .Case([&](tp::SliceOp s) -> LogicalResult {
        const HostTensor &input = get(s.getInput());
        int64_t dim = static_cast<int64_t>(s.getDim());
        int64_t n = input.shape[dim];
        int64_t start = std::min<int64_t>(s.getStart(), n);
        int64_t end = std::min<int64_t>(static_cast<int64_t>(s.getEnd()), n);
        int64_t step = static_cast<int64_t>(s.getStep());
        Shape shape = input.shape;
        shape[dim] = end <= start ? 0 : (end - start + step - 1) / step;
        HostTensor out = make(op, shape);
        Shape inStrides = stridesOf(input.shape);
        for (int64_t flat = 0; flat < out.numel(); ++flat) {
          Shape index = unflatten(flat, shape);
          index[dim] = start + index[dim] * step;
          int64_t src = 0;
          for (size_t d = 0; d < index.size(); ++d)
            src += index[d] * inStrides[d];
          out.values[flat] = input.values[src];
        }
        set(s.getResult(), std::move(out));
        return success();
      })
      .Case([&](tp::ConcatOp c) -> LogicalResult {
        int64_t dim = static_cast<int64_t>(c.getDim());
        Shape shape = get(c.getInputs().front()).shape;
        shape[dim] = 0;
        for (Value input : c.getInputs())
          shape[dim] += get(input).shape[dim];
        HostTensor out = make(op, shape);
        Shape outStrides = stridesOf(shape);
        int64_t base = 0;
        for (Value v : c.getInputs()) {
          const HostTensor &input = get(v);
          for (int64_t flat = 0; flat < input.numel(); ++flat) {
            Shape index = unflatten(flat, input.shape);
            index[dim] += base;
            int64_t dst = 0;
            for (size_t d = 0; d < index.size(); ++d)
              dst += index[d] * outStrides[d];
            out.values[dst] = input.values[flat];
          }
          base += input.shape[dim];
        }
        set(c.getResult(), std::move(out));
        return success();
      })
      .Case([&](tp::PadOp p) -> LogicalResult {
        const HostTensor &input = get(p.getInput());
        Shape shape;
        for (size_t d = 0; d < input.shape.size(); ++d)
          shape.push_back(input.shape[d] + p.getLow()[d] + p.getHigh()[d]);
        HostTensor out = make(op, shape);
        std::fill(out.values.begin(), out.values.end(),
                  p.getValue().convertToDouble());
        Shape outStrides = stridesOf(shape);
        for (int64_t flat = 0; flat < input.numel(); ++flat) {
          Shape index = unflatten(flat, input.shape);
          int64_t dst = 0;
          for (size_t d = 0; d < index.size(); ++d)
            dst += (index[d] + p.getLow()[d]) * outStrides[d];
          out.values[dst] = input.values[flat];
        }
        set(p.getResult(), std::move(out));
        return success();
      })
      .Case([&](tp::AsStridedOp a) -> LogicalResult {
        const HostTensor &input = get(a.getInput());
        HostTensor out = make(op, a.getSizes());
        for (int64_t flat = 0; flat < out.numel(); ++flat) {
          Shape index = unflatten(flat, a.getSizes());
          int64_t src = static_cast<int64_t>(a.getOffset());
          for (size_t d = 0; d < index.size(); ++d)
            src += index[d] * a.getStrides()[d];
          if (src >= input.numel())
            return fail(op, "reaches beyond the input at run time");
          out.values[flat] = input.values[src];
        }
        set(a.getResult(), std::move(out));
        return success();
      })
      .Case([&](tp::IotaOp i) -> LogicalResult {
        Shape shape = resolveShape(i.getType(), i.getDynamicSizes());
        HostTensor out = make(op, shape);
        int64_t dim = static_cast<int64_t>(i.getDim());
        for (int64_t flat = 0; flat < out.numel(); ++flat)
          out.values[flat] = static_cast<double>(unflatten(flat, shape)[dim]);
        set(i.getResult(), std::move(out));
        return success();
      })
      .Case([&](tp::FromIndexOp f) -> LogicalResult {
        HostTensor out = make(op, {});
        out.values[0] = static_cast<double>(getIndex(f.getIndex()));
        set(f.getResult(), std::move(out));
        return success();
      })
      .Case([&](tp::CumsumOp c) -> LogicalResult {
        HostTensor out = get(c.getInput());
        int64_t dim = static_cast<int64_t>(c.getDim());
        Shape strides = stridesOf(out.shape);
        for (int64_t flat = 0; flat < out.numel(); ++flat) {
          Shape index = unflatten(flat, out.shape);
          if (index[dim] > 0)
            out.values[flat] = roundToElementType(
                out.values[flat] + out.values[flat - strides[dim]],
                out.elementType);
        }
        set(c.getResult(), std::move(out));
        return success();
      })
      .Case([&](tp::DynamicSliceOp s) -> LogicalResult {
        const HostTensor &input = get(s.getInput());
        int64_t dim = static_cast<int64_t>(s.getDim());
        int64_t n = input.shape[dim];
        int64_t start = std::clamp<int64_t>(getIndex(s.getStart()), 0, n);
        int64_t end = std::clamp<int64_t>(getIndex(s.getEnd()), 0, n);
        int64_t step = static_cast<int64_t>(s.getStep());
        Shape shape = input.shape;
        shape[dim] = end <= start ? 0 : (end - start + step - 1) / step;
        HostTensor out = make(op, shape);
        Shape inStrides = stridesOf(input.shape);
        for (int64_t flat = 0; flat < out.numel(); ++flat) {
          Shape index = unflatten(flat, shape);
          index[dim] = start + index[dim] * step;
          int64_t src = 0;
          for (size_t d = 0; d < index.size(); ++d)
            src += index[d] * inStrides[d];
          out.values[flat] = input.values[src];
        }
        set(s.getResult(), std::move(out));
        return success();
      })
      .Case([&](tp::SliceScatterOp s) -> LogicalResult {
        HostTensor out = get(s.getInput());
        const HostTensor &src = get(s.getSrc());
        int64_t dim = static_cast<int64_t>(s.getDim());
        Shape strides = stridesOf(out.shape);
        for (int64_t flat = 0; flat < src.numel(); ++flat) {
          Shape index = unflatten(flat, src.shape);
          index[dim] = s.getStart() + index[dim] * s.getStep();
          int64_t dst = 0;
          for (size_t d = 0; d < index.size(); ++d)
            dst += index[d] * strides[d];
          out.values[dst] = src.values[flat];
        }
        set(s.getResult(), std::move(out));
        return success();
      })
      .Case([&](tp::TakeOp t) -> LogicalResult {
        const HostTensor &input = get(t.getInput());
        const HostTensor &index = get(t.getIndex());
        int64_t dim = static_cast<int64_t>(t.getDim());
        Shape shape(input.shape.begin(), input.shape.begin() + dim);
        shape.append(index.shape.begin(), index.shape.end());
        shape.append(input.shape.begin() + dim + 1, input.shape.end());
        HostTensor out = make(op, shape);
        Shape inStrides = stridesOf(input.shape);
        int64_t k = index.shape.size();
        int64_t n = input.shape[dim];
        if (n == 0 && out.numel() > 0)
          return fail(op, "takes from an empty dimension");
        Shape indexStrides = stridesOf(index.shape);
        for (int64_t flat = 0; flat < out.numel(); ++flat) {
          Shape o = unflatten(flat, shape);
          int64_t at = 0;
          for (int64_t d = 0; d < k; ++d)
            at += o[dim + d] * indexStrides[d];
          int64_t i = wrapIndex(index.values[at], n);
          int64_t src = 0;
          for (int64_t d = 0; d < dim; ++d)
            src += o[d] * inStrides[d];
          src += i * inStrides[dim];
          for (size_t d = dim + 1; d < input.shape.size(); ++d)
            src += o[d - 1 + k] * inStrides[d];
          out.values[flat] = input.values[src];
        }
        set(t.getResult(), std::move(out));
        return success();
      })
      .Case([&](tp::ScatterOp sc) -> LogicalResult {
        HostTensor out = get(sc.getInput());
        const HostTensor &index = get(sc.getIndex());
        const HostTensor &src = get(sc.getSrc());
        int64_t dim = static_cast<int64_t>(sc.getDim());
        Shape strides = stridesOf(out.shape), srcStrides = stridesOf(src.shape);
        int64_t n = out.shape[dim];
        if (n == 0 && index.numel() > 0)
          return fail(op, "scatters into an empty dimension");
        for (int64_t flat = 0; flat < index.numel(); ++flat) {
          Shape at = unflatten(flat, index.shape);
          std::optional<int64_t> from = offsetWithin(at, src.shape, srcStrides);
          if (!from)
            return fail(op, "index is larger than the source at run time");
          at[dim] = wrapIndex(index.values[flat], n);
          std::optional<int64_t> to = offsetWithin(at, out.shape, strides);
          if (!to)
            return fail(op, "index is larger than the input at run time");
          double v = src.values[*from], &slot = out.values[*to];
          switch (sc.getReduce()) {
          case tp::ScatterReduce::none:
            slot = v;
            break;
          case tp::ScatterReduce::add:
            slot = roundToElementType(slot + v, out.elementType);
            break;
          case tp::ScatterReduce::mul:
            slot = roundToElementType(slot * v, out.elementType);
            break;
          case tp::ScatterReduce::max:
            slot = nanMax(slot, v);
            break;
          case tp::ScatterReduce::min:
            slot = nanMin(slot, v);
            break;
          }
        }
        set(sc.getResult(), std::move(out));
        return success();
      })
      .Case([&](tp::GatherOp g) -> LogicalResult {
        const HostTensor &input = get(g.getInput());
        const HostTensor &index = get(g.getIndex());
        int64_t dim = static_cast<int64_t>(g.getDim());
        HostTensor out = make(op, index.shape);
        Shape inStrides = stridesOf(input.shape);
        int64_t n = input.shape[dim];
        if (n == 0 && out.numel() > 0)
          return fail(op, "gathers from an empty dimension");
        for (int64_t flat = 0; flat < out.numel(); ++flat) {
          Shape o = unflatten(flat, index.shape);
          o[dim] = wrapIndex(index.values[flat], n);
          std::optional<int64_t> src = offsetWithin(o, input.shape, inStrides);
          if (!src)
            return fail(op, "index is larger than the input at run time");
          out.values[flat] = input.values[*src];
        }
        set(g.getResult(), std::move(out));
        return success();
      })
      .Case([&](tp::ConvolutionOp c) -> LogicalResult {
        const HostTensor &input = get(c.getInput());
        const HostTensor &weight = get(c.getWeight());
        int64_t k = input.shape.size() - 2;
        int64_t groups = static_cast<int64_t>(c.getGroups());
        int64_t channels = input.shape[1], filters = weight.shape[0];
        if (channels != weight.shape[1] * groups || filters % groups)
          return fail(op, "channel counts do not fit the groups at run time");
        int64_t cg = channels / groups, fg = filters / groups;
        Shape shape = {input.shape[0], filters};
        for (int64_t i = 0; i < k; ++i) {
          int64_t span = c.getDilation()[i] * (weight.shape[2 + i] - 1) + 1;
          int64_t size = input.shape[2 + i];
          shape.push_back(size < span ? 0
                                      : (size - span) / c.getStride()[i] + 1);
        }
        HostTensor out = make(op, shape);
        Shape inStrides = stridesOf(input.shape);
        Shape wStrides = stridesOf(weight.shape);
        Shape window(weight.shape.begin() + 2, weight.shape.end());
        int64_t windowCount = 1;
        for (int64_t w : window)
          windowCount *= w;
        const HostTensor *bias = c.getBias() ? &get(c.getBias()) : nullptr;
        for (int64_t flat = 0; flat < out.numel(); ++flat) {
          Shape o = unflatten(flat, shape);
          int64_t n = o[0], f = o[1], g = f / fg;
          double sum = bias ? bias->values[f] : 0;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t wflat = 0; wflat < windowCount; ++wflat) {
              Shape w = unflatten(wflat, window);
              int64_t src = n * inStrides[0] + (g * cg + ci) * inStrides[1];
              int64_t wsrc = f * wStrides[0] + ci * wStrides[1];
              for (int64_t i = 0; i < k; ++i) {
                src +=
                    (o[2 + i] * c.getStride()[i] + w[i] * c.getDilation()[i]) *
                    inStrides[2 + i];
                wsrc += w[i] * wStrides[2 + i];
              }
              sum += input.values[src] * weight.values[wsrc];
            }
          out.values[flat] = sum;
        }
        set(c.getResult(), std::move(out));
        return success();
      })
      .Case<tp::MaxPoolOp, tp::AvgPoolOp>([&](auto pool) -> LogicalResult {
        const HostTensor &input = get(pool.getInput());
        bool isMax = isa<tp::MaxPoolOp>(op);
        ArrayRef<int64_t> window = pool.getWindow();
        ArrayRef<int64_t> stride = pool.getStride();
        ArrayRef<int64_t> low = pool.getPaddingLow();
        ArrayRef<int64_t> high = pool.getPaddingHigh();
        int64_t k = window.size();
        int64_t lead = input.shape.size() - k;
        SmallVector<int64_t> dilation(k, 1);
        if (auto max = dyn_cast<tp::MaxPoolOp>(op))
          dilation.assign(max.getDilation().begin(), max.getDilation().end());
        Shape shape(input.shape.begin(), input.shape.begin() + lead);
        for (int64_t i = 0; i < k; ++i) {
          int64_t span = dilation[i] * (window[i] - 1) + 1;
          int64_t size = input.shape[lead + i] + low[i] + high[i];
          shape.push_back(size < span ? 0 : (size - span) / stride[i] + 1);
        }
        HostTensor out = make(op, shape);
        Shape inStrides = stridesOf(input.shape);
        Shape windowShape(window.begin(), window.end());
        int64_t windowCount = 1;
        for (int64_t w : window)
          windowCount *= w;
        for (int64_t flat = 0; flat < out.numel(); ++flat) {
          Shape o = unflatten(flat, shape);
          int64_t base = 0;
          for (int64_t d = 0; d < lead; ++d)
            base += o[d] * inStrides[d];
          double acc = isMax ? -INFINITY : 0;
          bool nan = false;
          for (int64_t wflat = 0; wflat < windowCount; ++wflat) {
            Shape w = unflatten(wflat, windowShape);
            int64_t src = base;
            bool inside = true;
            for (int64_t i = 0; i < k; ++i) {
              int64_t at =
                  o[lead + i] * stride[i] + w[i] * dilation[i] - low[i];
              inside &= at >= 0 && at < input.shape[lead + i];
              src += at * inStrides[lead + i];
            }
            if (!inside)
              continue; // padding: -inf for max, 0 for the sum
            double v = input.values[src];
            nan |= std::isnan(v);
            acc = isMax ? std::max(acc, v) : acc + v;
          }
          if (isMax) {
            out.values[flat] = nan ? NAN : acc;
            continue;
          }
          auto avg = cast<tp::AvgPoolOp>(op);
          double divisor = 1;
          if (std::optional<uint64_t> d = avg.getDivisor()) {
            divisor = static_cast<double>(*d);
          } else {
            std::optional<ArrayRef<int64_t>> count = avg.getCountPadding();
            for (int64_t i = 0; i < k; ++i) {
              int64_t start = o[lead + i] * stride[i] - low[i];
              int64_t end = start + window[i];
              int64_t pad = count ? (*count)[i] : 0;
              int64_t first = std::max<int64_t>(start, -pad);
              int64_t last =
                  std::min<int64_t>(end, input.shape[lead + i] + pad);
              divisor *=
                  static_cast<double>(std::max<int64_t>(last - first, 0));
            }
          }
          out.values[flat] = acc / divisor;
        }
        set(pool.getResult(), std::move(out));
        return success();
      })
      .Case<tp::MatmulOp, tp::BatchMatmulOp>([&](auto m) -> LogicalResult {
        const HostTensor &lhs = get(m.getLhs());
        const HostTensor &rhs = get(m.getRhs());
        size_t lr = lhs.shape.size(), rr = rhs.shape.size();
        int64_t M = lhs.shape[lr - 2], K = lhs.shape[lr - 1];
        int64_t N = rhs.shape[rr - 1];
        if (rhs.shape[rr - 2] != K)
          return fail(op, "contraction sizes differ at run time");
        size_t batchRank = std::max(lr, rr) - 2;
        Shape shape(batchRank, 1);
        for (const HostTensor *t : {&lhs, &rhs}) {
          size_t tb = t->shape.size() - 2, lead = batchRank - tb;
          for (size_t d = 0; d < tb; ++d)
            if (t->shape[d] != 1)
              shape[lead + d] = t->shape[d];
        }
        shape.push_back(M);
        shape.push_back(N);
        HostTensor out = make(op, shape);
        Shape lStrides = stridesOf(lhs.shape), rStrides = stridesOf(rhs.shape);
        for (int64_t flat = 0; flat < out.numel(); ++flat) {
          Shape index = unflatten(flat, shape);
          auto batchOffset = [&](const HostTensor &t, ArrayRef<int64_t> st) {
            size_t tb = t.shape.size() - 2, lead = batchRank - tb;
            int64_t off = 0;
            for (size_t d = 0; d < tb; ++d)
              if (t.shape[d] != 1)
                off += index[lead + d] * st[d];
            return off;
          };
          int64_t lo = batchOffset(lhs, lStrides),
                  ro = batchOffset(rhs, rStrides);
          int64_t i = index[batchRank], j = index[batchRank + 1];
          double acc = 0;
          for (int64_t k = 0; k < K; ++k)
            acc += lhs.values[lo + i * K + k] * rhs.values[ro + k * N + j];
          out.values[flat] = acc;
        }
        set(m.getResult(), std::move(out));
        return success();
      })
      .Case([&](tp::LinearOp l) -> LogicalResult {
        const HostTensor &x = get(l.getInput());
        const HostTensor &w = get(l.getWeight());
        int64_t K = x.shape.back(), N = w.shape[0];
        Shape shape(x.shape.begin(), x.shape.end() - 1);
        shape.push_back(N);
        HostTensor out = make(op, shape);
        const HostTensor *bias = l.getBias() ? &get(l.getBias()) : nullptr;
        int64_t rows = out.numel() / std::max<int64_t>(N, 1);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t n = 0; n < N; ++n) {
            double acc = bias ? bias->values[n] : 0;
            for (int64_t k = 0; k < K; ++k)
              acc += x.values[r * K + k] * w.values[n * K + k];
            out.values[r * N + n] = acc;
          }
        set(l.getResult(), std::move(out));
        return success();
      })
      .Case<tp::SoftmaxOp, tp::LogSoftmaxOp>([&](auto s) -> LogicalResult {
        const HostTensor &x = get(s.getInput());
        int64_t dim = static_cast<int64_t>(s.getDim());
        bool log = isa<tp::LogSoftmaxOp>(op);
        HostTensor out = make(op, x.shape);
        Shape strides = stridesOf(x.shape);
        int64_t n = x.shape[dim], stride = strides[dim];
        for (int64_t flat = 0; flat < x.numel(); ++flat) {
          if (unflatten(flat, x.shape)[dim] != 0)
            continue; // visit each row once, from its first element
          double max = -INFINITY;
          for (int64_t k = 0; k < n; ++k)
            max = nanMax(max, x.values[flat + k * stride]);
          double sum = 0;
          for (int64_t k = 0; k < n; ++k)
            sum += std::exp(x.values[flat + k * stride] - max);
          for (int64_t k = 0; k < n; ++k) {
            double v = x.values[flat + k * stride] - max;
            out.values[flat + k * stride] =
                log ? v - std::log(sum) : std::exp(v) / sum;
          }
        }
        set(s.getResult(), std::move(out));
        return success();
      })
      .Case<tp::LayerNormOp, tp::RmsNormOp>([&](auto norm) -> LogicalResult {
        const HostTensor &x = get(norm.getInput());
        bool rms = isa<tp::RmsNormOp>(op);
        int64_t k = 1;
        if (auto ln = dyn_cast<tp::LayerNormOp>(op))
          k = static_cast<int64_t>(ln.getNormalizedRank());
        int64_t inner = 1;
        for (size_t d = x.shape.size() - k; d < x.shape.size(); ++d)
          inner *= x.shape[d];
        HostTensor out = make(op, x.shape);
        const HostTensor *weight =
            norm.getWeight() ? &get(norm.getWeight()) : nullptr;
        const HostTensor *bias = nullptr;
        if (auto ln = dyn_cast<tp::LayerNormOp>(op))
          bias = ln.getBias() ? &get(ln.getBias()) : nullptr;
        double eps = norm.getEps().convertToDouble();
        for (int64_t row = 0; row * inner < x.numel(); ++row) {
          const double *v = &x.values[row * inner];
          double mean = 0, var = 0;
          for (int64_t i = 0; i < inner; ++i)
            mean += v[i];
          mean /= inner;
          for (int64_t i = 0; i < inner; ++i) {
            double c = rms ? v[i] : v[i] - mean;
            var += c * c;
          }
          var /= inner;
          double scale = 1.0 / std::sqrt(var + eps);
          for (int64_t i = 0; i < inner; ++i) {
            double y = (rms ? v[i] : v[i] - mean) * scale;
            if (weight)
              y *= weight->values[i];
            if (bias)
              y += bias->values[i];
            out.values[row * inner + i] = y;
          }
        }
        set(norm.getResult(), std::move(out));
        return success();
      })
      .Case([&](tp::FusedOp f) -> LogicalResult {
        SmallVector<HostTensor> args, results;
        for (Value input : f.getInputs())
          args.push_back(get(input));
        Interpreter nested(error);
        if (failed(
                nested.runBlock(f.getBody().front(), args, results, nullptr)))
          return failure();
        for (auto [result, value] : llvm::zip(f.getResults(), results))
          set(result, std::move(value));
        return success();
      })
      .Case([&](tp::CopyBackOp c) -> LogicalResult {
        if (!mutated)
          return fail(op, "copy_back outside a function body");
        auto arg = cast<BlockArgument>(c.getTarget());
        (*mutated)[arg.getArgNumber()] = get(c.getValue());
        return success();
      })
      .Case([&](tensor::DimOp d) -> LogicalResult {
        const HostTensor &source = get(d.getSource());
        auto index = d.getConstantIndex();
        if (!index)
          return fail(op, "only constant dimension indices are interpreted");
        HostTensor t;
        t.elementType = d.getType();
        t.values = {static_cast<double>(source.shape[*index])};
        values[d.getResult()] = std::move(t);
        return success();
      })
      .Case([&](arith::ConstantOp c) -> LogicalResult {
        auto integer = dyn_cast<IntegerAttr>(c.getValue());
        if (!integer)
          return fail(op, "only scalar integer constants are interpreted");
        HostTensor t;
        t.elementType = c.getType();
        t.values = {static_cast<double>(integer.getInt())};
        values[c.getResult()] = std::move(t);
        return success();
      })
      .Default([&](Operation *) {
        if (tp::isSizeComputation(op)) {
          // Binary index arithmetic (sizes of views).
          int64_t a = getIndex(op->getOperand(0));
          int64_t b = getIndex(op->getOperand(1));
          bool division =
              isa<arith::DivSIOp, arith::DivUIOp, arith::FloorDivSIOp,
                  arith::CeilDivSIOp, arith::RemSIOp, arith::RemUIOp>(op);
          if (division && b == 0)
            return fail(op, "divides a size by zero");
          int64_t r = TypeSwitch<Operation *, int64_t>(op)
                          .Case([&](arith::AddIOp) { return a + b; })
                          .Case([&](arith::SubIOp) { return a - b; })
                          .Case([&](arith::MulIOp) { return a * b; })
                          .Case<arith::DivSIOp, arith::DivUIOp>(
                              [&](auto) { return a / b; })
                          .Case([&](arith::FloorDivSIOp) {
                            return llvm::divideFloorSigned(a, b);
                          })
                          .Case([&](arith::CeilDivSIOp) {
                            return llvm::divideCeilSigned(a, b);
                          })
                          .Case<arith::RemSIOp, arith::RemUIOp>(
                              [&](auto) { return a % b; })
                          .Case([&](arith::MinSIOp) { return std::min(a, b); })
                          .Case([&](arith::MaxSIOp) { return std::max(a, b); })
                          .Default([&](Operation *) { return int64_t(0); });
          HostTensor t;
          t.elementType = op->getResult(0).getType();
          t.values = {static_cast<double>(r)};
          values[op->getResult(0)] = std::move(t);
          return success();
        }
        return fail(op, "the reference interpreter does not support this op");
      });
}

LogicalResult
Interpreter::runBlock(Block &block, ArrayRef<HostTensor> args,
                      SmallVectorImpl<HostTensor> &results,
                      std::map<unsigned, HostTensor> *mutatedArgs) {
  mutated = mutatedArgs;
  for (auto [arg, value] : llvm::zip(block.getArguments(), args))
    values[arg] = value;
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      for (Value v : op.getOperands())
        results.push_back(get(v));
      return success();
    }
    if (failed(evaluate(&op)))
      return failure();
  }
  return success();
}

FailureOr<InterpreterResult> mlir::wrapper::interpret(func::FuncOp func,
                                                      ArrayRef<HostTensor> args,
                                                      std::string &error) {
  if (func.isExternal()) {
    error = "function '" + func.getName().str() + "' has no body";
    return failure();
  }
  if (args.size() != func.getNumArguments()) {
    error = "function '" + func.getName().str() + "' takes " +
            std::to_string(func.getNumArguments()) + " arguments, got " +
            std::to_string(args.size());
    return failure();
  }
  InterpreterResult result;
  Interpreter interpreter(error);
  if (failed(interpreter.runBlock(func.getBody().front(), args, result.results,
                                  &result.mutatedArguments)))
    return failure();
  return result;
}

FailureOr<SmallVector<HostTensor>>
mlir::wrapper::evaluateOperation(Operation *op, ArrayRef<HostTensor> operands,
                                 std::string &error) {
  if (operands.size() != op->getNumOperands()) {
    error = "'" + op->getName().getStringRef().str() + "' has " +
            std::to_string(op->getNumOperands()) + " operands, got " +
            std::to_string(operands.size()) + " values";
    return failure();
  }
  if (op->getNumRegions() != 0) {
    error = "'" + op->getName().getStringRef().str() +
            "' has regions; evaluate its function instead";
    return failure();
  }
  Interpreter interpreter(error);
  SmallVector<HostTensor> results;
  if (failed(interpreter.runOperation(op, operands, results)))
    return failure();
  return results;
}
