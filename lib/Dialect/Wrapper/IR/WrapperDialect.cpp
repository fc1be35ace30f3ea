//===- WrapperDialect.cpp - The wrapper dialect ---------------------------===//
//
// Part of the Wrapper project.
//
// Dialect registration, the `#wrapper.device` attribute, the container types
// and the verification of the dialect's discardable attributes.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/Wrapper/IR/WrapperDialect.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperTypes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::wrapper;

#include "Wrapper/Dialect/Wrapper/IR/WrapperDialect.cpp.inc"
#include "Wrapper/Dialect/Wrapper/IR/WrapperEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Wrapper/Dialect/Wrapper/IR/WrapperAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Wrapper/Dialect/Wrapper/IR/WrapperTypes.cpp.inc"

void WrapperDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Wrapper/Dialect/Wrapper/IR/WrapperAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "Wrapper/Dialect/Wrapper/IR/WrapperTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// DeviceAttr
//===----------------------------------------------------------------------===//

// #wrapper.device<cpu>, #wrapper.device<cuda>, #wrapper.device<cuda:1>
Attribute DeviceAttr::parse(AsmParser &parser, Type) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword(&keyword))
    return {};
  std::optional<DeviceKind> kind = symbolizeDeviceKind(keyword);
  if (!kind) {
    parser.emitError(loc, "unknown device kind '")
        << keyword << "'; expected 'cpu' or 'cuda'";
    return {};
  }
  int64_t ordinal = 0;
  if (succeeded(parser.parseOptionalColon())) {
    SMLoc ordinalLoc = parser.getCurrentLocation();
    if (parser.parseInteger(ordinal))
      return {};
    if (*kind == DeviceKind::CPU) {
      parser.emitError(ordinalLoc, "the cpu device takes no ordinal");
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<DeviceAttr>(parser.getContext(), *kind, ordinal);
}

void DeviceAttr::print(AsmPrinter &printer) const {
  printer << "<" << str() << ">";
}

std::string DeviceAttr::str() const {
  if (isCPU())
    return "cpu";
  return (stringifyDeviceKind(getKind()) + ":" + Twine(getOrdinal())).str();
}

LogicalResult DeviceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 DeviceKind kind, int64_t ordinal) {
  if (ordinal < 0)
    return emitError() << "device ordinal must be non-negative, got "
                       << ordinal;
  if (kind == DeviceKind::CPU && ordinal != 0)
    return emitError() << "the cpu device takes no ordinal";
  return success();
}

//===----------------------------------------------------------------------===//
// Tuple and list types
//===----------------------------------------------------------------------===//

static LogicalResult
verifyContainerElements(function_ref<InFlightDiagnostic()> emitError,
                        StringRef container, ArrayRef<Type> elements) {
  for (auto [index, element] : llvm::enumerate(elements)) {
    if (isa<wrapper::TupleType, ListType>(element))
      continue;
    auto memref = dyn_cast<MemRefType>(element);
    if (!memref)
      return emitError() << container << " element #" << index
                         << " must be a memref, tuple or list, got " << element;
    if (failed(verifyBufferType(emitError, memref,
                                (container + " element").str())))
      return failure();
  }
  return success();
}

LogicalResult
wrapper::TupleType::verify(function_ref<InFlightDiagnostic()> emitError,
                           ArrayRef<Type> elements) {
  return verifyContainerElements(emitError, "tuple", elements);
}

LogicalResult ListType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<Type> elements) {
  return verifyContainerElements(emitError, "list", elements);
}

//===----------------------------------------------------------------------===//
// Buffer type helpers
//===----------------------------------------------------------------------===//

DeviceAttr mlir::wrapper::getBufferDevice(MemRefType type) {
  Attribute space = type.getMemorySpace();
  if (!space)
    return DeviceAttr::get(type.getContext(), DeviceKind::CPU);
  return dyn_cast<DeviceAttr>(space);
}

LogicalResult
mlir::wrapper::verifyBufferType(function_ref<InFlightDiagnostic()> emitError,
                                MemRefType type, StringRef what) {
  if (!getBufferDevice(type))
    return emitError() << what << " memory space must be a #wrapper.device "
                       << "attribute or absent, got " << type.getMemorySpace();
  return success();
}

