//===- Utils.cpp - helpers of the tensor_program to linalg lowering -------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::wrapper;
using namespace mlir::wrapper::tp_to_linalg;

Type tp_to_linalg::getComputeType(Type element) {
  if (auto f = dyn_cast<FloatType>(element))
    if (f.getWidth() < 32)
      return Float32Type::get(element.getContext());
  return element;
}

Value tp_to_linalg::convertScalar(OpBuilder &b, Location loc, Value value,
                                  Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat && fromFloat.getWidth() == toFloat.getWidth()) {
    // bf16 <-> f16: no single arith cast; exact through f32 (both are
    // subsets of it), rounded once by the truncation.
    Value wide =
        arith::ExtFOp::create(b, loc, Float32Type::get(b.getContext()), value);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  if (fromFloat && toFloat)
    return fromFloat.getWidth() < toFloat.getWidth()
               ? arith::ExtFOp::create(b, loc, to, value).getResult()
               : arith::TruncFOp::create(b, loc, to, value).getResult();
  auto fromInt = dyn_cast<IntegerType>(from);
  auto toInt = dyn_cast<IntegerType>(to);
  if (toInt && toInt.getWidth() == 1) {
    // value != 0
    Value zero = scalarConstant(b, loc, from, 0);
    if (fromFloat)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, value,
                                   zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value, zero);
  }
  if (fromInt && fromInt.getWidth() == 1) {
    // true is 1, never -1.
    if (toFloat)
      return arith::UIToFPOp::create(b, loc, to, value);
    return arith::ExtUIOp::create(b, loc, to, value);
  }
  if (fromFloat && toInt)
    return arith::FPToSIOp::create(b, loc, to, value);
  if (fromInt && toFloat)
    return arith::SIToFPOp::create(b, loc, to, value);
  if (fromInt && toInt)
    return fromInt.getWidth() < toInt.getWidth()
               ? arith::ExtSIOp::create(b, loc, to, value).getResult()
               : arith::TruncIOp::create(b, loc, to, value).getResult();
  llvm_unreachable("unsupported scalar conversion");
}

Value tp_to_linalg::scalarConstant(OpBuilder &b, Location loc, Type type,
                                   double value) {
  if (auto f = dyn_cast<FloatType>(type)) {
    APFloat v(value);
    bool losesInfo;
    v.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
    return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, v));
  }
  return arith::ConstantOp::create(
      b, loc, type, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

AffineMap tp_to_linalg::getBroadcastMap(RankedTensorType operandType,
                                        ArrayRef<int64_t> resultShape,
                                        MLIRContext *context) {
  int64_t resultRank = resultShape.size();
  int64_t lead = resultRank - operandType.getRank();
  SmallVector<AffineExpr> exprs;
  for (auto [dim, size] : llvm::enumerate(operandType.getShape())) {
    int64_t out = resultShape[lead + dim];
    if (size == 1 && out != 1)
      exprs.push_back(getAffineConstantExpr(0, context));
    else
      exprs.push_back(getAffineDimExpr(lead + dim, context));
  }
  return AffineMap::get(resultRank, 0, exprs, context);
}

SmallVector<Value>
tp_to_linalg::getBroadcastDynamicSizes(OpBuilder &b, Location loc,
                                       RankedTensorType resultType,
                                       ValueRange operands) {
  SmallVector<Value> sizes;
  int64_t rank = resultType.getRank();
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (!resultType.isDynamicDim(dim))
      continue;
    Value size;
    for (Value operand : operands) {
      auto type = cast<RankedTensorType>(operand.getType());
      int64_t d = dim - (rank - type.getRank());
      if (d >= 0 && type.isDynamicDim(d)) {
        size = tensor::DimOp::create(b, loc, operand, d);
        break;
      }
    }
    assert(size && "a dynamic result dimension needs a dynamic operand");
    sizes.push_back(size);
  }
  return sizes;
}

Value tp_to_linalg::createEmpty(OpBuilder &b, Location loc,
                                RankedTensorType type, ValueRange dynamicSizes,
                                Type element) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 element ? element : type.getElementType(),
                                 dynamicSizes);
}

