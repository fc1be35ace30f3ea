//===- LowerExternABI.cpp - extern calls to C shim calls ------------------===//
//
// Part of the Wrapper project.
//
// Lowers wrapper.extern_out / extern_alloc of registered kernels to calls of
// the entry points of include/Wrapper/Runtime/WrapperShim.h, following the
// rules of docs/Externs.md ("The C ABI").
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h"

#include "Wrapper/Extern/Registry.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERLOWEREXTERNABIPASS
#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper;

/// The default of `arg` as an attribute (UnitAttr for None), or null when
/// it does not parse for the argument's type.
static Attribute parseDefault(Builder &b, const SchemaArgument &arg) {
  StringRef text = StringRef(*arg.defaultValue).trim();
  if (text == "None")
    return b.getUnitAttr();
  const SchemaType &type = arg.type;
  if (type.list) {
    SmallVector<int64_t> values;
    StringRef body = text;
    if (body.consume_front("[") && body.consume_back("]")) {
      SmallVector<StringRef> parts;
      body.split(parts, ',', -1, /*KeepEmpty=*/false);
      for (StringRef part : parts) {
        int64_t v;
        if (part.trim().getAsInteger(10, v))
          return {};
        values.push_back(v);
      }
      return b.getDenseI64ArrayAttr(values);
    }
    int64_t v;
    if (text.getAsInteger(10, v))
      return {};
    return b.getI64IntegerAttr(v);
  }
  switch (type.base) {
  case SchemaBaseType::Bool:
    if (text == "True" || text == "False")
      return b.getBoolAttr(text == "True");
    return {};
  case SchemaBaseType::Int: {
    int64_t v;
    if (text.getAsInteger(10, v))
      return {};
    return b.getI64IntegerAttr(v);
  }
  case SchemaBaseType::Float:
  case SchemaBaseType::Scalar: {
    if (text == "True" || text == "False")
      return b.getF64FloatAttr(text == "True" ? 1.0 : 0.0);
    double v;
    if (text.getAsDouble(v))
      return {};
    return b.getF64FloatAttr(v);
  }
  default:
    return {};
  }
}

namespace {
/// Builds the shim call of one extern call.
class CallLowering {
public:
  CallLowering(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Type ptrType() { return LLVM::LLVMPointerType::get(b.getContext()); }
  Value nullPointer() { return LLVM::ZeroOp::create(b, loc, ptrType()); }
  Value i64(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 64); }

  /// A stack slot holding `value`; its address.
  Value onStack(Value value) {
    Value slot = LLVM::AllocaOp::create(b, loc, ptrType(), value.getType(),
                                        i64(1), /*alignment=*/8);
    LLVM::StoreOp::create(b, loc, value, slot);
    return slot;
  }

  /// The value of scalar `source` (an operand or an attribute) as the ABI
  /// type of `base`; null when it does not convert.
  Value scalar(SchemaBaseType base, Value operand, Attribute attr) {
    Type f64 = b.getF64Type(), i32 = b.getI32Type(), i64Type = b.getI64Type();
    switch (base) {
    case SchemaBaseType::Int:
      if (operand) {
        if (operand.getType().isIndex())
          return arith::IndexCastOp::create(b, loc, i64Type, operand);
        return widenInt(operand, i64Type);
      }
      if (auto intAttr = dyn_cast<IntegerAttr>(attr))
        return i64(intAttr.getInt());
      return {};
    case SchemaBaseType::Bool:
      if (operand)
        return arith::ExtUIOp::create(b, loc, i32, operand);
      if (auto boolAttr = dyn_cast<BoolAttr>(attr))
        return arith::ConstantIntOp::create(b, loc, boolAttr.getValue(), 32);
      return {};
    case SchemaBaseType::Float:
    case SchemaBaseType::Scalar:
      if (operand) {
        Type type = operand.getType();
        if (isa<FloatType>(type))
          return type == f64 ? operand
                 : type.getIntOrFloatBitWidth() < 64
                     ? Value(arith::ExtFOp::create(b, loc, f64, operand))
                     : Value(arith::TruncFOp::create(b, loc, f64, operand));
        if (type.isIndex())
          operand = arith::IndexCastOp::create(b, loc, i64Type, operand);
        if (operand.getType().isInteger(1))
          return arith::UIToFPOp::create(b, loc, f64, operand);
        return arith::SIToFPOp::create(b, loc, f64, operand);
      }
      if (auto floatAttr = dyn_cast<FloatAttr>(attr))
        return arith::ConstantFloatOp::create(
            b, loc, cast<FloatType>(f64),
            APFloat(floatAttr.getValueAsDouble()));
      if (auto boolAttr = dyn_cast<BoolAttr>(attr))
        return arith::ConstantFloatOp::create(
            b, loc, cast<FloatType>(f64),
            APFloat(boolAttr.getValue() ? 1.0 : 0.0));
      if (auto intAttr = dyn_cast<IntegerAttr>(attr))
        return arith::ConstantFloatOp::create(
            b, loc, cast<FloatType>(f64),
            APFloat(static_cast<double>(intAttr.getInt())));
      return {};
    case SchemaBaseType::ScalarType:
      if (auto typeAttr = dyn_cast<TypeAttr>(attr))
        if (std::optional<int32_t> code = getRuntimeDType(typeAttr.getValue()))
          return arith::ConstantIntOp::create(b, loc, *code, 32);
      return {};
    default:
      return {};
    }
  }

