//===- EraseDeadCasts.cpp - unused unrealized casts -----------------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-erase-dead-casts.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/Common/Passes.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERERASEDEADCASTSPASS
#include "Wrapper/Codegen/Common/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
struct EraseDeadCastsPass
    : public wrapper::impl::WrapperEraseDeadCastsPassBase<EraseDeadCastsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> casts;
    getOperation()->walk(
        [&](UnrealizedConversionCastOp cast) { casts.push_back(cast); });
    // Later casts first: an earlier one may feed only dead ones, and is
    // dead once they are gone.
    for (Operation *op : llvm::reverse(casts))
      if (op->use_empty())
        op->erase();
  }
};
} // namespace
