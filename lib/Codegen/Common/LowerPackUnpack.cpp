//===- LowerPackUnpack.cpp - linalg.pack and linalg.unpack on tensors -----===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-lower-pack-unpack.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERLOWERPACKUNPACKPASS
#include "Wrapper/Codegen/Common/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

/// Tiles the outer dimensions of `op` (a pack or unpack) by 1 with scf.for,
/// so that each tile has unit outer dimensions for the decomposition.
static LogicalResult tileOuterDimsByOne(RewriterBase &rewriter,
                                        TilingInterface op) {
  int64_t rank = op.getLoopIteratorTypes().size();
  SmallVector<OpFoldResult> sizes(rank, rewriter.getIndexAttr(1));
  // An unpack's loops are those of its result: the inner tiles' dimensions
  // are tiled by the tile size, so that a tile holds whole inner tiles.
  if (auto unpack = dyn_cast<linalg::UnPackOp>(op.getOperation()))
    for (auto [dim, tile] :
         llvm::zip(unpack.getInnerDimsPos(), unpack.getMixedTiles()))
      sizes[dim] = tile;
  scf::SCFTilingOptions options;
  options.setTileSizes(sizes);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, op, options);
  if (failed(tiled))
    return failure();
  rewriter.replaceOp(op, tiled->replacements);
  return success();
}

namespace {
struct LowerPackUnpackPass
    : public wrapper::impl::WrapperLowerPackUnpackPassBase<
          LowerPackUnpackPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<linalg::PackOp, linalg::UnPackOp>(op))
        ops.push_back(op);
    });
    bool tiled = false;
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      LogicalResult lowered = failure();
      if (auto pack = dyn_cast<linalg::PackOp>(op))
        lowered = linalg::lowerPack(rewriter, pack);
      else
        lowered = linalg::lowerUnPack(rewriter, cast<linalg::UnPackOp>(op));
      if (succeeded(lowered))
        continue;
      // Dynamic inner tiles: per-tile decomposition.
      if (failed(tileOuterDimsByOne(rewriter, cast<TilingInterface>(op)))) {
        op->emitOpError() << "could not be lowered (neither as a whole nor "
                             "tile by tile)";
        return signalPassFailure();
      }
      tiled = true;
    }
    if (!tiled)
      return;
    RewritePatternSet patterns(&getContext());
    linalg::populateDecomposePackUnpackPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    bool left = false;
    getOperation()->walk([&](Operation *op) {
      if (isa<linalg::PackOp, linalg::UnPackOp>(op)) {
        op->emitOpError() << "could not be decomposed tile by tile";
        left = true;
      }
    });
    if (left)
      signalPassFailure();
  }
};
} // namespace
