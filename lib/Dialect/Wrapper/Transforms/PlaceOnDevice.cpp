//===- PlaceOnDevice.cpp - the buffers of a host program on a device ------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-place-on-device: every buffer of every wrapper.graph
// gets the device as memory space and every func.func kernel the graphs call
// is marked `on` the device. The ops of a graph are generic over memory
// spaces, so this is a retyping: results first, then the graph's signature
// from its arguments and returns.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h"

#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERPLACEONDEVICEPASS
#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper;

/// `cuda` or `cuda:N` as a device; null (and a message in `problem`) for
/// anything else.
static DeviceAttr parseDevice(MLIRContext *context, StringRef text,
                              std::string &problem) {
  StringRef kind = text, ordinalText;
  std::tie(kind, ordinalText) = text.split(':');
  int64_t ordinal = 0;
  if (kind != "cuda" ||
      (text.contains(':') && ordinalText.getAsInteger(10, ordinal)) ||
      ordinal < 0) {
    problem = "device '" + text.str() + "' is not 'cuda' or 'cuda:N'";
    return {};
  }
  return DeviceAttr::get(context, DeviceKind::CUDA, ordinal);
}

/// `type` with `device` as memory space, or null when `type` is a buffer
/// that already lives elsewhere than the CPU.
static Type onDevice(Type type, DeviceAttr device) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return type;
  DeviceAttr current = getBufferDevice(memref);
  if (!current || (!current.isCPU() && current != device))
    return {};
  return MemRefType::get(memref.getShape(), memref.getElementType(),
                         memref.getLayout(), device);
}

namespace {
struct WrapperPlaceOnDevicePass
    : public wrapper::impl::WrapperPlaceOnDevicePassBase<
          WrapperPlaceOnDevicePass> {
  using Base::Base;

  /// Retypes the buffers of `graph`; records the kernels and constants it
  /// uses.
  LogicalResult place(GraphOp graph, DeviceAttr target,
                      SetVector<StringAttr> &kernels,
                      SetVector<StringAttr> &constants) {
    auto retype = [&](Value value, Operation *where) -> LogicalResult {
      Type type = onDevice(value.getType(), target);
      if (!type)
        return where->emitOpError()
               << "uses a buffer of type " << value.getType()
               << ", which is not on the CPU; cannot place it on "
               << target.str();
      value.setType(type);
      return success();
    };
    Block &entry = graph.getBody().front();
    for (BlockArgument arg : entry.getArguments())
      if (failed(retype(arg, graph)))
        return failure();

    WalkResult walk = graph.walk([&](Operation *op) -> WalkResult {
      if (op == graph.getOperation())
        return WalkResult::advance();
      if (isa<ExternOutOp, ExternAllocOp>(op))
        return op->emitOpError()
               << "calls the library kernel '"
               << op->getAttrOfType<StringAttr>("callee").getValue()
               << "', which has no " << target.str()
               << " implementation yet; cannot place the graph on the device";
      if (isa<DebugPrintOp, DebugSaveOp>(op))
        return op->emitOpError()
               << "reads a buffer on the host; debug printing is not "
                  "supported for graphs on "
               << target.str();
      if (auto call = dyn_cast<CallOp>(op))
        kernels.insert(call.getKernelAttr().getAttr());
      if (auto get = dyn_cast<GetConstantOp>(op))
        constants.insert(get.getConstantAttr().getAttr());
      bool makesBuffers = llvm::any_of(op->getResultTypes(), [](Type type) {
        return isa<MemRefType>(type);
      });
      if (!makesBuffers)
        return WalkResult::advance();
      if (!isa<AllocOp, ReuseOp, ReinterpretOp, ViewOp, GetConstantOp>(op))
        return op->emitOpError()
               << "produces a buffer that --wrapper-place-on-device does "
                  "not know how to place on "
               << target.str();
      for (Value result : op->getResults())
        if (failed(retype(result, op)))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();

    SmallVector<Type> results;
    graph.walk([&](ReturnOp ret) {
      results.assign(ret.getOperandTypes().begin(),
                     ret.getOperandTypes().end());
    });
    graph.setFunctionTypeAttr(TypeAttr::get(FunctionType::get(
        graph.getContext(), entry.getArgumentTypes(), results)));
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string problem;
    DeviceAttr target = parseDevice(&getContext(), device, problem);
    if (!target) {
      module.emitError("wrapper-place-on-device: ") << problem;
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    SetVector<StringAttr> kernels, constants;
    for (auto graph : module.getOps<GraphOp>())
      if (failed(place(graph, target, kernels, constants)))
        return signalPassFailure();

    for (StringAttr name : constants) {
      auto constant = symbols.lookup<ConstantOp>(name);
      if (!constant)
        continue;
      Type type = onDevice(constant.getType(), target);
      if (!type) {
        constant.emitOpError("is not on the CPU; cannot place it on ")
            << target.str();
        return signalPassFailure();
      }
      constant.setTypeAttr(TypeAttr::get(type));
    }
    for (StringAttr name : kernels) {
      auto kernel = symbols.lookup<KernelOp>(name);
      if (!kernel)
        continue;
      Operation *impl = symbols.lookup(kernel.getImplAttr().getRootReference());
      if (!isa_and_nonnull<func::FuncOp>(impl) ||
          kernel.getImplAttr().getNestedReferences().size() != 0)
        continue;
      kernel.setDeviceAttr(target);
    }
  }
};
} // namespace
