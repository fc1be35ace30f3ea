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

#include "InterpreterImpl.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"
#include "Wrapper/Support/HalfPrecision.h"
#include "Wrapper/Support/Philox.h"

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
    return wrapper_half_f16_to_f32(
        wrapper_half_f32_to_f16(static_cast<float>(value)));
  if (type.isBF16())
    return wrapper_half_bf16_to_f32(
        wrapper_half_f32_to_bf16(static_cast<float>(value)));
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

using namespace mlir::wrapper::detail;

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
      .Case([&](tp::FlipOp f) -> LogicalResult {
        const HostTensor &input = get(f.getInput());
        HostTensor out = make(op, input.shape);
        SmallVector<bool> flipped(input.shape.size(), false);
        for (int64_t d : f.getDims())
          flipped[d] = true;
        Shape strides = stridesOf(input.shape);
        for (int64_t flat = 0; flat < out.numel(); ++flat) {
          Shape index = unflatten(flat, input.shape);
          int64_t src = 0;
          for (size_t d = 0; d < index.size(); ++d)
            src += (flipped[d] ? input.shape[d] - 1 - index[d] : index[d]) *
                   strides[d];
          out.values[flat] = input.values[src];
        }
        set(f.getResult(), std::move(out));
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
      .Case([&](tp::UniformOp u) -> LogicalResult {
        Shape shape = resolveShape(u.getType(), u.getDynamicSizes());
        HostTensor out = make(op, shape);
        // Seeds are integers held in doubles: exact below 2^53.
        auto seed = static_cast<uint64_t>(
            static_cast<int64_t>(get(u.getSeed()).values[0]));
        auto stream = static_cast<uint64_t>(u.getStream());
        for (int64_t flat = 0; flat < out.numel(); ++flat)
          out.values[flat] = roundToElementType(
              philoxUniform(philox4x32First(seed, flat, stream)),
              out.elementType);
        set(u.getResult(), std::move(out));
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
        // The running sums stay unrounded; each output is rounded to the
        // element type (PyTorch accumulates bf16/f16 sums in float and
        // rounds what it stores, as the lowerings do).
        std::vector<double> sums = out.values;
        for (int64_t flat = 0; flat < out.numel(); ++flat) {
          Shape index = unflatten(flat, out.shape);
          if (index[dim] > 0)
            sums[flat] += sums[flat - strides[dim]];
          out.values[flat] = roundToElementType(sums[flat], out.elementType);
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
        if (std::optional<LogicalResult> computed = evaluateCompute(op))
          return *computed;
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
