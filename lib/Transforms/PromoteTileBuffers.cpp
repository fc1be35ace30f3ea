//===- PromoteTileBuffers.cpp - temporaries of parallel tile loops --------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-promote-tile-buffers: allocations in the body of an
// scf.forall go to the stack (small, static) or are freed at the end of the
// body (everything else).
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Transforms/Passes.h"

#include "Wrapper/Dialect/Wrapper/IR/WrapperTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERPROMOTETILEBUFFERSPASS
#define GEN_PASS_DEF_WRAPPERLOWERALLOCASCOPESPASS
#include "Wrapper/Transforms/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
struct WrapperPromoteTileBuffersPass
    : public wrapper::impl::WrapperPromoteTileBuffersPassBase<
          WrapperPromoteTileBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::ForallOp> loops;
    getOperation().walk([&](scf::ForallOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    for (scf::ForallOp loop : loops)
      promote(rewriter, loop);
  }

  void promote(RewriterBase &rewriter, scf::ForallOp loop) {
    Block *body = loop.getBody();
    SmallVector<memref::AllocOp> allocs(body->getOps<memref::AllocOp>());
    if (allocs.empty())
      return;

    bool anyOnStack = false;
    for (memref::AllocOp alloc : allocs) {
      SmallVector<Operation *> deallocs;
      for (Operation *user : alloc->getUsers())
        if (isa<memref::DeallocOp>(user))
          deallocs.push_back(user);
      std::optional<int64_t> bytes = wrapper::getStorageBytes(alloc.getType());
      if (bytes && *bytes <= maxStackBytes) {
        for (Operation *dealloc : deallocs)
          rewriter.eraseOp(dealloc);
        rewriter.setInsertionPoint(alloc);
        rewriter.replaceOpWithNewOp<memref::AllocaOp>(
            alloc, alloc.getType(), alloc.getDynamicSizes(),
            alloc.getSymbolOperands(), alloc.getAlignmentAttr());
        anyOnStack = true;
        continue;
      }
      if (deallocs.empty()) {
        rewriter.setInsertionPoint(body->getTerminator());
        memref::DeallocOp::create(rewriter, alloc.getLoc(), alloc);
      }
    }
    if (!anyOnStack)
      return;

    // Each tile releases its stack: the body saves the stack pointer on
    // entry and restores it before its terminator. (Not memref.alloca_scope:
    // canonicalization inlines a scope directly inside scf.forall and
    // scf.parallel, which count as allocation scopes but are not once they
    // are lowered to sequential branches.)
    rewriter.setInsertionPointToStart(body);
    Value saved = LLVM::StackSaveOp::create(
        rewriter, loop.getLoc(), LLVM::LLVMPointerType::get(&getContext()));
    rewriter.setInsertionPoint(body->getTerminator());
    LLVM::StackRestoreOp::create(rewriter, loop.getLoc(), saved);
  }
};

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
