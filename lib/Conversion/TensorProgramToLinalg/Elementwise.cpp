//===- Elementwise.cpp - elementwise tensor_program ops to linalg ---------===//
//
// Part of the Wrapper project.
//
// Every elementwise op becomes one linalg.generic over the result shape, with
// broadcasting in the operands' indexing maps; the scalar payload is built
// by `buildPayload` in the compute type (f32 for f16/bf16).
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::wrapper;
using namespace mlir::wrapper::tp_to_linalg;
namespace tp = mlir::tensor_program;

static Value constant(OpBuilder &b, Location loc, Type type, double value) {
  return scalarConstant(b, loc, type, value);
}

/// 1 / (1 + exp(-x))
static Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value neg = arith::NegFOp::create(b, loc, x);
  Value exp = math::ExpOp::create(b, loc, neg);
  Value den = arith::AddFOp::create(b, loc, constant(b, loc, t, 1), exp);
  return arith::DivFOp::create(b, loc, constant(b, loc, t, 1), den);
}

static arith::CmpFPredicate floatPredicate(tp::ComparePredicate p) {
  switch (p) {
  case tp::ComparePredicate::eq:
    return arith::CmpFPredicate::OEQ;
  case tp::ComparePredicate::ne:
    return arith::CmpFPredicate::UNE;
  case tp::ComparePredicate::lt:
    return arith::CmpFPredicate::OLT;
  case tp::ComparePredicate::le:
    return arith::CmpFPredicate::OLE;
  case tp::ComparePredicate::gt:
    return arith::CmpFPredicate::OGT;
  case tp::ComparePredicate::ge:
    return arith::CmpFPredicate::OGE;
  }
  llvm_unreachable("unknown predicate");
}

static arith::CmpIPredicate intPredicate(tp::ComparePredicate p) {
  switch (p) {
  case tp::ComparePredicate::eq:
    return arith::CmpIPredicate::eq;
  case tp::ComparePredicate::ne:
    return arith::CmpIPredicate::ne;
  case tp::ComparePredicate::lt:
    return arith::CmpIPredicate::slt;
  case tp::ComparePredicate::le:
    return arith::CmpIPredicate::sle;
  case tp::ComparePredicate::gt:
    return arith::CmpIPredicate::sgt;
  case tp::ComparePredicate::ge:
    return arith::CmpIPredicate::sge;
  }
  llvm_unreachable("unknown predicate");
}

/// `lhs / rhs` on signed integers with the cases that trap on x86 made
/// defined: a zero divisor gives 0 (PyTorch raises an error there), and
/// INT_MIN / -1 wraps to INT_MIN.
template <typename DivOpTy>
static Value safeIntDivide(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  Type t = lhs.getType();
  unsigned width = t.getIntOrFloatBitWidth();
  Value zero = arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, 0));
  Value one = arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, 1));
  Value minusOne =
      arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, -1));
  Value min = arith::ConstantOp::create(
      b, loc, t, b.getIntegerAttr(t, APInt::getSignedMinValue(width)));
  Value isZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, zero);
  Value overflow = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs, min),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, minusOne));
  Value bad = arith::OrIOp::create(b, loc, isZero, overflow);
  Value divisor = arith::SelectOp::create(b, loc, bad, one, rhs);
  Value quotient = DivOpTy::create(b, loc, lhs, divisor);
  return arith::SelectOp::create(b, loc, isZero, zero, quotient);
}

