// RUN: wrapper-opt %s --tensor-program-fuse="elementwise=false" | wrapper-run - --verify --print=false --seed 43 --dynamic-size 5 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 44 --dynamic-size 2 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool --dynamic-size 2 | FileCheck %s
// CHECK-COUNT-2: vs interpreter: {{.*}}: ok
// Reshapes of intermediates, as views (fusion of elementwise ops off) and
// fused, with a dynamic batch.
func.func @main(%x: tensor<?x6xf32>) -> (tensor<?x3x2xf32>, tensor<?x2xf32>) {
  %e = tensor_program.exp %x : tensor<?x6xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x6xf32>
  %r = tensor_program.reshape %e [%n] : tensor<?x6xf32> -> tensor<?x3x2xf32>
  %g = tensor_program.neg %r : tensor<?x3x2xf32>
  %s = tensor_program.reduce_sum %g dims [1] : tensor<?x3x2xf32> -> tensor<?x2xf32>
  return %g, %s : tensor<?x3x2xf32>, tensor<?x2xf32>
}
