//===- InterchangeReductionsInnermost.cpp - reductions last ---------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-interchange-reductions-innermost.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERINTERCHANGEREDUCTIONSINNERMOSTPASS
#include "Wrapper/Codegen/CUDA/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
struct InterchangeReductionsInnermostPass
    : public wrapper::impl::WrapperInterchangeReductionsInnermostPassBase<
          InterchangeReductionsInnermostPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) {
      if (!op->getParentOfType<gpu::LaunchOp>())
        generics.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : generics) {
      SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
      // Parallel dimensions first, then the reductions.
      SmallVector<unsigned> order;
      for (bool parallel : {true, false})
        for (auto [dim, iterator] : llvm::enumerate(iterators))
          if ((iterator == utils::IteratorType::parallel) == parallel)
            order.push_back(dim);
      if (llvm::is_sorted(order))
        continue;
      rewriter.setInsertionPoint(op);
      // A generic that cannot be interchanged keeps its loop order.
      (void)linalg::interchangeGenericOp(rewriter, op, order);
    }
  }
};
} // namespace
