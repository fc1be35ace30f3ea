//===- ReturnWithoutWaiting.cpp - asynchronous returns --------------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-cuda-return-without-waiting.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERCUDARETURNWITHOUTWAITINGPASS
#include "Wrapper/Codegen/CUDA/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
struct ReturnWithoutWaitingPass
    : public wrapper::impl::WrapperCUDAReturnWithoutWaitingPassBase<
          ReturnWithoutWaitingPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func.isPublic())
      return;
    func.walk([](func::ReturnOp ret) {
      auto wait = dyn_cast_or_null<gpu::WaitOp>(ret->getPrevNode());
      if (wait && !wait.getAsyncToken())
        wait.erase();
    });
  }
};
} // namespace
