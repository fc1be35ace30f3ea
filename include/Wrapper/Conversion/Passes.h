//===- Passes.h - conversion passes -----------------------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_CONVERSION_PASSES_H
#define WRAPPER_CONVERSION_PASSES_H

#include "Wrapper/Conversion/TensorProgramToLinalg/TensorProgramToLinalg.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace wrapper {

#define GEN_PASS_DECL
#include "Wrapper/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Wrapper/Conversion/Passes.h.inc"

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_CONVERSION_PASSES_H
