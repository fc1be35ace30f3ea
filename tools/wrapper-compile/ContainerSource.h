//===- ContainerSource.h - the C source of a model container ----*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_TOOLS_WRAPPER_COMPILE_CONTAINERSOURCE_H
#define WRAPPER_TOOLS_WRAPPER_COMPILE_CONTAINERSOURCE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeRange.h"

#include <string>

namespace mlir {
namespace wrapper {

/// The C source of the model container of a compiled function `entry` with
/// tensor `inputs` and `outputs`: the versioned ABI of WrapperModel.h, which
/// checks inputs, builds memref descriptors, calls `_mlir_ciface_<entry>`
/// and copies the results into runtime arrays. Fails (empty string, message
/// in `error`) for element types the runtime has no dtype for.
std::string generateContainerSource(StringRef entry, TypeRange inputs,
                                    TypeRange outputs, std::string &error);

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_TOOLS_WRAPPER_COMPILE_CONTAINERSOURCE_H
