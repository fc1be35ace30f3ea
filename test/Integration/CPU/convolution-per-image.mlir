// RUN: wrapper-run %s --verify --print=false --seed 3 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 4 --num-threads=1 --tile-elements=100 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 5 --gemm=false --plan-memory=pool | FileCheck %s
// RUN: wrapper-opt %s --wrapper-cpu-frontend | FileCheck %s --check-prefix=IR
// CHECK-COUNT-2: vs interpreter: {{.*}}: ok

// 1x1 convolutions of a batch of three images over 256 positions, which
// the CPU pipeline runs as one product per image (the weight by each
// image's [C, P], --tensor-program-convolution-to-matmul per-image=
// pointwise: no permute of the input or the output), compiled and checked
// against the reference interpreter: with a bias and an epilogue (batch
// norm's scale and shift, silu, the padding of the 3x3 convolution that
// follows), chained, and beside a 3x3 convolution, which stays one
// product over the batch.
// The one transpose is the 3x3 convolution's output, [F, N, P] to
// [N, F, P]; the 1x1 convolutions have none.
// IR: linalg.transpose ins(%{{.*}} : tensor<4x3x16x16xf32>) outs(%{{.*}} : tensor<3x4x16x16xf32>)
// IR-NOT: linalg.transpose
func.func @main(%x: tensor<3x8x16x16xf32>, %w1: tensor<24x8x1x1xf32>, %b1: tensor<24xf32>,
                %s: tensor<24x1x1xf32>, %w2: tensor<4x24x3x3xf32>,
                %w3: tensor<8x4x1x1xf32>)
    -> (tensor<3x4x16x16xf32>, tensor<3x8x16x16xf32>) {
  %0 = tensor_program.convolution %x, %w1 bias %b1 stride [1, 1] dilation [1, 1] groups 1 : (tensor<3x8x16x16xf32>, tensor<24x8x1x1xf32>, tensor<24xf32>) -> tensor<3x24x16x16xf32>
  %1 = tensor_program.mul %0, %s : (tensor<3x24x16x16xf32>, tensor<24x1x1xf32>) -> tensor<3x24x16x16xf32>
  %2 = tensor_program.silu %1 : tensor<3x24x16x16xf32>
  %3 = tensor_program.pad %2 low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.0 : tensor<3x24x16x16xf32> -> tensor<3x24x18x18xf32>
  %4 = tensor_program.convolution %3, %w2 stride [1, 1] dilation [1, 1] groups 1 : (tensor<3x24x18x18xf32>, tensor<4x24x3x3xf32>) -> tensor<3x4x16x16xf32>
  %5 = tensor_program.convolution %4, %w3 stride [1, 1] dilation [1, 1] groups 1 : (tensor<3x4x16x16xf32>, tensor<8x4x1x1xf32>) -> tensor<3x8x16x16xf32>
  %6 = tensor_program.add %5, %x : (tensor<3x8x16x16xf32>, tensor<3x8x16x16xf32>) -> tensor<3x8x16x16xf32>
  return %4, %6 : tensor<3x4x16x16xf32>, tensor<3x8x16x16xf32>
}