  Value widenInt(Value v, Type to) {
    unsigned width = v.getType().getIntOrFloatBitWidth();
    if (width == 64)
      return v;
    if (width < 64)
      return arith::ExtSIOp::create(b, loc, to, v);
    return arith::TruncIOp::create(b, loc, to, v);
  }

  /// An int list as a stack array and its length.
  SmallVector<Value> intList(Attribute attr) {
    SmallVector<int64_t> values;
    if (auto array = dyn_cast<DenseI64ArrayAttr>(attr))
      llvm::append_range(values, array.asArrayRef());
    else if (auto array = dyn_cast<ArrayAttr>(attr))
      for (Attribute element : array)
        values.push_back(cast<IntegerAttr>(element).getInt());
    else
      values.push_back(cast<IntegerAttr>(attr).getInt());
    Type i64Type = b.getI64Type();
    Value array =
        LLVM::AllocaOp::create(b, loc, ptrType(), i64Type,
                               i64(std::max<int64_t>(1, values.size())), 8);
    for (auto [index, v] : llvm::enumerate(values)) {
      Value at = LLVM::GEPOp::create(b, loc, ptrType(), i64Type, array,
                                     ArrayRef<LLVM::GEPArg>{int32_t(index)});
      LLVM::StoreOp::create(b, loc, i64(v), at);
    }
    return {array, i64(values.size())};
  }

  /// The descriptors of `buffers` in a stack array of pointers.
  Value descriptorArray(ValueRange buffers) {
    Value array = LLVM::AllocaOp::create(
        b, loc, ptrType(), ptrType(), i64(std::max<size_t>(1, buffers.size())),
        /*alignment=*/8);
    for (auto [index, buffer] : llvm::enumerate(buffers)) {
      Value descriptor = TensorDescriptorOp::create(b, loc, ptrType(), buffer);
      Value at = LLVM::GEPOp::create(b, loc, ptrType(), ptrType(), array,
                                     ArrayRef<LLVM::GEPArg>{int32_t(index)});
      LLVM::StoreOp::create(b, loc, descriptor, at);
    }
    return array;
  }

  OpBuilder &b;
  Location loc;
};
} // namespace

/// Callees run by the embedding program (see wrapper_proxy_call).
static constexpr StringLiteral kProxyPrefix = "proxy::";

/// The buffers one schema return of a functional call produced.
using ReturnBuffers = SmallVector<Value>;

