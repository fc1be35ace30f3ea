//===- SelectBlockSizes.cpp - launch configuration as attributes ----------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-cuda-select-block-sizes.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERCUDASELECTBLOCKSIZESPASS
#include "Wrapper/Codegen/CUDA/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper;

/// The static iteration count of `loop` (the product over its dimensions;
/// the threads of a block cover these, loops nested in it run inside each
/// thread), or std::nullopt when a bound is dynamic or the count overflows.
static std::optional<int64_t> staticIterations(scf::ParallelOp loop) {
  int64_t total = 1;
  for (auto [lower, upper, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> lb = getConstantIntValue(lower),
                           ub = getConstantIntValue(upper),
                           st = getConstantIntValue(step);
    if (!lb || !ub || !st || *st <= 0)
      return std::nullopt;
    int64_t count = *ub > *lb ? llvm::divideCeil(*ub - *lb, *st) : 0;
    if (llvm::MulOverflow(total, count, total))
      return std::nullopt;
  }
  return total;
}

int64_t mlir::wrapper::selectCUDABlockSize(scf::ParallelOp loop,
                                           int64_t maxBlockSize) {
  std::optional<int64_t> iterations = staticIterations(loop);
  if (!iterations || *iterations >= maxBlockSize)
    return maxBlockSize;
  return std::min(maxBlockSize,
                  std::max<int64_t>(32, llvm::alignTo(*iterations, 32)));
}

namespace {
struct CUDASelectBlockSizesPass
    : public wrapper::impl::WrapperCUDASelectBlockSizesPassBase<
          CUDASelectBlockSizesPass> {
  using Base::Base;
  void runOnOperation() override {
    if (maxBlockSize < 1 || maxBlockSize > 1024) {
      getOperation().emitError()
          << "max-block-size must be between 1 and 1024, got "
          << static_cast<int64_t>(maxBlockSize);
      return signalPassFailure();
    }
    Builder b(&getContext());
    getOperation().walk([&](scf::ParallelOp loop) {
      if (loop->getParentOfType<scf::ParallelOp>() ||
          loop->hasAttr(kCUDABlockSizeAttrName))
        return;
      loop->setAttr(
          kCUDABlockSizeAttrName,
          b.getI64IntegerAttr(selectCUDABlockSize(loop, maxBlockSize)));
    });
  }
};
} // namespace
