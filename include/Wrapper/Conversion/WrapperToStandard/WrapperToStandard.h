//===- WrapperToStandard.h - host program lowering patterns -----*- C++ -*-===//
//
// Part of the Wrapper project.
//
// The host lowering (--convert-wrapper-to-standard) as dialect conversion
// patterns, for downstream pipelines that lower the wrapper dialect together
// with their own ops:
//
//   WrapperToStandardTypeConverter converter;
//   HostLoweringState state(module);
//   RewritePatternSet patterns(context);
//   populateWrapperToStandardStructuralPatterns(converter, patterns);
//   populateWrapperToStandardHostPatterns(converter, patterns, state);
//   populateWrapperToStandardDevicePatterns(converter, patterns);
//   populateWrapperDebugToRuntimePatterns(converter, patterns, state);
//   populateWrapperExternABIToStandardPatterns(converter, patterns, state);
//
// The patterns do not fail on the programs that
// checkWrapperToStandardPreconditions accepts: every refusal (device buffers
// in ops without a device lowering, GPU kernels, external constants without
// slots, unprintable element types) is diagnosed there, before any rewrite.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_CONVERSION_WRAPPERTOSTANDARD_WRAPPERTOSTANDARD_H
#define WRAPPER_CONVERSION_WRAPPERTOSTANDARD_WRAPPERTOSTANDARD_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

namespace mlir {
namespace wrapper {

/// Converts the host program's types: memrefs lose their memory space
/// (`#wrapper.device<...>`); every other type is kept. Values whose types
/// still differ after conversion (a buffer passed to a kernel parameter of a
/// more general layout) are reconciled with `memref.cast`.
class WrapperToStandardTypeConverter : public TypeConverter {
public:
  WrapperToStandardTypeConverter();
};

/// What the patterns share: the runtime functions and strings the lowered
/// host program calls and reads, declared in the module on first use (so a
/// program that prints nothing declares no debug function), the kernels'
/// implementations and the constants lowered to pointer slots (both found by
/// checkWrapperToStandardPreconditions).
class HostLoweringState {
public:
  explicit HostLoweringState(ModuleOp module);

  /// The private declaration of the runtime function `name` taking `inputs`
  /// and returning nothing.
  func::FuncOp function(OpBuilder &b, StringRef name, TypeRange inputs);

  /// A pointer to an internal NUL-terminated global copy of `text`.
  Value string(OpBuilder &b, Location loc, StringRef text);

  /// External constants that the lowering turns into pointer slots (filled
  /// by a loader) instead of memref globals.
  DenseSet<StringAttr> slotConstants;

  /// The `func.func` implementing each `wrapper.kernel`, by kernel name.
  DenseMap<StringAttr, func::FuncOp> kernelImplementations;

private:
  ModuleOp module;
  SymbolTable table;
  DenseMap<StringAttr, func::FuncOp> functions;
  unsigned strings = 0;
};

/// A conversion pattern of the host lowering that reads or extends the shared
/// state.
template <typename Op> struct HostLoweringPattern : OpConversionPattern<Op> {
  HostLoweringPattern(const TypeConverter &converter, MLIRContext *context,
                      HostLoweringState &state)
      : OpConversionPattern<Op>(converter, context), state(state) {}

protected:
  HostLoweringState &state;
};

/// Kernel profiling: every CPU kernel call bracketed by
/// `wrapper_profile_begin/end(id)` and followed by `wrapper_profile_bytes(id,
/// bytes)` (the bytes of the buffers it passes, at their run-time sizes),
/// with ids in first-call order.
struct KernelProfiler {
  llvm::StringMap<int64_t> ids;
  SmallVector<Attribute> names;
  func::FuncOp begin, end, bytes;
};

/// Whether `type` is a buffer on a CUDA device (`#wrapper.device<cuda...>`).
bool isBufferOnCUDA(Type type);

/// The name of the pointer slot of the external constant `name`.
std::string getConstantSlotName(StringRef name);

/// The ops the lowering rewrites: graphs, constants, and the functions that
/// hold wrapper ops (extern variants). Kernel implementations and other
/// functions are left as they are.
SmallVector<Operation *> getWrapperToStandardRoots(ModuleOp module);

/// Diagnoses what the lowering refuses, before any rewrite: device buffers in
/// ops without a device lowering, calls of GPU kernels, profiled calls of
/// device kernels, external constants (on a device, or without
/// `externalConstants`), non-strided reuses and prints of element types the
/// runtime cannot print. Fills `state`'s kernels and slot constants.
LogicalResult checkWrapperToStandardPreconditions(ModuleOp module, bool profile,
                                                  bool externalConstants,
                                                  HostLoweringState &state);

/// `wrapper.graph` to a public `func.func`, `wrapper.return` to
/// `func.return`, `wrapper.comment` erased, the signatures of functions and
/// the types of every other op converted. With `markReleasable`, the
/// function's inputs that the graph neither writes nor returns a view of
/// are marked `wrapper.releasable`.
void populateWrapperToStandardStructuralPatterns(const TypeConverter &converter,
                                                 RewritePatternSet &patterns,
                                                 bool markReleasable = false);

/// Buffers on the CPU: `alloc` to a 64-byte aligned `memref.alloc`, `free`
/// and `free_if_not_reused` to `memref.dealloc`; views (`reuse`, `view`,
/// `reinterpret`) to memref views on either device; kernel `call`s to
/// `func.call` (bracketed by profiling calls when `profiler` is given);
/// `constant`/`get_constant` to memref globals or pointer slots.
void populateWrapperToStandardHostPatterns(const TypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           HostLoweringState &state,
                                           KernelProfiler *profiler = nullptr);

/// Buffers on a CUDA device: `alloc` to `gpu.alloc` and `free` to
/// `gpu.dealloc` (the CUDA runtime's caching allocator).
void populateWrapperToStandardDevicePatterns(const TypeConverter &converter,
                                             RewritePatternSet &patterns);

/// `debug_print`, `debug_save` and `debug_message` to calls of the runtime's
/// `wrapper_debug_print`, `wrapper_debug_save` and `wrapper_debug_message`.
void populateWrapperDebugToRuntimePatterns(const TypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           HostLoweringState &state);

/// The extern ABI's ops (`tensor_descriptor`, `result_descriptors`,
/// `descriptor_buffer`, `check_status`) to LLVM stack arrays of
/// `wrapper_tensor` and calls of `wrapper_shim_check`.
void populateWrapperExternABIToStandardPatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns,
                                                HostLoweringState &state);

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_CONVERSION_WRAPPERTOSTANDARD_WRAPPERTOSTANDARD_H
