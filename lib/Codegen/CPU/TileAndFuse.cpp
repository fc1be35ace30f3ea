//===- TileAndFuse.cpp - row tiling of kernels with producer fusion -------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-tile-and-fuse: each linalg sink of a function is tiled
// over its leading parallel loops with an scf.forall, and its producers are
// fused into the tile so that a kernel streams its data once. The tiling and
// fusion themselves are upstream's (scf::tileConsumerAndFuseProducersUsingSCF);
// this file chooses the tile shape and decides which producers may be fused
// without duplicating work.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CPU/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "wrapper-tile-and-fuse"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERTILEANDFUSEPASS
#include "Wrapper/Codegen/CPU/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

/// Tile sizes for `op`: 1 on leading parallel loops whose inner loops hold at
/// least `tileElements` iterations, then the number of rows that make up
/// `tileElements`, then 0 (untiled); unit loops are left untiled (0) on the
/// way. Empty when tiling would not split the
/// iteration space.
static SmallVector<int64_t> chooseTileSizes(linalg::LinalgOp op,
                                            int64_t tileElements) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned numLoops = ranges.size();
  SmallVector<int64_t> sizes(numLoops, 0);
  bool splits = false;
  for (unsigned d = 0; d < numLoops; ++d) {
    if (iterators[d] != utils::IteratorType::parallel)
      break;
    // Iterations inside loop d; a dynamic extent counts as large.
    int64_t inner = 1;
    for (unsigned e = d + 1; e < numLoops && inner < tileElements; ++e)
      inner = ShapedType::isDynamic(ranges[e])
                  ? tileElements
                  : std::min(tileElements, inner * ranges[e]);
    int64_t extent = ranges[d];
    // A unit loop (a slice's leading dimension) is one tile already: the
    // loops inside it are tiled.
    if (extent == 1)
      continue;
    int64_t size =
        inner >= tileElements ? 1 : std::max<int64_t>(1, tileElements / inner);
    bool dynamic = ShapedType::isDynamic(extent);
    if (!dynamic && size >= extent) {
      // The whole loop fits into one tile: stop here, untiled.
      break;
    }
    sizes[d] = size;
    splits = true;
    if (inner < tileElements)
      break;
  }
  if (!splits)
    return {};
  // A transpose keeps square tiles of the vector loops whole: rows of the
  // loop it reads its input along come in multiples of the tile (its loops
  // are vectorized in square tiles, wrapper::getTransposedLoop).
  if (std::optional<unsigned> across = wrapper::getTransposedLoop(op);
      across && sizes[*across] > 0 && sizes[*across] % wrapper::kTransposeTile) {
    int64_t extent = ranges[*across];
    int64_t rounded = llvm::alignTo(sizes[*across], wrapper::kTransposeTile);
    if (ShapedType::isDynamic(extent) || rounded < extent)
      sizes[*across] = rounded;
    else
      sizes[*across] = 0; // one tile holds the whole loop
  }
  if (llvm::all_of(sizes, [](int64_t size) { return size == 0; }))
    return {};
  return sizes;
}

/// Whether `value` is computed from the induction variable `iv` (looking
/// through operations nested in `loop`).
static bool dependsOnInductionVar(Value value, Operation *loop, Value iv) {
  if (value == iv)
    return true;
  Operation *def = value.getDefiningOp();
  if (!def || !loop->isProperAncestor(def))
    return false;
  return llvm::any_of(def->getOperands(), [&](Value operand) {
    return dependsOnInductionVar(operand, loop, iv);
  });
}

/// Whether the slice taken inside the tile loop depends on every induction
/// variable of the loop. A slice that does not depend on one of them (the
/// whole of a column reduction that every row tile needs, a row reduction
/// when the row itself is split) would make the fused producer recompute the
/// same values in every iteration of that loop.
static bool sliceDependsOnEveryTileLoop(tensor::ExtractSliceOp slice) {
  auto loop = slice->getParentOfType<scf::ForallOp>();
  if (!loop)
    return false;
  return llvm::all_of(loop.getInductionVars(), [&](Value iv) {
    return llvm::any_of(slice->getOperands().drop_front(), [&](Value operand) {
      return dependsOnInductionVar(operand, loop, iv);
    });
  });
}

