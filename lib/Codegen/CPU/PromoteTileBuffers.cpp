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

#include "Wrapper/Codegen/CPU/Passes.h"

#include "Wrapper/Dialect/Wrapper/IR/WrapperTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERPROMOTETILEBUFFERSPASS
#include "Wrapper/Codegen/CPU/Passes.h.inc"
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
} // namespace
