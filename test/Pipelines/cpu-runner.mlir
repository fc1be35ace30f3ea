// RUN: wrapper-opt %s --wrapper-cpu-pipeline | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs | FileCheck %s
// RUN: wrapper-opt %s --wrapper-cpu-pipeline="parallel=false" | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs | FileCheck %s

// Tests that tensor_program compiled by --wrapper-cpu-pipeline runs under
// mlir-runner, threaded and not. Expected values from numpy:
//   softmax([1, 2, 3, 4]) = [0.0320586, 0.0871443, 0.236883, 0.643914]
//   layer_norm([1, 2, 3, 4], eps=1e-5) = [-1.34164, -0.447212, 0.447212, 1.34164]

func.func private @printMemrefF32(memref<*xf32>)

func.func @print(%t: tensor<2x4xf32>) {
  %m = bufferization.to_buffer %t : tensor<2x4xf32> to memref<2x4xf32>
  %u = memref.cast %m : memref<2x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %a = tensor_program.constant dense<[[1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 0.0, 0.0]]> : tensor<2x4xf32>
  // CHECK: [0.0320586,   0.0871443,   0.236883,   0.643914]
  // CHECK: [0.25,   0.25,   0.25,   0.25]
  %s = tensor_program.softmax %a dim 1 : tensor<2x4xf32>
  call @print(%s) : (tensor<2x4xf32>) -> ()
  // CHECK: [-1.34164,   -0.447212,   0.447212,   1.34164]
  // CHECK: [0,   0,   0,   0]
  %n = tensor_program.layer_norm %a normalized_rank 1 eps 1.0e-05 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  call @print(%n) : (tensor<2x4xf32>) -> ()
  return
}
