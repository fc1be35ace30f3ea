//===- WrapperOps.cpp - wrapper dialect operations ------------------------===//
//
// Part of the Wrapper project.
//
// Verifiers, effects and custom syntax of the wrapper ops. The verifiers are
// local: they check one op against its operands, its symbols and the ops of
// its own block (double free, use after free, reuse of live storage). The
// whole-program lifetime check is a separate pass.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::wrapper;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

LogicalResult mlir::wrapper::detail::verifyBufferTypes(Operation *op) {
  auto check = [&](Type type, const Twine &what) -> LogicalResult {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref)
      return success();
    return verifyBufferType([&] { return op->emitOpError(); }, memref,
                            what.str());
  };
  for (auto [index, operand] : llvm::enumerate(op->getOperands()))
    if (failed(check(operand.getType(), "operand #" + Twine(index))))
      return failure();
  for (auto [index, result] : llvm::enumerate(op->getResults()))
    if (failed(check(result.getType(), "result #" + Twine(index))))
      return failure();
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        if (failed(
                check(arg.getType(), "argument #" + Twine(arg.getArgNumber()))))
          return failure();
  return success();
}

Value mlir::wrapper::getStorageRoot(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

bool mlir::wrapper::isAllocatedHere(Value value) {
  Operation *def = value.getDefiningOp();
  return def && isa<AllocOp, ReuseOp, ExternAllocOp, MultiOutputOp,
                    DescriptorBufferOp>(def);
}

/// Explains why `value` cannot be freed or reused by `op`, or succeeds.
static LogicalResult verifyOwnedHere(Operation *op, Value value,
                                     StringRef action) {
  if (isAllocatedHere(value))
    return success();
  if (auto arg = dyn_cast<BlockArgument>(value))
    return op->emitOpError()
           << "cannot " << action << " argument #" << arg.getArgNumber()
           << ", which the caller owns; only buffers allocated in this graph "
              "can be "
           << (action == "free" ? "freed" : "reused");
  Operation *def = value.getDefiningOp();
  if (isa<GetConstantOp>(def))
    return op->emitOpError() << "cannot " << action
                             << " a constant; constants live as long as the "
                                "compiled model";
  if (isa<ViewLikeOpInterface>(def))
    return op->emitOpError()
           << "cannot " << action << " a view created by '" << def->getName()
           << "'; " << action << " the buffer it views instead";
  return op->emitOpError() << "cannot " << action
                           << " a value that is not a buffer allocated in "
                              "this graph (defined by '"
                           << def->getName() << "')";
}

/// The ancestor of `user` in `block`, or null when `user` is not nested in it.
static Operation *ancestorIn(Block *block, Operation *user) {
  return block->findAncestorOpInBlock(*user);
}

/// Reports the first use of `value` after `op` in `op`'s block, other than
/// those `allowed` accepts.
static LogicalResult
verifyNoUseAfter(Operation *op, Value value, StringRef message,
                 function_ref<bool(Operation *)> allowed = nullptr) {
  Operation *first = nullptr;
  for (Operation *user : value.getUsers()) {
    if (user == op)
      continue;
    Operation *ancestor = ancestorIn(op->getBlock(), user);
    if (!ancestor || !op->isBeforeInBlock(ancestor))
      continue;
    if (allowed && allowed(user))
      continue;
    if (!first || ancestor->isBeforeInBlock(ancestorIn(op->getBlock(), first)))
      first = user;
  }
  if (!first)
    return success();
  InFlightDiagnostic diag = op->emitOpError() << message;
  diag.attachNote(first->getLoc()) << "later use is here";
  return diag;
}

/// Checks that a freshly allocated buffer type has a layout that an
/// allocation can produce: identity, or static strides with offset 0.
static LogicalResult verifyAllocatableLayout(Operation *op, MemRefType type) {
  if (type.getLayout().isIdentity())
    return success();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || offset != 0 ||
      llvm::any_of(strides,
                   [](int64_t s) { return ShapedType::isDynamic(s) || s < 0; }))
    return op->emitOpError()
           << "result layout must be the identity or static non-negative "
              "strides with offset 0, got "
           << type;
  bool overflow = false;
  (void)getStorageExtent(type, &overflow);
  if (overflow)
    return op->emitOpError()
           << "storage of " << type << " overflows a 64-bit element count";
  return success();
}

