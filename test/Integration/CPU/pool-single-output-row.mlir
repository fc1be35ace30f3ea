// RUN: wrapper-run %s --differential --seed 3 | FileCheck %s
// CHECK-COUNT-6: output #0 vs interpreter: {{.*}}: ok
// CHECK: differential: all configurations agree
//
// A window whose output has one row (a 3x3 window, stride 2, over 4 input
// rows) and one channel. Tile-and-fuse dropped the unit output-row loop,
// which turned the input's row index oh * 2 + kh into kh: a plain
// dimension of 4 rows read by a 3-step loop, an invalid linalg.generic
// ("inferred input/output operand #1 has shape's dimension #0 to be 4, but
// found 3"), so the program did not compile. Found by scripts/soak.sh
// (random program 100075); unit loops inside compound indices now stay.

func.func @main(%x: tensor<3x1x4x8xf32>) -> tensor<3x1x1x3xf32> {
  %0 = tensor_program.avg_pool %x window [3, 3] stride [2, 2] padding_low [0, 0] padding_high [0, 0] : tensor<3x1x4x8xf32> -> tensor<3x1x1x3xf32>
  %1 = tensor_program.max_pool %x window [3, 3] stride [2, 2] dilation [1, 1] padding_low [0, 0] padding_high [0, 0] : tensor<3x1x4x8xf32> -> tensor<3x1x1x3xf32>
  %2 = tensor_program.add %0, %1 : (tensor<3x1x1x3xf32>, tensor<3x1x1x3xf32>) -> tensor<3x1x1x3xf32>
  return %2 : tensor<3x1x1x3xf32>
}
