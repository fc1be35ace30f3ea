// RUN: wrapper-opt %s --wrapper-cuda-pipeline | FileCheck %s
// Collectives on the device (checked without a GPU): the host code runs the
// kernel that produces the gradients, then starts one all_reduce of the
// bucket of both gradients (their copies into it are kernels) on the
// device's buffers (code 0, device 0, no inputs) once the stream has
// finished the kernels before it, waits for it, and copies back; the device
// pointers go to the runtime in descriptors, never read on the host.
// CHECK: llvm.func @step(
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: gpu.launch_func
// CHECK: llvm.call @mgpuStreamSynchronize
// CHECK: llvm.call @wrapper_collective_start(%[[ZERO]], %{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]], %[[ZERO]],
// CHECK: llvm.call @wrapper_collective_wait(
// CHECK: gpu.launch_func
// CHECK-NOT: llvm.call @wrapper_collective_start
// CHECK: gpu.binary
func.func @step(%x: tensor<64xf32>, %y: tensor<32xf32>) -> (tensor<64xf32>, tensor<32xf32>) {
  %gx = tensor_program.relu %x : tensor<64xf32>
  %gy = tensor_program.neg %y : tensor<32xf32>
  %rx = tensor_program.extern "_c10d_functional::all_reduce"(%gx) args {group_name = "0", reduce_op = "avg"} : (tensor<64xf32>) -> tensor<64xf32>
  %ry = tensor_program.extern "_c10d_functional::all_reduce"(%gy) args {group_name = "0", reduce_op = "avg"} : (tensor<32xf32>) -> tensor<32xf32>
  %wx = tensor_program.extern "_c10d_functional::wait_tensor"(%rx) : (tensor<64xf32>) -> tensor<64xf32>
  %wy = tensor_program.extern "_c10d_functional::wait_tensor"(%ry) : (tensor<32xf32>) -> tensor<32xf32>
  return %wx, %wy : tensor<64xf32>, tensor<32xf32>
}