/// Replaces the uses of the container `container` by buffers: element i
/// is `elements[i]`, one buffer, or a list of them when `lists[i]`.
/// multi_output paths pick buffers; frees free the buffers that no
/// multi_output took.
static LogicalResult replaceContainer(Value container,
                                      ArrayRef<ReturnBuffers> elements,
                                      ArrayRef<bool> lists,
                                      SmallVectorImpl<Operation *> &dead) {
  auto lookup = [&](ArrayRef<int64_t> path) -> Value {
    if (path.empty() || path[0] < 0 ||
        path[0] >= static_cast<int64_t>(elements.size()))
      return {};
    const ReturnBuffers &at = elements[path[0]];
    if (!lists[path[0]])
      return path.size() == 1 ? at.front() : Value();
    if (path.size() == 2 && path[1] >= 0 &&
        path[1] < static_cast<int64_t>(at.size()))
      return at[path[1]];
    return {};
  };
  llvm::SmallPtrSet<Value, 8> extracted;
  SmallVector<FreeOp> frees;
  for (Operation *user : container.getUsers()) {
    if (auto extract = dyn_cast<MultiOutputOp>(user)) {
      Value buffer = lookup(extract.getIndices());
      if (!buffer)
        return extract.emitOpError()
               << "takes a path that the C ABI lowering cannot resolve";
      extracted.insert(buffer);
      extract.getResult().replaceAllUsesWith(buffer);
      dead.push_back(extract);
      continue;
    }
    if (auto free = dyn_cast<FreeOp>(user)) {
      frees.push_back(free);
      continue;
    }
    return user->emitOpError()
           << "uses an extern kernel's tuple or list directly; only "
              "'wrapper.multi_output' and 'wrapper.free' can";
  }
  for (FreeOp free : frees) {
    OpBuilder b(free);
    for (const ReturnBuffers &buffers : elements)
      for (Value buffer : buffers)
        if (!extracted.contains(buffer))
          FreeOp::create(b, free.getLoc(), buffer);
    dead.push_back(free);
  }
  return success();
}

namespace {
struct WrapperLowerExternABIPass
    : public wrapper::impl::WrapperLowerExternABIPassBase<
          WrapperLowerExternABIPass> {
  using Base::Base;

  /// The declaration of shim `name` with `type`, made on first use.
  FailureOr<func::FuncOp> declare(Operation *at, StringRef name,
                                  FunctionType type) {
    ModuleOp module = getOperation();
    if (auto existing = module.lookupSymbol<func::FuncOp>(name)) {
      if (existing.getFunctionType() != type)
        return at->emitOpError() << "needs '" << name << "' with type " << type
                                 << ", but the module declares it with type "
                                 << existing.getFunctionType();
      return existing;
    }
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto func = func::FuncOp::create(b, module.getLoc(), name, type);
    func.setPrivate();
    return func;
  }

  /// Calls runtime function `name` with `operands` (declared on first
  /// use, returning a status) and checks the status, naming `what`.
  LogicalResult callAndCheck(Operation *at, OpBuilder &b, Location loc,
                             StringRef name, ValueRange operands,
                             StringRef what) {
    FailureOr<func::FuncOp> callee = declare(
        at, name, b.getFunctionType(operands.getTypes(), {b.getI32Type()}));
    if (failed(callee))
      return failure();
    Value status = func::CallOp::create(b, loc, *callee, operands).getResult(0);
    CheckStatusOp::create(b, loc, status, b.getStringAttr(what));
    return success();
  }

  /// `text` as a NUL-terminated global string `<prefix><n>` (n counting up).
  static Value cString(OpBuilder &b, Location loc, StringRef prefix,
                       unsigned &counter, StringRef text) {
    std::string bytes = text.str();
    bytes.push_back('\0'); // the global holds exactly the bytes given
    return LLVM::createGlobalString(loc, b,
                                    prefix.str() + std::to_string(counter++),
                                    bytes, LLVM::Linkage::Internal);
  }

  LogicalResult lower(Operation *op, SmallVectorImpl<Operation *> &dead);
  LogicalResult lowerProxy(ExternAllocOp op,
                           SmallVectorImpl<Operation *> &dead);
  LogicalResult lowerCollective(CollectiveStartOp op);
  unsigned proxyNames = 0;
  unsigned groupNames = 0;

  void runOnOperation() override {
    SmallVector<Operation *> calls;
    getOperation().walk([&](Operation *op) {
      if (isa<CollectiveStartOp>(op) ||
          (!collectivesOnly && isa<ExternOutOp, ExternAllocOp>(op)))
        calls.push_back(op);
    });
    SmallVector<Operation *> dead;
    for (Operation *op : calls)
      if (failed(lower(op, dead)))
        return signalPassFailure();
    // Users (multi_output, free) were recorded before their calls.
    for (Operation *op : dead)
      op->erase();
  }
};
} // namespace

