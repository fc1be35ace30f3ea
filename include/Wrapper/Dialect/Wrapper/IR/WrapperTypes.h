//===- WrapperTypes.h - wrapper types and attributes ------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_WRAPPER_IR_WRAPPERTYPES_H
#define WRAPPER_DIALECT_WRAPPER_IR_WRAPPERTYPES_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Types.h"

#include "Wrapper/Dialect/Wrapper/IR/WrapperEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Wrapper/Dialect/Wrapper/IR/WrapperAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Wrapper/Dialect/Wrapper/IR/WrapperTypes.h.inc"

namespace mlir {
namespace wrapper {

/// The device a buffer lives on: the memref's memory space when it is a
/// `#wrapper.device`, the CPU when there is none, and null when the memory
/// space is something else (which the verifiers reject).
DeviceAttr getBufferDevice(MemRefType type);

/// Checks that `type` is a buffer type the wrapper dialect understands: its
/// memory space is absent or a `#wrapper.device`. Emits through `emitError`
/// naming `what` otherwise.
LogicalResult verifyBufferType(function_ref<InFlightDiagnostic()> emitError,
                               MemRefType type, StringRef what);

/// The number of elements of storage that a buffer of `type` reaches
/// (1 + offset + sum((size - 1) * stride), 0 when a size is 0), or nullopt
/// when a size, stride or the offset is dynamic or the layout is not strided.
/// Sets `overflow` when the count does not fit in 63 bits.
std::optional<int64_t> getStorageExtent(MemRefType type,
                                        bool *overflow = nullptr);

/// The storage size of `type` in bytes, when static (see getStorageExtent).
std::optional<int64_t> getStorageBytes(MemRefType type);

/// The element size in bytes of a buffer element type, rounding i1 up to a
/// byte; nullopt for element types without a fixed size.
std::optional<int64_t> getElementBytes(Type elementType);

/// The runtime's dtype code (`wrapper_dtype` of WrapperRuntime.h) of a
/// buffer element type, or nullopt when the runtime has none for it.
std::optional<int32_t> getRuntimeDType(Type elementType);

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_DIALECT_WRAPPER_IR_WRAPPERTYPES_H
