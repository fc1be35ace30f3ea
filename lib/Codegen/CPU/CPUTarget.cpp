//===- CPUTarget.cpp - the CPU that code is generated for -----------------===//
//
// Part of the Wrapper project.
//
// Implements --wrapper-cpu-target and the accessors of the module attribute
// it records: the target is decided once (by the tool's options or the
// host) and read from the IR by the passes that tune for it.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CPU/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERCPUTARGETPASS
#include "Wrapper/Codegen/CPU/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper;

int64_t mlir::wrapper::vectorWidthForFeatures(
    function_ref<bool(StringRef)> hasFeature) {
  if (hasFeature("avx512f"))
    return 16;
  if (hasFeature("avx2") || hasFeature("avx"))
    return 8;
  return 4;
}

CPUTarget mlir::wrapper::getHostCPUTarget() {
  CPUTarget target;
  target.cpu = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  SmallVector<std::string> enabled;
  for (const auto &entry : features)
    if (entry.getValue())
      enabled.push_back("+" + entry.getKey().str());
  llvm::sort(enabled);
  target.features = llvm::join(enabled, ",");
  target.vectorWidth = vectorWidthForFeatures(
      [&](StringRef name) { return features.lookup(name); });
  return target;
}

std::optional<CPUTarget> mlir::wrapper::getCPUTarget(ModuleOp module) {
  auto dict = module->getAttrOfType<DictionaryAttr>(kCPUTargetAttrName);
  if (!dict)
    return std::nullopt;
  CPUTarget target;
  if (auto cpu = dict.getAs<StringAttr>("cpu"))
    target.cpu = cpu.str();
  if (auto features = dict.getAs<StringAttr>("features"))
    target.features = features.str();
  auto width = dict.getAs<IntegerAttr>("vector_width");
  if (!width || width.getInt() < 1)
    return std::nullopt;
  target.vectorWidth = width.getInt();
  return target;
}

int64_t mlir::wrapper::getTargetVectorWidth(Operation *op) {
  auto module = op ? dyn_cast<ModuleOp>(op) : ModuleOp();
  if (op && !module)
    module = op->getParentOfType<ModuleOp>();
  std::optional<CPUTarget> target =
      module ? getCPUTarget(module) : std::nullopt;
  return target ? target->vectorWidth : getHostCPUTarget().vectorWidth;
}

bool mlir::wrapper::targetHasFeature(Operation *op, StringRef name) {
  auto module = op ? dyn_cast<ModuleOp>(op) : ModuleOp();
  if (op && !module)
    module = op->getParentOfType<ModuleOp>();
  std::optional<CPUTarget> target =
      module ? getCPUTarget(module) : std::nullopt;
  std::string features =
      target ? target->features : getHostCPUTarget().features;
  SmallVector<StringRef> entries;
  StringRef(features).split(entries, ',', -1, /*KeepEmpty=*/false);
  bool has = false;
  for (StringRef entry : entries) {
    entry = entry.trim();
    if (entry.size() > 1 && entry.drop_front() == name)
      has = entry.front() == '+';
  }
  return has;
}

void mlir::wrapper::setCPUTarget(ModuleOp module, const CPUTarget &target) {
  Builder b(module.getContext());
  module->setAttr(
      kCPUTargetAttrName,
      b.getDictionaryAttr({
          b.getNamedAttr("cpu", b.getStringAttr(target.cpu)),
          b.getNamedAttr("features", b.getStringAttr(target.features)),
          b.getNamedAttr("vector_width",
                         b.getI64IntegerAttr(target.vectorWidth)),
      }));
}

namespace {
struct CPUTargetPass
    : public wrapper::impl::WrapperCPUTargetPassBase<CPUTargetPass> {
  using WrapperCPUTargetPassBase::WrapperCPUTargetPassBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (vectorWidth < 0 || (vectorWidth > 0 && vectorWidth != 4 &&
                            vectorWidth != 8 && vectorWidth != 16)) {
      module.emitError() << "wrapper-cpu-target: vector-width must be 4, 8 "
                            "or 16 (f32 lanes), got "
                         << static_cast<int64_t>(vectorWidth);
      return signalPassFailure();
    }
    bool given = !cpu.empty() || !features.empty() || vectorWidth != 0;
    if (!given && getCPUTarget(module))
      return; // Decided before: kept.
    CPUTarget target;
    if (cpu.empty() && features.empty()) {
      target = getHostCPUTarget();
    } else {
      target.cpu = cpu;
      target.features = features;
      // Features named explicitly (+avx512f) decide the width; a CPU name
      // alone says nothing here, so the tools pass the width they know.
      SmallVector<StringRef> named;
      StringRef(features).split(named, ',', -1, /*KeepEmpty=*/false);
      target.vectorWidth = vectorWidthForFeatures([&](StringRef name) {
        return llvm::is_contained(named, ("+" + name).str());
      });
    }
    if (vectorWidth != 0)
      target.vectorWidth = vectorWidth;
    setCPUTarget(module, target);
  }
};
} // namespace
