//===- TensorProgramToLinalg.cpp - the lowering pass ----------------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "Wrapper/Conversion/Passes.h"
#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#define DEBUG_TYPE "convert-tensor-program-to-linalg"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_CONVERTTENSORPROGRAMTOLINALGPASS
#include "Wrapper/Conversion/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper;
namespace tp = mlir::tensor_program;

namespace {
/// A fused region lowers like the ops it holds: inline it.
struct InlineFused : public OpRewritePattern<tp::FusedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::FusedOp op,
                                PatternRewriter &rewriter) const override {
    Block &body = op.getBody().front();
    auto yield = cast<tp::YieldOp>(body.getTerminator());
    SmallVector<Value> results(yield.getValues());
    rewriter.inlineBlockBefore(&body, op, op.getInputs());
    rewriter.replaceOp(op, results);
    rewriter.eraseOp(yield);
    return success();
  }
};

/// Whether `type` is a tensor with a static size of zero.
static bool hasNoElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && llvm::is_contained(tensor.getShape(), 0);
}

/// A pure tensor_program op whose results hold no elements (swin3d's
/// window-shift masks when the shift is 0: slices of size 0) computes
/// nothing: its results are empty tensors. Slicing ops must not lower:
/// upstream's slice verifier refuses any static offset into a dimension of
/// size 0 ("offset 0 is out-of-bounds: 0 >= 0").
struct LowerEmptyResults : public RewritePattern {
  LowerEmptyResults(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/10, context) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<tp::TensorProgramDialect>(op->getDialect()) ||
        op->getNumResults() == 0 || op->getNumRegions() != 0 || !isPure(op) ||
        isa<tp::ConstantOp>(op))
      return failure();
    SmallVector<Value> empties;
    for (Type type : op->getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!hasNoElements(type) || !tensor.hasStaticShape())
        return failure();
      empties.push_back(tensor::EmptyOp::create(
          rewriter, op->getLoc(), tensor.getShape(), tensor.getElementType()));
    }
    rewriter.replaceOp(op, empties);
    return success();
  }
};

/// Writing no elements leaves the destination as it is; concatenating
/// an empty tensor adds nothing (their insertions would be at the end of a
/// dimension, an offset the slice verifier refuses).
struct DropEmptySliceScatter : public OpRewritePattern<tp::SliceScatterOp> {
  DropEmptySliceScatter(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/10) {}
  LogicalResult matchAndRewrite(tp::SliceScatterOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasNoElements(op.getSrc().getType()) ||
        op.getInput().getType() != op.getType())
      return failure();
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};

struct DropEmptyConcatInputs : public OpRewritePattern<tp::ConcatOp> {
  DropEmptyConcatInputs(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/10) {}
  LogicalResult matchAndRewrite(tp::ConcatOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value> kept = llvm::filter_to_vector(
        op.getInputs(), [](Value v) { return !hasNoElements(v.getType()); });
    if (kept.size() == op.getInputs().size() || kept.empty())
      return failure();
    if (kept.size() == 1 && kept.front().getType() == op.getType()) {
      rewriter.replaceOp(op, kept.front());
      return success();
    }
    rewriter.modifyOpInPlace(op, [&] { op.getInputsMutable().assign(kept); });
    return success();
  }
};

struct ConvertTensorProgramToLinalgPass
    : public wrapper::impl::ConvertTensorProgramToLinalgPassBase<
          ConvertTensorProgramToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    // Ops without a linalg form get a message that says where they go.
    WalkResult unsupported = getOperation()->walk([](Operation *op) {
      if (isa<tp::ExternOp, tp::CopyBackOp>(op)) {
        op->emitOpError()
            << "has no linalg form; lower the program with "
               "--convert-tensor-program-to-wrapper (the wrapper pipelines)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (unsupported.wasInterrupted())
      return signalPassFailure();

    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    populateTensorProgramToLinalgPatterns(patterns, parallelScans);
    ConversionTarget target(*context);
    configureTensorProgramToLinalgTarget(target, atomicScatterAdd);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::wrapper::configureTensorProgramToLinalgTarget(
    ConversionTarget &target, bool atomicScatterAdd) {
  target.addIllegalDialect<tp::TensorProgramDialect>();
  // Scatters that add: kept for bufferization's atomic form.
  if (atomicScatterAdd)
    target.addDynamicallyLegalOp<tp::ScatterOp>(
        [](Operation *op) { return isAtomicScatterAdd(op); });
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
}

void mlir::wrapper::populateTensorProgramToLinalgPatterns(
    RewritePatternSet &patterns, bool parallelScans) {
  tp::populateDecomposePatterns(patterns);
  patterns.add<InlineFused, LowerEmptyResults, DropEmptySliceScatter,
               DropEmptyConcatInputs>(patterns.getContext());
  tp_to_linalg::populateElementwisePatterns(patterns);
  tp_to_linalg::populateReductionPatterns(patterns);
  tp_to_linalg::populateLayoutPatterns(patterns);
  tp_to_linalg::populateContractionPatterns(patterns);
  tp_to_linalg::populateIndexingPatterns(patterns, parallelScans);
  tp_to_linalg::populateConvolutionPatterns(patterns);
}
