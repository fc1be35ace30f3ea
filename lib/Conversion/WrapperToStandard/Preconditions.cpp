//===- Preconditions.cpp - what the host lowering refuses -------*- C++ -*-===//
//
// Part of the Wrapper project.
//
// Every refusal of --convert-wrapper-to-standard, diagnosed before any
// rewrite so that the patterns never fail halfway through a module.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Conversion/WrapperToStandard/WrapperToStandard.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::wrapper;

/// Whether the lowering has a pattern for the wrapper op `op`.
static bool isLowered(Operation *op) {
  return isa<GraphOp, ReturnOp, CommentOp, KernelOp, ConstantOp, AllocOp,
             FreeOp, FreeIfNotReusedOp, ReuseOp, ViewOp, ReinterpretOp, CallOp,
             GetConstantOp, TensorDescriptorOp, ResultDescriptorsOp,
             DescriptorBufferOp, CheckStatusOp, DebugPrintOp, DebugSaveOp,
             DebugMessageOp>(op);
}

/// Whether `op` has a lowering for buffers on a CUDA device: the host ops
/// of a graph, and other dialects' ops that make no buffers (memref.dim),
/// whose types are converted.
static bool lowersDeviceBuffers(Operation *op) {
  if (isa<AllocOp, FreeOp, FreeIfNotReusedOp, ReuseOp, ViewOp, ReinterpretOp,
          CallOp, GetConstantOp, ReturnOp, CommentOp>(op))
    return true;
  // The descriptors of a collective's device buffers (the runtime passes
  // the device pointers on, never reads them on the host).
  if (auto descriptor = dyn_cast<TensorDescriptorOp>(op))
    return llvm::any_of(descriptor->getUsers(), [](Operation *user) {
      return isa<LLVM::StoreOp>(user);
    });
  return !isa<WrapperDialect>(op->getDialect()) &&
         llvm::none_of(op->getResultTypes(),
                       [](Type type) { return isa<MemRefType>(type); });
}

/// Checks the op of a graph or function body.
static LogicalResult checkBodyOp(Operation *op, bool profile,
                                 SymbolTableCollection &symbols,
                                 HostLoweringState &state) {
  if (isa<WrapperDialect>(op->getDialect()) && !isLowered(op))
    return op->emitOpError() << "is not supported by the CPU lowering yet";
  if (!lowersDeviceBuffers(op))
    for (Type type :
         llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
      if (isBufferOnCUDA(type))
        return op->emitOpError()
               << "uses a buffer on "
               << getBufferDevice(cast<MemRefType>(type)).str()
               << "; the host lowering handles device buffers only in "
                  "allocations, frees, views, kernel calls, constants and "
                  "returns";
  if (auto call = dyn_cast<CallOp>(op)) {
    auto kernel =
        symbols.lookupNearestSymbolFrom<KernelOp>(call, call.getKernelAttr());
    FunctionOpInterface impl =
        kernel ? kernel.lookupImpl(symbols) : FunctionOpInterface();
    auto funcImpl =
        dyn_cast_or_null<func::FuncOp>(impl ? impl.getOperation() : nullptr);
    if (!funcImpl)
      return call.emitOpError() << "calls a GPU kernel; the host lowering "
                                   "calls func.func kernels only";
    if (profile && kernel.getRunsOn().isCUDA())
      return call.emitOpError()
             << "calls a kernel on " << kernel.getRunsOn().str()
             << "; profiling times CPU kernels only";
    state.kernelImplementations[call.getKernelAttr().getAttr()] = funcImpl;
  }
  if (auto reuse = dyn_cast<ReuseOp>(op)) {
    auto type = cast<MemRefType>(reuse.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (type.hasStaticShape() &&
        failed(type.getStridesAndOffset(strides, offset)))
      return reuse.emitOpError() << "has a non-strided layout";
  }
  if (auto get = dyn_cast<GetConstantOp>(op))
    if (state.slotConstants.contains(get.getConstantAttr().getAttr()) &&
        isBufferOnCUDA(get.getType()))
      return get.emitOpError()
             << "reads an external constant on a CUDA device; external "
                "constants are supported on the CPU only";
  if (isa<DebugPrintOp, DebugSaveOp>(op)) {
    Type element =
        cast<MemRefType>(op->getOperand(0).getType()).getElementType();
    if (!getRuntimeDType(element))
      return op->emitOpError()
             << "cannot print or save elements of type " << element;
  }
  return success();
}

SmallVector<Operation *>
mlir::wrapper::getWrapperToStandardRoots(ModuleOp module) {
  SmallVector<Operation *> roots;
  for (Operation &op : module.getOps()) {
    if (isa<GraphOp, ConstantOp>(op)) {
      roots.push_back(&op);
      continue;
    }
    if (!isa<func::FuncOp>(op))
      continue;
    WalkResult found = op.walk([](Operation *nested) {
      return isa<WrapperDialect>(nested->getDialect()) ? WalkResult::interrupt()
                                                       : WalkResult::advance();
    });
    if (found.wasInterrupted())
      roots.push_back(&op);
  }
  return roots;
}

LogicalResult mlir::wrapper::checkWrapperToStandardPreconditions(
    ModuleOp module, bool profile, bool externalConstants,
    HostLoweringState &state) {
  for (auto constant : module.getOps<ConstantOp>()) {
    if (!constant.isExternal())
      continue;
    if (isBufferOnCUDA(constant.getMemRefType()))
      return constant.emitOpError()
             << "is external and on a CUDA device; external constants are "
                "supported on the CPU only";
    if (!externalConstants)
      return constant.emitOpError()
             << "is external; the CPU lowering needs its value (or "
                "external-constants, for a loader that fills pointer slots, "
                "as wrapper-compile --weights=appended does)";
    state.slotConstants.insert(constant.getSymNameAttr());
  }
  SymbolTableCollection symbols;
  for (Operation *top : getWrapperToStandardRoots(module)) {
    if (isa<ConstantOp>(top))
      continue;
    WalkResult result = top->walk([&](Operation *op) {
      if (op == top)
        return WalkResult::advance();
      return failed(checkBodyOp(op, profile, symbols, state))
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();
  }
  return success();
}
