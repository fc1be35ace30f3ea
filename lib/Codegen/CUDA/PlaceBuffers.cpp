//===- CUDAPlaceBuffers.cpp - buffers of a CUDA program on the device -----===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-cuda-place-buffers: after the kernels became
// gpu.launch ops, the host code's buffers move to the device: allocations
// become gpu.alloc, frees gpu.dealloc, copies gpu.memcpy, constants are
// read through device copies that the runtime makes once per process
// (wrapperCudaConstant), and each public function copies its memref
// arguments in and its results out (so callers, wrapper-run among them, keep
// passing host buffers).
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CUDA/Passes.h"

#include "Wrapper/Dialect/Wrapper/IR/WrapperTypes.h"
#include "Wrapper/Utils/MemRefDescriptors.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERCUDAPLACEBUFFERSPASS
#include "Wrapper/Codegen/CUDA/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
/// The dynamic sizes of a buffer shaped like `value`.
SmallVector<Value> dynamicSizes(OpBuilder &b, Location loc, Value value) {
  auto type = cast<MemRefType>(value.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(memref::DimOp::create(b, loc, value, d));
  return sizes;
}

/// A device buffer with the contents of host buffer `value`; `created`
/// gets the ops made here (which keep using `value`).
Value copyToDevice(OpBuilder &b, Location loc, Value value,
                   SmallPtrSetImpl<Operation *> &created) {
  auto type = cast<MemRefType>(value.getType());
  SmallVector<Value> sizes = dynamicSizes(b, loc, value);
  for (Value size : sizes)
    created.insert(size.getDefiningOp());
  auto alloc = gpu::AllocOp::create(b, loc, type, /*asyncToken=*/Type(),
                                    ValueRange{}, sizes, ValueRange{});
  auto memcpy = gpu::MemcpyOp::create(b, loc, TypeRange{}, ValueRange{},
                                      alloc.getMemref(), value);
  created.insert(alloc);
  created.insert(memcpy);
  return alloc.getMemref();
}

/// Whether `alloc` holds host data only: host code reads and writes it and
/// at most uses it as the shape of a memref.reshape (which reads the shape
/// on the host), and no kernel touches it.
bool isHostOnly(Operation *alloc) {
  return llvm::all_of(alloc->getResult(0).getUses(), [](OpOperand &use) {
    Operation *user = use.getOwner();
    if (user->getParentOfType<gpu::LaunchOp>())
      return false;
    if (auto reshape = dyn_cast<memref::ReshapeOp>(user))
      return use.get() == reshape.getShape();
    return isa<memref::LoadOp, memref::StoreOp, memref::DeallocOp>(user);
  });
}

/// The buffer that `value` is a view of (through view-like ops).
Value rootBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// The runtime function that returns the device copy of a constant.
constexpr StringLiteral kConstantFunction = "wrapperCudaConstant";

struct WrapperCUDAPlaceBuffersPass
    : public wrapper::impl::WrapperCUDAPlaceBuffersPassBase<
          WrapperCUDAPlaceBuffersPass> {
  using Base::Base;

  /// Constant slots by global name, and the runtime function's declaration.
  llvm::StringMap<LLVM::GlobalOp> slots;
  func::FuncOp constantFunction;

  /// The device copy of the constant that `global` reads: the runtime's
  /// wrapperCudaConstant with the module's two-pointer slot of the
  /// constant (host pointer, device copy), which makes the copy on first
  /// use and afterwards costs a comparison. Null for a constant whose
  /// layout or size the runtime cannot describe (copied per call instead).
  Value cachedConstant(OpBuilder &b, memref::GetGlobalOp global) {
    auto type = cast<MemRefType>(global.getType());
    std::optional<int64_t> bytes = wrapper::getStorageBytes(type);
    if (!type.getLayout().isIdentity() || !type.hasStaticShape() || !bytes)
      return {};
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    Location loc = global.getLoc();
    Type ptr = LLVM::LLVMPointerType::get(context);
    Type i64 = b.getI64Type();
    if (!constantFunction) {
      OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
      constantFunction =
          func::FuncOp::create(top, module.getLoc(), kConstantFunction,
                               top.getFunctionType({ptr, i64, i64}, {ptr}));
      constantFunction.setPrivate();
      // Queued on the runtime's stream like the launches around it.
      constantFunction->setAttr("wrapper.cuda_stream_ordered",
                                top.getUnitAttr());
    }
    LLVM::GlobalOp &slot = slots[global.getName()];
    if (!slot) {
      OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
      auto slotType = LLVM::LLVMArrayType::get(ptr, 2);
      std::string name = ("__wrapper_cuda_constant_" + global.getName()).str();
      for (int i = 0; module.lookupSymbol(name); ++i)
        name = ("__wrapper_cuda_constant_" + global.getName() + "_" + Twine(i))
                   .str();
      slot = LLVM::GlobalOp::create(top, loc, slotType, /*isConstant=*/false,
                                    LLVM::Linkage::Internal, name, Attribute());
      OpBuilder init =
          OpBuilder::atBlockEnd(top.createBlock(&slot.getInitializerRegion()));
      LLVM::ReturnOp::create(init, loc,
                             LLVM::ZeroOp::create(init, loc, slotType));
    }
    Value slotAddress =
        LLVM::AddressOfOp::create(b, loc, ptr, slot.getSymName());
    Value host = arith::IndexCastOp::create(
        b, loc, i64,
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, global));
    Value size = arith::ConstantIntOp::create(b, loc, i64, *bytes);
    Value device = func::CallOp::create(b, loc, constantFunction,
                                        ValueRange{slotAddress, host, size})
                       .getResult(0);
    return wrapper::buildMemRefOnPointer(b, loc, device, type);
  }

  LogicalResult place(func::FuncOp func) {
    OpBuilder b(func.getContext());
    // Buffers that stay on the host (shapes built in memory).
    llvm::SmallPtrSet<Value, 4> hostOnly;
    func.walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::AllocaOp>(op) &&
          !op->getParentOfType<gpu::LaunchOp>() && isHostOnly(op))
        hostOnly.insert(op->getResult(0));
    });
    // Host accesses that would touch device memory: refused.
    WalkResult refused = func.walk([&](Operation *op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return WalkResult::advance();
      Value accessed;
      if (auto load = dyn_cast<memref::LoadOp>(op))
        accessed = load.getMemref();
      else if (auto store = dyn_cast<memref::StoreOp>(op))
        accessed = store.getMemref();
      if (accessed && !hostOnly.contains(accessed)) {
        op->emitError("wrapper-cuda-place-buffers: host code reads or writes "
                      "a buffer (a loop that was not mapped to the GPU, such "
                      "as a reduction to a scalar); not supported on CUDA yet");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (refused.wasInterrupted())
      return failure();

    SmallVector<Value> deviceCopies;
    bool failedReturn = false;
    // Allocations, frees and copies.
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return;
      if (isa<memref::AllocOp, memref::AllocaOp>(op) &&
          hostOnly.contains(op->getResult(0)))
        return;
      if (auto dealloc = dyn_cast<memref::DeallocOp>(op);
          dealloc && hostOnly.contains(dealloc.getMemref()))
        return;
      if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp,
              memref::CopyOp, memref::GetGlobalOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      b.setInsertionPoint(op);
      Location loc = op->getLoc();
      if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
        auto type = cast<MemRefType>(op->getResult(0).getType());
        auto alloc = gpu::AllocOp::create(b, loc, type, Type(), ValueRange{},
                                          op->getOperands(), ValueRange{});
        op->replaceAllUsesWith(alloc);
        op->erase();
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        gpu::DeallocOp::create(b, loc, TypeRange{}, ValueRange{},
                               dealloc.getMemref());
        op->erase();
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        gpu::MemcpyOp::create(b, loc, TypeRange{}, ValueRange{},
                              copy.getTarget(), copy.getSource());
        op->erase();
      } else if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
        b.setInsertionPointAfter(global);
        SmallVector<OpOperand *> uses = llvm::map_to_vector(
            global.getResult().getUses(), [](OpOperand &use) { return &use; });
        if (Value device = cachedConstant(b, global)) {
          for (OpOperand *use : uses)
            use->set(device);
          continue;
        }
        SmallPtrSet<Operation *, 4> created;
        Value device = copyToDevice(b, loc, global.getResult(), created);
        global.getResult().replaceAllUsesExcept(device, created);
        deviceCopies.push_back(device);
      }
    }

    // The boundary of a public function: arguments in, results out (or,
    // with device-arguments, results that the caller owns).
    if (func.isPublic() && deviceArguments) {
      func.walk([&](func::ReturnOp ret) {
        b.setInsertionPoint(ret);
        SmallPtrSet<Value, 4> returned;
        for (OpOperand &operand : ret->getOpOperands()) {
          Value value = operand.get();
          auto type = dyn_cast<MemRefType>(value.getType());
          if (!type)
            continue;
          // A buffer this function allocated (and returns once) is the
          // caller's; anything else gets a fresh copy.
          Value root = rootBuffer(value);
          auto alloc = root.getDefiningOp<gpu::AllocOp>();
          if (alloc && !llvm::is_contained(deviceCopies, root) &&
              returned.insert(root).second)
            continue;
          if (!type.getLayout().isIdentity()) {
            ret->emitError("wrapper-cuda-place-buffers: a strided view of an "
                           "argument or constant is returned; not supported "
                           "with device-arguments");
            failedReturn = true;
            continue;
          }
          auto copy = gpu::AllocOp::create(
              b, ret.getLoc(), type, Type(), ValueRange{},
              dynamicSizes(b, ret.getLoc(), value), ValueRange{});
          gpu::MemcpyOp::create(b, ret.getLoc(), TypeRange{}, ValueRange{},
                                copy.getMemref(), value);
          operand.set(copy.getMemref());
        }
      });
      if (failedReturn)
        return failure();
    } else if (func.isPublic()) {
      Block &entry = func.getBody().front();
      b.setInsertionPointToStart(&entry);
      for (BlockArgument arg : entry.getArguments()) {
        if (!isa<MemRefType>(arg.getType()) || arg.use_empty())
          continue;
        SmallPtrSet<Operation *, 4> created;
        Value device = copyToDevice(b, func.getLoc(), arg, created);
        arg.replaceAllUsesExcept(device, created);
        deviceCopies.push_back(device);
      }
      func.walk([&](func::ReturnOp ret) {
        b.setInsertionPoint(ret);
        // Device storage of the results that this function allocated (a
        // result may be a view of it: a reused buffer), freed once after
        // the copies.
        SetVector<Value> owned;
        for (OpOperand &operand : ret->getOpOperands()) {
          Value value = operand.get();
          if (!isa<MemRefType>(value.getType()))
            continue;
          auto type = cast<MemRefType>(value.getType());
          Value host = memref::AllocOp::create(
              b, ret.getLoc(), type, dynamicSizes(b, ret.getLoc(), value));
          gpu::MemcpyOp::create(b, ret.getLoc(), TypeRange{}, ValueRange{},
                                host, value);
          operand.set(host);
          Value root = rootBuffer(value);
          if (root.getDefiningOp<gpu::AllocOp>() &&
              !llvm::is_contained(deviceCopies, root))
            owned.insert(root);
        }
        for (Value root : owned)
          gpu::DeallocOp::create(b, ret.getLoc(), TypeRange{}, ValueRange{},
                                 root);
      });
    }
    // Device copies of arguments and constants live until the returns.
    func.walk([&](func::ReturnOp ret) {
      b.setInsertionPoint(ret);
      for (Value device : deviceCopies)
        gpu::DeallocOp::create(b, ret.getLoc(), TypeRange{}, ValueRange{},
                               device);
    });
    return success();
  }

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(place(func)))
        return signalPassFailure();
  }
};
} // namespace
