// RUN: wrapper-opt %s --wrapper-cuda-pipeline="device-arguments=true" | FileCheck %s
// A size used as a number (GPT-2's and Llama's position arithmetic) and a
// whole-tensor sum to a scalar run in kernels of their own (before, the
// host code wrote them into device memory and the pipeline refused the
// program). The host function launches three kernels and never waits.
// CHECK-LABEL: llvm.func @main(
// CHECK-NOT: llvm.call @mgpuStreamSynchronize
// CHECK-COUNT-3: gpu.launch_func
// CHECK-NOT: llvm.call @mgpuStreamSynchronize
// CHECK: llvm.return
func.func @main(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x4xf32>
  %s = tensor_program.from_index %d : tensor<f32>
  %y = tensor_program.add %x, %s : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  %t = tensor_program.reduce_sum %x dims [0, 1] : tensor<?x4xf32> -> tensor<f32>
  %z = tensor_program.add %y, %t : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  return %z : tensor<?x4xf32>
}

// A sum of a strided view to a scalar (no row kernel: its loops do not fold
// into one row) was refused; it is one kernel now, its zero fill included
// (scf-parallel-loop-fusion merges the fill's one-iteration loop with the
// sum's).
// CHECK-LABEL: llvm.func @strided_sum(
// CHECK: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
func.func @strided_sum(%x: tensor<8x16xf32>) -> tensor<f32> {
  %v = tensor_program.slice %x dim 1 start 0 end 16 step 2 : tensor<8x16xf32> -> tensor<8x8xf32>
  %s = tensor_program.reduce_sum %v dims [0, 1] : tensor<8x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
