//===- WrapperToStandard.cpp - the host program to func and memref --------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Conversion/Passes.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"
#include "Wrapper/Utils/MemRefDescriptors.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

#define DEBUG_TYPE "convert-wrapper-to-standard"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_CONVERTWRAPPERTOSTANDARDPASS
#include "Wrapper/Conversion/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper;

/// The memref type without its (CPU) memory space.
static Type stripMemorySpace(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.getMemorySpace())
    return type;
  return MemRefType::get(memref.getShape(), memref.getElementType(),
                         memref.getLayout());
}

/// Whether `type` is a buffer on a CUDA device.
static bool isOnCUDA(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return false;
  DeviceAttr device = getBufferDevice(memref);
  return device && device.isCUDA();
}

/// Whether `op` has a lowering for buffers on a CUDA device: the host ops
/// of a graph, and other dialects' ops that make no buffers (memref.dim),
/// which are cloned onto the lowered values.
static bool lowersDeviceBuffers(Operation *op) {
  if (isa<AllocOp, FreeOp, FreeIfNotReusedOp, ReuseOp, ViewOp, ReinterpretOp,
          CallOp, GetConstantOp, ReturnOp, CommentOp>(op))
    return true;
  return !isa<WrapperDialect>(op->getDialect()) &&
         llvm::none_of(op->getResultTypes(),
                       [](Type type) { return isa<MemRefType>(type); });
}

/// Checks that every buffer the op touches lives on the CPU, unless the op
/// has a lowering for device buffers.
static LogicalResult checkDevice(Operation *op) {
  if (lowersDeviceBuffers(op))
    return success();
  for (Type type :
       llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
    if (isOnCUDA(type))
      return op->emitOpError()
             << "uses a buffer on "
             << getBufferDevice(cast<MemRefType>(type)).str()
             << "; the host lowering handles device buffers only in "
                "allocations, frees, views, kernel calls, constants and "
                "returns";
  return success();
}

/// Kernel profiling: ids by kernel symbol, and the runtime's entry points.
struct Profiler {
  llvm::StringMap<int64_t> ids;
  SmallVector<Attribute> names;
  func::FuncOp begin, end;
};

namespace {
/// The runtime's debug functions and the strings passed to them, declared
/// in the module on first use.
struct DebugRuntime {
  ModuleOp module;
  SymbolTable &table;
  DenseMap<StringAttr, func::FuncOp> functions;
  unsigned strings = 0;
  /// External constants read through pointer slots (external-constants).
  DenseSet<StringAttr> slotConstants;

  func::FuncOp function(StringRef name, TypeRange inputs) {
    StringAttr key = StringAttr::get(module.getContext(), name);
    auto it = functions.find(key);
    if (it != functions.end())
      return it->second;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto func = func::FuncOp::create(b, module.getLoc(), name,
                                     b.getFunctionType(inputs, {}));
    func.setPrivate();
    functions[key] = func;
    return func;
  }

  /// A pointer to a NUL-terminated copy of `text` (an internal global).
  Value string(OpBuilder &b, Location loc, StringRef text) {
    MLIRContext *context = module.getContext();
    OpBuilder global = OpBuilder::atBlockBegin(module.getBody());
    auto type =
        LLVM::LLVMArrayType::get(IntegerType::get(context, 8), text.size() + 1);
    std::string name;
    do
      name = "__wrapper_debug_str_" + std::to_string(strings++);
    while (table.lookup(name));
    auto op = LLVM::GlobalOp::create(global, loc, type, /*isConstant=*/true,
                                     LLVM::Linkage::Internal, name,
                                     global.getStringAttr(text.str() + '\0'));
    table.insert(op);
    return LLVM::AddressOfOp::create(b, loc,
                                     LLVM::LLVMPointerType::get(context), name);
  }
};
} // namespace

/// The name of the pointer slot of the external constant `name`.
static std::string slotName(StringRef name) {
  return ("__wrapper_slot_" + name).str();
}

/// The LLVM type of `wrapper_tensor` (WrapperShim.h): data, dtype, rank,
/// sizes, strides.
static LLVM::LLVMStructType tensorDescriptorType(MLIRContext *context) {
  Type ptr = LLVM::LLVMPointerType::get(context);
  Type i32 = IntegerType::get(context, 32);
  return LLVM::LLVMStructType::getLiteral(context, {ptr, i32, i32, ptr, ptr});
}

/// Stores `value` into field `field` of descriptor `index` of the array of
/// descriptors at `descriptors`.
static void storeField(OpBuilder &b, Location loc, Value descriptors,
                       int64_t index, int32_t field, Value value) {
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value at = LLVM::GEPOp::create(
      b, loc, ptr, tensorDescriptorType(b.getContext()), descriptors,
      ArrayRef<LLVM::GEPArg>{int32_t(index), field});
  LLVM::StoreOp::create(b, loc, value, at);
}

/// A stack array of `count` i64 (at least one).
static Value i64Array(OpBuilder &b, Location loc, int64_t count) {
  Value size = LLVM::ConstantOp::create(
      b, loc, b.getI64Type(), b.getI64IntegerAttr(std::max<int64_t>(1, count)));
  return LLVM::AllocaOp::create(b, loc,
                                LLVM::LLVMPointerType::get(b.getContext()),
                                b.getI64Type(), size, /*alignment=*/8);
}

/// Stores i64 `value` at element `index` of the i64 array `array`.
static void storeI64(OpBuilder &b, Location loc, Value array, int64_t index,
                     Value value) {
  Value at = LLVM::GEPOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), b.getI64Type(), array,
      ArrayRef<LLVM::GEPArg>{int32_t(index)});
  LLVM::StoreOp::create(b, loc, value, at);
}