/// The remainder with the sign of the dividend (C fmod) or, with
/// `floorSign`, of the divisor (Python's %, torch.remainder).
static Value remainder(OpBuilder &b, Location loc, Value lhs, Value rhs,
                       bool floorSign) {
  Type t = lhs.getType();
  bool isFloat = isa<FloatType>(t);
  Value zero = scalarConstant(b, loc, t, 0);
  Value r;
  if (isFloat) {
    r = arith::RemFOp::create(b, loc, lhs, rhs);
  } else {
    // x % 0 is 0 here (PyTorch raises), INT_MIN % -1 is 0.
    Value isZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, zero);
    Value minusOne = scalarConstant(b, loc, t, -1);
    Value isMinusOne =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, minusOne);
    Value bad = arith::OrIOp::create(b, loc, isZero, isMinusOne);
    Value divisor = arith::SelectOp::create(
        b, loc, bad, scalarConstant(b, loc, t, 1), rhs);
    r = arith::RemSIOp::create(b, loc, lhs, divisor);
  }
  if (!floorSign)
    return r;
  // r != 0 and sign(r) != sign(rhs): r + rhs.
  Value nonzero, rNegative, rhsNegative;
  if (isFloat) {
    nonzero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, r, zero);
    rNegative =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, r, zero);
    rhsNegative =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, rhs, zero);
  } else {
    nonzero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, zero);
    rNegative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero);
    rhsNegative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rhs, zero);
  }
  Value differ = arith::XOrIOp::create(b, loc, rNegative, rhsNegative);
  Value adjust = arith::AndIOp::create(b, loc, nonzero, differ);
  Value shifted = isFloat ? arith::AddFOp::create(b, loc, r, rhs).getResult()
                          : arith::AddIOp::create(b, loc, r, rhs).getResult();
  return arith::SelectOp::create(b, loc, adjust, shifted, r);
}

/// -1, 0 or 1 (and NaN for NaN, -0/+0 kept).
static Value sign(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value zero = scalarConstant(b, loc, t, 0);
  Value one = scalarConstant(b, loc, t, 1);
  Value minusOne = scalarConstant(b, loc, t, -1);
  Value positive, negative;
  if (isa<FloatType>(t)) {
    positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
    negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
  } else {
    positive = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, x, zero);
    negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
    if (t.isInteger(1))
      return x;
  }
  Value inner = arith::SelectOp::create(b, loc, negative, minusOne,
                                        isa<FloatType>(t) ? x : zero);
  return arith::SelectOp::create(b, loc, positive, one, inner);
}

/// The value of every element of `value` when it is a constant splat.
static std::optional<double> splatValue(Value value) {
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (dense && dense.isSplat() && isa<FloatType>(dense.getElementType()))
    return dense.getSplatValue<APFloat>().convertToDouble();
  if (auto floatAttr = dyn_cast<FloatAttr>(attr))
    return floatAttr.getValueAsDouble();
  return std::nullopt;
}

/// x ** y. With a constant exponent that PyTorch's CPU kernel special-cases
/// (2, 3, 0.5, -0.5, -1, -2), the same arithmetic it does: multiplications,
/// sqrt, rsqrt, reciprocals -- exact where powf is not, and without a libm
/// call per element (gelu's tanh form cubes its input).
static Value powOf(OpBuilder &b, Location loc, Value x, Value y,
                   Value exponentTensor) {
  std::optional<double> exponent = splatValue(exponentTensor);
  Type t = x.getType();
  if (!exponent)
    return math::PowFOp::create(b, loc, x, y);
  auto mul = [&](Value l, Value r) -> Value {
    return arith::MulFOp::create(b, loc, l, r);
  };
  auto reciprocal = [&](Value v) -> Value {
    return arith::DivFOp::create(b, loc, constant(b, loc, t, 1.0), v);
  };
  if (*exponent == 1.0)
    return x;
  if (*exponent == 2.0)
    return mul(x, x);
  if (*exponent == 3.0)
    return mul(mul(x, x), x);
  if (*exponent == 0.5)
    return math::SqrtOp::create(b, loc, x);
  if (*exponent == -0.5)
    return math::RsqrtOp::create(b, loc, x);
  if (*exponent == -1.0)
    return reciprocal(x);
  if (*exponent == -2.0)
    return reciprocal(mul(x, x));
  return math::PowFOp::create(b, loc, x, y);
}

