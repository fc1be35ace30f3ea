//===- FuseElementwiseKeepContractions.cpp - elementwise fusion -----------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-fuse-elementwise-keep-contractions: upstream's
// elementwise fusion and reshape propagation, with named contractions left
// out and (with `recompute`) cheap producers fused into several users.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/Common/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERFUSEELEMENTWISEKEEPCONTRACTIONSPASS
#include "Wrapper/Codegen/Common/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
struct FuseElementwiseKeepContractionsPass
    : public wrapper::impl::WrapperFuseElementwiseKeepContractionsPassBase<
          FuseElementwiseKeepContractionsPass> {
  using WrapperFuseElementwiseKeepContractionsPassBase::
      WrapperFuseElementwiseKeepContractionsPassBase;
  /// Payload ops of a producer that is still cheap enough to recompute.
  static constexpr unsigned kRecomputeLimit = 8;
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    auto isNamedContraction = [](Operation *op) {
      auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
      return linalgOp && !isa<linalg::GenericOp>(op) &&
             linalg::isaContractionOpInterface(linalgOp);
    };
    auto isProduct = [](Operation *op) {
      auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
      if (!linalgOp)
        return false;
      SmallVector<unsigned> reductions;
      linalgOp.getReductionDims(reductions);
      return llvm::any_of(reductions, [&](unsigned dim) {
        return llvm::count_if(linalgOp.getDpsInputOperands(),
                              [&](OpOperand *input) {
                                return linalgOp.getMatchingIndexingMap(input)
                                    .isFunctionOfDim(dim);
                              }) >= 2;
      });
    };
    bool recompute = this->recompute;
    auto isElementwise = [](Operation *op) {
      auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
      return generic && generic.getNumParallelLoops() == generic.getNumLoops();
    };
    auto cheap = [&](Operation *op) {
      return recompute && isElementwise(op) &&
             op->getRegion(0).front().getOperations().size() <=
                 kRecomputeLimit + 1;
    };
    linalg::ControlFusionFn control = [=](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && (producer->hasOneUse() || cheap(producer)) &&
             !isNamedContraction(producer) &&
             !isNamedContraction(fused->getOwner()) &&
             !(recompute && isProduct(fused->getOwner()));
    };
    // Reshapes stay outside products of any kind, named or generic: a
    // product whose output is expanded ([b, f, h*w] viewed as [b, f, h, w])
    // would otherwise take the expanded shape and stop being a (batched)
    // matrix product the GEMM template recognizes.
    linalg::ControlFusionFn reshapeControl = [=](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return control(fused) && !isProduct(producer) &&
             !isProduct(fused->getOwner());
    };
    // A transpose of a product's expanded output that keeps the innermost
    // dimension in place, read by one elementwise op, becomes a generic
    // that fuses into it (a permuted read of the product with contiguous
    // rows): a convolution's product over the batch, [F, N, P] permuted to
    // [N, F, P], is read once by its epilogue instead of being copied
    // through a transposed temporary first.
    // (The product's own epilogue, a bias say, may come between.)
    auto fromProduct = [&](Value value) {
      Operation *def = value.getDefiningOp();
      if (isProduct(def))
        return true;
      return isElementwise(def) &&
             llvm::any_of(
                 cast<linalg::GenericOp>(def).getDpsInputs(),
                 [&](Value input) { return isProduct(input.getDefiningOp()); });
    };
    SmallVector<linalg::TransposeOp> transposes;
    getOperation()->walk([&](linalg::TransposeOp op) {
      ArrayRef<int64_t> perm = op.getPermutation();
      auto expand = op.getInput().getDefiningOp<tensor::ExpandShapeOp>();
      if (op.hasPureTensorSemantics() && expand &&
          fromProduct(expand.getSrc()) && !perm.empty() &&
          perm.back() == static_cast<int64_t>(perm.size()) - 1 &&
          op->getResult(0).hasOneUse() &&
          isElementwise(*op->getResult(0).getUsers().begin()))
        transposes.push_back(op);
    });
    IRRewriter rewriter(context);
    for (linalg::TransposeOp op : transposes) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, reshapeControl);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();

    // Then the elementwise consumer of an expanded product (a convolution's
    // [F, P] product viewed as [1, F, H, W], a linear layer's [B * T, C] as
    // [B, T, C]) takes the product's shape: its unit loops and broadcast
    // unit dimensions dropped (upstream's unit-extent folding), then its
    // loops collapsed as the expansion groups them, the reshape moving
    // after it. The GEMM template then finds it as the product's epilogue.
    // Apart from the expansion patterns above, which would undo it.
    auto expandedProduct = [=](Value value) {
      auto expand = value.getDefiningOp<tensor::ExpandShapeOp>();
      return expand && isProduct(expand.getSrc().getDefiningOp());
    };
    linalg::ControlDropUnitDims unitDims;
    unitDims.controlFn = [=](Operation *op) -> SmallVector<unsigned> {
      auto generic = dyn_cast<linalg::GenericOp>(op);
      if (!isElementwise(generic) ||
          llvm::none_of(generic.getDpsInputs(), expandedProduct))
        return {};
      SmallVector<unsigned> dims;
      for (auto [i, range] : llvm::enumerate(generic.getStaticLoopRanges()))
        if (range == 1)
          dims.push_back(i);
      return dims;
    };
    RewritePatternSet epilogues(context);
    linalg::populateFoldUnitExtentDimsPatterns(epilogues, unitDims);
    linalg::populateFoldReshapeOpsByCollapsingPatterns(
        epilogues, [=](OpOperand *fused) {
          return expandedProduct(fused->get()) &&
                 isElementwise(fused->getOwner());
        });
    tensor::ExpandShapeOp::getCanonicalizationPatterns(epilogues, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(epilogues, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(epilogues))))
      signalPassFailure();
  }
};
} // namespace
