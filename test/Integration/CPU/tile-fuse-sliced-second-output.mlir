// RUN: wrapper-run %s --differential --dynamic-size=2 --seed 5 | FileCheck %s
// CHECK-COUNT-12: output #{{[01]}} vs interpreter: {{.*}}: ok
// CHECK: differential: all configurations agree
//
// Rotary embedding's rotate_half on a product's permuted result: one kernel
// returns the permuted product (%q) and the halves of it swapped and one
// negated (%rot). Tile-and-fuse tiled the negation (a sink) and fused the
// permutation into its loop, yielding the permutation's tiles as the
// kernel's first output; but the negation reads only the second half of
// the last dimension, so only that half of %q was ever written (half the
// output uninitialized: inf, or another buffer's values). Found by
// wrapper_mlir.package's check against eager on Llama with swappable
// weights and a dynamic batch; a producer is now fused for a second output
// only when the ops reading it read all of it.

func.func @main(%x: tensor<?x16x64xf32>, %w: tensor<64x64xf32>) -> (tensor<?x4x16x16xf32>, tensor<?x4x16x16xf32>) {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x16x64xf32>
  %c16 = arith.constant 16 : index
  %n = arith.muli %d, %c16 : index
  %x2 = tensor_program.reshape %x [%n] : tensor<?x16x64xf32> -> tensor<?x64xf32>
  %wt = tensor_program.permute %w [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  %m = tensor_program.matmul %x2, %wt : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
  %r = tensor_program.reshape %m [%d] : tensor<?x64xf32> -> tensor<?x16x4x16xf32>
  %q = tensor_program.permute %r [0, 2, 1, 3] : tensor<?x16x4x16xf32> -> tensor<?x4x16x16xf32>
  %l = tensor_program.slice %q dim 3 start 0 end 8 : tensor<?x4x16x16xf32> -> tensor<?x4x16x8xf32>
  %h = tensor_program.slice %q dim 3 start 8 end 16 : tensor<?x4x16x16xf32> -> tensor<?x4x16x8xf32>
  %ng = tensor_program.neg %h : tensor<?x4x16x8xf32>
  %rot = tensor_program.concat %ng, %l dim 3 : (tensor<?x4x16x8xf32>, tensor<?x4x16x8xf32>) -> tensor<?x4x16x16xf32>
  return %q, %rot : tensor<?x4x16x16xf32>, tensor<?x4x16x16xf32>
}
