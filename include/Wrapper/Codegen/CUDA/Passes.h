//===- Passes.h - CUDA code generation passes -------------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_CODEGEN_CUDA_PASSES_H
#define WRAPPER_CODEGEN_CUDA_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace wrapper {

#define GEN_PASS_DECL
#include "Wrapper/Codegen/CUDA/Passes.h.inc"

/// The unit attribute that marks a function whose calls queue their work on
/// the runtime's stream (cuBLAS products): --wrapper-cuda-stream-ordered-calls
/// drops the host wait before such calls.
constexpr llvm::StringLiteral kStreamOrderedAttrName =
    "wrapper.cuda_stream_ordered";

/// The thread-block size chosen for an outermost scf.parallel
/// (--wrapper-cuda-select-block-sizes), read by
/// --wrapper-tile-parallel-loops-for-gpu.
constexpr llvm::StringLiteral kCUDABlockSizeAttrName =
    "wrapper.cuda_block_size";

/// The block size for the loop nest `loop`: `maxBlockSize`, or the loop
/// nest's static iteration count rounded up to a multiple of 32 when that is
/// smaller.
int64_t selectCUDABlockSize(scf::ParallelOp loop, int64_t maxBlockSize);

/// Whether --wrapper-cuda-scalar-kernels wraps `op`: a linalg op on buffers
/// with no parallel loop, outside any scf.parallel and gpu.launch.
bool needsScalarKernel(linalg::LinalgOp op);

/// Moves `op` into a new one-iteration scf.parallel placed where it was.
scf::ParallelOp wrapInScalarKernel(OpBuilder &b, linalg::LinalgOp op);

#define GEN_PASS_REGISTRATION
#include "Wrapper/Codegen/CUDA/Passes.h.inc"

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_CODEGEN_CUDA_PASSES_H