/// Checks the static storage size of `type` for overflow.
static LogicalResult verifyStorageSize(Operation *op, MemRefType type) {
  bool overflow = false;
  std::optional<int64_t> extent = getStorageExtent(type, &overflow);
  if (overflow || (extent && !getStorageBytes(type) &&
                   getElementBytes(type.getElementType())))
    return op->emitOpError()
           << "storage of " << type << " overflows a 64-bit byte count";
  return success();
}

std::optional<unsigned> mlir::wrapper::getViewedGraphArgument(Value value) {
  auto arg = dyn_cast<BlockArgument>(getStorageRoot(value));
  if (!arg || !isa<GraphOp>(arg.getOwner()->getParentOp()))
    return std::nullopt;
  return arg.getArgNumber();
}

//===----------------------------------------------------------------------===//
// GraphOp
//===----------------------------------------------------------------------===//

ParseResult GraphOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType =
      [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
         function_interface_impl::VariadicFlag,
         std::string &) { return builder.getFunctionType(argTypes, results); };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void GraphOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

void GraphOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                    FunctionType type) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  state.addRegion();
}

bool GraphOp::isArgumentMutated(unsigned index) {
  return static_cast<bool>(
      getArgAttr(index, WrapperDialect::getMutatedAttrName()));
}

std::optional<unsigned> GraphOp::getResultAliasOf(unsigned index) {
  auto attr = dyn_cast_or_null<IntegerAttr>(
      getResultAttr(index, WrapperDialect::getAliasOfAttrName()));
  if (!attr)
    return std::nullopt;
  return attr.getInt();
}

static bool isScalarOrBuffer(Type type) {
  return isa<MemRefType, IndexType, IntegerType, FloatType>(type);
}

LogicalResult GraphOp::verifyRegions() {
  for (auto [index, type] : llvm::enumerate(getArgumentTypes()))
    if (!isScalarOrBuffer(type))
      return emitOpError() << "argument #" << index
                           << " must be a buffer (memref) or a scalar (index, "
                              "integer, float), got "
                           << type;
  for (auto [index, type] : llvm::enumerate(getResultTypes()))
    if (!isScalarOrBuffer(type))
      return emitOpError() << "result #" << index
                           << " must be a buffer (memref) or a scalar (index, "
                              "integer, float), got "
                           << type;

  Block &body = getBody().front();
  auto returnOp = dyn_cast<ReturnOp>(body.getTerminator());
  if (!returnOp)
    return emitOpError() << "body must end in 'wrapper.return'";

  unsigned numArgs = getNumArguments();
  for (auto [index, value] : llvm::enumerate(returnOp.getOperands())) {
    std::optional<unsigned> viewed = getViewedGraphArgument(value);
    std::optional<unsigned> declared = getResultAliasOf(index);
    if (!declared) {
      if (viewed && isa<MemRefType>(value.getType()))
        return emitOpError()
               << "result #" << index << " is argument #" << *viewed
               << " or a view of it, but the signature does not declare '"
               << WrapperDialect::getAliasOfAttrName() << "'";
      continue;
    }
    if (*declared >= numArgs)
      return emitOpError() << "result #" << index << " '"
                           << WrapperDialect::getAliasOfAttrName() << " = "
                           << *declared << "' is out of range for a graph with "
                           << numArgs << " arguments";
    auto argType = dyn_cast<MemRefType>(getArgumentTypes()[*declared]);
    auto resultType = dyn_cast<MemRefType>(getResultTypes()[index]);
    if (!argType || !resultType)
      return emitOpError() << "result #" << index << " aliases argument #"
                           << *declared << ", but only buffers can alias";
    if (argType.getElementType() != resultType.getElementType() ||
        getBufferDevice(argType) != getBufferDevice(resultType))
      return emitOpError() << "result #" << index << " aliases argument #"
                           << *declared
                           << ", but their element types or devices differ";
    if (viewed != declared)
      return emitOpError() << "result #" << index
                           << " is declared to alias argument #" << *declared
                           << ", but the returned value is not a view of it";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ReturnOp
//===----------------------------------------------------------------------===//

LogicalResult ReturnOp::verify() {
  auto graph = (*this)->getParentOfType<GraphOp>();
  ArrayRef<Type> results = graph.getResultTypes();
  if (getNumOperands() != results.size())
    return emitOpError() << "returns " << getNumOperands()
                         << " values, but the enclosing graph returns "
                         << results.size();
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip_equal(getOperandTypes(), results)))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emitOpError() << "operand #" << index << " has type "
                           << std::get<0>(pair) << ", but the graph's result #"
                           << index << " has type " << std::get<1>(pair);
  return success();
}