LogicalResult
WrapperLowerExternABIPass::lower(Operation *op,
                                 SmallVectorImpl<Operation *> &dead) {
  if (auto start = dyn_cast<CollectiveStartOp>(op))
    return lowerCollective(start);
  auto out = dyn_cast<ExternOutOp>(op);
  auto alloc = dyn_cast<ExternAllocOp>(op);
  StringRef callee = out ? out.getCallee() : alloc.getCallee();
  DictionaryAttr args = out ? out.getArgsAttr() : alloc.getArgsAttr();
  if (callee.starts_with(kProxyPrefix)) {
    if (!alloc)
      return op->emitOpError()
             << "calls the proxy '" << callee
             << "' in out= form; proxy calls allocate their results";
    return lowerProxy(alloc, dead);
  }
  ExternVariant variant;
  const ExternKernel *kernel = ExternRegistry::get().lookup(callee, &variant);
  if (!kernel)
    return op->emitOpError() << "calls '" << callee
                             << "', which the extern registry does not know; "
                                "the C ABI needs its schema";
  // extern_out of a kernel name is the out= form.
  if (out && variant == ExternVariant::Functional)
    variant = ExternVariant::Out;
  bool implemented = variant == ExternVariant::Functional ? kernel->functional
                     : variant == ExternVariant::Out      ? kernel->out
                                                          : kernel->inPlace;
  if (!implemented)
    return op->emitOpError()
           << "needs the "
           << (variant == ExternVariant::Out ? "out=" : "in-place")
           << " variant of '" << kernel->schema.qualifiedName()
           << "', which the library does not implement; run "
              "--wrapper-synthesize-extern-variants first";

  SmallVector<Value> inputs;
  if (out && variant == ExternVariant::InPlace)
    inputs.push_back(out.getOutputs().front());
  llvm::append_range(inputs, out ? out.getInputs() : alloc.getInputs());
  FailureOr<SmallVector<ExternArgumentBinding>> bindings =
      bindExternCall(op, callee, *kernel, ValueRange(inputs).getTypes(), args);
  if (failed(bindings))
    return failure();

  OpBuilder b(op);
  Location loc = op->getLoc();
  CallLowering call(b, loc);
  SmallVector<Value> operands;
  for (auto [arg, binding] : llvm::zip(kernel->schema.arguments, *bindings)) {
    Value operand;
    Attribute attr;
    if (binding.kind == ExternArgumentBinding::Operand)
      operand = inputs[binding.operand];
    else if (binding.kind == ExternArgumentBinding::Attribute)
      attr = binding.attr;
    else if (arg.defaultValue) {
      attr = parseDefault(b, arg);
      if (!attr)
        return op->emitOpError()
               << "cannot read the default '" << *arg.defaultValue
               << "' of argument '" << arg.name << "' of '" << callee << "'";
    } else {
      attr = b.getUnitAttr(); // optional without a default: None
    }
    const SchemaType &type = arg.type;
    bool none = !operand && isa<UnitAttr>(attr);
    if (type.base == SchemaBaseType::Tensor && !type.list) {
      operands.push_back(none ? call.nullPointer()
                              : Value(TensorDescriptorOp::create(
                                    b, loc, call.ptrType(), operand)));
      continue;
    }
    if (type.list) {
      if (type.base != SchemaBaseType::Int)
        return op->emitOpError() << "argument '" << arg.name << "' of type "
                                 << type.str() << " has no C ABI mapping";
      if (none) {
        operands.push_back(call.nullPointer());
        operands.push_back(call.i64(0));
      } else {
        llvm::append_range(operands, call.intList(attr));
      }
      continue;
    }
    if (none) {
      if (!type.optional)
        return op->emitOpError() << "argument '" << arg.name << "' of '"
                                 << callee << "' is not optional";
      operands.push_back(call.nullPointer());
      continue;
    }
    Value value = call.scalar(type.base, operand, attr);
    if (!value)
      return op->emitOpError() << "argument '" << arg.name << "' of type "
                               << type.str() << " has no C ABI mapping";
    operands.push_back(type.optional ? call.onStack(value) : value);
  }

  // Outputs: descriptors of the out= buffers, or empty descriptors that a
  // functional shim fills (one per return; a list: an array and a count).
  SmallVector<Value> resultDescriptors;
  SmallVector<SmallVector<Type>> returnTypes;
  if (out && variant == ExternVariant::Out) {
    for (Value buffer : out.getOutputs())
      operands.push_back(
          TensorDescriptorOp::create(b, loc, call.ptrType(), buffer));
  } else if (alloc) {
    SmallVector<Type> results(alloc.getResultTypes());
    if (auto tuple = dyn_cast<wrapper::TupleType>(results.front());
        tuple && results.size() == 1)
      results.assign(tuple.getElements().begin(), tuple.getElements().end());
    for (Type type : results) {
      SmallVector<Type> types;
      if (auto list = dyn_cast<ListType>(type))
        llvm::append_range(types, list.getElements());
      else
        types.push_back(type);
      SmallVector<Attribute> typeAttrs;
      for (Type t : types)
        typeAttrs.push_back(TypeAttr::get(t));
      Value descriptors = ResultDescriptorsOp::create(
          b, loc, call.ptrType(), b.getArrayAttr(typeAttrs));
      operands.push_back(descriptors);
      if (isa<ListType>(type))
        operands.push_back(call.i64(types.size()));
      resultDescriptors.push_back(descriptors);
      returnTypes.push_back(types);
    }
  }

  std::string name = getShimName(*kernel, variant);
  FailureOr<func::FuncOp> shim = declare(
      op, name,
      b.getFunctionType(ValueRange(operands).getTypes(), {b.getI32Type()}));
  if (failed(shim))
    return failure();
  Value status = func::CallOp::create(b, loc, *shim, operands).getResult(0);
  CheckStatusOp::create(b, loc, status, b.getStringAttr(callee));

  if (alloc) {
    SmallVector<ReturnBuffers> buffers;
    for (auto [descriptors, types] :
         llvm::zip(resultDescriptors, returnTypes)) {
      ReturnBuffers element;
      for (auto [index, type] : llvm::enumerate(types))
        element.push_back(DescriptorBufferOp::create(
            b, loc, type, descriptors, b.getI64IntegerAttr(index)));
      buffers.push_back(element);
    }
    Type first = alloc.getResultTypes().front();
    if (alloc.getNumResults() == 1 &&
        isa<wrapper::TupleType, wrapper::ListType>(first)) {
      // One container: a tuple of the returns, or a list return.
      SmallVector<ReturnBuffers> elements;
      SmallVector<bool> lists;
      if (auto tuple = dyn_cast<wrapper::TupleType>(first)) {
        elements = buffers;
        for (Type type : tuple.getElements())
          lists.push_back(isa<ListType>(type));
      } else {
        for (Value buffer : buffers.front())
          elements.push_back({buffer});
        lists.assign(elements.size(), false);
      }
      if (failed(replaceContainer(alloc.getResult(0), elements, lists, dead)))
        return failure();
    } else {
      for (auto [result, element] : llvm::zip(alloc.getResults(), buffers)) {
        if (isa<ListType>(result.getType())) {
          SmallVector<ReturnBuffers> elements;
          for (Value buffer : element)
            elements.push_back({buffer});
          SmallVector<bool> lists(elements.size(), false);
          if (failed(replaceContainer(result, elements, lists, dead)))
            return failure();
          continue;
        }
        result.replaceAllUsesWith(element.front());
      }
    }
  }
  dead.push_back(op);
  return success();
}

