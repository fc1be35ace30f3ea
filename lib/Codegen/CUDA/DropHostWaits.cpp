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
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERCUDADROPHOSTWAITSPASS
#include "Wrapper/Codegen/CUDA/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

/// Whether `buffer` (seen through views) is device memory: a `gpu.alloc`,
/// or an argument (device buffers with device arguments; a buffer only the
/// host uses is never the target of a copy from the device).
static bool isDeviceBuffer(Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewLikeOpInterface>())
    buffer = view.getViewSource();
  return isa<BlockArgument>(buffer) || buffer.getDefiningOp<gpu::AllocOp>();
}

/// Whether `func` copies into memory that is not device memory (a copy to
/// host memory, which the host may read after a wait).
static bool copiesToHost(func::FuncOp func) {
  WalkResult result = func.walk([](gpu::MemcpyOp copy) {
    return isDeviceBuffer(copy.getDst()) ? WalkResult::advance()
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
