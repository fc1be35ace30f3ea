// Strided reads vectorized as one contiguous load and a shuffle (stride 2,
// 3 and 4 slices ending at the buffer's last element, so that an overread
// would leave the allocation: the sanitizer run of the suite checks that),
// a stride-2 max pool and a stride-2 depthwise convolution, against the
// reference interpreter, on AVX-512 and AVX2.
// RUN: wrapper-run %s --entry=slices --verify --print=false --seed 1 | FileCheck %s
// RUN: wrapper-run %s --entry=slices --verify --print=false --seed 1 --mattr=-avx512f | FileCheck %s
// RUN: wrapper-run %s --entry=windows --verify --print=false --seed 2 | FileCheck %s
// RUN: wrapper-run %s --entry=windows --verify --print=false --seed 2 --mattr=-avx512f | FileCheck %s
// CHECK: vs interpreter: {{.*}}: ok
// CHECK-NOT: FAIL
func.func @slices(%x: tensor<3x193xf32>) -> (tensor<3x97xf32>, tensor<3x65xf32>, tensor<3x49xf32>) {
  %s2 = tensor_program.slice %x dim 1 start 0 end 193 step 2 : tensor<3x193xf32> -> tensor<3x97xf32>
  %s3 = tensor_program.slice %x dim 1 start 1 end 193 step 3 : tensor<3x193xf32> -> tensor<3x64xf32>
  %s4 = tensor_program.slice %x dim 1 start 0 end 193 step 4 : tensor<3x193xf32> -> tensor<3x49xf32>
  %a = tensor_program.exp %s2 : tensor<3x97xf32>
  %p = tensor_program.pad %s3 low [0, 1] high [0, 0] value 0.0 : tensor<3x64xf32> -> tensor<3x65xf32>
  %b = tensor_program.neg %p : tensor<3x65xf32>
  %c = tensor_program.abs %s4 : tensor<3x49xf32>
  return %a, %b, %c : tensor<3x97xf32>, tensor<3x65xf32>, tensor<3x49xf32>
}
func.func @windows(%x: tensor<2x24x37x37xf32>, %w: tensor<24x1x3x3xf32>) -> (tensor<2x24x18x18xf32>, tensor<2x24x18x18xf32>) {
  %m = tensor_program.max_pool %x window [3, 3] stride [2, 2] dilation [1, 1] padding_low [0, 0] padding_high [0, 0] : tensor<2x24x37x37xf32> -> tensor<2x24x18x18xf32>
  %c = tensor_program.convolution %x, %w stride [2, 2] dilation [1, 1] groups 24 : (tensor<2x24x37x37xf32>, tensor<24x1x3x3xf32>) -> tensor<2x24x18x18xf32>
  return %m, %c : tensor<2x24x18x18xf32>, tensor<2x24x18x18xf32>
}
