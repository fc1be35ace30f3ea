//===- LowerLinalgToLoops.cpp - one level of parallel loops ---------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-lower-linalg-to-loops. Upstream has a pass that makes
// every linalg op scf.parallel and one that makes every op scf.for; a tiled
// kernel needs both: parallel at the tile loop, sequential inside it, so that
// OpenMP never sees nested parallel regions.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Transforms/Passes.h"

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
#include "Wrapper/Transforms/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
struct WrapperLowerLinalgToLoopsPass
    : public wrapper::impl::WrapperLowerLinalgToLoopsPassBase<
          WrapperLowerLinalgToLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
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
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> loops =
          parallel && !insideParallel
              ? linalg::linalgOpToParallelLoops(rewriter, op)
              : linalg::linalgOpToLoops(rewriter, op);
      if (failed(loops)) {
        op.emitError("wrapper-lower-linalg-to-loops: cannot lower this op "
                     "to loops");
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
    }
  }
};
} // namespace
