//===- ShapeTracing.h - dynamic output sizes of fused kernels ---*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_LIB_CONVERSION_TENSORPROGRAMTOWRAPPER_SHAPETRACING_H
#define WRAPPER_LIB_CONVERSION_TENSORPROGRAMTOWRAPPER_SHAPETRACING_H

#include "mlir/IR/Builders.h"

namespace mlir {
namespace wrapper {

/// Builds, at `b`, the sizes of the dynamic dimensions of `regionValue` (a
/// value computed inside a fused region) from `buffers`, the host buffers
/// of the region's inputs in order. Fails when a size cannot be traced back
/// to the inputs.
FailureOr<SmallVector<Value>> buildOutputDynamicSizes(OpBuilder &b,
                                                      Location loc,
                                                      Value regionValue,
                                                      ValueRange buffers);

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_LIB_CONVERSION_TENSORPROGRAMTOWRAPPER_SHAPETRACING_H
