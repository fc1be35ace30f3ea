//===- GemmSelectBlocking.cpp - record the GEMM blocking ------------------===//
//
// Part of the Wrapper project.
//
// Implements --wrapper-gemm-select-blocking: every product the GEMM
// template takes gets the blocking it would choose, as an attribute that
// the template honours (and a user may edit).
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERGEMMSELECTBLOCKINGPASS
#include "Wrapper/Codegen/CPU/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
struct GemmSelectBlockingPass
    : public wrapper::impl::WrapperGemmSelectBlockingPassBase<
          GemmSelectBlockingPass> {
  using WrapperGemmSelectBlockingPassBase::WrapperGemmSelectBlockingPassBase;
  void runOnOperation() override {
    wrapper::GemmBlockingRequest request{mr, nr, vectorWidth, kc, mc, nc};
    WalkResult result = getOperation().walk([&](linalg::MatmulOp matmul) {
      if (!wrapper::isGemmTemplateCandidate(matmul) ||
          (!overwrite && wrapper::getRecordedGemmBlocking(matmul)))
        return WalkResult::advance();
      std::string error;
      FailureOr<wrapper::GemmBlocking> blocking =
          wrapper::selectGemmBlocking(matmul, request, error);
      if (failed(blocking)) {
        matmul.emitError() << "wrapper-gemm-select-blocking: " << error;
        return WalkResult::interrupt();
      }
      wrapper::setRecordedGemmBlocking(matmul, *blocking);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
