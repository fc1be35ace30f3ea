//===- ReleaseArguments.cpp - donated arguments freed at their last use ---===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-cuda-release-arguments: a call of the runtime's
// wrapperCudaReleaseArgument after the last reader of each releasable
// argument of a host function, so that the blocks a caller donated for the
// call (the activations a training step's forward saved for its backward)
// return to the caching allocator while the call still runs.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CUDA/Passes.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERCUDARELEASEARGUMENTSPASS
#include "Wrapper/Codegen/CUDA/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
constexpr StringLiteral kReleaseFunction = "wrapperCudaReleaseArgument";

/// The operation of `body` after which `arg` is no longer read: the last
/// one (in order) that reads it or a value derived from it, where every
/// result of an op that reads a derived value counts as derived (views,
/// casts, pointers, and conservatively anything else), as do the results of
/// the top-level op around such a read. Sizes are not: `memref.dim` reads
/// the descriptor, not the buffer, and `memref.extract_strided_metadata`
/// derives only its base buffer. Null when nothing reads it; failure when
/// it reaches the terminator (the function returns it or a view).
static FailureOr<Operation *> lastReader(BlockArgument arg, Block &body) {
  llvm::SetVector<Value> derived;
  derived.insert(arg);
  Operation *last = nullptr;
  for (size_t i = 0; i < derived.size(); ++i) {
    for (OpOperand &use : derived[i].getUses()) {
      Operation *user = use.getOwner();
      if (isa<memref::DimOp, memref::RankOp>(user))
        continue;
      if (auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(user)) {
        derived.insert(metadata.getBaseBuffer());
        continue;
      }
      Operation *top = body.findAncestorOpInBlock(*user);
      if (!top)
        return failure(); // outside the body: not a use we can order
      if (top->hasTrait<OpTrait::IsTerminator>())
        return failure();
      if (!last || last->isBeforeInBlock(top))
        last = top;
      derived.insert(user->result_begin(), user->result_end());
      derived.insert(top->result_begin(), top->result_end());
    }
  }
  return last;
}

struct WrapperCUDAReleaseArgumentsPass
    : public wrapper::impl::WrapperCUDAReleaseArgumentsPassBase<
          WrapperCUDAReleaseArgumentsPass> {
  /// The declaration of wrapperCudaReleaseArgument (added once).
  func::FuncOp declareRelease(ModuleOp module) {
    if (auto existing = module.lookupSymbol<func::FuncOp>(kReleaseFunction))
      return existing;
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToStart(module.getBody());
    auto func = func::FuncOp::create(b, module.getLoc(), kReleaseFunction,
                                     b.getFunctionType({b.getI64Type()}, {}));
    func.setPrivate();
    func->setAttr(wrapper::kStreamOrderedAttrName, b.getUnitAttr());
    return func;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef marker = wrapper::WrapperDialect::getReleasableAttrName();
    func::FuncOp release;
    for (auto func :
         llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      if (func.isExternal())
        continue;
      Block &body = func.getBody().front();
      for (BlockArgument arg : func.getArguments()) {
        // The mark is this pass's input only: it goes either way.
        if (!func.removeArgAttr(arg.getArgNumber(), marker))
          continue;
        FailureOr<Operation *> last = lastReader(arg, body);
        if (failed(last))
          continue;
        if (!release)
          release = declareRelease(module);
        OpBuilder b(func.getContext());
        if (*last)
          b.setInsertionPointAfter(*last);
        else
          b.setInsertionPointToStart(&body);
        Location loc = arg.getLoc();
        Value pointer =
            memref::ExtractAlignedPointerAsIndexOp::create(b, loc, arg);
        Value address =
            arith::IndexCastOp::create(b, loc, b.getI64Type(), pointer);
        func::CallOp::create(b, loc, release, ValueRange{address});
      }
    }
  }
};
} // namespace