/// An array of `count` uninitialized descriptors on the stack.
static Value descriptorArray(OpBuilder &b, Location loc, int64_t count) {
  Value size = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                        b.getI64IntegerAttr(count));
  return LLVM::AllocaOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()),
      tensorDescriptorType(b.getContext()), size, /*alignment=*/8);
}

/// A pointer to the first element of the storage of `memref`.
static Value alignedPointer(OpBuilder &b, Location loc, Value memref) {
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value address =
      arith::IndexCastOp::create(b, loc, b.getI64Type(), index).getResult();
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), address);
}

/// Calls the runtime's `name` (debug_print or debug_save) on `buffer`, with
/// the string `text` first.
static LogicalResult emitDebugView(OpBuilder &b, Location loc, Operation *op,
                                   DebugRuntime &debug, StringRef name,
                                   StringRef text, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  std::optional<int32_t> dtype = getRuntimeDType(type.getElementType());
  if (!dtype)
    return op->emitOpError()
           << "cannot print or save elements of type " << type.getElementType();
  int64_t rank = type.getRank();
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  auto metaType =
      MemRefType::get({std::max<int64_t>(1, 2 * rank)}, b.getI64Type());
  Value meta = memref::AllocaOp::create(b, loc, metaType);
  auto store = [&](Value value, int64_t at) {
    Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), value);
    Value position = arith::ConstantIndexOp::create(b, loc, at);
    memref::StoreOp::create(b, loc, i64, meta, position);
  };
  for (int64_t d = 0; d < rank; ++d) {
    store(metadata.getSizes()[d], d);
    store(metadata.getStrides()[d], rank + d);
  }
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  func::FuncOp callee = debug.function(
      name, {ptr, b.getI32Type(), b.getI32Type(), ptr, ptr, b.getI64Type()});
  Value offset =
      arith::IndexCastOp::create(b, loc, b.getI64Type(), metadata.getOffset());
  func::CallOp::create(
      b, loc, callee,
      ValueRange{debug.string(b, loc, text),
                 arith::ConstantIntOp::create(b, loc, *dtype, 32),
                 arith::ConstantIntOp::create(b, loc, rank, 32),
                 alignedPointer(b, loc, meta),
                 alignedPointer(b, loc, metadata.getBaseBuffer()), offset});
  return success();
}

