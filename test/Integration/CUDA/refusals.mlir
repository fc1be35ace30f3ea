// RUN: not wrapper-opt %s --wrapper-cuda-pipeline -o /dev/null 2>&1 | FileCheck %s
// RUN: not wrapper-run %s --target=cuda 2>&1 | FileCheck %s

// A reduction to a scalar has no parallel loop to map: refused, by name.
// CHECK: error: wrapper-cuda-place-buffers: host code reads or writes a buffer (a loop that was not mapped to the GPU, such as a reduction to a scalar); not supported on CUDA yet
func.func @scalar(%x: tensor<8x16xf32>) -> tensor<f32> {
  %s = tensor_program.reduce_sum %x dims [0, 1] : tensor<8x16xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// RUN: not wrapper-run %s --target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: wrapper-run: error: --target must be cpu or cuda, got 'tpu'