/// Builds the scalar computation of elementwise `op` on `args` (already in
/// the compute type, except the i1 condition of where). Returns the result
/// in the compute type (or i1 for compare).
static Value buildPayload(Operation *op, OpBuilder &b, Location loc,
                          ValueRange args) {
  Value x = args.empty() ? Value() : args[0];
  Type t = x ? x.getType() : Type();
  bool isFloat = t && isa<FloatType>(t);
  return TypeSwitch<Operation *, Value>(op)
      .Case([&](tp::AddOp) -> Value {
        return isFloat ? arith::AddFOp::create(b, loc, x, args[1]).getResult()
                       : arith::AddIOp::create(b, loc, x, args[1]).getResult();
      })
      .Case([&](tp::SubOp) -> Value {
        return isFloat ? arith::SubFOp::create(b, loc, x, args[1]).getResult()
                       : arith::SubIOp::create(b, loc, x, args[1]).getResult();
      })
      .Case([&](tp::MulOp) -> Value {
        return isFloat ? arith::MulFOp::create(b, loc, x, args[1]).getResult()
                       : arith::MulIOp::create(b, loc, x, args[1]).getResult();
      })
      .Case([&](tp::DivOp) -> Value {
        return isFloat
                   ? arith::DivFOp::create(b, loc, x, args[1]).getResult()
                   : safeIntDivide<arith::DivSIOp>(b, loc, x, args[1]);
      })
      .Case([&](tp::FloorDivOp) -> Value {
        return safeIntDivide<arith::FloorDivSIOp>(b, loc, x, args[1]);
      })
      .Case([&](tp::FmodOp) -> Value {
        return remainder(b, loc, x, args[1], /*floorSign=*/false);
      })
      .Case([&](tp::RemainderOp) -> Value {
        return remainder(b, loc, x, args[1], /*floorSign=*/true);
      })
      .Case([&](tp::AndOp) -> Value {
        return arith::AndIOp::create(b, loc, x, args[1]);
      })
      .Case([&](tp::OrOp) -> Value {
        return arith::OrIOp::create(b, loc, x, args[1]);
      })
      .Case([&](tp::XorOp) -> Value {
        return arith::XOrIOp::create(b, loc, x, args[1]);
      })
      .Case([&](tp::NotOp) -> Value {
        Value ones = arith::ConstantOp::create(
            b, loc, t,
            b.getIntegerAttr(t, APInt::getAllOnes(t.getIntOrFloatBitWidth())));
        return arith::XOrIOp::create(b, loc, x, ones);
      })
      .Case([&](tp::Atan2Op) -> Value {
        return math::Atan2Op::create(b, loc, x, args[1]);
      })
      .Case([&](tp::SignOp) -> Value { return sign(b, loc, x); })
      .Case([&](tp::SinOp) -> Value { return math::SinOp::create(b, loc, x); })
      .Case([&](tp::CosOp) -> Value { return math::CosOp::create(b, loc, x); })
      .Case([&](tp::TanOp) -> Value { return math::TanOp::create(b, loc, x); })
      .Case(
          [&](tp::AsinOp) -> Value { return math::AsinOp::create(b, loc, x); })
      .Case(
          [&](tp::AcosOp) -> Value { return math::AcosOp::create(b, loc, x); })
      .Case(
          [&](tp::AtanOp) -> Value { return math::AtanOp::create(b, loc, x); })
      .Case(
          [&](tp::SinhOp) -> Value { return math::SinhOp::create(b, loc, x); })
      .Case(
          [&](tp::CoshOp) -> Value { return math::CoshOp::create(b, loc, x); })
      .Case([&](tp::AsinhOp) -> Value {
        return math::AsinhOp::create(b, loc, x);
      })
      .Case([&](tp::AcoshOp) -> Value {
        return math::AcoshOp::create(b, loc, x);
      })
      .Case([&](tp::AtanhOp) -> Value {
        return math::AtanhOp::create(b, loc, x);
      })
      .Case([&](tp::Log1pOp) -> Value {
        return math::Log1pOp::create(b, loc, x);
      })
      .Case([&](tp::Expm1Op) -> Value {
        return math::ExpM1Op::create(b, loc, x);
      })
      .Case(
          [&](tp::Log2Op) -> Value { return math::Log2Op::create(b, loc, x); })
      .Case([&](tp::Log10Op) -> Value {
        return math::Log10Op::create(b, loc, x);
      })
      .Case(
          [&](tp::Exp2Op) -> Value { return math::Exp2Op::create(b, loc, x); })
      .Case([&](tp::FloorOp) -> Value {
        return math::FloorOp::create(b, loc, x);
      })
      .Case(
          [&](tp::CeilOp) -> Value { return math::CeilOp::create(b, loc, x); })
      .Case([&](tp::RoundOp) -> Value {
        return math::RoundEvenOp::create(b, loc, x);
      })
      .Case([&](tp::TruncOp) -> Value {
        return math::TruncOp::create(b, loc, x);
      })
      .Case([&](tp::MaxOp) -> Value {
        return isFloat
                   ? arith::MaximumFOp::create(b, loc, x, args[1]).getResult()
                   : arith::MaxSIOp::create(b, loc, x, args[1]).getResult();
      })
      .Case([&](tp::MinOp) -> Value {
        return isFloat
                   ? arith::MinimumFOp::create(b, loc, x, args[1]).getResult()
                   : arith::MinSIOp::create(b, loc, x, args[1]).getResult();
      })
      .Case([&](tp::PowOp pow) -> Value {
        return powOf(b, loc, x, args[1], pow.getOperand(1));
      })
      .Case([&](tp::NegOp) -> Value {
        if (isFloat)
          return arith::NegFOp::create(b, loc, x);
        return arith::SubIOp::create(b, loc, constant(b, loc, t, 0), x);
      })
      .Case([&](tp::AbsOp) -> Value {
        return isFloat ? math::AbsFOp::create(b, loc, x).getResult()
                       : math::AbsIOp::create(b, loc, x).getResult();
      })
      .Case([&](tp::ExpOp) -> Value { return math::ExpOp::create(b, loc, x); })
      .Case([&](tp::LogOp) -> Value { return math::LogOp::create(b, loc, x); })
      .Case(
          [&](tp::SqrtOp) -> Value { return math::SqrtOp::create(b, loc, x); })
      .Case([&](tp::RsqrtOp) -> Value {
        return math::RsqrtOp::create(b, loc, x);
      })
      .Case(
          [&](tp::TanhOp) -> Value { return math::TanhOp::create(b, loc, x); })
      .Case([&](tp::SigmoidOp) -> Value { return sigmoid(b, loc, x); })
      .Case([&](tp::ErfOp) -> Value { return math::ErfOp::create(b, loc, x); })
      .Case([&](tp::ReluOp) -> Value {
        // max(x, 0), NaN propagating as torch.relu does.
        return isFloat
                   ? arith::MaximumFOp::create(b, loc, x,
                                               constant(b, loc, t, 0))
                         .getResult()
                   : arith::MaxSIOp::create(b, loc, x, constant(b, loc, t, 0))
                         .getResult();
      })
      .Case([&](tp::SiluOp) -> Value {
        return arith::MulFOp::create(b, loc, x, sigmoid(b, loc, x));
      })
      .Case([&](tp::GeluOp gelu) -> Value {
        Value half = arith::MulFOp::create(b, loc, x, constant(b, loc, t, 0.5));
        Value inner;
        if (gelu.getApproximate() == tp::GeluApproximation::none) {
          // 0.5 * x * (1 + erf(x / sqrt(2)))
          Value scaled = arith::MulFOp::create(
              b, loc, x, constant(b, loc, t, 0.7071067811865476));
          inner = math::ErfOp::create(b, loc, scaled);
        } else {
          // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
          Value x2 = arith::MulFOp::create(b, loc, x, x);
          Value x3 = arith::MulFOp::create(b, loc, x2, x);
          Value cubic =
              arith::MulFOp::create(b, loc, x3, constant(b, loc, t, 0.044715));
          Value sum = arith::AddFOp::create(b, loc, x, cubic);
          Value scaled = arith::MulFOp::create(
              b, loc, sum, constant(b, loc, t, 0.7978845608028654));
          inner = math::TanhOp::create(b, loc, scaled);
        }
        Value onePlus =
            arith::AddFOp::create(b, loc, constant(b, loc, t, 1), inner);
        return arith::MulFOp::create(b, loc, half, onePlus);
      })
      .Case([&](tp::WhereOp) -> Value {
        return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
      })
      .Case([&](tp::CompareOp cmp) -> Value {
        if (isFloat)
          return arith::CmpFOp::create(
              b, loc, floatPredicate(cmp.getPredicate()), x, args[1]);
        return arith::CmpIOp::create(b, loc, intPredicate(cmp.getPredicate()),
                                     x, args[1]);
      })
      .Case([&](tp::CastOp) -> Value { return x; })
      .Default([](Operation *) -> Value { return {}; });
}

