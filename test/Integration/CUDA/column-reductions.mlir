// RUN: wrapper-opt %s --wrapper-cuda-pipeline="device-arguments=true" | FileCheck %s
// Reductions over outer dimensions (softmax over dim 0, a column sum of a
// 3-D tensor): their reduction loops run inside the kernels (one column per
// thread), so the call is a straight sequence of launches that never waits
// for the GPU (and can be captured into a CUDA graph). Before, the host
// looped over the rows, launching and waiting once per row.
// CHECK-LABEL: llvm.func @main(
// CHECK-NOT: scf.for
// CHECK-NOT: llvm.call @mgpuStreamSynchronize
// CHECK-COUNT-3: gpu.launch_func
// CHECK-NOT: llvm.call @mgpuStreamSynchronize
// CHECK: llvm.return
func.func @main(%x: tensor<8x100xf32>, %y: tensor<3x4x5xf32>) -> (tensor<8x100xf32>, tensor<4x5xf32>) {
  %s = tensor_program.softmax %x dim 0 : tensor<8x100xf32>
  %r = tensor_program.reduce_sum %y dims [0] : tensor<3x4x5xf32> -> tensor<4x5xf32>
  return %s, %r : tensor<8x100xf32>, tensor<4x5xf32>
}
