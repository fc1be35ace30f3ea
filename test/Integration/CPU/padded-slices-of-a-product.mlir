// RUN: wrapper-run %s --verify --print=false --seed 3 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 4 --tile-elements=64 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 4 --wrapper-host=false | FileCheck %s
// CHECK-COUNT-3: vs interpreter: {{.*}}: ok
// A product whose epilogue splits it into three slices, transposes each
// and pads it (timm's mvitv2 attention pooling: q, k and v laid out for a
// depthwise convolution). One kernel writes the three padded outputs; the
// tiled zero fills of their borders, equal, were merged by CSE and the
// third output came out holding the first's values.
func.func @main(%x: tensor<64x16xf32>, %w: tensor<48x16xf32>, %b: tensor<48xf32>) -> (tensor<1x16x10x10xf32>, tensor<1x16x10x10xf32>, tensor<1x16x10x10xf32>) {
  %l = tensor_program.linear %x, %w bias %b : (tensor<64x16xf32>, tensor<48x16xf32>, tensor<48xf32>) -> tensor<64x48xf32>
  %r = tensor_program.reshape %l : tensor<64x48xf32> -> tensor<1x64x3x1x16xf32>
  %p = tensor_program.permute %r [2, 0, 3, 1, 4] : tensor<1x64x3x1x16xf32> -> tensor<3x1x1x64x16xf32>
  %s0 = tensor_program.slice %p dim 0 start 0 end 1 : tensor<3x1x1x64x16xf32> -> tensor<1x1x1x64x16xf32>
  %s1 = tensor_program.slice %p dim 0 start 1 end 2 : tensor<3x1x1x64x16xf32> -> tensor<1x1x1x64x16xf32>
  %s2 = tensor_program.slice %p dim 0 start 2 end 3 : tensor<3x1x1x64x16xf32> -> tensor<1x1x1x64x16xf32>
  %q0 = tensor_program.reshape %s0 : tensor<1x1x1x64x16xf32> -> tensor<1x8x8x16xf32>
  %q1 = tensor_program.reshape %s1 : tensor<1x1x1x64x16xf32> -> tensor<1x8x8x16xf32>
  %q2 = tensor_program.reshape %s2 : tensor<1x1x1x64x16xf32> -> tensor<1x8x8x16xf32>
  %t0 = tensor_program.permute %q0 [0, 3, 1, 2] : tensor<1x8x8x16xf32> -> tensor<1x16x8x8xf32>
  %t1 = tensor_program.permute %q1 [0, 3, 1, 2] : tensor<1x8x8x16xf32> -> tensor<1x16x8x8xf32>
  %t2 = tensor_program.permute %q2 [0, 3, 1, 2] : tensor<1x8x8x16xf32> -> tensor<1x16x8x8xf32>
  %o0 = tensor_program.pad %t0 low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.0 : tensor<1x16x8x8xf32> -> tensor<1x16x10x10xf32>
  %o1 = tensor_program.pad %t1 low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.0 : tensor<1x16x8x8xf32> -> tensor<1x16x10x10xf32>
  %o2 = tensor_program.pad %t2 low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.0 : tensor<1x16x8x8xf32> -> tensor<1x16x10x10xf32>
  return %o0, %o1, %o2 : tensor<1x16x10x10xf32>, tensor<1x16x10x10xf32>, tensor<1x16x10x10xf32>
}
