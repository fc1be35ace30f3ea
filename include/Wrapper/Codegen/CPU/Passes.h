//===- Passes.h - CPU code generation passes --------------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_CODEGEN_CPU_PASSES_H
#define WRAPPER_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace wrapper {

#define GEN_PASS_DECL
#include "Wrapper/Codegen/CPU/Passes.h.inc"

/// Whether the GEMM template (--wrapper-gemm-template) takes `op`: a
/// linalg.matmul whose operands all have f32 elements.
bool isGemmTemplateCandidate(Operation *op);

#define GEN_PASS_REGISTRATION
#include "Wrapper/Codegen/CPU/Passes.h.inc"

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_CODEGEN_CPU_PASSES_H
