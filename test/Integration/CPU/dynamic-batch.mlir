// RUN: wrapper-run %s --verify --print=false --seed 16 --dynamic-size 7 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool --dynamic-size 7 | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-decompose --tensor-program-fuse | wrapper-run - --verify --print=false --seed 36 --dynamic-size 7 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 17 --dynamic-size 1 | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-decompose --tensor-program-fuse="elementwise=false reductions=false" | wrapper-run - --verify --print=false --seed 42 --dynamic-size 6 | FileCheck %s
// CHECK-COUNT-2: vs interpreter: {{.*}}: ok
// A dynamic batch through linear, layer_norm, softmax and a slice.
func.func @main(%x: tensor<?x32xf32>, %w: tensor<16x32xf32>, %b: tensor<16xf32>) -> (tensor<?x16xf32>, tensor<?x16xf32>) {
  %h = tensor_program.linear %x, %w bias %b : (tensor<?x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  %n = tensor_program.layer_norm %h normalized_rank 1 eps 1.0e-05 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %s = tensor_program.softmax %h dim 1 : tensor<?x16xf32>
  %m = tensor_program.reduce_mean %h dims [0] keepdim : tensor<?x16xf32> -> tensor<1x16xf32>
  %c = tensor_program.sub %s, %m : (tensor<?x16xf32>, tensor<1x16xf32>) -> tensor<?x16xf32>
  return %n, %c : tensor<?x16xf32>, tensor<?x16xf32>
}
