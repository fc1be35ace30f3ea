// wrapper-run's refusals of CUDA options. (A reduction of a strided view
// to a scalar, refused here before, now runs in a one-thread kernel:
// scalar-kernels.mlir, run.mlir.)
func.func @scalar(%x: tensor<8x16xf32>) -> tensor<f32> {
  %v = tensor_program.slice %x dim 1 start 0 end 16 step 2 : tensor<8x16xf32> -> tensor<8x8xf32>
  %s = tensor_program.reduce_sum %v dims [0, 1] : tensor<8x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// RUN: not wrapper-run %s --target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: wrapper-run: error: --target must be cpu or cuda, got 'tpu'
// RUN: not wrapper-run %s --cuda-graph 2>&1 | FileCheck %s --check-prefix=GRAPH
// GRAPH: wrapper-run: error: --cuda-graph needs --target=cuda
