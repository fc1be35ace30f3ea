//===- TileParallelLoopsForGPU.cpp - parallel loops to blocks and threads -===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-tile-parallel-loops-for-gpu.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

#include <numeric>

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERTILEPARALLELLOOPSFORGPUPASS
#include "Wrapper/Codegen/CUDA/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
struct TileParallelLoopsForGPUPass
    : public wrapper::impl::WrapperTileParallelLoopsForGPUPassBase<
          TileParallelLoopsForGPUPass> {
  using WrapperTileParallelLoopsForGPUPassBase::
      WrapperTileParallelLoopsForGPUPassBase;
  void runOnOperation() override {
    if (blockSize < 1) {
      getOperation().emitError() << "block-size must be at least 1, got "
                                 << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        outermost.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : outermost) {
      // The size chosen for this loop (--wrapper-cuda-select-block-sizes),
      // read before linearizing replaces the loop.
      int64_t size = blockSize;
      if (auto chosen =
              loop->getAttrOfType<IntegerAttr>(wrapper::kCUDABlockSizeAttrName))
        size = chosen.getInt();
      if (linearize)
        loop = linearizeLoop(rewriter, loop);
      SmallVector<int64_t> sizes(loop.getNumLoops(), 1);
      sizes.back() = size;
      auto [tiles, inner] =
          scf::tileParallelLoop(loop, sizes, /*noMinMaxBounds=*/true);
      // The innermost (contiguous) dimension on x, so that neighbouring
      // threads touch neighbouring elements and a block's threads (x) stay
      // within the limits (z allows 64); the next two outer dimensions on
      // block y and z, further ones sequential in each thread.
      map(tiles, {gpu::Processor::BlockX, gpu::Processor::BlockY,
                  gpu::Processor::BlockZ});
      map(inner, {gpu::Processor::ThreadX, gpu::Processor::Sequential,
                  gpu::Processor::Sequential});
    }
  }
  /// `loop` with all its dimensions collapsed into one (row-major, so that
  /// neighbouring iterations stay neighbouring elements of the innermost
  /// dimension), through upstream's collapseParallelLoops. Loops with one
  /// dimension or with reductions are returned as they are.
  static scf::ParallelOp linearizeLoop(RewriterBase &rewriter,
                                       scf::ParallelOp loop) {
    if (loop.getNumLoops() < 2 || loop.getNumResults() != 0)
      return loop;
    Block *block = loop->getBlock();
    Operation *before = loop->getPrevNode();
    std::vector<unsigned> all(loop.getNumLoops());
    std::iota(all.begin(), all.end(), 0u);
    collapseParallelLoops(rewriter, loop, {all});
    // The collapsed loop replaces `loop` at its place.
    for (Operation &op : llvm::make_range(
             before ? std::next(before->getIterator()) : block->begin(),
             block->end()))
      if (auto collapsed = dyn_cast<scf::ParallelOp>(op))
        return collapsed;
    llvm_unreachable("collapseParallelLoops left no loop");
  }

  /// Maps the loop's dimensions, innermost first, to `processors`.
  static void map(scf::ParallelOp loop, ArrayRef<gpu::Processor> processors) {
    MLIRContext *context = loop.getContext();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
    unsigned count = loop.getNumLoops();
    SmallVector<gpu::ParallelLoopDimMappingAttr> mapping;
    for (unsigned d = 0; d < count; ++d) {
      unsigned fromInner = count - 1 - d;
      gpu::Processor processor = fromInner < processors.size()
                                     ? processors[fromInner]
                                     : gpu::Processor::Sequential;
      mapping.push_back(gpu::ParallelLoopDimMappingAttr::get(
          context, processor, identity, identity));
    }
    (void)gpu::setMappingAttr(loop, mapping);
  }
};
} // namespace
