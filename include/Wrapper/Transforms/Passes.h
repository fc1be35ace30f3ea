//===- Passes.h - project-wide passes ---------------------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_TRANSFORMS_PASSES_H
#define WRAPPER_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace wrapper {

#define GEN_PASS_DECL
#include "Wrapper/Transforms/Passes.h.inc"

/// Whether the GEMM template (--wrapper-gemm-template) takes `op`: a
/// linalg.matmul whose operands all have f32 elements.
bool isGemmTemplateCandidate(Operation *op);

/// Whether --wrapper-cuda-scalar-kernels wraps `op`: a linalg op on buffers
/// with no parallel loop, outside any scf.parallel and gpu.launch.
bool needsScalarKernel(linalg::LinalgOp op);

/// Moves `op` into a new one-iteration scf.parallel placed where it was.
scf::ParallelOp wrapInScalarKernel(OpBuilder &b, linalg::LinalgOp op);

#define GEN_PASS_REGISTRATION
#include "Wrapper/Transforms/Passes.h.inc"

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_TRANSFORMS_PASSES_H