/// The `wrapper_tensor` of `buffer` on the stack: data at the view's first
/// element, dtype, rank, and a sizes-then-strides array.
static Value lowerTensorDescriptor(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t rank = type.getRank();
  Type i64 = b.getI64Type(), i8 = b.getI8Type();
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  Value shape = i64Array(b, loc, 2 * rank);
  for (int64_t d = 0; d < rank; ++d) {
    storeI64(b, loc, shape, d,
             arith::IndexCastOp::create(b, loc, i64, metadata.getSizes()[d]));
    storeI64(b, loc, shape, rank + d,
             arith::IndexCastOp::create(b, loc, i64, metadata.getStrides()[d]));
  }
  Value offset =
      arith::IndexCastOp::create(b, loc, i64, metadata.getOffset()).getResult();
  Value bytes = arith::MulIOp::create(
      b, loc, offset,
      arith::ConstantIntOp::create(
          b, loc, *getElementBytes(type.getElementType()), 64));
  Value data = LLVM::GEPOp::create(
      b, loc, ptr, i8, alignedPointer(b, loc, metadata.getBaseBuffer()),
      ArrayRef<LLVM::GEPArg>{bytes});
  Value descriptor = descriptorArray(b, loc, 1);
  Value strides = LLVM::GEPOp::create(b, loc, ptr, i64, shape,
                                      ArrayRef<LLVM::GEPArg>{int32_t(rank)});
  storeField(b, loc, descriptor, 0, 0, data);
  storeField(b, loc, descriptor, 0, 1,
             arith::ConstantIntOp::create(
                 b, loc, *getRuntimeDType(type.getElementType()), 32));
  storeField(b, loc, descriptor, 0, 2,
             arith::ConstantIntOp::create(b, loc, rank, 32));
  storeField(b, loc, descriptor, 0, 3, shape);
  storeField(b, loc, descriptor, 0, 4, strides);
  return descriptor;
}

/// Empty descriptors for results of `types`: data NULL, expected sizes
/// (-1 for dynamic ones).
static Value lowerResultDescriptors(OpBuilder &b, Location loc,
                                    ArrayAttr types) {
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value descriptors = descriptorArray(b, loc, types.size());
  for (auto [index, attr] : llvm::enumerate(types)) {
    auto type = cast<MemRefType>(cast<TypeAttr>(attr).getValue());
    int64_t rank = type.getRank();
    Value sizes = i64Array(b, loc, rank), strides = i64Array(b, loc, rank);
    for (int64_t d = 0; d < rank; ++d)
      storeI64(b, loc, sizes, d,
               arith::ConstantIntOp::create(
                   b, loc, type.isDynamicDim(d) ? -1 : type.getDimSize(d), 64));
    storeField(b, loc, descriptors, index, 0,
               LLVM::ZeroOp::create(b, loc, ptr));
    storeField(b, loc, descriptors, index, 1,
               arith::ConstantIntOp::create(
                   b, loc, *getRuntimeDType(type.getElementType()), 32));
    storeField(b, loc, descriptors, index, 2,
               arith::ConstantIntOp::create(b, loc, rank, 32));
    storeField(b, loc, descriptors, index, 3, sizes);
    storeField(b, loc, descriptors, index, 4, strides);
  }
  return descriptors;
}

