// Tests that --emit-mlir writes the module after a stage of the same
// compilation (its options and target included) instead of a model.so, and
// that unknown stages and the CPU-only stage on CUDA are refused.
// RUN: wrapper-compile %s --emit-mlir=frontend --plan-memory=pool -o - | FileCheck %s --check-prefix=FRONTEND
// RUN: wrapper-compile %s --emit-mlir=llvm -o - | FileCheck %s --check-prefix=LLVM
// RUN: wrapper-compile %s --emit-mlir=llvm --target=cuda -o - | FileCheck %s --check-prefix=CUDA
// RUN: not wrapper-compile %s --emit-mlir=bogus -o - 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not wrapper-compile %s --emit-mlir=frontend --target=cuda -o - 2>&1 | FileCheck %s --check-prefix=BADCUDA
// RUN: wrapper-compile %s --emit-mlir=llvm --profile -o - | FileCheck %s --check-prefix=PROFILE
// RUN: not wrapper-compile %s --profile --target=cuda -o %t.so 2>&1 | FileCheck %s --check-prefix=BADPROFILE

// FRONTEND: wrapper.graph @f
// FRONTEND: wrapper.call @f_kernel_0
// FRONTEND: wrapper.kernel @f_kernel_0
// LLVM: llvm.func @_mlir_ciface_f
// LLVM-NOT: wrapper.graph
// CUDA: gpu.binary
// BAD: error: unknown --emit-mlir stage 'bogus'; expected frontend or llvm
// BADCUDA: error: --emit-mlir=frontend is a CPU stage
// --profile: each kernel call is timed and its bytes counted (2 x 128 bytes).
// PROFILE: %[[BYTES:.*]] = llvm.mlir.constant(256 : i64)
// PROFILE: llvm.call @wrapper_profile_begin
// PROFILE: llvm.call @f_kernel_0
// PROFILE: llvm.call @wrapper_profile_end
// PROFILE: llvm.call @wrapper_profile_bytes({{.*}}, %[[BYTES]])
// BADPROFILE: error: --profile counts CPU kernel calls
func.func @f(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tensor_program.exp %a : tensor<4x8xf32>
  %1 = tensor_program.add %0, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
