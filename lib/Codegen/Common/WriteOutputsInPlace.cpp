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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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
  }
};
} // namespace
