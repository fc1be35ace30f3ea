//===- StreamOrderedCalls.cpp - no host wait before stream-ordered calls --===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-cuda-stream-ordered-calls: the blocking gpu.wait that
// gpu-async-region puts before a call goes when the callee is marked
// stream-ordered (it queues its work on the runtime's stream itself).
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERCUDASTREAMORDEREDCALLSPASS
#include "Wrapper/Codegen/CUDA/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
struct WrapperCUDAStreamOrderedCallsPass
    : public wrapper::impl::WrapperCUDAStreamOrderedCallsPassBase<
          WrapperCUDAStreamOrderedCallsPass> {
  void runOnOperation() override {
    auto module = getOperation()->getParentOfType<ModuleOp>();
    getOperation().walk([&](func::CallOp call) {
      auto callee = module ? module.lookupSymbol<func::FuncOp>(call.getCallee())
                           : func::FuncOp();
      if (!callee || !callee->hasAttr(wrapper::kStreamOrderedAttrName))
        return;
      auto wait = dyn_cast_or_null<gpu::WaitOp>(call->getPrevNode());
      if (wait && !wait.getAsyncToken())
        wait.erase();
    });
  }
};
} // namespace
