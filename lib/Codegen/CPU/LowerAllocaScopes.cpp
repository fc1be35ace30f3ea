//===- LowerAllocaScopes.cpp - alloca scopes as stack save/restore --------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-lower-alloca-scopes.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERLOWERALLOCASCOPESPASS
#include "Wrapper/Codegen/CPU/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
/// Inlines every memref.alloca_scope between llvm.intr.stacksave and
/// llvm.intr.stackrestore.
struct WrapperLowerAllocaScopesPass
    : public wrapper::impl::WrapperLowerAllocaScopesPassBase<
          WrapperLowerAllocaScopesPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocaScopeOp> scopes;
    // Innermost first, so that an outer scope inlines already lowered ones.
    getOperation()->walk<WalkOrder::PostOrder>(
        [&](memref::AllocaScopeOp scope) { scopes.push_back(scope); });
    IRRewriter rewriter(&getContext());
    auto ptrType = LLVM::LLVMPointerType::get(&getContext());
    for (memref::AllocaScopeOp scope : scopes) {
      Location loc = scope.getLoc();
      rewriter.setInsertionPoint(scope);
      Value saved = LLVM::StackSaveOp::create(rewriter, loc, ptrType);
      Block *block = &scope.getBodyRegion().front();
      auto ret = cast<memref::AllocaScopeReturnOp>(block->getTerminator());
      SmallVector<Value> results(ret.getResults());
      rewriter.inlineBlockBefore(block, scope);
      rewriter.setInsertionPoint(scope);
      LLVM::StackRestoreOp::create(rewriter, loc, saved);
      rewriter.eraseOp(ret);
      rewriter.replaceOp(scope, results);
    }
  }
};
} // namespace
