// RUN: wrapper-run %s --verify --print=false | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --wrapper-host=false | FileCheck %s
// CHECK-COUNT-2: vs interpreter: {{.*}}: ok
// Tensors with no elements (torchvision's swin3d_t shifts its attention
// windows by 0 frames on a short clip: slices of size 0, written back with
// slice_scatter, concatenated): they compute nothing. Upstream's slice
// verifier refuses any static offset into a dimension of size 0, and
// inserting an empty piece at a dimension's end; the lowering makes them
// empty tensors, drops empty writes and empty concatenation inputs.
func.func @main(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<0x6xf32>) {
  %s = tensor_program.slice %x dim 0 start 4 end 4 : tensor<4x6xf32> -> tensor<0x6xf32>
  %e = tensor_program.exp %s : tensor<0x6xf32>
  %c = tensor_program.concat %x, %e dim 0 : (tensor<4x6xf32>, tensor<0x6xf32>) -> tensor<4x6xf32>
  %z = tensor_program.slice_scatter %c, %e dim 0 start 4 end 4 step 1 : (tensor<4x6xf32>, tensor<0x6xf32>) -> tensor<4x6xf32>
  %t = tensor_program.slice %e dim 1 start 0 end 3 : tensor<0x6xf32> -> tensor<0x3xf32>
  %u = tensor_program.slice_scatter %e, %t dim 1 start 0 end 3 step 1 : (tensor<0x6xf32>, tensor<0x3xf32>) -> tensor<0x6xf32>
  %r = tensor_program.mul %z, %z : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r, %u : tensor<4x6xf32>, tensor<0x6xf32>
}