//===----------------------------------------------------------------------===//
// AllocOp
//===----------------------------------------------------------------------===//

static void setBufferName(OpAsmSetValueNameFn setNameFn, Value result,
                          StringAttr name) {
  setNameFn(result, name && !name.getValue().empty() ? name.getValue()
                                                     : StringRef("buf"));
}

void AllocOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setBufferName(setNameFn, getResult(), getNameAttr());
}

LogicalResult AllocOp::verify() {
  MemRefType type = getType();
  if (getDynamicSizes().size() != type.getNumDynamicDims())
    return emitOpError() << "expects " << type.getNumDynamicDims()
                         << " dynamic size operands (one per dynamic "
                            "dimension of "
                         << type << "), got " << getDynamicSizes().size();
  if (failed(verifyAllocatableLayout(*this, type)) ||
      failed(verifyStorageSize(*this, type)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// FreeOp and FreeIfNotReusedOp
//===----------------------------------------------------------------------===//

/// Rules shared by both frees: the buffer is owned here, freed once, and not
/// used afterwards (a free_if_not_reused may be followed by one reuse).
static LogicalResult verifyFreeLike(Operation *op, Value buffer,
                                    bool allowLaterReuse) {
  if (failed(verifyOwnedHere(op, buffer, "free")))
    return failure();
  for (Operation *user : buffer.getUsers()) {
    if (user == op || !isa<FreeOp, FreeIfNotReusedOp>(user))
      continue;
    Operation *ancestor = ancestorIn(op->getBlock(), user);
    if (ancestor && ancestor->isBeforeInBlock(op)) {
      InFlightDiagnostic diag = op->emitOpError()
                                << "frees a buffer that is already freed";
      diag.attachNote(user->getLoc()) << "previous free is here";
      return diag;
    }
  }
  // Later frees and reuses report themselves (as a double free or a reuse of
  // freed storage), so they are not reported here as uses.
  auto reportsItself = [](Operation *user) {
    return isa<FreeOp, FreeIfNotReusedOp>(user);
  };
  if (!allowLaterReuse)
    return verifyNoUseAfter(op, buffer, "frees a buffer that is used later",
                            [&](Operation *user) {
                              return reportsItself(user) || isa<ReuseOp>(user);
                            });
  unsigned reuses = 0;
  return verifyNoUseAfter(
      op, buffer,
      "frees a buffer that is used later; after 'wrapper.free_if_not_reused' "
      "only one 'wrapper.reuse' may take it",
      [&](Operation *user) {
        return reportsItself(user) || (isa<ReuseOp>(user) && reuses++ == 0);
      });
}

LogicalResult FreeOp::verify() {
  return verifyFreeLike(*this, getBuffer(), /*allowLaterReuse=*/false);
}

LogicalResult FreeIfNotReusedOp::verify() {
  return verifyFreeLike(*this, getBuffer(), /*allowLaterReuse=*/true);
}

//===----------------------------------------------------------------------===//
// ViewOp
//===----------------------------------------------------------------------===//

void ViewOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setBufferName(setNameFn, getResult(), getNameAttr());
}

LogicalResult ViewOp::verify() {
  auto poolType = cast<MemRefType>(getPool().getType());
  MemRefType type = getType();
  if (poolType.getRank() != 1 || !poolType.getElementType().isInteger(8) ||
      !poolType.getLayout().isIdentity())
    return emitOpError() << "pool must be a one-dimensional i8 buffer with "
                            "identity layout, got "
                         << poolType;
  if (getBufferDevice(poolType) != getBufferDevice(type))
    return emitOpError() << "the view is on " << getBufferDevice(type).str()
                         << ", but the pool on "
                         << getBufferDevice(poolType).str();
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return emitOpError() << "result must have a static shape and identity "
                            "layout, got "
                         << type;
  std::optional<int64_t> elementBytes = getElementBytes(type.getElementType());
  std::optional<int64_t> bytes = getStorageBytes(type);
  if (!elementBytes || !bytes)
    return emitOpError() << "cannot size a view of type " << type;
  int64_t offset = static_cast<int64_t>(getByteOffset());
  if (offset % *elementBytes != 0)
    return emitOpError() << "byte offset " << offset
                         << " is not a multiple of the element size "
                         << *elementBytes;
  if (!poolType.isDynamicDim(0) && (offset > poolType.getDimSize(0) ||
                                    *bytes > poolType.getDimSize(0) - offset))
    return emitOpError() << "the view needs bytes [" << offset << ", "
                         << offset + *bytes << "), but the pool holds "
                         << poolType.getDimSize(0) << " bytes";
  return success();
}

//===----------------------------------------------------------------------===//
// ReuseOp
//===----------------------------------------------------------------------===//

void ReuseOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setBufferName(setNameFn, getResult(), getNameAttr());
}

LogicalResult ReuseOp::verify() {
  Value old = getOld();
  if (failed(verifyOwnedHere(*this, old, "reuse")))
    return failure();
  auto oldType = cast<MemRefType>(old.getType());
  MemRefType newType = getType();
  if (getBufferDevice(oldType) != getBufferDevice(newType))
    return emitOpError() << "cannot reuse storage across devices: the old "
                            "buffer is on "
                         << getBufferDevice(oldType).str()
                         << ", the new buffer on "
                         << getBufferDevice(newType).str();
  if (oldType.getElementType() != newType.getElementType())
    return emitOpError() << "cannot reuse storage across element types: the "
                            "old buffer holds "
                         << oldType.getElementType() << ", the new buffer "
                         << newType.getElementType();
  if (failed(verifyAllocatableLayout(*this, newType)))
    return failure();
  if (!oldType.hasStaticShape() || !newType.hasStaticShape()) {
    if (oldType != newType)
      return emitOpError() << "a buffer with dynamic sizes can only take the "
                              "storage of a buffer of identical type, got "
                           << oldType << " and " << newType;
  } else {
    std::optional<int64_t> oldBytes = getStorageBytes(oldType);
    std::optional<int64_t> newBytes = getStorageBytes(newType);
    if (oldBytes && newBytes && *newBytes > *oldBytes)
      return emitOpError() << "the new buffer needs " << *newBytes
                           << " bytes, but the reused storage holds only "
                           << *oldBytes << " bytes";
  }
  for (Operation *user : old.getUsers()) {
    Operation *ancestor = ancestorIn(getOperation()->getBlock(), user);
    if (isa<FreeOp>(user) && ancestor && ancestor->isBeforeInBlock(*this)) {
      InFlightDiagnostic diag = emitOpError()
                                << "cannot reuse the storage of a freed buffer";
      diag.attachNote(user->getLoc()) << "it is freed here";
      return diag;
    }
  }
  return verifyNoUseAfter(*this, old,
                          "takes the storage of a buffer that is used later");
}

//===----------------------------------------------------------------------===//
// ReinterpretOp
//===----------------------------------------------------------------------===//

void ReinterpretOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "view");
}

