// Tests that --emit-mlir writes the module after a stage of the same
// compilation (its options and target included) instead of a model.so, and
// that unknown stages and the CPU-only stage on CUDA are refused.
// RUN: wrapper-compile %s --emit-mlir=frontend --plan-memory=pool -o - | FileCheck %s --check-prefix=FRONTEND
// RUN: wrapper-compile %s --emit-mlir=llvm -o - | FileCheck %s --check-prefix=LLVM
// RUN: wrapper-compile %s --emit-mlir=llvm --target=cuda -o - | FileCheck %s --check-prefix=CUDA
// RUN: not wrapper-compile %s --emit-mlir=bogus -o - 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not wrapper-compile %s --emit-mlir=frontend --target=cuda -o - 2>&1 | FileCheck %s --check-prefix=BADCUDA

// FRONTEND: wrapper.graph @f
// FRONTEND: wrapper.call @f_kernel_0
// FRONTEND: wrapper.kernel @f_kernel_0
// LLVM: llvm.func @_mlir_ciface_f
// LLVM-NOT: wrapper.graph
// CUDA: gpu.binary
// BAD: error: unknown --emit-mlir stage 'bogus'; expected frontend or llvm
// BADCUDA: error: --emit-mlir=frontend is a CPU stage
func.func @f(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tensor_program.exp %a : tensor<4x8xf32>
  %1 = tensor_program.add %0, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