std::optional<int64_t> mlir::wrapper::getStorageExtent(MemRefType type,
                                                       bool *overflow) {
  if (overflow)
    *overflow = false;
  if (!type.hasStaticShape())
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return std::nullopt;
  if (ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  if (llvm::is_contained(type.getShape(), 0))
    return 0;
  // 1 + offset + sum((size - 1) * stride), checked for overflow.
  int64_t extent = 1;
  bool overflowed = llvm::AddOverflow(extent, offset, extent);
  for (auto [size, stride] : llvm::zip_equal(type.getShape(), strides)) {
    int64_t term;
    overflowed |= llvm::MulOverflow(size - 1, stride, term);
    overflowed |= llvm::AddOverflow(extent, term, extent);
  }
  if (overflowed) {
    if (overflow)
      *overflow = true;
    return std::nullopt;
  }
  return extent;
}

std::optional<int64_t> mlir::wrapper::getElementBytes(Type elementType) {
  if (elementType.isIntOrFloat())
    return llvm::divideCeil(elementType.getIntOrFloatBitWidth(), 8);
  if (isa<IndexType>(elementType))
    return 8;
  if (auto complex = dyn_cast<ComplexType>(elementType))
    if (std::optional<int64_t> bytes =
            getElementBytes(complex.getElementType()))
      return 2 * *bytes;
  return std::nullopt;
}

std::optional<int32_t> mlir::wrapper::getRuntimeDType(Type type) {
  // The codes of wrapper_dtype (include/Wrapper/Runtime/WrapperRuntime.h).
  if (type.isInteger(1))
    return 0;
  if (type.isSignlessInteger(8))
    return 1;
  if (type.isSignlessInteger(16))
    return 2;
  if (type.isSignlessInteger(32))
    return 3;
  if (type.isSignlessInteger(64))
    return 4;
  if (type.isUnsignedInteger(8))
    return 5;
  if (type.isF16())
    return 6;
  if (type.isF32())
    return 7;
  if (type.isF64())
    return 8;
  if (type.isBF16())
    return 9;
  if (isa<Float8E4M3FNType>(type))
    return 10;
  return std::nullopt;
}

std::optional<int64_t> mlir::wrapper::getStorageBytes(MemRefType type) {
  std::optional<int64_t> extent = getStorageExtent(type);
  std::optional<int64_t> elementBytes = getElementBytes(type.getElementType());
  if (!extent || !elementBytes)
    return std::nullopt;
  int64_t bytes;
  if (llvm::MulOverflow(*extent, *elementBytes, bytes))
    return std::nullopt;
  return bytes;
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

LogicalResult WrapperDialect::verifyOperationAttribute(Operation *op,
                                                       NamedAttribute attr) {
  // The kernels a profiled host program numbers, by index.
  if (attr.getName() == "wrapper.profile_kernels") {
    auto names = dyn_cast<ArrayAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !names || !llvm::all_of(names, [](Attribute a) {
          return isa<FlatSymbolRefAttr>(a);
        }))
      return op->emitOpError()
             << "'wrapper.profile_kernels' must be an array of kernel "
                "symbols on a module";
    return success();
  }
  // The extern kernel a --wrapper-synthesize-extern-variants function is
  // built from.
  if (attr.getName() == "wrapper.synthesized_from") {
    if (!isa<FunctionOpInterface>(op) || !isa<StringAttr>(attr.getValue()))
      return op->emitOpError() << "'wrapper.synthesized_from' must be a "
                                  "kernel name on a function";
    return success();
  }
  // The CPU code is generated for (--wrapper-cpu-target).
  if (attr.getName() == "wrapper.cpu_target") {
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    auto width = dict ? dict.getAs<IntegerAttr>("vector_width") : nullptr;
    if (!isa<ModuleOp>(op) || !dict || !dict.getAs<StringAttr>("cpu") ||
        !dict.getAs<StringAttr>("features") || !width ||
        !llvm::is_contained({4, 8, 16}, width.getInt()))
      return op->emitOpError()
             << "'wrapper.cpu_target' must be a dictionary {cpu = string, "
                "features = string, vector_width = 4, 8 or 16} on a module";
    return success();
  }
  // The blocking of a product under the GEMM template
  // (--wrapper-gemm-select-blocking); its values are checked where used.
  if (attr.getName() == "wrapper.gemm_blocking") {
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    bool ok = dict && dict.size() == 6 &&
              llvm::all_of(dict, [](NamedAttribute field) {
                auto value = dyn_cast<IntegerAttr>(field.getValue());
                return value && value.getInt() > 0 &&
                       llvm::is_contained({"kc", "mc", "mr", "nc", "nr", "vl"},
                                          field.getName().getValue());
              });
    if (!ok)
      return op->emitOpError()
             << "'wrapper.gemm_blocking' must be a dictionary of positive "
                "integers kc, mc, mr, nc, nr, vl";
    return success();
  }
  // The thread-block size of a parallel loop nest on a GPU
  // (--wrapper-cuda-select-block-sizes).
  if (attr.getName() == "wrapper.cuda_block_size") {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || value.getInt() < 1 || value.getInt() > 1024)
      return op->emitOpError() << "'wrapper.cuda_block_size' must be an "
                                  "integer between 1 and 1024";
    return success();
  }
  // The micro-kernel of --wrapper-gemm-template; a runtime function that
  // queues its work on the CUDA runtime's stream
  // (--wrapper-cuda-stream-ordered-calls).
  if (attr.getName() == "wrapper.gemm_micro_kernel" ||
      attr.getName() == "wrapper.cuda_stream_ordered") {
    if (!isa<FunctionOpInterface>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitOpError() << "'" << attr.getName().getValue()
                               << "' must be a unit attribute on a function";
    return success();
  }
  return op->emitOpError() << "unknown wrapper attribute '"
                           << attr.getName().getValue() << "' on an operation";
}

LogicalResult WrapperDialect::verifyRegionArgAttribute(Operation *op,
                                                       unsigned regionIndex,
                                                       unsigned argIndex,
                                                       NamedAttribute attr) {
  if (attr.getName() == getPackedBAttrName()) {
    auto width = dyn_cast<IntegerAttr>(attr.getValue());
    if (!width || !width.getType().isSignlessInteger(64) || width.getInt() <= 0)
      return op->emitOpError()
             << "'" << getPackedBAttrName() << "' must be a positive i64";
    if (!isa<GraphOp>(op))
      return op->emitOpError() << "'" << getPackedBAttrName()
                               << "' is only valid on wrapper.graph arguments";
    auto type = dyn_cast<MemRefType>(
        op->getRegion(regionIndex).getArgument(argIndex).getType());
    if (!type || type.getRank() != 3 || type.getDimSize(2) != width.getInt())
      return op->emitOpError()
             << "argument #" << argIndex << " is marked '"
             << getPackedBAttrName() << " = " << width.getInt()
             << "' but is not a [panels][K][" << width.getInt() << "] buffer";
    return success();
  }
  if (attr.getName() == getReleasableAttrName()) {
    // A function that the host graph became (not the graph itself).
    if (!isa<UnitAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op) ||
        isa<GraphOp>(op))
      return op->emitOpError()
             << "'" << getReleasableAttrName()
             << "' must be a unit attribute on a function's argument";
    if (!isa<MemRefType>(
            op->getRegion(regionIndex).getArgument(argIndex).getType()))
      return op->emitOpError()
             << "argument #" << argIndex << " is marked '"
             << getReleasableAttrName() << "' but is not a buffer";
    return success();
  }
  if (attr.getName() != getMutatedAttrName())
    return op->emitOpError() << "unknown wrapper argument attribute '"
                             << attr.getName().getValue() << "'";
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitOpError()
           << "'" << getMutatedAttrName() << "' must be a unit attribute";
  if (!isa<GraphOp>(op))
    return op->emitOpError() << "'" << getMutatedAttrName()
                             << "' is only valid on wrapper.graph arguments";
  Type type = op->getRegion(regionIndex).getArgument(argIndex).getType();
  if (!isa<MemRefType>(type))
    return op->emitOpError() << "argument #" << argIndex
                             << " is marked mutated but is not a buffer";
  return success();
}

LogicalResult WrapperDialect::verifyRegionResultAttribute(Operation *op,
                                                          unsigned regionIndex,
                                                          unsigned resultIndex,
                                                          NamedAttribute attr) {
  if (attr.getName() != getAliasOfAttrName())
    return op->emitOpError() << "unknown wrapper result attribute '"
                             << attr.getName().getValue() << "'";
  auto index = dyn_cast<IntegerAttr>(attr.getValue());
  if (!index || !index.getType().isSignlessInteger(64))
    return op->emitOpError()
           << "'" << getAliasOfAttrName() << "' must be an i64 argument index";
  if (!isa<GraphOp>(op))
    return op->emitOpError() << "'" << getAliasOfAttrName()
                             << "' is only valid on wrapper.graph results";
  return success();
}
