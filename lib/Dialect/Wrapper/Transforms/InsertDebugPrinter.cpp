//===- InsertDebugPrinter.cpp - debug output around kernel calls ----------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-insert-debug-printer: the four levels of Inductor's
// intermediate-value debug printer.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERINSERTDEBUGPRINTERPASS
#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper;

/// The name by which `op` is selected and labelled, or empty when `op` is
/// not a call the printer instruments.
static std::string calleeName(Operation *op) {
  if (auto call = dyn_cast<CallOp>(op))
    return call.getKernel().str();
  if (auto call = dyn_cast<ExternOutOp>(op))
    return call.getCallee().str();
  if (auto call = dyn_cast<ExternAllocOp>(op))
    return call.getCallee().str();
  return "";
}

/// A file-name-safe form of a kernel name ("aten::mm" -> "aten_mm").
static std::string fileStem(StringRef name) {
  std::string stem;
  for (char c : name)
    stem += (isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')
                ? c
                : '_';
  return stem;
}

namespace {
struct WrapperInsertDebugPrinterPass
    : public wrapper::impl::WrapperInsertDebugPrinterPassBase<
          WrapperInsertDebugPrinterPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (level == DebugPrinterLevel::Off) {
      module.walk([](Operation *op) {
        if (isa<DebugPrintOp, DebugSaveOp, DebugMessageOp>(op))
          op->erase();
      });
      return;
    }
    llvm::StringSet<> wanted, seen;
    for (const std::string &name : kernels)
      wanted.insert(name);
    for (GraphOp graph : module.getOps<GraphOp>()) {
      SmallVector<Operation *> calls;
      for (Operation &op : graph.getBody().front())
        if (!calleeName(&op).empty())
          calls.push_back(&op);
      for (Operation *call : calls) {
        std::string name = calleeName(call);
        if (!wanted.empty() && !wanted.contains(name))
          continue;
        seen.insert(name);
        instrument(call, name);
      }
    }
    for (const auto &entry : wanted)
      if (!seen.contains(entry.getKey()))
        emitWarning(module.getLoc())
            << "wrapper-insert-debug-printer: no call of '" << entry.getKey()
            << "' in this module";
  }

  void instrument(Operation *call, StringRef name) {
    OpBuilder b(call);
    Location loc = call->getLoc();
    if (level == DebugPrinterLevel::KernelNames) {
      DebugMessageOp::create(b, loc, b.getStringAttr(name));
      return;
    }
    SmallVector<Value> buffers;
    for (Value operand : call->getOperands())
      if (isa<MemRefType>(operand.getType()))
        buffers.push_back(operand);
    auto emit = [&](OpBuilder &at, Value buffer, unsigned index,
                    StringRef when) {
      if (level == DebugPrinterLevel::Print) {
        std::string label = (when + " " + name + " arg " + Twine(index)).str();
        DebugPrintOp::create(at, loc, buffer, at.getStringAttr(label));
      } else {
        std::string path = (directory + "/" + fileStem(name) + "_arg" +
                            Twine(index) + "_" + when + ".npy")
                               .str();
        DebugSaveOp::create(at, loc, buffer, at.getStringAttr(path));
      }
    };
    for (auto [index, buffer] : llvm::enumerate(buffers))
      emit(b, buffer, index, "before");
    OpBuilder after(call->getContext());
    after.setInsertionPointAfter(call);
    // extern_alloc's results are its outputs: numbered after its inputs.
    for (Value result : call->getResults())
      if (isa<MemRefType>(result.getType()))
        buffers.push_back(result);
    for (auto [index, buffer] : llvm::enumerate(buffers))
      emit(after, buffer, index, "after");
  }
};
} // namespace

StringRef mlir::wrapper::stringifyDebugPrinterLevel(DebugPrinterLevel level) {
  switch (level) {
  case DebugPrinterLevel::Off:
    return "off";
  case DebugPrinterLevel::Save:
    return "save";
  case DebugPrinterLevel::Print:
    return "print";
  case DebugPrinterLevel::KernelNames:
    return "kernel-names";
  }
  llvm_unreachable("unknown DebugPrinterLevel");
}

llvm::raw_ostream &mlir::wrapper::operator<<(llvm::raw_ostream &os,
                                             DebugPrinterLevel level) {
  return os << stringifyDebugPrinterLevel(level);
}