/// A proxy call: wrapper_proxy_call(key, name, #inputs, inputs, #results,
/// results) with the input descriptors in a stack array and one empty
/// descriptor per result; each result (or tuple element) becomes the buffer
/// its descriptor was filled with.
LogicalResult
WrapperLowerExternABIPass::lowerProxy(ExternAllocOp op,
                                      SmallVectorImpl<Operation *> &dead) {
  DictionaryAttr args = op.getArgsAttr();
  auto key = args ? args.getAs<IntegerAttr>("key") : IntegerAttr();
  if (!key)
    return op.emitOpError() << "calls the proxy '" << op.getCallee()
                            << "' without an integer 'key' argument";
  auto description = args.getAs<StringAttr>("name");
  std::string name = description ? description.str() : op.getCallee().str();

  OpBuilder b(op);
  Location loc = op.getLoc();
  CallLowering call(b, loc);
  // Results: the elements of one tuple, or the op's buffers.
  SmallVector<Type> resultTypes(op.getResultTypes());
  bool tuple =
      resultTypes.size() == 1 && isa<wrapper::TupleType>(resultTypes.front());
  if (tuple)
    resultTypes.assign(
        cast<wrapper::TupleType>(resultTypes.front()).getElements().begin(),
        cast<wrapper::TupleType>(resultTypes.front()).getElements().end());
  for (Type type : resultTypes)
    if (!isa<MemRefType>(type))
      return op.emitOpError() << "proxy results must be buffers, got " << type;

  // Inputs: descriptors, their addresses in a stack array.
  ValueRange inputs = op.getInputs();
  for (Value input : inputs)
    if (!isa<MemRefType>(input.getType()))
      return op.emitOpError()
             << "proxy inputs must be buffers (other arguments are bound "
                "by the handler), got "
             << input.getType();
  Value array = call.descriptorArray(inputs);
  SmallVector<Attribute> typeAttrs;
  for (Type t : resultTypes)
    typeAttrs.push_back(TypeAttr::get(t));
  Value descriptors = ResultDescriptorsOp::create(b, loc, call.ptrType(),
                                                  b.getArrayAttr(typeAttrs));
  Value nameString = cString(b, loc, "__wrapper_proxy_name_", proxyNames, name);
  SmallVector<Value> operands = {
      call.i64(key.getInt()),
      nameString,
      arith::ConstantIntOp::create(b, loc, inputs.size(), 32),
      array,
      arith::ConstantIntOp::create(b, loc, resultTypes.size(), 32),
      descriptors};
  if (failed(callAndCheck(op, b, loc, "wrapper_proxy_call", operands, name)))
    return failure();

  SmallVector<ReturnBuffers> buffers;
  for (auto [index, type] : llvm::enumerate(resultTypes))
    buffers.push_back({DescriptorBufferOp::create(b, loc, type, descriptors,
                                                  b.getI64IntegerAttr(index))});
  if (tuple) {
    SmallVector<bool> lists(buffers.size(), false);
    if (failed(replaceContainer(op.getResult(0), buffers, lists, dead)))
      return failure();
  } else {
    for (auto [result, element] : llvm::zip(op.getResults(), buffers))
      result.replaceAllUsesWith(element.front());
  }
  dead.push_back(op);
  return success();
}

