// Pooling and depthwise convolutions lower as loops over the window around
// an elementwise op on strided views (vectorized along the output's rows),
// against the reference interpreter: strides 1 and 2, dilation, padding,
// rows of 16 (whole vectors), 7 and 5 (remainders), a dynamic batch, one
// and three threads, and without tiling.
// RUN: wrapper-run %s --entry=depthwise --verify --print=false | FileCheck %s
// RUN: wrapper-run %s --entry=depthwise --verify --print=false --num-threads=3 --tile-elements=0 | FileCheck %s
// RUN: wrapper-run %s --entry=strided --verify --print=false --dynamic-size=3 | FileCheck %s
// RUN: wrapper-run %s --entry=strided --verify --print=false --dynamic-size=1 --num-threads=1 | FileCheck %s
// RUN: wrapper-run %s --entry=pools --verify --print=false | FileCheck %s
// RUN: wrapper-run %s --entry=pools --verify --print=false --mattr=-avx512f | FileCheck %s
// CHECK: vs interpreter: {{.*}}: ok
// CHECK-NOT: FAIL

// convnext's 7x7 depthwise convolution with bias, rows of 16.
func.func @depthwise(%x: tensor<2x8x16x16xf32>, %w: tensor<8x1x7x7xf32>, %b: tensor<8xf32>) -> tensor<2x8x16x16xf32> {
  %p = tensor_program.pad %x low [0, 0, 3, 3] high [0, 0, 3, 3] value 0.0 : tensor<2x8x16x16xf32> -> tensor<2x8x22x22xf32>
  %y = tensor_program.convolution %p, %w bias %b stride [1, 1] dilation [1, 1] groups 8 : (tensor<2x8x22x22xf32>, tensor<8x1x7x7xf32>, tensor<8xf32>) -> tensor<2x8x16x16xf32>
  return %y : tensor<2x8x16x16xf32>
}

// Stride 2 and dilation 2 (a 3x3 window spanning 5), a dynamic batch,
// rows of 7 and 5.
func.func @strided(%x: tensor<?x6x15x15xf32>, %w: tensor<6x1x3x3xf32>, %v: tensor<12x1x3x3xf32>) -> (tensor<?x6x7x7xf32>, tensor<?x12x11x11xf32>) {
  %a = tensor_program.convolution %x, %w stride [2, 2] dilation [1, 1] groups 6 : (tensor<?x6x15x15xf32>, tensor<6x1x3x3xf32>) -> tensor<?x6x7x7xf32>
  %b = tensor_program.convolution %x, %v stride [1, 1] dilation [2, 2] groups 6 : (tensor<?x6x15x15xf32>, tensor<12x1x3x3xf32>) -> tensor<?x12x11x11xf32>
  return %a, %b : tensor<?x6x7x7xf32>, tensor<?x12x11x11xf32>
}

// Max pooling (NaN-propagating maximum) with padding, average pooling.
func.func @pools(%x: tensor<4x16x31x31xf32>) -> (tensor<4x16x16x16xf32>, tensor<4x16x15x15xf32>) {
  %m = tensor_program.max_pool %x window [3, 3] stride [2, 2] dilation [1, 1] padding_low [1, 1] padding_high [1, 1] : tensor<4x16x31x31xf32> -> tensor<4x16x16x16xf32>
  %a = tensor_program.avg_pool %x window [3, 3] stride [2, 2] padding_low [0, 0] padding_high [0, 0] : tensor<4x16x31x31xf32> -> tensor<4x16x15x15xf32>
  return %m, %a : tensor<4x16x16x16xf32>, tensor<4x16x15x15xf32>
}
