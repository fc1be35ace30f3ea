//===- DedupeKernels.cpp - one implementation per distinct kernel body ----===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h"

#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERDEDUPEKERNELSPASS
#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper;

/// A cheap hash of a function's shape (type, op names, attributes in
/// order); equal bodies hash equally, and the candidates with one hash are
/// then compared exactly.
static llvm::hash_code shapeHash(func::FuncOp func) {
  llvm::hash_code hash =
      llvm::hash_value(func.getFunctionType().getAsOpaquePointer());
  func.getBody().walk([&](Operation *op) {
    hash = llvm::hash_combine(hash, op->getName().getAsOpaquePointer(),
                              op->getRawDictionaryAttrs().getAsOpaquePointer(),
                              op->getNumOperands(), op->getNumResults());
  });
  return hash;
}

namespace {
struct WrapperDedupeKernelsPass
    : public wrapper::impl::WrapperDedupeKernelsPassBase<
          WrapperDedupeKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    DenseMap<llvm::hash_code, SmallVector<func::FuncOp>> buckets;
    DenseMap<Operation *, func::FuncOp> canonical;
    int64_t removed = 0;
    for (auto kernel : module.getOps<KernelOp>()) {
      auto impl = dyn_cast_or_null<func::FuncOp>(
          symbols.lookup(kernel.getImplAttr().getLeafReference()));
      if (!impl || impl.isExternal() || !impl.isPrivate() ||
          kernel.getImplAttr().getNestedReferences().size() != 0)
        continue;
      if (canonical.count(impl))
        continue;
      SmallVector<func::FuncOp> &bucket = buckets[shapeHash(impl)];
      func::FuncOp same;
      for (func::FuncOp other : bucket)
        if (other.getFunctionType() == impl.getFunctionType() &&
            OperationEquivalence::isRegionEquivalentTo(
                &other.getBody(), &impl.getBody(),
                OperationEquivalence::IgnoreLocations)) {
          same = other;
          break;
        }
      canonical[impl] = same ? same : impl;
      if (!same)
        bucket.push_back(impl);
    }
    // Point the kernels at the canonical implementations; erase copies no
    // kernel (or anything else) refers to any more.
    for (auto kernel : module.getOps<KernelOp>()) {
      auto impl = dyn_cast_or_null<func::FuncOp>(
          symbols.lookup(kernel.getImplAttr().getLeafReference()));
      auto it = canonical.find(impl);
      if (it == canonical.end() || it->second == impl)
        continue;
      kernel.setImplAttr(FlatSymbolRefAttr::get(it->second.getSymNameAttr()));
    }
    // The symbols still referred to, in one walk (a query per copy walked
    // the module each time: 20 s for RAFT's 1100 kernels).
    // (No use list: an unknown op may refer to anything; every copy stays.)
    DenseSet<StringAttr> used;
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(&module.getBodyRegion());
    if (uses)
      for (const SymbolTable::SymbolUse &use : *uses)
        used.insert(use.getSymbolRef().getRootReference());
    for (auto [impl, target] : canonical) {
      if (!uses || impl == target.getOperation())
        continue;
      if (!used.contains(cast<func::FuncOp>(impl).getSymNameAttr())) {
        symbols.erase(impl);
        ++removed;
      }
    }
    if (report)
      emitRemark(module.getLoc()) << "wrapper-dedupe-kernels: removed "
                                  << removed << " kernel implementations";
  }
};
} // namespace
