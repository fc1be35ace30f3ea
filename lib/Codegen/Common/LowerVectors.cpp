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