/// Whether every tile of `producer` that fusing it into a sink's loop would
/// compute, taken together, is all of it: each of its users among `users`
/// (the sink and the ops upstream of it) is a linalg op that reads it
/// through a permutation map whose loops span the whole value, and is
/// itself computed whole (the sink, or an op for which the same holds). A
/// producer read through a tensor.extract_slice, a partial or broadcasting
/// map, or by an op that is itself computed only in part would only have
/// the part the sink needs computed, so its tiles cannot replace it for
/// uses outside the loop. Sizes are compared as they are known statically;
/// two dynamic sizes are taken to agree.
static bool tilesCoverProducer(Operation *producer,
                               const SetVector<Operation *> &users,
                               Operation *sink,
                               llvm::DenseMap<Operation *, bool> &known) {
  if (producer == sink)
    return true;
  if (auto it = known.find(producer); it != known.end())
    return it->second;
  known[producer] = false; // a cycle cannot prove coverage
  for (OpOperand &use : producer->getUses()) {
    Operation *user = use.getOwner();
    if (user != sink && !users.contains(user))
      continue;
    auto linalgUser = dyn_cast<linalg::LinalgOp>(user);
    if (!linalgUser || !linalgUser.isDpsInput(&use) ||
        !linalgUser.getMatchingIndexingMap(&use).isPermutation())
      return false;
    SmallVector<int64_t> loops = linalgUser.getStaticLoopRanges();
    AffineMap map = linalgUser.getMatchingIndexingMap(&use);
    auto type = cast<ShapedType>(use.get().getType());
    for (auto [i, expr] : llvm::enumerate(map.getResults()))
      if (loops[cast<AffineDimExpr>(expr).getPosition()] != type.getDimSize(i))
        return false;
    if (!tilesCoverProducer(user, users, sink, known))
      return false;
  }
  return known[producer] = true;
}

