// REQUIRES: cuda-runtime
// RUN: wrapper-run %s --target=cuda --entry=pointwise --verify --print=false --seed 1 --dynamic-size 37 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --target=cuda --entry=rows --verify --print=false --seed 2 --dynamic-size 5 | FileCheck %s --check-prefix=TWO
// RUN: wrapper-run %s --target=cuda --entry=rows --verify --print=false --seed 3 --dynamic-size 1 | FileCheck %s --check-prefix=TWO
// RUN: wrapper-run %s --target=cuda --entry=strided_sum --verify --print=false --seed 5 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --target=cuda --entry=scalars --verify --print=false --seed 4 --dynamic-size 9 | FileCheck %s --check-prefix=ONE
// Programs run on the GPU (the CUDA pipeline, the runtime's mgpu* ABI),
// compared with the reference interpreter: a pointwise chain with a
// broadcast bias and a constant; a linear layer, softmax and layer_norm
// over rows, with a dynamic batch.
// ONE: output #0 vs interpreter: {{.*}}: ok
// TWO-COUNT-2: vs interpreter: {{.*}}: ok
func.func @pointwise(%x: tensor<?x1000xf32>, %b: tensor<1000xf32>) -> tensor<?x1000xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x1000xf32>
  %s = tensor_program.add %x, %b : (tensor<?x1000xf32>, tensor<1000xf32>) -> tensor<?x1000xf32>
  %g = tensor_program.gelu %s : tensor<?x1000xf32>
  %c = tensor_program.constant dense<[2.0, -1.0]> : tensor<2xf32>
  %r = tensor_program.reshape %g [%d] : tensor<?x1000xf32> -> tensor<?x500x2xf32>
  %m = tensor_program.mul %r, %c : (tensor<?x500x2xf32>, tensor<2xf32>) -> tensor<?x500x2xf32>
  %f = tensor_program.reshape %m [%d] : tensor<?x500x2xf32> -> tensor<?x1000xf32>
  return %f : tensor<?x1000xf32>
}

func.func @rows(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> (tensor<?x32xf32>, tensor<?x32xf32>) {
  %h = tensor_program.linear %x, %w bias %b : (tensor<?x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  %s = tensor_program.softmax %h dim 1 : tensor<?x32xf32>
  %n = tensor_program.layer_norm %h normalized_rank 1 eps 1.0e-05 : (tensor<?x32xf32>) -> tensor<?x32xf32>
  return %s, %n : tensor<?x32xf32>, tensor<?x32xf32>
}

// A size used as a number and a whole-tensor sum: one-thread kernels
// (--wrapper-cuda-scalar-kernels).
func.func @scalars(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x4xf32>
  %s = tensor_program.from_index %d : tensor<f32>
  %y = tensor_program.add %x, %s : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  %t = tensor_program.reduce_sum %x dims [0, 1] : tensor<?x4xf32> -> tensor<f32>
  %z = tensor_program.add %y, %t : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  return %z : tensor<?x4xf32>
}

func.func @strided_sum(%x: tensor<8x16xf32>) -> tensor<f32> {
  %v = tensor_program.slice %x dim 1 start 0 end 16 step 2 : tensor<8x16xf32> -> tensor<8x8xf32>
  %s = tensor_program.reduce_sum %v dims [0, 1] : tensor<8x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