/// The buffer that descriptor `index` of `descriptors` describes after a
/// functional shim filled it (contiguous, so only data and sizes are read).
static Value lowerDescriptorBuffer(OpBuilder &b, Location loc,
                                   Value descriptors, int64_t index,
                                   MemRefType type) {
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  Type i64 = b.getI64Type();
  auto field = [&](int32_t f) -> Value {
    return LLVM::GEPOp::create(
        b, loc, ptr, tensorDescriptorType(b.getContext()), descriptors,
        ArrayRef<LLVM::GEPArg>{int32_t(index), f});
  };
  Value data = LLVM::LoadOp::create(b, loc, ptr, field(0));
  Value sizesArray = LLVM::LoadOp::create(b, loc, ptr, field(3));
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      sizes.push_back(LLVM::ConstantOp::create(
          b, loc, i64, b.getI64IntegerAttr(type.getDimSize(d))));
      continue;
    }
    Value at = LLVM::GEPOp::create(b, loc, ptr, i64, sizesArray,
                                   ArrayRef<LLVM::GEPArg>{int32_t(d)});
    sizes.push_back(LLVM::LoadOp::create(b, loc, i64, at));
  }
  return buildMemRefOnPointer(b, loc, data, type, sizes);
}

/// Frees `lowered`, the lowering of `buffer`: on the device when `buffer`
/// lives there.
static void emitFree(OpBuilder &b, Location loc, Value buffer, Value lowered) {
  if (isOnCUDA(buffer.getType()))
    gpu::DeallocOp::create(b, loc, TypeRange{}, ValueRange{}, lowered);
  else
    memref::DeallocOp::create(b, loc, lowered);
}

