//===- DeallocateBuffers.cpp - deallocation of what a function allocates --===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-deallocate-buffers.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/Common/Passes.h"

#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassManager.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERDEALLOCATEBUFFERSPASS
#include "Wrapper/Codegen/Common/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

/// Upstream's deallocation pipeline, on any function-like op.
static OpPassManager buildDeallocationPipeline() {
  OpPassManager pm(OpPassManager::Nesting::Implicit);
  bufferization::buildBufferDeallocationPipeline(pm);
  return pm;
}

/// Whether `function` frees buffers itself.
static bool freesBuffersItself(FunctionOpInterface function) {
  return function
      ->walk([](memref::DeallocOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

namespace {
struct DeallocateBuffersPass
    : public wrapper::impl::WrapperDeallocateBuffersPassBase<
          DeallocateBuffersPass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    buildDeallocationPipeline().getDependentDialects(registry);
  }

  LogicalResult initialize(MLIRContext *context) override {
    deallocation = buildDeallocationPipeline();
    return success();
  }

  void runOnOperation() override {
    SmallVector<FunctionOpInterface> functions;
    for (Operation &op : getOperation().getOps())
      if (auto function = dyn_cast<FunctionOpInterface>(op))
        if (!function.isExternal() && !freesBuffersItself(function))
          functions.push_back(function);
    for (FunctionOpInterface function : functions)
      if (failed(runPipeline(deallocation, function)))
        return signalPassFailure();
  }

  OpPassManager deallocation;
};
} // namespace
