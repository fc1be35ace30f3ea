// Each kernel kind that --wrapper-lower-linalg-to-loops vectorizes, at sizes
// with full vector steps and remainders (70 = 4 x 16 + 6 with AVX2's 16
// f32 lanes a step, 2 x 32 + 6 with AVX-512's), static and dynamic, against
// the reference interpreter; on the host's vectors, on AVX2 and on SSE, and
// with scalar loops (vectorize=false) for comparison.
// RUN: wrapper-run %s --verify --print=false --seed 61 --dynamic-size 37 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 62 --dynamic-size 70 --mattr=-avx512f | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 63 --dynamic-size 5 --mcpu=x86-64 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 64 --dynamic-size 37 --tile-elements=0 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 65 --dynamic-size 37 --vectorize=false | FileCheck %s
// CHECK-COUNT-12: vs interpreter: {{.*}}: ok
func.func @main(%x: tensor<2x3x70xf32>, %c: tensor<37x70xf32>, %d: tensor<?x70xf32>,
                %e: tensor<3x?xf32>, %t: tensor<70x45xf32>, %w: tensor<70xf32>,
                %f: tensor<100xf64>, %i: tensor<4x70xi32>)
    -> (tensor<2x3x70xf32>, tensor<70xf32>, tensor<2x1x1xf32>, tensor<?xf32>,
        tensor<3xf32>, tensor<2x3x70xf32>, tensor<45x70xf32>, tensor<37x70xf32>,
        tensor<100xf64>, tensor<4x70xi32>, tensor<3x?xf32>, tensor<?x70xf32>) {
  // Row reductions (softmax over the last dim of a rank-3 tensor).
  %0 = tensor_program.softmax %x dim 2 : tensor<2x3x70xf32>
  // A column reduction (over dimension 0).
  %1 = tensor_program.reduce_sum %c dims [0] : tensor<37x70xf32> -> tensor<70xf32>
  // A NaN-propagating max over two dimensions.
  %2 = tensor_program.reduce_max %x dims [1, 2] keepdim : tensor<2x3x70xf32> -> tensor<2x1x1xf32>
  // Dynamic rows; a dynamic reduced dimension (a scalar remainder).
  %3 = tensor_program.reduce_mean %d dims [1] : tensor<?x70xf32> -> tensor<?xf32>
  %4 = tensor_program.reduce_sum %e dims [1] : tensor<3x?xf32> -> tensor<3xf32>
  // Layer norm: row statistics broadcast over rows.
  %5 = tensor_program.layer_norm %x weight %w normalized_rank 1 eps 1.0e-05 : (tensor<2x3x70xf32>, tensor<70xf32>) -> tensor<2x3x70xf32>
  // A transpose.
  %p = tensor_program.permute %t [1, 0] : tensor<70x45xf32> -> tensor<45x70xf32>
  %6 = tensor_program.relu %p : tensor<45x70xf32>
  // Casts through bf16 and f16, computed in f32 registers.
  %b = tensor_program.cast %c : tensor<37x70xf32> to tensor<37x70xbf16>
  %h = tensor_program.cast %b : tensor<37x70xbf16> to tensor<37x70xf16>
  %7 = tensor_program.cast %h : tensor<37x70xf16> to tensor<37x70xf32>
  // f64 (half the lanes) and integers.
  %8 = tensor_program.exp %f : tensor<100xf64>
  %9 = tensor_program.add %i, %i : (tensor<4x70xi32>, tensor<4x70xi32>) -> tensor<4x70xi32>
  // Elementwise over a dynamic innermost dimension; a broadcast bias.
  %10 = tensor_program.tanh %e : tensor<3x?xf32>
  %s = tensor_program.add %d, %w : (tensor<?x70xf32>, tensor<70xf32>) -> tensor<?x70xf32>
  %11 = tensor_program.relu %s : tensor<?x70xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
      : tensor<2x3x70xf32>, tensor<70xf32>, tensor<2x1x1xf32>, tensor<?xf32>,
        tensor<3xf32>, tensor<2x3x70xf32>, tensor<45x70xf32>, tensor<37x70xf32>,
        tensor<100xf64>, tensor<4x70xi32>, tensor<3x?xf32>, tensor<?x70xf32>
}