/// Lowers the ops of `source` into `body`: wrapper ops to func, memref,
/// arith and LLVM ops and runtime calls, others cloned.
static LogicalResult lowerBlock(Block &source, OpBuilder &body,
                                IRMapping &mapping,
                                SymbolTableCollection &symbols,
                                Profiler *profiler, DebugRuntime *debug) {
  auto get = [&](Value v) { return mapping.lookupOrDefault(v); };
  for (Operation &op : source) {
    if (failed(checkDevice(&op)))
      return failure();
    Location loc = op.getLoc();
    LogicalResult result =
        TypeSwitch<Operation *, LogicalResult>(&op)
            .Case([&](AllocOp alloc) -> LogicalResult {
              SmallVector<Value> sizes;
              for (Value s : alloc.getDynamicSizes())
                sizes.push_back(get(s));
              auto type = cast<MemRefType>(stripMemorySpace(alloc.getType()));
              if (isOnCUDA(alloc.getType())) {
                // The runtime's caching allocator (256-byte aligned).
                mapping.map(alloc.getResult(),
                            gpu::AllocOp::create(body, loc, type, Type(),
                                                 ValueRange{}, sizes,
                                                 ValueRange{})
                                .getMemref());
                return success();
              }
              mapping.map(alloc.getResult(),
                          memref::AllocOp::create(body, loc, type, sizes,
                                                  body.getI64IntegerAttr(64)));
              return success();
            })
            .Case([&](FreeOp free) -> LogicalResult {
              emitFree(body, loc, free.getBuffer(), get(free.getBuffer()));
              return success();
            })
            .Case([&](FreeIfNotReusedOp free) -> LogicalResult {
              // Freed unless a later reuse takes the storage.
              bool reused = llvm::any_of(
                  free.getBuffer().getUsers(),
                  [](Operation *user) { return isa<ReuseOp>(user); });
              if (!reused)
                emitFree(body, loc, free.getBuffer(), get(free.getBuffer()));
              return success();
            })
            .Case([&](ReuseOp reuse) -> LogicalResult {
              // A view of the old storage with the new type; freeing it
              // frees the storage.
              auto type = cast<MemRefType>(stripMemorySpace(reuse.getType()));
              if (!type.hasStaticShape()) {
                mapping.map(reuse.getResult(), get(reuse.getOld()));
                return success();
              }
              SmallVector<int64_t> strides;
              int64_t offset;
              if (failed(type.getStridesAndOffset(strides, offset)))
                return reuse.emitOpError() << "has a non-strided layout";
              mapping.map(reuse.getResult(),
                          memref::ReinterpretCastOp::create(
                              body, loc, type, get(reuse.getOld()), offset,
                              type.getShape(), strides));
              return success();
            })
            .Case([&](ViewOp view) -> LogicalResult {
              Value shift = arith::ConstantIndexOp::create(
                  body, loc, static_cast<int64_t>(view.getByteOffset()));
              mapping.map(
                  view.getResult(),
                  memref::ViewOp::create(
                      body, loc,
                      cast<MemRefType>(stripMemorySpace(view.getType())),
                      get(view.getPool()), shift, ValueRange{}));
              return success();
            })
            .Case([&](ReinterpretOp view) -> LogicalResult {
              SmallVector<Value> offsets, sizes, strides;
              for (Value v : view.getOffsets())
                offsets.push_back(get(v));
              for (Value v : view.getSizes())
                sizes.push_back(get(v));
              for (Value v : view.getStrides())
                strides.push_back(get(v));
              auto cast = memref::ReinterpretCastOp::create(
                  body, loc,
                  llvm::cast<MemRefType>(stripMemorySpace(view.getType())),
                  get(view.getSource()), offsets, sizes, strides,
                  view.getStaticOffsets(), view.getStaticSizes(),
                  view.getStaticStrides());
              mapping.map(view.getResult(), cast.getResult());
              return success();
            })
            .Case([&](CallOp call) -> LogicalResult {
              auto kernel = symbols.lookupNearestSymbolFrom<KernelOp>(
                  call, call.getKernelAttr());
              FunctionOpInterface impl =
                  kernel ? kernel.lookupImpl(symbols) : FunctionOpInterface();
              auto funcImpl = dyn_cast_or_null<func::FuncOp>(
                  impl ? impl.getOperation() : nullptr);
              if (!funcImpl)
                return call.emitOpError()
                       << "calls a GPU kernel; the host lowering calls "
                          "func.func kernels only";
              if (profiler && kernel.getRunsOn().isCUDA())
                return call.emitOpError()
                       << "calls a kernel on " << kernel.getRunsOn().str()
                       << "; profiling times CPU kernels only";
              SmallVector<Value> args;
              for (auto [arg, param] :
                   llvm::zip(call.getArgs(), funcImpl.getArgumentTypes())) {
                Value v = get(arg);
                if (v.getType() != param)
                  v = memref::CastOp::create(body, loc, param, v);
                args.push_back(v);
              }
              Value id;
              if (profiler) {
                auto [it, inserted] = profiler->ids.try_emplace(
                    call.getKernel(), profiler->ids.size());
                if (inserted)
                  profiler->names.push_back(call.getKernelAttr());
                id = arith::ConstantIntOp::create(body, loc, it->second, 64);
                func::CallOp::create(body, loc, profiler->begin, id);
              }
              func::CallOp::create(body, loc, funcImpl, args);
              if (profiler)
                func::CallOp::create(body, loc, profiler->end, id);
              return success();
            })
            .Case([&](GetConstantOp get) -> LogicalResult {
              auto type = cast<MemRefType>(stripMemorySpace(get.getType()));
              StringAttr name = get.getConstantAttr().getAttr();
              if (debug->slotConstants.contains(name)) {
                if (isOnCUDA(get.getType()))
                  return get.emitOpError()
                         << "reads an external constant on a CUDA device; "
                            "external constants are supported on the CPU "
                            "only";
                Type ptr = LLVM::LLVMPointerType::get(body.getContext());
                Value slot =
                    LLVM::AddressOfOp::create(body, loc, ptr, slotName(name));
                Value pointer = LLVM::LoadOp::create(body, loc, ptr, slot);
                mapping.map(get.getResult(),
                            buildMemRefOnPointer(body, loc, pointer, type));
                return success();
              }
              mapping.map(get.getResult(),
                          memref::GetGlobalOp::create(body, loc, type,
                                                      get.getConstant()));
              return success();
            })
            .Case([&](TensorDescriptorOp op) -> LogicalResult {
              mapping.map(op.getResult(), lowerTensorDescriptor(
                                              body, loc, get(op.getBuffer())));
              return success();
            })
            .Case([&](ResultDescriptorsOp op) -> LogicalResult {
              mapping.map(op.getResult(),
                          lowerResultDescriptors(body, loc, op.getTypes()));
              return success();
            })
            .Case([&](DescriptorBufferOp op) -> LogicalResult {
              auto type = cast<MemRefType>(stripMemorySpace(op.getType()));
              mapping.map(op.getResult(),
                          lowerDescriptorBuffer(body, loc,
                                                get(op.getDescriptors()),
                                                op.getIndex(), type));
              return success();
            })
            .Case([&](CheckStatusOp op) -> LogicalResult {
              Type ptr = LLVM::LLVMPointerType::get(body.getContext());
              func::FuncOp callee = debug->function("wrapper_shim_check",
                                                    {body.getI32Type(), ptr});
              func::CallOp::create(
                  body, loc, callee,
                  ValueRange{get(op.getStatus()),
                             debug->string(body, loc, op.getCallee())});
              return success();
            })
            .Case([&](CommentOp) -> LogicalResult { return success(); })
            .Case([&](DebugPrintOp print) -> LogicalResult {
              return emitDebugView(body, loc, print, *debug,
                                   "wrapper_debug_print", print.getLabel(),
                                   get(print.getBuffer()));
            })
            .Case([&](DebugSaveOp save) -> LogicalResult {
              return emitDebugView(body, loc, save, *debug,
                                   "wrapper_debug_save", save.getPath(),
                                   get(save.getBuffer()));
            })
            .Case([&](DebugMessageOp message) -> LogicalResult {
              func::FuncOp callee = debug->function(
                  "wrapper_debug_message",
                  {LLVM::LLVMPointerType::get(body.getContext())});
              func::CallOp::create(
                  body, loc, callee,
                  debug->string(body, loc, message.getMessage()));
              return success();
            })
            .Case([&](ReturnOp ret) -> LogicalResult {
              SmallVector<Value> values;
              for (Value v : ret.getOperands())
                values.push_back(get(v));
              func::ReturnOp::create(body, loc, values);
              return success();
            })
            .Default([&](Operation *other) -> LogicalResult {
              if (isa<WrapperDialect>(other->getDialect()))
                return other->emitOpError()
                       << "is not supported by the CPU lowering yet";
              Operation *clone = body.clone(*other, mapping);
              (void)clone;
              return success();
            });
    if (failed(result))
      return failure();
  }
  return success();
}

