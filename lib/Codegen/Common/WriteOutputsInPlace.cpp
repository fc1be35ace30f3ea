//===- WriteOutputsInPlace.cpp - outputs computed into their buffers ------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-write-outputs-in-place: slices of a linalg op's
// result computed on the slice, reshapes of outputs moved onto their
// destination buffers, and tensor.empty folded through both, so that
// upstream's empty-tensor elimination lets the ops write the outputs where
// they go.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/Common/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERWRITEOUTPUTSINPLACEPASS
#include "Wrapper/Codegen/Common/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

/// The extract_slice users of `op`'s single result when every user is one
/// (unit strides, the result's rank) and together they hold no more
/// elements than the result; empty otherwise.
static SmallVector<tensor::ExtractSliceOp> sliceUsers(linalg::LinalgOp op) {
  if (op->getNumResults() != 1 || !op.hasPureTensorSemantics() ||
      linalg::isaContractionOpInterface(op) ||
      linalg::isaConvolutionOpInterface(op) || !isa<TilingInterface>(*op))
    return {};
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  if (!type.hasStaticShape())
    return {};
  SmallVector<tensor::ExtractSliceOp> slices;
  int64_t elements = 0;
  for (Operation *user : op->getResult(0).getUsers()) {
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!slice || slice.getType().getRank() != type.getRank() ||
        !slice.getType().hasStaticShape() || !slice.hasUnitStride())
      return {};
    elements += slice.getType().getNumElements();
    slices.push_back(slice);
  }
  if (slices.empty() || elements > type.getNumElements())
    return {};
  return slices;
}

/// Each slice of a linalg op's result computed by the op tiled to the slice.
static void computeSlicesOnly(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<linalg::LinalgOp> candidates;
  func.walk([&](linalg::LinalgOp op) { candidates.push_back(op); });
  // Consumers first: a producer's slices may appear once its consumer is
  // computed on slices.
  for (linalg::LinalgOp op : llvm::reverse(candidates)) {
    SmallVector<tensor::ExtractSliceOp> slices = sliceUsers(op);
    if (slices.empty())
      continue;
    for (tensor::ExtractSliceOp slice : slices) {
      rewriter.setInsertionPoint(slice);
      FailureOr<TilingResult> tiled =
          tensor::replaceExtractSliceWithTiledProducer(
              rewriter, slice, cast<OpResult>(op->getResult(0)));
      if (failed(tiled) || tiled->tiledValues.size() != 1 ||
          tiled->tiledValues[0].getType() != slice.getType())
        continue;
      rewriter.replaceOp(slice, tiled->tiledValues[0]);
    }
    if (op->use_empty())
      rewriter.eraseOp(op);
  }
}

