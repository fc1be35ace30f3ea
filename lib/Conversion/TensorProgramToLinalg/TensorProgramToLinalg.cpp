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
    populateTensorProgramToLinalgPatterns(patterns);
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
    RewritePatternSet &patterns) {
  tp::populateDecomposePatterns(patterns);
  patterns.add<InlineFused>(patterns.getContext());
  tp_to_linalg::populateElementwisePatterns(patterns);
  tp_to_linalg::populateReductionPatterns(patterns);
  tp_to_linalg::populateLayoutPatterns(patterns);
  tp_to_linalg::populateContractionPatterns(patterns);
  tp_to_linalg::populateIndexingPatterns(patterns);
  tp_to_linalg::populateConvolutionPatterns(patterns);
}