static LogicalResult lowerGraph(GraphOp graph, SymbolTableCollection &symbols,
                                Profiler *profiler, DebugRuntime *debug) {
  OpBuilder b(graph);
  SmallVector<Type> inputs, results;
  for (Type t : graph.getArgumentTypes())
    inputs.push_back(stripMemorySpace(t));
  for (Type t : graph.getResultTypes())
    results.push_back(stripMemorySpace(t));
  auto func = func::FuncOp::create(b, graph.getLoc(), graph.getSymName(),
                                   b.getFunctionType(inputs, results));
  Block *entry = func.addEntryBlock();
  IRMapping mapping;
  for (auto [from, to] :
       llvm::zip(graph.getBody().getArguments(), entry->getArguments()))
    mapping.map(from, to);
  OpBuilder body = OpBuilder::atBlockEnd(entry);
  if (failed(lowerBlock(graph.getBody().front(), body, mapping, symbols,
                        profiler, debug)))
    return failure();
  graph.erase();
  return success();
}

/// Lowers the wrapper ops in the body of `func` (a function of the host
/// program, such as a synthesized extern variant), in place.
static LogicalResult lowerFunction(func::FuncOp func,
                                   SymbolTableCollection &symbols,
                                   DebugRuntime *debug) {
  bool hasWrapperOps = false;
  func.walk([&](Operation *op) {
    if (isa<WrapperDialect>(op->getDialect()))
      hasWrapperOps = true;
  });
  if (!hasWrapperOps)
    return success();
  if (!func.getBody().hasOneBlock())
    return func.emitOpError()
           << "has wrapper ops in several blocks; the CPU lowering handles "
              "functions of one block";
  Block &old = func.getBody().front();
  auto *entry = new Block();
  func.getBody().push_front(entry);
  IRMapping mapping;
  for (BlockArgument arg : old.getArguments())
    mapping.map(arg, entry->addArgument(arg.getType(), arg.getLoc()));
  OpBuilder body = OpBuilder::atBlockEnd(entry);
  if (failed(lowerBlock(old, body, mapping, symbols, nullptr, debug)))
    return failure();
  for (Operation &op : llvm::reverse(old))
    op.dropAllUses();
  old.erase();
  return success();
}

