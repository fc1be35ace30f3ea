// REQUIRES: cuda-ptxas
// RUN: wrapper-opt %s --wrapper-cuda-pipeline="binary=cubin" | FileCheck %s
// With binary=cubin the kernels are compiled by the toolkit's ptxas at
// compile time: the gpu.binary holds an ELF image for the chip (no PTX for
// the driver to JIT when the module loads).
// CHECK: gpu.binary @main_kernel
// CHECK-SAME: #gpu.object<#nvvm.target<chip = "sm_90"
// CHECK-SAME: bin = "\7FELF
// CHECK-NOT: .visible .entry
func.func @main(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %g = tensor_program.gelu %x : tensor<64x256xf32>
  return %g : tensor<64x256xf32>
}