LogicalResult ReinterpretOp::verify() {
  MemRefType sourceType = getSource().getType();
  MemRefType resultType = getType();
  if (sourceType.getElementType() != resultType.getElementType())
    return emitOpError() << "element type " << resultType.getElementType()
                         << " of the view does not match the source's "
                         << sourceType.getElementType();
  if (sourceType.getMemorySpace() != resultType.getMemorySpace())
    return emitOpError() << "memory space of the view does not match the "
                            "source's";

  ArrayRef<int64_t> sizes = getStaticSizes();
  ArrayRef<int64_t> strides = getStaticStrides();
  int64_t offset = getStaticOffsets().front();
  for (auto [dim, size] : llvm::enumerate(sizes)) {
    if (!ShapedType::isDynamic(size) && size < 0)
      return emitOpError() << "size #" << dim << " must be non-negative, got "
                           << size;
    if (resultType.getDimSize(dim) != size)
      return emitOpError()
             << "size #" << dim << " is "
             << (ShapedType::isDynamic(size) ? std::string("dynamic")
                                             : std::to_string(size))
             << ", but dimension " << dim << " of the result type is "
             << (resultType.isDynamicDim(dim)
                     ? std::string("dynamic")
                     : std::to_string(resultType.getDimSize(dim)));
  }
  if (!ShapedType::isDynamic(offset) && offset < 0)
    return emitOpError() << "offset must be non-negative, got " << offset;

  SmallVector<int64_t> typeStrides;
  int64_t typeOffset;
  if (failed(resultType.getStridesAndOffset(typeStrides, typeOffset)))
    return emitOpError() << "result type " << resultType
                         << " must have a strided layout";
  if (typeOffset != offset)
    return emitOpError() << "offset does not match the offset of the result "
                            "type "
                         << resultType;
  for (auto [dim, pair] :
       llvm::enumerate(llvm::zip_equal(strides, typeStrides))) {
    auto [stride, typeStride] = pair;
    // A size-1 dimension's stride is never used, so an identity layout may
    // state another one.
    if (stride != typeStride && resultType.getDimSize(dim) != 1)
      return emitOpError() << "stride #" << dim
                           << " does not match the stride of the result "
                              "type "
                           << resultType;
  }

  // Bounds: with static storage and static entries, the view must stay in.
  bool allStatic = !ShapedType::isDynamic(offset) &&
                   llvm::none_of(sizes, ShapedType::isDynamic) &&
                   llvm::none_of(strides, ShapedType::isDynamic);
  // The storage the offset counts from: through other reinterprets, up to
  // an allocation, an argument or a pool view (which starts a storage of
  // its own type inside the pool).
  Value base = getSource();
  while (auto inner = base.getDefiningOp<ReinterpretOp>())
    base = inner.getSource();
  auto rootType = dyn_cast<MemRefType>(base.getType());
  std::optional<int64_t> storage =
      rootType ? getStorageExtent(rootType) : std::nullopt;
  if (!allStatic || !storage || llvm::is_contained(sizes, 0))
    return success();
  int64_t reach = offset;
  bool overflow = false;
  for (auto [size, stride] : llvm::zip_equal(sizes, strides)) {
    int64_t term;
    overflow |= llvm::MulOverflow(size - 1, stride, term);
    overflow |= llvm::AddOverflow(reach, term, reach);
  }
  if (overflow || reach < 0 || reach >= *storage)
    return emitOpError() << "view reaches element "
                         << (overflow ? std::string("beyond 2^63")
                                      : std::to_string(reach))
                         << ", but the storage it views holds " << *storage
                         << " elements";
  return success();
}

