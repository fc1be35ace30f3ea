//===- TensorProgramDialect.h - tensor_program dialect ----------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMDIALECT_H
#define WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMDIALECT_H

#include "mlir/IR/Dialect.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramDialect.h.inc"

namespace mlir::tensor_program {
/// Marks a product (tensor_program.matmul or batch_matmul, and the linalg
/// product lowered from it) that computes a convolution
/// (--tensor-program-convolution-to-matmul), so that a backend can treat it
/// as PyTorch treats convolutions (on CUDA: TF32 under
/// torch.backends.cudnn.allow_tf32, which is on by default, while products
/// follow torch.backends.cuda.matmul.allow_tf32, off by default).
constexpr llvm::StringLiteral kConvolutionProductAttr =
    "tensor_program.convolution";
} // namespace mlir::tensor_program

#endif // WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMDIALECT_H