/// A collective: wrapper_collective_start(collective, group, reduce_op,
/// group_size, device, #inputs, inputs, #outputs, outputs, &work) where the
/// start was, wrapper_collective_wait(work) where its wait is.
LogicalResult WrapperLowerExternABIPass::lowerCollective(CollectiveStartOp op) {
  CollectiveWaitOp wait = op.getWait();
  if (!wait)
    return op.emitOpError() << "has no single wait to lower";
  OpBuilder b(op);
  Location loc = op.getLoc();
  CallLowering call(b, loc);
  Type i64 = b.getI64Type();
  auto constant32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  };
  std::optional<int32_t> reduce =
      op.getReduceOp() ? getReduceOpCode(*op.getReduceOp()) : std::nullopt;
  DeviceAttr device =
      getBufferDevice(cast<MemRefType>(op.getOutputs()[0].getType()));
  Value groupString =
      cString(b, loc, "__wrapper_group_name_", groupNames, op.getGroup());
  Value work =
      LLVM::AllocaOp::create(b, loc, call.ptrType(), i64, call.i64(1), 8);
  SmallVector<Value> operands = {
      constant32(
          static_cast<int32_t>(*symbolizeCollectiveKind(op.getCollective()))),
      groupString,
      constant32(reduce.value_or(-1)),
      call.i64(op.getGroupSize().value_or(0)),
      constant32(device.isCUDA() ? device.getOrdinal() : -1),
      constant32(op.getInputs().size()),
      call.descriptorArray(op.getInputs()),
      constant32(op.getOutputs().size()),
      call.descriptorArray(op.getOutputs()),
      work};
  std::string what = ("_c10d_functional::" + op.getCollective()).str();
  if (failed(
          callAndCheck(op, b, loc, "wrapper_collective_start", operands, what)))
    return failure();
  Value handle = LLVM::LoadOp::create(b, loc, i64, work);

  b.setInsertionPoint(wait);
  if (failed(callAndCheck(wait, b, wait.getLoc(), "wrapper_collective_wait",
                          handle, what)))
    return failure();
  wait.erase();
  op.erase();
  return success();
}
