// RUN: wrapper-run %s --verify --print=false --seed 5 --dynamic-size 3 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 6 --dynamic-size 1 --gemm=false | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-fuse="elementwise=false" | wrapper-run - --verify --print=false --seed 7 --dynamic-size 4 | FileCheck %s
// CHECK-COUNT-2: vs interpreter: {{.*}}: ok
// Reshapes to types with two dynamic dimensions (the second one sized by a
// constant, as an importer writes view(x.size(0), -1)): as a view of an
// argument (the identity-layout strides of the dynamic type) and of a
// kernel's result (tensor.reshape, since one expand group with two dynamic
// sizes does not lower), into a GEMM.
func.func @main(%x: tensor<?x6x8xf32>, %w: tensor<16x48xf32>) -> (tensor<?x16xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c48 = arith.constant 48 : index
  %n = tensor.dim %x, %c0 : tensor<?x6x8xf32>
  %v = tensor_program.reshape %x [%n, %c48] : tensor<?x6x8xf32> -> tensor<?x?xf32>
  %l = tensor_program.linear %v, %w : (tensor<?x?xf32>, tensor<16x48xf32>) -> tensor<?x16xf32>
  %e = tensor_program.exp %x : tensor<?x6x8xf32>
  %r = tensor_program.reshape %e [%n, %c48] : tensor<?x6x8xf32> -> tensor<?x?xf32>
  %t = tensor_program.tanh %r : tensor<?x?xf32>
  return %l, %t : tensor<?x16xf32>, tensor<?x?xf32>
}
