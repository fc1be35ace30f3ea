//===- Fail.cpp - a pass that reports an error ----------------------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-fail: how pipeline builders report options they
// cannot honour.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/Common/Passes.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERFAILPASS
#include "Wrapper/Codegen/Common/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
struct FailPass : public wrapper::impl::WrapperFailPassBase<FailPass> {
  using WrapperFailPassBase::WrapperFailPassBase;
  void runOnOperation() override {
    mlir::emitError(getOperation().getLoc(), message);
    signalPassFailure();
  }
};
} // namespace
