//===- CUDAScalarKernels.cpp - loop-free linalg ops as GPU kernels --------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-cuda-scalar-kernels: linalg ops without parallel
// loops (rank-0 results) are wrapped in a one-iteration scf.parallel, so
// that the GPU mapping gives them a launch instead of leaving them as host
// code over device buffers.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERCUDASCALARKERNELSPASS
#include "Wrapper/Codegen/CUDA/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace mlir::wrapper {
bool needsScalarKernel(linalg::LinalgOp op) {
  return op.hasPureBufferSemantics() && op.getNumParallelLoops() == 0 &&
         !op->getParentOfType<scf::ParallelOp>() &&
         !op->getParentOfType<gpu::LaunchOp>();
}

scf::ParallelOp wrapInScalarKernel(OpBuilder &b, linalg::LinalgOp op) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ParallelOp::create(b, loc, ValueRange{zero}, ValueRange{one},
                                      ValueRange{one});
  op->moveBefore(loop.getBody()->getTerminator());
  return loop;
}
} // namespace mlir::wrapper

namespace {
struct CUDAScalarKernelsPass
    : public wrapper::impl::WrapperCUDAScalarKernelsPassBase<
          CUDAScalarKernelsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> scalar;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (wrapper::needsScalarKernel(op))
        scalar.push_back(op);
    });
    OpBuilder b(&getContext());
    for (linalg::LinalgOp op : scalar)
      wrapper::wrapInScalarKernel(b, op);
  }
};
} // namespace