namespace {
/// Lowers any elementwise op (trait ElementwiseOp) to one linalg.generic.
struct LowerElementwise : public RewritePattern {
  LowerElementwise(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!tp::isElementwise(op) || op->getNumResults() != 1)
      return rewriter.notifyMatchFailure(op, "not an elementwise op");
    Location loc = op->getLoc();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Type resultElement = resultType.getElementType();
    MLIRContext *context = rewriter.getContext();

    // The type the payload computes in: the operands' compute type. The
    // condition of where stays i1; cast computes in its input's type.
    ValueRange operands = op->getOperands();
    Value valueOperand = isa<tp::WhereOp>(op) ? operands[1] : operands[0];
    Type operandElement =
        cast<RankedTensorType>(valueOperand.getType()).getElementType();
    Type compute =
        isa<tp::CastOp>(op) ? operandElement : getComputeType(operandElement);

    SmallVector<AffineMap> maps;
    for (Value operand : operands)
      maps.push_back(getBroadcastMap(cast<RankedTensorType>(operand.getType()),
                                     resultType.getShape(), context));
    maps.push_back(rewriter.getMultiDimIdentityMap(resultType.getRank()));
    SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                               utils::IteratorType::parallel);
    Value init = createEmpty(
        rewriter, loc, resultType,
        getBroadcastDynamicSizes(rewriter, loc, resultType, operands));