/// Where the views of `dest` go: right after its definition (the top of the
/// block for an argument), so that they dominate every op that computes
/// the output.
static void setInsertionPointAfterDefinition(OpBuilder &b, Value dest) {
  if (Operation *def = dest.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(cast<BlockArgument>(dest).getOwner());
}

/// `dest` viewed with the shape of `collapse`'s source (the reshape the
/// output went through), or null when no such view exists.
static Value expandDestination(OpBuilder &b, tensor::CollapseShapeOp collapse,
                               Value dest) {
  auto destType = cast<MemRefType>(dest.getType());
  RankedTensorType sourceType = collapse.getSrcType();
  SmallVector<ReassociationIndices> groups = collapse.getReassociationIndices();
  FailureOr<MemRefType> viewType = memref::ExpandShapeOp::computeExpandedType(
      destType, sourceType.getShape(), groups);
  if (failed(viewType))
    return {};
  Location loc = collapse.getLoc();
  setInsertionPointAfterDefinition(b, dest);
  // Static sizes from the source; a group's single dynamic size is the
  // destination's dimension over the group's static ones.
  SmallVector<OpFoldResult> sizes;
  for (auto [destDim, group] : llvm::enumerate(groups)) {
    int64_t known = 1, dynamic = 0;
    for (int64_t d : group) {
      if (sourceType.isDynamicDim(d))
        ++dynamic;
      else
        known *= sourceType.getDimSize(d);
    }
    if (dynamic > 1)
      return {};
    for (int64_t d : group) {
      if (!sourceType.isDynamicDim(d)) {
        sizes.push_back(b.getIndexAttr(sourceType.getDimSize(d)));
        continue;
      }
      Value whole = memref::DimOp::create(b, loc, dest, destDim);
      sizes.push_back(
          arith::DivUIOp::create(b, loc, whole,
                                 arith::ConstantIndexOp::create(b, loc, known))
              .getResult());
    }
  }
  return memref::ExpandShapeOp::create(b, loc, *viewType, dest, groups, sizes)
      .getResult();
}

/// `dest` viewed with the shape of `expand`'s source, or null.
static Value collapseDestination(OpBuilder &b, tensor::ExpandShapeOp expand,
                                 Value dest) {
  auto destType = cast<MemRefType>(dest.getType());
  SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
  if (!memref::CollapseShapeOp::isGuaranteedCollapsible(destType, groups))
    return {};
  setInsertionPointAfterDefinition(b, dest);
  return memref::CollapseShapeOp::create(b, expand.getLoc(), dest, groups)
      .getResult();
}

/// Moves the reshapes an output ends with onto its destination buffer.
static void reshapeDestinations(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<bufferization::MaterializeInDestinationOp> outputs;
  func.walk([&](bufferization::MaterializeInDestinationOp op) {
    if (isa<MemRefType>(op.getDest().getType()))
      outputs.push_back(op);
  });
  for (bufferization::MaterializeInDestinationOp output : outputs) {
    while (true) {
      Operation *reshape = output.getSource().getDefiningOp();
      Value source, dest;
      OpBuilder::InsertionGuard guard(rewriter);
      if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(reshape)) {
        source = expand.getSrc();
        dest = collapseDestination(rewriter, expand, output.getDest());
      } else if (auto collapse =
                     dyn_cast_or_null<tensor::CollapseShapeOp>(reshape)) {
        source = collapse.getSrc();
        dest = expandDestination(rewriter, collapse, output.getDest());
      }
      if (!dest)
        break;
      rewriter.modifyOpInPlace(output, [&] {
        output.getSourceMutable().assign(source);
        output.getDestMutable().assign(dest);
      });
      if (reshape->use_empty())
        rewriter.eraseOp(reshape);
    }
  }
}

/// The operand `value` is computed into (the destination it is written
/// over): the tied init of a destination-style op, a loop's init, a
/// reshape's source; null when none.
static OpOperand *destinationOf(Value value) {
  auto result = dyn_cast<OpResult>(value);
  if (!result)
    return nullptr;
  Operation *op = result.getOwner();
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    return dps.getTiedOpOperand(result);
  if (auto loop = dyn_cast<LoopLikeOpInterface>(op))
    return loop.getTiedLoopInit(result);
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
    return &op->getOpOperand(0);
  return nullptr;
}