namespace {
struct ConvertWrapperToStandardPass
    : public wrapper::impl::ConvertWrapperToStandardPassBase<
          ConvertWrapperToStandardPass> {
  using ConvertWrapperToStandardPassBase::ConvertWrapperToStandardPassBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    // Constants first: graphs read them through memref.get_global (or a
    // pointer slot when external).
    DenseSet<StringAttr> slotConstants;
    for (auto constant :
         llvm::make_early_inc_range(module.getOps<ConstantOp>())) {
      if (constant.isExternal() && isOnCUDA(constant.getMemRefType())) {
        constant.emitOpError()
            << "is external and on a CUDA device; external constants are "
               "supported on the CPU only";
        return signalPassFailure();
      }
      if (constant.isExternal() && externalConstants) {
        OpBuilder b(constant);
        Location loc = constant.getLoc();
        Type ptr = LLVM::LLVMPointerType::get(&getContext());
        auto slot = LLVM::GlobalOp::create(
            b, loc, ptr, /*isConstant=*/false, LLVM::Linkage::External,
            slotName(constant.getSymName()), Attribute());
        slot.setVisibility_(LLVM::Visibility::Hidden);
        OpBuilder init =
            OpBuilder::atBlockEnd(b.createBlock(&slot.getInitializerRegion()));
        LLVM::ReturnOp::create(init, loc, LLVM::ZeroOp::create(init, loc, ptr));
        slotConstants.insert(constant.getSymNameAttr());
        constant.erase();
        continue;
      }
      if (constant.isExternal()) {
        constant.emitOpError()
            << "is external; the CPU lowering needs its value (or "
               "external-constants, for a loader that fills pointer slots, "
               "as wrapper-compile --weights=appended does)";
        return signalPassFailure();
      }
      OpBuilder b(constant);
      auto type = cast<MemRefType>(stripMemorySpace(constant.getMemRefType()));
      memref::GlobalOp::create(b, constant.getLoc(), constant.getSymName(),
                               b.getStringAttr("private"), type,
                               *constant.getValue(), /*constant=*/true,
                               /*alignment=*/b.getI64IntegerAttr(64));
      constant.erase();
    }
    std::optional<Profiler> profiler;
    if (profile) {
      profiler.emplace();
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      auto type = b.getFunctionType({b.getI64Type()}, {});
      profiler->begin = func::FuncOp::create(b, module.getLoc(),
                                             "wrapper_profile_begin", type);
      profiler->end =
          func::FuncOp::create(b, module.getLoc(), "wrapper_profile_end", type);
      profiler->begin.setPrivate();
      profiler->end.setPrivate();
    }
    SymbolTable table(module);
    DebugRuntime debug{module, table, DenseMap<StringAttr, func::FuncOp>(), 0,
                       std::move(slotConstants)};
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (failed(lowerFunction(func, symbols, &debug)))
        return signalPassFailure();
    for (auto graph : llvm::make_early_inc_range(module.getOps<GraphOp>()))
      if (failed(lowerGraph(graph, symbols, profiler ? &*profiler : nullptr,
                            &debug)))
        return signalPassFailure();
    if (profiler)
      module->setAttr("wrapper.profile_kernels",
                      ArrayAttr::get(&getContext(), profiler->names));
    for (auto kernel : llvm::make_early_inc_range(module.getOps<KernelOp>()))
      kernel.erase();
  }
};
} // namespace
