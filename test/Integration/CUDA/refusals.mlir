// RUN: not wrapper-opt %s --wrapper-cuda-pipeline -o /dev/null 2>&1 | FileCheck %s
// RUN: not wrapper-run %s --target=cuda 2>&1 | FileCheck %s

// A reduction to a scalar of a strided view (its loops cannot be folded
// into one row) has no parallel loop to map: refused, by name. (Over a
// contiguous tensor it is a one-block row kernel.)
// CHECK: error: wrapper-cuda-place-buffers: host code reads or writes a buffer (a loop that was not mapped to the GPU, such as a reduction to a scalar); not supported on CUDA yet
func.func @scalar(%x: tensor<8x16xf32>) -> tensor<f32> {
  %v = tensor_program.slice %x dim 1 start 0 end 16 step 2 : tensor<8x16xf32> -> tensor<8x8xf32>
  %s = tensor_program.reduce_sum %v dims [0, 1] : tensor<8x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// RUN: not wrapper-run %s --target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: wrapper-run: error: --target must be cpu or cuda, got 'tpu'
// RUN: not wrapper-run %s --cuda-graph 2>&1 | FileCheck %s --check-prefix=GRAPH
// GRAPH: wrapper-run: error: --cuda-graph needs --target=cuda
