//===- WrapperToStandard.h - helpers of the host lowering -------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_CONVERSION_WRAPPERTOSTANDARD_H
#define WRAPPER_CONVERSION_WRAPPERTOSTANDARD_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace wrapper {
/// A memref of `type` (identity layout) on the storage that the LLVM
/// pointer `pointer` points at: the LLVM descriptor built field by field,
/// cast to the memref type. `sizes` gives every size as an i64 value, or is
/// empty for a static shape.
Value buildMemRefOnPointer(OpBuilder &b, Location loc, Value pointer,
                           MemRefType type, ValueRange sizes = {});
} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_CONVERSION_WRAPPERTOSTANDARD_H
