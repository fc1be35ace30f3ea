//===- DropHostWaits.cpp - no host waits with device arguments ------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-cuda-drop-host-waits.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERCUDADROPHOSTWAITSPASS
#include "Wrapper/Codegen/CUDA/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

/// Whether `func` copies into memory that is not a device allocation (a
/// copy to host memory, which the host may read after a wait).
static bool copiesToHost(func::FuncOp func) {
  WalkResult result = func.walk([](gpu::MemcpyOp copy) {
    return copy.getDst().getDefiningOp<gpu::AllocOp>() ? WalkResult::advance()
                                                       : WalkResult::interrupt();
  });
  return result.wasInterrupted();
}

namespace {
struct DropHostWaitsPass
    : public wrapper::impl::WrapperCUDADropHostWaitsPassBase<
          DropHostWaitsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || copiesToHost(func))
      return;
    func.walk([](gpu::WaitOp wait) {
      if (!wait.getAsyncToken())
        wait.erase();
    });
  }
};
} // namespace