OpFoldResult ReinterpretOp::fold(FoldAdaptor) {
  // Offsets are relative to the storage, so a view of a view is a view of
  // the underlying buffer.
  if (auto inner = getSource().getDefiningOp<ReinterpretOp>()) {
    getSourceMutable().assign(inner.getSource());
    return getResult();
  }
  // A view that restates its source's type and layout is the source.
  MemRefType sourceType = getSource().getType();
  if (sourceType != getType() || !getOffsets().empty() || !getSizes().empty() ||
      !getStrides().empty())
    return {};
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(sourceType.getStridesAndOffset(strides, offset)))
    return {};
  if (getStaticOffsets().front() != offset ||
      getStaticSizes() != sourceType.getShape() ||
      getStaticStrides() != ArrayRef<int64_t>(strides))
    return {};
  return getSource();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

FunctionOpInterface KernelOp::lookupImpl(SymbolTableCollection &symbolTable) {
  Operation *impl = symbolTable.lookupNearestSymbolFrom(*this, getImplAttr());
  if (!impl || !isa<func::FuncOp, gpu::GPUFuncOp>(impl))
    return {};
  return cast<FunctionOpInterface>(impl);
}

bool KernelOp::isGPUImpl(FunctionOpInterface impl) {
  return isa<gpu::GPUFuncOp>(impl.getOperation());
}