    bool failedPayload = false;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, operands, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> inputs;
          for (auto [index, arg] : llvm::enumerate(args.drop_back())) {
            bool isCondition = isa<tp::WhereOp>(op) && index == 0;
            inputs.push_back(isCondition ? arg
                                         : convertScalar(b, l, arg, compute));
          }
          Value result = buildPayload(op, b, l, inputs);
          if (!result) {
            failedPayload = true;
            result = args.back();
          }
          linalg::YieldOp::create(b, l,
                                  convertScalar(b, l, result, resultElement));
        });
    if (failedPayload) {
      rewriter.eraseOp(generic);
      return rewriter.notifyMatchFailure(op, "no scalar payload for this op");
    }
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct LowerConstant : public OpRewritePattern<tp::ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "value is not a typed attribute");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, op.getType(), value);
    return success();
  }
};

struct LowerFull : public OpRewritePattern<tp::FullOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::FullOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Value value = scalarConstant(rewriter, loc, type.getElementType(),
                                 op.getValue().convertToDouble());
    rewriter.replaceOp(op,
                       createFilled(rewriter, loc, type, op.getDynamicSizes(),
                                    type.getElementType(), value));
    return success();
  }
};
} // namespace

void tp_to_linalg::populateElementwisePatterns(RewritePatternSet &patterns) {
  patterns.add<LowerElementwise, LowerConstant, LowerFull>(
      patterns.getContext());
}
