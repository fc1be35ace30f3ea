//===- Reductions.cpp - tensor_program reductions to linalg ---------------===//
//
// Part of the Wrapper project.
//
// A reduction is a linalg.generic with reduction iterators over the reduced
// dimensions, accumulating in the compute type (f32 for f16/bf16) into a
// tensor filled with the reduction's identity; a second, elementwise generic
// divides (mean) and rounds back to the element type where needed.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::wrapper;
using namespace mlir::wrapper::tp_to_linalg;
namespace tp = mlir::tensor_program;

namespace {
/// The iteration space of a reduction: the input's dimensions; the output
/// map keeps the non-reduced ones (and constant 0 for kept reduced ones).
struct ReductionSpace {
  SmallVector<utils::IteratorType> iterators;
  AffineMap inputMap, outputMap;
  SmallVector<Value> outputDynamicSizes;
};

ReductionSpace getReductionSpace(OpBuilder &b, Location loc, Value input,
                                 ArrayRef<int64_t> dims, bool keepDim) {
  auto type = cast<RankedTensorType>(input.getType());
  MLIRContext *context = b.getContext();
  ReductionSpace space;
  SmallVector<AffineExpr> outputExprs;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    bool reduced = llvm::is_contained(dims, dim);
    space.iterators.push_back(reduced ? utils::IteratorType::reduction
                                      : utils::IteratorType::parallel);
    if (!reduced) {
      outputExprs.push_back(getAffineDimExpr(dim, context));
      if (type.isDynamicDim(dim))
        space.outputDynamicSizes.push_back(
            tensor::DimOp::create(b, loc, input, dim));
    } else if (keepDim) {
      outputExprs.push_back(getAffineConstantExpr(0, context));
    }
  }
  space.inputMap = b.getMultiDimIdentityMap(type.getRank());
  space.outputMap = AffineMap::get(type.getRank(), 0, outputExprs, context);
  return space;
}

/// The number of elements reduced, as a scalar of `type`.
Value reducedCount(OpBuilder &b, Location loc, Value input,
                   ArrayRef<int64_t> dims, Type type) {
  Value count = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t dim : dims) {
    Value size = tensor::DimOp::create(b, loc, input, dim);
    count = arith::MulIOp::create(b, loc, count, size);
  }
  Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
  return arith::SIToFPOp::create(b, loc, type, asInt);
}

template <typename OpTy> struct LowerReduction : public OpRewritePattern<OpTy> {
  LowerReduction(MLIRContext *context, ReductionKind kind, bool mean = false)
      : OpRewritePattern<OpTy>(context), kind(kind), mean(mean) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    Type compute = getComputeType(element);
    ArrayRef<int64_t> dims = op.getDims();

    ReductionSpace space =
        getReductionSpace(rewriter, loc, input, dims, op.getKeepdim());
    Value identity = reductionIdentity(rewriter, loc, kind, compute);
    Value init = createFilled(rewriter, loc, resultType,
                              space.outputDynamicSizes, compute, identity);
    auto accType = RankedTensorType::get(resultType.getShape(), compute);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, accType, input, init,
        ArrayRef<AffineMap>{space.inputMap, space.outputMap}, space.iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value value = convertScalar(b, l, args[0], compute);
          linalg::YieldOp::create(b, l,
                                  reductionCombine(b, l, kind, args[1], value));
        });
    Value result = generic.getResult(0);

    if (mean || compute != element) {
      Value count;
      if (mean)
        count = reducedCount(rewriter, loc, input, dims, compute);
      result = mapElements(rewriter, loc, result, resultType,
                           [&](OpBuilder &b, Location l, Value acc) {
                             if (count)
                               acc = arith::DivFOp::create(b, l, acc, count);
                             return convertScalar(b, l, acc, element);
                           });
    }
    rewriter.replaceOp(op, result);
    return success();
  }

  ReductionKind kind;
  bool mean;
};

/// argmax: value and index carried together; the first maximum wins, and a
/// NaN is a maximum (as torch.argmax treats it).
struct LowerArgMax : public OpRewritePattern<tp::ArgMaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::ArgMaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    int64_t dim = static_cast<int64_t>(op.getDim());
    RankedTensorType resultType = op.getType();
    Type element = cast<RankedTensorType>(input.getType()).getElementType();
    ReductionSpace space =
        getReductionSpace(rewriter, loc, input, {dim}, op.getKeepdim());
    Value lowest =
        reductionIdentity(rewriter, loc, ReductionKind::Max, element);
    Value values = createFilled(rewriter, loc, resultType,
                                space.outputDynamicSizes, element, lowest);
    Value zero = arith::ConstantIntOp::create(rewriter, loc, 0, 64);
    Value indices =
        createFilled(rewriter, loc, resultType, space.outputDynamicSizes,
                     rewriter.getI64Type(), zero);
    auto valueType = RankedTensorType::get(resultType.getShape(), element);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valueType, resultType}, input,
        ValueRange{values, indices},
        ArrayRef<AffineMap>{space.inputMap, space.outputMap, space.outputMap},
        space.iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], best = args[1], bestIndex = args[2];
          Value take;
          if (isa<FloatType>(element)) {
            Value greater =
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x, best);
            Value xNaN =
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
            Value bestNaN = arith::CmpFOp::create(
                b, l, arith::CmpFPredicate::UNO, best, best);
            Value bestNotNaN = arith::XOrIOp::create(
                b, l, bestNaN, arith::ConstantIntOp::create(b, l, 1, 1));
            Value newNaN = arith::AndIOp::create(b, l, xNaN, bestNotNaN);
            take = arith::OrIOp::create(b, l, greater, newNaN);
          } else {
            take =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, x, best);
          }
          Value index = linalg::IndexOp::create(b, l, dim);
          Value index64 =
              arith::IndexCastOp::create(b, l, b.getI64Type(), index);
          Value newBest = arith::SelectOp::create(b, l, take, x, best);
          Value newIndex =
              arith::SelectOp::create(b, l, take, index64, bestIndex);
          linalg::YieldOp::create(b, l, ValueRange{newBest, newIndex});
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};
} // namespace

void tp_to_linalg::populateReductionPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<LowerReduction<tp::ReduceSumOp>>(context, ReductionKind::Sum);
  patterns.add<LowerReduction<tp::ReduceMeanOp>>(context, ReductionKind::Sum,
                                                 /*mean=*/true);
  patterns.add<LowerReduction<tp::ReduceProdOp>>(context, ReductionKind::Prod);
  patterns.add<LowerReduction<tp::ReduceMaxOp>>(context, ReductionKind::Max);
  patterns.add<LowerReduction<tp::ReduceMinOp>>(context, ReductionKind::Min);
  patterns.add<LowerArgMax>(context);
}