DeviceAttr KernelOp::getRunsOn() {
  if (DeviceAttr device = getDeviceAttr())
    return device;
  return DeviceAttr::get(getContext(), DeviceKind::CPU);
}

LogicalResult KernelOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *impl = symbolTable.lookupNearestSymbolFrom(*this, getImplAttr());
  if (!impl)
    return emitOpError() << "implementation " << getImplAttr()
                         << " does not name a symbol";
  if (auto gpuFunc = dyn_cast<gpu::GPUFuncOp>(impl)) {
    if (!gpuFunc.isKernel())
      return emitOpError() << "implementation " << getImplAttr()
                           << " is a gpu.func without the 'kernel' attribute";
    if (getDeviceAttr())
      return emitOpError() << "implementation " << getImplAttr()
                           << " is a gpu.func, which runs on a CUDA device; "
                              "the 'on' clause is for func.func kernels";
    return success();
  }
  if (!isa<func::FuncOp>(impl))
    return emitOpError() << "implementation " << getImplAttr()
                         << " must be a 'func.func' or a 'gpu.func', got '"
                         << impl->getName() << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// CallOp
//===----------------------------------------------------------------------===//

/// Whether a buffer of type `arg` may be passed for a parameter of type
/// `param`: memory spaces aside, the types must be cast-compatible.
static bool isCompatibleBuffer(MemRefType arg, MemRefType param) {
  auto strip = [](MemRefType type) {
    return MemRefType::get(type.getShape(), type.getElementType(),
                           type.getLayout());
  };
  return memref::CastOp::areCastCompatible(TypeRange{strip(arg)},
                                           TypeRange{strip(param)});
}

LogicalResult CallOp::verify() {
  if (!getGrid().empty() && getGrid().size() != 3)
    return emitOpError() << "launch grid must have 3 dimensions, got "
                         << getGrid().size();
  if (!getBlock().empty() && getBlock().size() != 3)
    return emitOpError() << "block size must have 3 dimensions, got "
                         << getBlock().size();
  return success();
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto kernel =
      symbolTable.lookupNearestSymbolFrom<KernelOp>(*this, getKernelAttr());
  if (!kernel)
    return emitOpError() << getKernelAttr()
                         << " does not name a wrapper.kernel";
  FunctionOpInterface impl = kernel.lookupImpl(symbolTable);
  if (!impl)
    return emitOpError() << "kernel " << getKernelAttr()
                         << " has no valid implementation";

  bool gpu = KernelOp::isGPUImpl(impl);
  // A func.func kernel on a device launches its own kernels.
  DeviceAttr runsOn = kernel.getRunsOn();
  bool onCUDA = gpu || runsOn.isCUDA();
  bool launched = !getGrid().empty() || !getBlock().empty();
  if (gpu && (getGrid().empty() || getBlock().empty()))
    return emitOpError() << "GPU kernel " << getKernelAttr()
                         << " needs a launch grid and a block size";
  if (!gpu && launched)
    return emitOpError() << (onCUDA ? "host-launched kernel " : "CPU kernel ")
                         << getKernelAttr()
                         << " takes no launch grid or block size";

  ArrayRef<Type> params = impl.getArgumentTypes();
  if (params.size() != getArgs().size())
    return emitOpError() << "kernel " << getKernelAttr() << " takes "
                         << params.size() << " arguments, but "
                         << getArgs().size() << " were given";
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip_equal(getArgs().getTypes(), params))) {
    auto [argType, paramType] = pair;
    auto paramBuffer = dyn_cast<MemRefType>(paramType);
    auto argBuffer = dyn_cast<MemRefType>(argType);
    if (!paramBuffer || !argBuffer) {
      if (argType != paramType)
        return emitOpError() << "argument #" << index << " has type " << argType
                             << ", but kernel " << getKernelAttr()
                             << " expects " << paramType;
      continue;
    }
    if (!isCompatibleBuffer(argBuffer, paramBuffer))
      return emitOpError() << "argument #" << index << " of type " << argType
                           << " is not compatible with parameter type "
                           << paramType << " of kernel " << getKernelAttr();
    DeviceAttr device = getBufferDevice(argBuffer);
    bool mismatch = gpu ? !device.isCUDA() : device != runsOn;
    if (mismatch)
      return emitOpError() << "argument #" << index << " lives on "
                           << device.str() << ", but kernel " << getKernelAttr()
                           << " runs on "
                           << (gpu ? std::string("a CUDA device")
                                   : runsOn.str());
  }
  return success();
}

void CallOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &operand : getArgsMutable()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    effects.emplace_back(MemoryEffects::Read::get(), &operand,
                         SideEffects::DefaultResource::get());
    effects.emplace_back(MemoryEffects::Write::get(), &operand,
                         SideEffects::DefaultResource::get());
  }
}

//===----------------------------------------------------------------------===//
// ConstantOp and GetConstantOp
//===----------------------------------------------------------------------===//

/// `= <elements>` or `external`.
static ParseResult parseConstantValue(OpAsmParser &parser, TypeAttr type,
                                      ElementsAttr &value) {
  if (succeeded(parser.parseOptionalKeyword("external")))
    return success();
  if (parser.parseEqual())
    return failure();
  auto memref = dyn_cast<MemRefType>(type.getValue());
  if (!memref)
    return parser.emitError(parser.getCurrentLocation(),
                            "constant type must be a memref");
  Type tensorType =
      RankedTensorType::get(memref.getShape(), memref.getElementType());
  Attribute attr;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseAttribute(attr, tensorType))
    return failure();
  value = dyn_cast<ElementsAttr>(attr);
  if (!value)
    return parser.emitError(loc, "constant value must be an elements "
                                 "attribute");
  return success();
}

static void printConstantValue(OpAsmPrinter &p, ConstantOp op, TypeAttr,
                               ElementsAttr value) {
  if (!value) {
    p << "external";
    return;
  }
  p << "= ";
  p.printAttributeWithoutType(value);
}

LogicalResult ConstantOp::verify() {
  MemRefType type = getMemRefType();
  if (!type.getLayout().isIdentity())
    return emitOpError() << "constant type " << type
                         << " must have an identity layout";
  if (failed(verifyBufferType([&] { return emitOpError(); }, type,
                              "constant type")) ||
      failed(verifyStorageSize(*this, type)))
    return failure();
  if (!getValue())
    return success();
  ShapedType valueType = getValue()->getShapedType();
  if (valueType.getShape() != type.getShape() ||
      valueType.getElementType() != type.getElementType())
    return emitOpError() << "value of type " << valueType
                         << " does not match the constant type " << type;
  return success();
}

void GetConstantOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), getConstant());
}

LogicalResult
GetConstantOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto constant =
      symbolTable.lookupNearestSymbolFrom<ConstantOp>(*this, getConstantAttr());
  if (!constant)
    return emitOpError() << getConstantAttr()
                         << " does not name a wrapper.constant";
  if (constant.getMemRefType() != getType())
    return emitOpError() << "result type " << getType()
                         << " does not match the type "
                         << constant.getMemRefType() << " of constant "
                         << getConstantAttr();
  return success();
}

//===----------------------------------------------------------------------===//
// Annotations
//===----------------------------------------------------------------------===//

LogicalResult CommentOp::verify() {
  if (getText().find_first_of("\n\r") != StringRef::npos)
    return emitOpError() << "comment text must be a single line";
  return success();
}

LogicalResult DebugSaveOp::verify() {
  if (!getPath().ends_with(".npy") || getPath().size() <= 4)
    return emitOpError() << "path must name a '.npy' file, got '" << getPath()
                         << "'";
  return success();
}

#define GET_OP_CLASSES
#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.cpp.inc"
