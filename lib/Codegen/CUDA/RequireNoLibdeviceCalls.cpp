//===- RequireNoLibdeviceCalls.cpp - kernels that need libdevice ----------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-require-no-libdevice-calls.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERREQUIRENOLIBDEVICECALLSPASS
#include "Wrapper/Codegen/CUDA/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
struct RequireNoLibdeviceCallsPass
    : public wrapper::impl::WrapperRequireNoLibdeviceCallsPassBase<
          RequireNoLibdeviceCallsPass> {
  using WrapperRequireNoLibdeviceCallsPassBase::
      WrapperRequireNoLibdeviceCallsPassBase;
  void runOnOperation() override {
    for (auto func : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      if (!func.isExternal() || !func.getName().starts_with("__nv_"))
        continue;
      func.emitError() << "kernels call " << func.getName()
                       << " from CUDA's libdevice, which was not found ("
                       << (cudaToolkit.empty()
                               ? std::string("CUDA_ROOT, CUDA_HOME, CUDA_PATH "
                                             "unset and no /usr/local/cuda")
                               : "no nvvm/libdevice/libdevice.10.bc "
                                 "under " +
                                     cudaToolkit)
                       << "); set CUDA_HOME or the pipeline's cuda-toolkit "
                          "option to the CUDA toolkit";
      return signalPassFailure();
    }
  }
};
} // namespace
