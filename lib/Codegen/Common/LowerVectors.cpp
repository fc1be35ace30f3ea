//===- LowerVectors.cpp - vectorized loop bodies to 1-D vector ops --------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-lower-vectors: upstream's vector lowering patterns,
// in the combination that turns linalg vectorization's output into what
// --convert-vector-to-llvm maps onto LLVM vectors one to one.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERLOWERVECTORSPASS
#include "Wrapper/Codegen/Common/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
/// An elementwise op of several results (arith.mului_extended, as counter-
/// based random numbers use) on vectors with leading unit dimensions, as
/// the op on the innermost vectors: upstream's leading-unit-dimension
/// patterns take single-result ops only, and the LLVM lowering leaves an
/// n-D multi-result op to an unrealized cast.
struct CastAwayMultiResultLeadingOneDim : public RewritePattern {
  CastAwayMultiResultLeadingOneDim(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() < 2 ||
        op->getNumRegions() != 0)
      return failure();
    auto type = dyn_cast<VectorType>(op->getResult(0).getType());
    if (!type || type.getRank() < 2 ||
        llvm::any_of(type.getShape().drop_back(),
                     [](int64_t size) { return size != 1; }) ||
        type.isScalable())
      return failure();
    auto flat = [](Type t) {
      auto vector = cast<VectorType>(t);
      return VectorType::get(vector.getShape().back(), vector.getElementType());
    };
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      if (!isa<VectorType>(operand.getType()) ||
          cast<VectorType>(operand.getType()).getShape() != type.getShape())
        return failure();
      operands.push_back(vector::ShapeCastOp::create(
          rewriter, op->getLoc(), flat(operand.getType()), operand));
    }
    SmallVector<Type> resultTypes;
    for (Type t : op->getResultTypes()) {
      if (!isa<VectorType>(t) ||
          cast<VectorType>(t).getShape() != type.getShape())
        return failure();
      resultTypes.push_back(flat(t));
    }
    OperationState state(op->getLoc(), op->getName(), operands, resultTypes,
                         op->getAttrs());
    Operation *flatOp = rewriter.create(state);
    SmallVector<Value> results;
    for (auto [result, original] :
         llvm::zip(flatOp->getResults(), op->getResults()))
      results.push_back(vector::ShapeCastOp::create(
          rewriter, op->getLoc(), original.getType(), result));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Reads a 1-D vector from a buffer whose innermost stride is a small
/// constant s > 1 (a strided slice: a convolution's or pooling's input at
/// stride 2) as one contiguous load of the (L - 1) * s + 1 elements it
/// spans, then a shuffle of every s-th: otherwise each lane is a scalar
/// load. The load stays within the elements the read covers (no lane
/// past the last one is touched).
struct StridedReadAsShuffle : public OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;

  static constexpr int64_t kMaxStride = 4;

  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    VectorType vectorType = read.getVectorType();
    auto memref = dyn_cast<MemRefType>(read.getBase().getType());
    if (!memref || vectorType.getRank() != 1 || vectorType.isScalable() ||
        read.getMask() || !read.getPermutationMap().isMinorIdentity() ||
        read.getPermutationMap().getNumResults() != 1 ||
        !read.getInBoundsValues().front())
      return rewriter.notifyMatchFailure(read, "not an in-bounds 1-D read");
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(memref.getStridesAndOffset(strides, offset)))
      return rewriter.notifyMatchFailure(read, "no strided layout");
    int64_t stride = strides.back();
    int64_t lanes = vectorType.getNumElements();
    if (ShapedType::isDynamic(stride) || stride <= 1 || stride > kMaxStride ||
        lanes < 2)
      return rewriter.notifyMatchFailure(read, "not a small constant stride");
    Location loc = read.getLoc();
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, read.getBase());
    // The read's first element, as a linear offset of the base buffer.
    Value start = metadata.getOffset();
    for (auto [index, dimStride] :
         llvm::zip(read.getIndices(), metadata.getStrides()))
      start = arith::AddIOp::create(
          rewriter, loc, start,
          arith::MulIOp::create(rewriter, loc, index, dimStride));
    int64_t span = (lanes - 1) * stride + 1;
    Type element = vectorType.getElementType();
    auto flatType =
        MemRefType::get({span}, element,
                        StridedLayoutAttr::get(rewriter.getContext(),
                                               ShapedType::kDynamic, {1}));
    Value flat = memref::ReinterpretCastOp::create(
        rewriter, loc, flatType, metadata.getBaseBuffer(),
        getAsOpFoldResult(start),
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(span)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value wide = vector::LoadOp::create(
        rewriter, loc, VectorType::get({span}, element), flat, zero);
    SmallVector<int64_t> picks;
    for (int64_t lane = 0; lane < lanes; ++lane)
      picks.push_back(lane * stride);
    rewriter.replaceOpWithNewOp<vector::ShuffleOp>(read, wide, wide, picks);
    return success();
  }
};

struct WrapperLowerVectorsPass
    : public wrapper::impl::WrapperLowerVectorsPassBase<
          WrapperLowerVectorsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // Shapes first: unit dimensions away (a reduction over a unit
    // dimension becomes elementwise), permutations as transposes.
    {
      RewritePatternSet patterns(context);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
      patterns.add<CastAwayMultiResultLeadingOneDim>(context);
      vector::populateVectorTransferDropUnitDimsPatterns(patterns);
      vector::populateDropUnitDimWithShapeCastPatterns(patterns);
      // Single elements (a row's statistic broadcast over the row) as
      // scalar loads and stores: a broadcast of a scalar is one splat.
      vector::populateScalarVectorTransferLoweringPatterns(
          patterns, /*benefit=*/1, /*allowMultipleUses=*/true);
      vector::populateVectorToVectorCanonicalizationPatterns(patterns);
      vector::MultiDimReductionOp::getCanonicalizationPatterns(patterns,
                                                               context);
      vector::BroadcastOp::getCanonicalizationPatterns(patterns, context);
      vector::ExtractOp::getCanonicalizationPatterns(patterns, context);
      vector::TransposeOp::getCanonicalizationPatterns(patterns, context);
      vector::ShapeCastOp::getCanonicalizationPatterns(patterns, context);
      if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
        return signalPassFailure();
    }
    // Then the remaining multi-reductions as 1-D (horizontal) reductions.
    {
      RewritePatternSet patterns(context);
      vector::populateVectorMultiReductionLoweringPatterns(
          patterns, vector::VectorMultiReductionLowering::InnerReduction);
      vector::populateVectorToVectorCanonicalizationPatterns(patterns);
      if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
        return signalPassFailure();
    }
    // Then transfers as loads and stores, and the remaining n-D helpers.
    {
      RewritePatternSet patterns(context);
      patterns.add<StridedReadAsShuffle>(context, /*benefit=*/2);
      vector::populateVectorTransferLoweringPatterns(patterns,
                                                     /*maxTransferRank=*/1);
      vector::populateVectorBroadcastLoweringPatterns(patterns);
      vector::populateVectorShapeCastLoweringPatterns(patterns);
      vector::populateVectorTransposeLoweringPatterns(
          patterns, vector::VectorTransposeLowering::EltWise);
      vector::populateVectorToVectorCanonicalizationPatterns(patterns);
      if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
        return signalPassFailure();
    }
  }
};
} // namespace