/// Whether recomputing `op` costs no more than copying its result: it
/// only fills, slices and reshapes (a tiled zero fill, an empty tensor).
static bool isCheapToRecompute(Operation *op) {
  WalkResult result = op->walk<WalkOrder::PreOrder>([](Operation *nested) {
    if (isa<linalg::FillOp>(nested))
      return WalkResult::skip();
    if (isa<tensor::EmptyOp, tensor::ExtractSliceOp,
            tensor::ParallelInsertSliceOp, tensor::ExpandShapeOp,
            tensor::CollapseShapeOp, scf::ForallOp, scf::InParallelOp,
            affine::AffineMinOp, affine::AffineApplyOp, arith::ConstantOp>(
            nested))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

/// Gives each output its own chain of destinations down to the
/// tensor.empty it starts from. CSE merges equal fills (the zero border of
/// three padded outputs tiled alike) into one value several chains write
/// over; upstream's empty-tensor elimination then puts that empty tensor
/// in the first output's buffer and one-shot bufferization, which cannot
/// see the other outputs' copies write that buffer, reads the overwritten
/// values (a silent wrong result). All but the last output on a shared
/// value get their own: recomputed when it only fills, a copy otherwise.
static void unshareDestinations(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<SmallVector<OpOperand *>> chains;
  DenseMap<Value, unsigned> outputsOn;
  func.walk([&](bufferization::MaterializeInDestinationOp op) {
    if (!isa<MemRefType>(op.getDest().getType()))
      return;
    SmallVector<OpOperand *> chain;
    for (OpOperand *next = destinationOf(op.getSource()); next;
         next = destinationOf(next->get()))
      chain.push_back(next);
    if (chain.empty() || !chain.back()->get().getDefiningOp<tensor::EmptyOp>())
      return;
    for (OpOperand *operand : chain)
      ++outputsOn[operand->get()];
    chains.push_back(std::move(chain));
  });
  for (ArrayRef<OpOperand *> chain : chains) {
    const auto *sharedAt = llvm::find_if(chain, [&](OpOperand *operand) {
      return outputsOn[operand->get()] > 1;
    });
    if (sharedAt == chain.end())
      continue;
    ArrayRef<OpOperand *> shared(sharedAt, chain.end());
    for (OpOperand *operand : shared)
      --outputsOn[operand->get()];
    OpOperand *use = shared.front();
    Value value = use->get();
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(use->getOwner());
    Value replacement;
    if (llvm::all_of(shared, [](OpOperand *operand) {
          return isCheapToRecompute(operand->get().getDefiningOp());
        })) {
      // Cloned from the root up, each clone writing over the previous.
      IRMapping mapping;
      for (OpOperand *operand : llvm::reverse(shared))
        rewriter.clone(*operand->get().getDefiningOp(), mapping);
      replacement = mapping.lookup(value);
    } else {
      auto type = cast<RankedTensorType>(value.getType());
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, value.getLoc(), value);
      Value empty = tensor::EmptyOp::create(rewriter, value.getLoc(), sizes,
                                            type.getElementType());
      replacement =
          linalg::CopyOp::create(rewriter, value.getLoc(), value, empty)
              .getResult(0);
    }
    rewriter.modifyOpInPlace(use->getOwner(), [&] { use->set(replacement); });
  }
}

namespace {
/// A reshape of tensor.empty as tensor.empty of the reshaped type (the
/// upstream patterns need the tensor dialect's shape reification models).
template <typename ReshapeOp>
struct FoldEmptyReshape : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern<ReshapeOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp reshape,
                                PatternRewriter &rewriter) const override {
    if (!reshape.getSrc().template getDefiningOp<tensor::EmptyOp>())
      return failure();
    SmallVector<OpFoldResult> sizes;
    if constexpr (std::is_same_v<ReshapeOp, tensor::ExpandShapeOp>) {
      sizes = reshape.getMixedOutputShape();
    } else {
      if (!reshape.getResultType().hasStaticShape())
        return failure();
      for (int64_t size : reshape.getResultType().getShape())
        sizes.push_back(rewriter.getIndexAttr(size));
    }
    rewriter.replaceOpWithNewOp<tensor::EmptyOp>(
        reshape, sizes, reshape.getResultType().getElementType());
    return success();
  }
};

/// A padded output as a fill of its destination and the padded value
/// written into its interior (upstream's decomposition), so that the value
/// is computed where it goes and only the border is filled.
struct DecomposeOutputPad : public linalg::DecomposePadOpPattern {
  using linalg::DecomposePadOpPattern::DecomposePadOpPattern;
  LogicalResult matchAndRewrite(tensor::PadOp pad,
                                PatternRewriter &rewriter) const override {
    if (!llvm::any_of(pad->getUsers(),
                      llvm::IsaPred<bufferization::MaterializeInDestinationOp>))
      return failure();
    return linalg::DecomposePadOpPattern::matchAndRewrite(pad, rewriter);
  }
};

struct WriteOutputsInPlacePass
    : public wrapper::impl::WrapperWriteOutputsInPlacePassBase<
          WriteOutputsInPlacePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    computeSlicesOnly(rewriter, func);
    reshapeDestinations(rewriter, func);
    RewritePatternSet patterns(&getContext());
    tensor::populateFoldTensorEmptyPatterns(patterns);
    patterns.add<FoldEmptyReshape<tensor::ExpandShapeOp>,
                 FoldEmptyReshape<tensor::CollapseShapeOp>, DecomposeOutputPad>(
        &getContext());
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
    unshareDestinations(rewriter, func);
  }
};
} // namespace
