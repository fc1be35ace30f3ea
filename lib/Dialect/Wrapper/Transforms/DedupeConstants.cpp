//===- DedupeConstants.cpp - one copy of each constant value --------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h"

#include "Wrapper/Dialect/Wrapper/IR/WrapperTypes.h"

#include "llvm/ADT/DenseMap.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERDEDUPECONSTANTSPASS
#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper;

namespace {
struct WrapperDedupeConstantsPass
    : public wrapper::impl::WrapperDedupeConstantsPassBase<
          WrapperDedupeConstantsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Attributes are uniqued: equal contents, equal attribute.
    DenseMap<std::pair<Type, Attribute>, ConstantOp> first;
    DenseMap<StringAttr, StringAttr> replacement;
    int64_t merged = 0, bytes = 0;
    for (auto constant :
         llvm::make_early_inc_range(module.getOps<ConstantOp>())) {
      if (constant.isExternal())
        continue;
      auto key = std::make_pair(constant.getType(), *constant.getValue());
      auto [it, inserted] = first.try_emplace(key, constant);
      if (inserted)
        continue;
      replacement[constant.getSymNameAttr()] = it->second.getSymNameAttr();
      ++merged;
      bytes += getStorageBytes(constant.getMemRefType()).value_or(0);
      constant.erase();
    }
    if (!replacement.empty())
      module.walk([&](GetConstantOp get) {
        auto it = replacement.find(get.getConstantAttr().getAttr());
        if (it != replacement.end())
          get.setConstantAttr(FlatSymbolRefAttr::get(it->second));
      });
    if (report)
      emitRemark(module.getLoc())
          << "wrapper-dedupe-constants: merged " << merged
          << " constants, saving " << bytes << " bytes";
  }
};
} // namespace
