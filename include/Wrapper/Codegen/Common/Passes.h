//===- Passes.h - code generation passes of both targets --------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_CODEGEN_COMMON_PASSES_H
#define WRAPPER_CODEGEN_COMMON_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace wrapper {

#define GEN_PASS_DECL
#include "Wrapper/Codegen/Common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Wrapper/Codegen/Common/Passes.h.inc"

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_CODEGEN_COMMON_PASSES_H