/// A matmul that --wrapper-gemm-template takes, or an elementwise op reading
/// one directly (the epilogue it may fuse).
static bool isGemmOrEpilogue(Operation *op) {
  if (wrapper::isGemmTemplateCandidate(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalg::isElementwise(linalgOp) &&
         llvm::any_of(op->getOperands(), [](Value operand) {
           Operation *def = operand.getDefiningOp();
           return def && wrapper::isGemmTemplateCandidate(def);
         });
}

namespace {
struct WrapperTileAndFusePass
    : public wrapper::impl::WrapperTileAndFusePassBase<WrapperTileAndFusePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (tileElements < 1) {
      func.emitError() << "wrapper-tile-and-fuse: tile-elements must be at "
                          "least 1, got "
                       << static_cast<int64_t>(tileElements);
      return signalPassFailure();
    }

    // Reductions that keep their reduced dimension write it through a
    // constant index ((d0, d1) -> (d0, 0)), which tiling cannot slice: drop
    // unit dimensions first, so that they write a rank-reduced tensor and
    // their consumers read it directly.
    {
      RewritePatternSet patterns(&getContext());
      linalg::ControlDropUnitDims dropUnitDims;
      dropUnitDims.controlFn = [defaultFn = dropUnitDims.controlFn,
                                skipGemm = skipGemm.getValue()](
                                   Operation *op) -> SmallVector<unsigned> {
        // The GEMM template reads epilogues in their 2-d form.
        if (skipGemm && isGemmOrEpilogue(op))
          return {};
        SmallVector<unsigned> dims = defaultFn(op);
        // A unit loop inside a compound index (a window's single output
        // row in oh * stride + kh) stays: dropping it reads the input
        // through a plain dimension whose size is not the loop's (a 3-row
        // window over 4 input rows gave an invalid linalg.generic).
        auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
        if (!linalgOp)
          return dims;
        llvm::SmallDenseSet<unsigned> compound;
        for (AffineMap map : linalgOp.getIndexingMapsArray())
          for (AffineExpr result : map.getResults())
            if (!isa<AffineDimExpr, AffineConstantExpr>(result))
              result.walk([&](AffineExpr sub) {
                if (auto dim = dyn_cast<AffineDimExpr>(sub))
                  compound.insert(dim.getPosition());
              });
        llvm::erase_if(dims, [&](unsigned d) { return compound.contains(d); });
        return dims;
      };
      linalg::populateFoldUnitExtentDimsPatterns(patterns, dropUnitDims);
      linalg::populateFoldUnitExtentDimsCanonicalizationPatterns(patterns,
                                                                 dropUnitDims);
      // Sizes taken from results (tensor.dim of a linalg op) in terms of
      // its operands, so that nothing before a tile loop uses a value the
      // loop replaces.
      memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
      if (failed(applyPatternsGreedily(func, std::move(patterns)))) {
        func.emitError("wrapper-tile-and-fuse: dropping unit dimensions did "
                       "not converge");
        return signalPassFailure();
      }
    }

    // Sinks: linalg ops on tensors whose results feed no other linalg op,
    // outside any loop this pass made before.
    SmallVector<linalg::LinalgOp> sinks;
    func.walk([&](linalg::LinalgOp op) {
      if (!op.hasPureTensorSemantics() || op->getParentOfType<scf::ForallOp>())
        return;
      bool feedsLinalg = llvm::any_of(op->getUsers(), [](Operation *user) {
        return isa<linalg::LinalgOp>(user);
      });
      if (!feedsLinalg)
        sinks.push_back(op);
    });

    // Matmuls for the GEMM template stay whole, with their epilogues.
    if (skipGemm)
      llvm::erase_if(
          sinks, [](linalg::LinalgOp sink) { return isGemmOrEpilogue(sink); });

    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp sink : llvm::reverse(sinks)) {
      if (failed(tileSink(rewriter, sink)))
        return signalPassFailure();
    }
    eraseDeadOps(func);
  }

  LogicalResult tileSink(RewriterBase &rewriter, linalg::LinalgOp sink) {
    SmallVector<int64_t> sizes = chooseTileSizes(sink, tileElements);
    if (sizes.empty())
      return success();

    // Ops upstream of the sink: a producer used by a linalg op outside this
    // set would stay alive for it, so fusing it would compute it twice.
    SetVector<Operation *> upstream;
    BackwardSliceOptions sliceOptions;
    sliceOptions.omitBlockArguments = true;
    (void)getBackwardSlice(sink.getOperation(), &upstream, sliceOptions);

    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(getAsIndexOpFoldResult(&getContext(), sizes));
    tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tiling);
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp slice, OpResult producer, bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          Operation *producerOp = producer.getOwner();
          if (!isa<linalg::LinalgOp>(producerOp) ||
              !sliceDependsOnEveryTileLoop(slice) ||
              (skipGemm && wrapper::isGemmTemplateCandidate(producerOp)))
            return std::nullopt;
          scf::SCFTileAndFuseOptions::ControlFnResult result;
          for (Operation *user : producerOp->getUsers()) {
            if (user == sink || upstream.contains(user) ||
                slice->getParentOp()->isAncestor(user))
              continue;
            if (isa<linalg::LinalgOp>(user))
              return std::nullopt;
            // Used outside (a second output of the kernel): yield its tiles,
            // when together they are all of it; else it stays whole,
            // outside the loop.
            llvm::DenseMap<Operation *, bool> known;
            if (!tilesCoverProducer(producerOp, upstream, sink, known))
              return std::nullopt;
            result.yieldProducerReplacement = true;
          }
          return result;
        });
    RewritePatternSet cleanup(&getContext());
    tensor::ExtractSliceOp::getCanonicalizationPatterns(cleanup, &getContext());
    tensor::populateMergeConsecutiveInsertExtractSlicePatterns(cleanup);
    options.cleanupPatterns = FrozenRewritePatternSet(std::move(cleanup));

    auto tileable = dyn_cast<TilingInterface>(sink.getOperation());
    if (!tileable)
      return sink.emitError("wrapper-tile-and-fuse: op does not implement "
                            "TilingInterface (are linalg's tiling models "
                            "registered?)");
    rewriter.setInsertionPoint(sink);
    FailureOr<scf::SCFTileAndFuseResult> result =
        scf::tileConsumerAndFuseProducersUsingSCF(rewriter, tileable, options);
    if (failed(result))
      return sink.emitError("wrapper-tile-and-fuse: failed to tile this op");

    // Replace uses outside the loop nest with the loop's results; uses
    // inside it are the slices that fusion left behind.
    // (Uses before the loop, if any, keep the original value.)
    Operation *outerLoop = result->loops.front().getOperation();
    DominanceInfo dominance(outerLoop->getParentOp());
    for (auto [original, replacement] : result->replacements)
      rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
        Operation *user = use.getOwner();
        return !outerLoop->isAncestor(user) &&
               dominance.properlyDominates(outerLoop, user);
      });

    return success();
  }

  /// Erases ops left without uses by tiling (the original sinks and fused
  /// producers, the slices fusion replaced), innermost and last first.
  static void eraseDeadOps(func::FuncOp func) {
    bool changed = true;
    while (changed) {
      changed = false;
      func.walk<WalkOrder::PostOrder, mlir::ReverseIterator>(
          [&](Operation *op) {
            if (op != func && isOpTriviallyDead(op)) {
              op->erase();
              changed = true;
            }
          });
    }
  }
};
} // namespace
