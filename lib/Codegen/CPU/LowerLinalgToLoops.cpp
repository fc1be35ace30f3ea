//===- LowerLinalgToLoops.cpp - one level of parallel loops ---------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-lower-linalg-to-loops. Upstream has a pass that makes
// every linalg op scf.parallel and one that makes every op scf.for; a tiled
// kernel needs both: parallel at the tile loop, sequential inside it, so that
// OpenMP never sees nested parallel regions. The innermost loop of each op
// steps a vector at a time (Vectorize.cpp) where the op allows.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERLOWERLINALGTOLOOPSPASS
#include "Wrapper/Codegen/CPU/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
struct WrapperLowerLinalgToLoopsPass
    : public wrapper::impl::WrapperLowerLinalgToLoopsPassBase<
          WrapperLowerLinalgToLoopsPass> {
  using Base::Base;

  /// Whether the op's iteration space is statically below the threshold.
  bool isSmall(linalg::LinalgOp op) {
    int64_t points = 1;
    for (int64_t size : op.getStaticLoopRanges()) {
      if (ShapedType::isDynamic(size))
        return false;
      points *= size;
    }
    return points < minParallelIterations;
  }

  /// Whether a reduction dimension comes before a parallel one (a
  /// reduction over dimension 0). As parallel loops such an op would fork
  /// once per reduction step, and with its parallel dimensions interchanged
  /// outward it would walk columns: sequential rows, vectorized along them,
  /// measured fastest (2048x2048 softmax over dim 0 on 2 threads: 12 ms
  /// sequential, 44 ms forking per row, 80 ms interchanged).
  static bool hasLeadingReduction(linalg::LinalgOp op) {
    bool reduction = false;
    for (utils::IteratorType type : op.getIteratorTypesArray()) {
      if (type != utils::IteratorType::parallel)
        reduction = true;
      else if (reduction)
        return true;
    }
    return false;
  }

  /// The lanes `op` is vectorized with: getVectorLanes, or fewer (a power
  /// of two, at least 4) when its innermost dimension is statically shorter
  /// (rows of 16 in a 16 x 16 feature map, 8 in a head of 8).
  static int64_t getLanes(linalg::LinalgOp op, int64_t f32Lanes) {
    int64_t lanes = wrapper::getVectorLanes(op, f32Lanes);
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ranges.empty() || ShapedType::isDynamic(ranges.back()))
      return lanes;
    while (lanes > 4 && ranges.back() < lanes)
      lanes /= 2;
    return lanes;
  }

  /// The outermost loop of an op's nest as a one-dimensional scf.parallel:
  /// threads split the outer dimension and each runs the inner loops
  /// sequentially (they vectorize; a collapsed multi-dimensional parallel
  /// loop divides its index per point and does not).
  static void makeParallel(RewriterBase &rewriter, scf::ForOp loop) {
    rewriter.setInsertionPoint(loop);
    auto parallelLoop = scf::ParallelOp::create(
        rewriter, loop.getLoc(), ValueRange{loop.getLowerBound()},
        ValueRange{loop.getUpperBound()}, ValueRange{loop.getStep()});
    Block *body = loop.getBody();
    rewriter.eraseOp(body->getTerminator());
    rewriter.inlineBlockBefore(body, parallelLoop.getBody()->getTerminator(),
                               parallelLoop.getInductionVars());
    rewriter.eraseOp(loop);
  }

  void runOnOperation() override {
    // f32 lanes of the target (0: no vectorization).
    int64_t f32Lanes = 0;
    if (vectorize) {
      if (vectorWidth < 0) {
        getOperation().emitError("wrapper-lower-linalg-to-loops: "
                                 "vector-width must not be negative, got ")
            << static_cast<int64_t>(vectorWidth);
        return signalPassFailure();
      }
      f32Lanes = vectorWidth != 0
                     ? static_cast<int64_t>(vectorWidth)
                     : wrapper::getTargetVectorWidth(getOperation());
    }
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      if (!op.hasPureBufferSemantics()) {
        op.emitError("wrapper-lower-linalg-to-loops: expected an op on "
                     "buffers (run bufferization first)");
        return signalPassFailure();
      }
      bool insideParallel = op->getParentOfType<scf::ParallelOp>() ||
                            op->getParentOfType<scf::ForallOp>();
      bool spread =
          parallel && !insideParallel && !isSmall(op) &&
          !hasLeadingReduction(op) && op.getNumLoops() > 0 &&
          op.getIteratorTypesArray().front() == utils::IteratorType::parallel;
      // A pooling or depthwise-convolution window: loops over the window
      // around an elementwise op that vectorizes.
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
          generic && f32Lanes != 0 && !wrapper::checkVectorLoops(op, 1).empty())
        if (FailureOr<linalg::GenericOp> inner =
                wrapper::decomposeWindowReduction(rewriter, generic);
            succeeded(inner))
          op = *inner;
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Operation *>> loops = failure();
      if (f32Lanes != 0)
        loops = wrapper::lowerLinalgOpToVectorLoops(rewriter, op,
                                                    getLanes(op, f32Lanes));
      if (failed(loops)) {
        FailureOr<linalg::LinalgLoops> scalar =
            linalg::linalgOpToLoops(rewriter, op);
        if (failed(scalar)) {
          op.emitError("wrapper-lower-linalg-to-loops: cannot lower this op "
                       "to loops");
          return signalPassFailure();
        }
        loops = SmallVector<Operation *>(scalar->begin(), scalar->end());
        rewriter.eraseOp(op);
      }
      if (spread && !loops->empty())
        if (auto outer = dyn_cast<scf::ForOp>(loops->front());
            outer && outer.getInitArgs().empty())
          makeParallel(rewriter, outer);
    }
    // Tiles of vectorized ops that could not be lowered (none known).
    WalkResult left = getOperation().walk([](linalg::LinalgOp op) {
      op.emitError("wrapper-lower-linalg-to-loops: cannot lower this op "
                   "to loops");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      return signalPassFailure();
  }
};
} // namespace
