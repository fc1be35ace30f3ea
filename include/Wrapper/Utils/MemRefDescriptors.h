//===- MemRefDescriptors.h - memrefs on raw pointers ------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
// Helpers that the host lowering (--convert-wrapper-to-standard) and the
// CUDA code generator share.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_UTILS_MEMREFDESCRIPTORS_H
#define WRAPPER_UTILS_MEMREFDESCRIPTORS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace wrapper {

/// A memref of `type` (identity layout) on the LLVM pointer `pointer`: an
/// LLVM descriptor with `pointer` as both allocated and aligned pointer,
/// offset 0, the sizes of `type` (or `sizes`, one index-typed i64 value per
/// dimension, for dynamic ones) and row-major strides, cast back to `type`
/// with an unrealized_conversion_cast.
Value buildMemRefOnPointer(OpBuilder &b, Location loc, Value pointer,
                           MemRefType type, ValueRange sizes = {});

/// The LLVM pointer to the first element of the storage of `memref` (its
/// aligned pointer, without the view's offset).
Value buildAlignedPointer(OpBuilder &b, Location loc, Value memref);

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_UTILS_MEMREFDESCRIPTORS_H