Value tp_to_linalg::createFilled(OpBuilder &b, Location loc,
                                 RankedTensorType type, ValueRange dynamicSizes,
                                 Type element, Value value) {
  Value empty = createEmpty(b, loc, type, dynamicSizes, element);
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

Value tp_to_linalg::mapElements(
    OpBuilder &b, Location loc, Value input, RankedTensorType resultType,
    function_ref<Value(OpBuilder &, Location, Value)> fn) {
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<Value> sizes;
  for (int64_t dim = 0; dim < inputType.getRank(); ++dim)
    if (resultType.isDynamicDim(dim))
      sizes.push_back(tensor::DimOp::create(b, loc, input, dim));
  Value init = createEmpty(b, loc, resultType, sizes);
  AffineMap id = b.getMultiDimIdentityMap(inputType.getRank());
  SmallVector<utils::IteratorType> iterators(inputType.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, input, init, ArrayRef<AffineMap>{id, id}, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, fn(nb, nloc, args[0]));
      });
  return generic.getResult(0);
}

Value tp_to_linalg::reductionIdentity(OpBuilder &b, Location loc,
                                      ReductionKind kind, Type type) {
  if (auto f = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    APFloat value = APFloat::getZero(sem);
    switch (kind) {
    case ReductionKind::Sum:
      value = APFloat::getZero(sem);
      break;
    case ReductionKind::Prod:
      value = APFloat::getOne(sem);
      break;
    case ReductionKind::Max:
      value = APFloat::getInf(sem, /*Negative=*/true);
      break;
    case ReductionKind::Min:
      value = APFloat::getInf(sem, /*Negative=*/false);
      break;
    }
    return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
  }
  unsigned width = type.getIntOrFloatBitWidth();
  APInt value(width, 0);
  switch (kind) {
  case ReductionKind::Sum:
    break;
  case ReductionKind::Prod:
    value = APInt(width, 1);
    break;
  case ReductionKind::Max:
    value = width == 1 ? APInt(1, 0) : APInt::getSignedMinValue(width);
    break;
  case ReductionKind::Min:
    value = width == 1 ? APInt(1, 1) : APInt::getSignedMaxValue(width);
    break;
  }
  return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, value));
}

Value tp_to_linalg::reductionCombine(OpBuilder &b, Location loc,
                                     ReductionKind kind, Value acc,
                                     Value value) {
  Value combined = reductionCombineImpl(b, loc, kind, acc, value);
  // The order of a reduction is unspecified (as in PyTorch): let LLVM
  // reassociate it, which is what allows vectorizing it.
  if (auto fastmath = dyn_cast_or_null<arith::ArithFastMathInterface>(
          combined.getDefiningOp()))
    combined.getDefiningOp()->setAttr(
        fastmath.getFastMathAttrName(),
        arith::FastMathFlagsAttr::get(b.getContext(),
                                      arith::FastMathFlags::reassoc));
  return combined;
}

Value tp_to_linalg::reductionCombineImpl(OpBuilder &b, Location loc,
                                         ReductionKind kind, Value acc,
                                         Value value) {
  bool isFloat = isa<FloatType>(acc.getType());
  bool isBool = acc.getType().isInteger(1);
  switch (kind) {
  case ReductionKind::Sum:
    if (isBool)
      return arith::OrIOp::create(b, loc, acc, value);
    return isFloat ? arith::AddFOp::create(b, loc, acc, value).getResult()
                   : arith::AddIOp::create(b, loc, acc, value).getResult();
  case ReductionKind::Prod:
    if (isBool)
      return arith::AndIOp::create(b, loc, acc, value);
    return isFloat ? arith::MulFOp::create(b, loc, acc, value).getResult()
                   : arith::MulIOp::create(b, loc, acc, value).getResult();
  case ReductionKind::Max:
    if (isBool)
      return arith::OrIOp::create(b, loc, acc, value);
    return isFloat ? arith::MaximumFOp::create(b, loc, acc, value).getResult()
                   : arith::MaxSIOp::create(b, loc, acc, value).getResult();
  case ReductionKind::Min:
    if (isBool)
      return arith::AndIOp::create(b, loc, acc, value);
    return isFloat ? arith::MinimumFOp::create(b, loc, acc, value).getResult()
                   : arith::MinSIOp::create(b, loc, acc, value).getResult();
  }
  llvm_unreachable("unknown reduction kind");
}
