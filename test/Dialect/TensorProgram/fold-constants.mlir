// RUN: wrapper-opt %s --tensor-program-fold-constants --split-input-file | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-fold-constants="report=true" --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// RUN: wrapper-opt %s --tensor-program-fold-constants="max-elements=3" --split-input-file | FileCheck %s --check-prefix=SMALL

// Tests that a weight transpose and the arithmetic on constants are
// computed at compile time, and that ops on arguments stay.
// REPORT: remark: tensor-program-fold-constants: folded 3 ops
// CHECK-LABEL: func.func @weights
// CHECK-SAME: (%[[X:.*]]: tensor<2x2xf32>)
// CHECK-DAG: %[[W:.*]] = tensor_program.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG: %[[B:.*]] = tensor_program.constant dense<[2.000000e+00, -6.000000e+00]> : tensor<2xf32>
// CHECK: %[[M:.*]] = tensor_program.matmul %[[X]], %[[W]]
// CHECK: %[[R:.*]] = tensor_program.add %[[M]], %[[B]]
// CHECK: return %[[R]]
// A permutation never makes the weights larger: folded above max-elements
// too (SMALL), on the raw bytes.
// SMALL-LABEL: func.func @weights
// SMALL: tensor_program.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// SMALL-NOT: tensor_program.permute
// SMALL-NOT: tensor_program.mul
func.func @weights(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = tensor_program.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %t = tensor_program.permute %w [1, 0] : tensor<2x2xf32> -> tensor<2x2xf32>
  %b = tensor_program.constant dense<[0.5, -1.5]> : tensor<2xf32>
  %two = tensor_program.constant dense<2.0> : tensor<f32>
  %b2 = tensor_program.mul %b, %two : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %b3 = tensor_program.add %b2, %b2 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %m = tensor_program.matmul %x, %t : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = tensor_program.add %m, %b3 : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// Tests that reductions and casts of constants fold, that composites stay
// (the pipelines decompose them first; see @decomposed_softmax), that ops
// with a non-constant operand stay, and that a result above max-elements
// stays (SMALL).
// CHECK-LABEL: func.func @kinds
// CHECK-DAG: tensor_program.constant dense<[1.000000e+00, 5.000000e-01]> : tensor<2xf16>
// CHECK-DAG: tensor_program.constant dense<4> : tensor<i32>
// CHECK-DAG: tensor_program.softmax
// CHECK: tensor_program.add %{{.*}}, %{{.*}} : (tensor<2xf32>, tensor<2xf32>)
// CHECK-NOT: tensor_program.reduce_sum
// SMALL-LABEL: func.func @kinds
// SMALL: tensor_program.broadcast
func.func @kinds(%x: tensor<2xf32>) -> (tensor<2xf16>, tensor<i32>, tensor<1x2xf32>, tensor<2xf32>, tensor<4x2xf32>) {
  %a = tensor_program.constant dense<[1.0, 0.5]> : tensor<2xf32>
  %h = tensor_program.cast %a : tensor<2xf32> to tensor<2xf16>
  %i = tensor_program.constant dense<[1, 3]> : tensor<2xi32>
  %s = tensor_program.reduce_sum %i dims [0] : tensor<2xi32> -> tensor<i32>
  %z = tensor_program.constant dense<[[3.0, 3.0]]> : tensor<1x2xf32>
  %sm = tensor_program.softmax %z dim 1 : tensor<1x2xf32>
  %y = tensor_program.add %x, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b = tensor_program.broadcast %a : tensor<2xf32> -> tensor<4x2xf32>
  return %h, %s, %sm, %y, %b : tensor<2xf16>, tensor<i32>, tensor<1x2xf32>, tensor<2xf32>, tensor<4x2xf32>
}

// -----

// Tests that a softmax of constants folds once decomposed (what the
// pipelines run first): max, subtract, exp, sum, divide.
// RUN: wrapper-opt %s --split-input-file --tensor-program-decompose --tensor-program-fold-constants | FileCheck %s --check-prefix=DECOMPOSED
// DECOMPOSED-LABEL: func.func @decomposed_softmax
// DECOMPOSED-NEXT: %[[C:.*]] = tensor_program.constant dense<{{\[\[}}5.000000e-01, 5.000000e-01], [0.119202{{[0-9]*}}, 8.80797{{[0-9]*}}e-01]]> : tensor<2x2xf32>
// DECOMPOSED-NEXT: return %[[C]]
func.func @decomposed_softmax() -> tensor<2x2xf32> {
  %z = tensor_program.constant dense<[[3.0, 3.0], [1.0, 3.0]]> : tensor<2x2xf32>
  %sm = tensor_program.softmax %z dim 1 : tensor<2x2xf32>
  return %sm : tensor<2x2xf32>
}

// -----

// Tests integer semantics: division toward zero, floor division, Python's
// remainder, wrap-around at the width, bitwise ops, comparisons to i1.
// CHECK-LABEL: func.func @integers
// CHECK-DAG: tensor_program.constant dense<[-3, 3]> : tensor<2xi32>
// CHECK-DAG: tensor_program.constant dense<[-4, 3]> : tensor<2xi32>
// CHECK-DAG: tensor_program.constant dense<1> : tensor<2xi32>
// CHECK-DAG: tensor_program.constant dense<-128> : tensor<i8>
// CHECK-DAG: tensor_program.constant dense<[true, false]> : tensor<2xi1>
// CHECK-DAG: tensor_program.constant dense<[6, 1]> : tensor<2xi32>
func.func @integers() -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<i8>, tensor<2xi1>, tensor<2xi32>) {
  %a = tensor_program.constant dense<[-7, 7]> : tensor<2xi32>
  %b = tensor_program.constant dense<2> : tensor<2xi32>
  %div = tensor_program.div %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %fdiv = tensor_program.floor_div %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %rem = tensor_program.remainder %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %m = tensor_program.constant dense<127> : tensor<i8>
  %one = tensor_program.constant dense<1> : tensor<i8>
  %wrap = tensor_program.add %m, %one : (tensor<i8>, tensor<i8>) -> tensor<i8>
  %lt = tensor_program.compare lt, %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  %x = tensor_program.constant dense<[4, 3]> : tensor<2xi32>
  %or = tensor_program.xor %x, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %div, %fdiv, %rem, %wrap, %lt, %or : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<i8>, tensor<2xi1>, tensor<2xi32>
}

// -----

// Tests that values the definitions leave open are not folded: integer
// division by zero, a NaN cast to an integer.
// CHECK-LABEL: func.func @open_values
// CHECK: tensor_program.div
// CHECK: tensor_program.cast
func.func @open_values() -> (tensor<2xi32>, tensor<i32>) {
  %a = tensor_program.constant dense<[1, 2]> : tensor<2xi32>
  %z = tensor_program.constant dense<[1, 0]> : tensor<2xi32>
  %d = tensor_program.div %a, %z : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %nan = tensor_program.constant dense<0x7FC00000> : tensor<f32>
  %c = tensor_program.cast %nan : tensor<f32> to tensor<i32>
  return %d, %c : tensor<2xi32>, tensor<i32>
}

// -----

// Tests layout ops and generators: slice with a step, concat, pad, iota,
// broadcast of a splat (stays a splat).
// CHECK-LABEL: func.func @layout
// CHECK-DAG: tensor_program.constant dense<[0, 2, 4]> : tensor<3xi64>
// CHECK-DAG: tensor_program.constant dense<{{\[\[}}0.000000e+00, 1.000000e+00, 2.000000e+00, 9.000000e+00], [0.000000e+00, 1.000000e+00, 2.000000e+00, 9.000000e+00]]> : tensor<2x4xf32>
// CHECK-DAG: tensor_program.constant dense<[-1.000000e+00, 0.000000e+00, 2.000000e+00, 4.000000e+00, -1.000000e+00]> : tensor<5xf32>
// CHECK-DAG: tensor_program.constant dense<7.000000e+00> : tensor<1000x1000xf32>
func.func @layout() -> (tensor<3xi64>, tensor<2x4xf32>, tensor<5xf32>, tensor<1000x1000xf32>) {
  %i = tensor_program.iota dim 0 : tensor<6xi64>
  %s = tensor_program.slice %i dim 0 start 0 end 6 step 2 : tensor<6xi64> -> tensor<3xi64>
  %r = tensor_program.iota dim 1 : tensor<2x3xf32>
  %nine = tensor_program.constant dense<9.0> : tensor<2x1xf32>
  %c = tensor_program.concat %r, %nine dim 1 : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %v = tensor_program.constant dense<[0.0, 2.0, 4.0]> : tensor<3xf32>
  %p = tensor_program.pad %v low [1] high [1] value -1.0 : tensor<3xf32> -> tensor<5xf32>
  %seven = tensor_program.constant dense<7.0> : tensor<f32>
  %big = tensor_program.broadcast %seven : tensor<f32> -> tensor<1000x1000xf32>
  return %s, %c, %p, %big : tensor<3xi64>, tensor<2x4xf32>, tensor<5xf32>, tensor<1000x1000xf32>
}

// -----

// Tests take and cumsum of constants (the attention masks Hugging Face
// models build from positions): a take along an inner dimension by a 2-D
// index, negative indices counted from the end and out-of-range ones
// clamped; cumsum of integers (wrapped at their width) and of f32 (summed
// in f32: 1e8 + 1 + 1 stays 1e8); a take whose index is an argument stays.
// CHECK-LABEL: func.func @gathers_and_scans
// CHECK-DAG: tensor_program.constant dense<{{\[\[\[}}1.000000e+00, 0.000000e+00], [2.000000e+00, 2.000000e+00]], {{\[\[}}4.000000e+00, 3.000000e+00], [5.000000e+00, 5.000000e+00]]]> : tensor<2x2x2xf32>
// CHECK-DAG: tensor_program.constant dense<{{\[\[}}1, 3, 6], [4, 9, -126]]> : tensor<2x3xi8>
// CHECK-DAG: tensor_program.constant dense<1.000000e+08> : tensor<3xf32>
// CHECK: tensor_program.take %{{.*}}, %{{.*}} dim 0 : (tensor<2x3xf32>, tensor<4xi64>)
func.func @gathers_and_scans(%ids: tensor<4xi64>) -> (tensor<2x2x2xf32>, tensor<2x3xi8>, tensor<3xf32>, tensor<4x3xf32>) {
  %t = tensor_program.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]> : tensor<2x3xf32>
  %i = tensor_program.constant dense<[[1, 0], [-1, 7]]> : tensor<2x2xi64>
  %g = tensor_program.take %t, %i dim 1 : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2x2xf32>
  %n = tensor_program.constant dense<[[1, 2, 3], [4, 5, 121]]> : tensor<2x3xi8>
  %c = tensor_program.cumsum %n dim 1 : tensor<2x3xi8>
  %f = tensor_program.constant dense<[1.0e8, 1.0, 1.0]> : tensor<3xf32>
  %fc = tensor_program.cumsum %f dim 0 : tensor<3xf32>
  %kept = tensor_program.take %t, %ids dim 0 : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  return %g, %c, %fc, %kept : tensor<2x2x2xf32>, tensor<2x3xi8>, tensor<3xf32>, tensor<4x3xf32>
}

// -----

// Tests products of constants: matmul with a broadcast batch, integer
// batch_matmul (the rotary tables of a transformer are such products).
// CHECK-LABEL: func.func @products
// CHECK-DAG: tensor_program.constant dense<{{\[\[\[}}9.000000e+00], [2.100000e+01]], {{\[\[}}1.000000e+00], [1.000000e+00]]]> : tensor<2x2x1xf32>
// CHECK-DAG: tensor_program.constant dense<{{\[\[\[}}19, 22], [43, 50]]]> : tensor<1x2x2xi32>
// CHECK-NOT: matmul
func.func @products() -> (tensor<2x2x1xf32>, tensor<1x2x2xi32>) {
  %a = tensor_program.constant dense<[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]> : tensor<2x2x3xf32>
  %b = tensor_program.constant dense<[[1.0], [1.0], [2.0]]> : tensor<3x1xf32>
  %m = tensor_program.matmul %a, %b : (tensor<2x2x3xf32>, tensor<3x1xf32>) -> tensor<2x2x1xf32>
  %c = tensor_program.constant dense<[[[1, 2], [3, 4]]]> : tensor<1x2x2xi32>
  %d = tensor_program.constant dense<[[[5, 6], [7, 8]]]> : tensor<1x2x2xi32>
  %e = tensor_program.batch_matmul %c, %d : (tensor<1x2x2xi32>, tensor<1x2x2xi32>) -> tensor<1x2x2xi32>
  return %m, %e : tensor<2x2x1xf32>, tensor<1x2x2xi32>
}

// -----

// Tests that an inference batch norm (a per-channel scale and shift) folds
// into the convolution before it: each filter scaled (2, 3 on a weight of
// ones), the bias scaled and shifted (b * s + t = [1 * 2 + 0.5, 2 * 3 - 1]),
// one convolution left with the relu after it.
// REPORT: remark: tensor-program-fold-constants: folded {{[0-9]+}} ops, 2 scales and shifts into convolutions
// CHECK-LABEL: func.func @batch_norm
// CHECK-DAG: %[[W:.*]] = tensor_program.constant dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}3.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-DAG: %[[B:.*]] = tensor_program.constant dense<[2.500000e+00, 5.000000e+00]> : tensor<2xf32>
// CHECK: %[[C:.*]] = tensor_program.convolution %{{.*}}, %[[W]] bias %[[B]]
// CHECK-NEXT: tensor_program.relu %[[C]]
// CHECK-NOT: tensor_program.mul
func.func @batch_norm(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = tensor_program.constant dense<1.0> : tensor<2x1x1x1xf32>
  %b = tensor_program.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %s = tensor_program.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %t = tensor_program.constant dense<[[[0.5]], [[-1.0]]]> : tensor<2x1x1xf32>
  %c = tensor_program.convolution %x, %w bias %b stride [1, 1] dilation [1, 1] groups 1 : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %m = tensor_program.mul %s, %c : (tensor<2x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %a = tensor_program.add %m, %t : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = tensor_program.relu %a : tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// -----

// Tests what does not fold: a scale that varies along a spatial dimension,
// a convolution whose result has another use, a weight that is an argument.
// REPORT: remark: tensor-program-fold-constants: folded 0 ops, 0 scales and shifts into convolutions
// CHECK-LABEL: func.func @not_batch_norm
// CHECK: tensor_program.convolution
// CHECK: tensor_program.mul
// CHECK: tensor_program.convolution
// CHECK: tensor_program.add
// CHECK: tensor_program.convolution
// CHECK: tensor_program.mul
func.func @not_batch_norm(%x: tensor<1x1x4x4xf32>, %v: tensor<2x1x1x1xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = tensor_program.constant dense<1.0> : tensor<2x1x1x1xf32>
  %s = tensor_program.constant dense<[[1.0], [2.0], [3.0], [4.0]]> : tensor<4x1xf32>
  %c = tensor_program.convolution %x, %w stride [1, 1] dilation [1, 1] groups 1 : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %m = tensor_program.mul %c, %s : (tensor<1x2x4x4xf32>, tensor<4x1xf32>) -> tensor<1x2x4x4xf32>
  %c2 = tensor_program.convolution %x, %w stride [1, 1] dilation [1, 1] groups 1 : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %t = tensor_program.constant dense<[[[0.5]], [[-1.0]]]> : tensor<2x1x1xf32>
  %a = tensor_program.add %c2, %t : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %c3 = tensor_program.convolution %x, %v stride [1, 1] dilation [1, 1] groups 1 : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %n = tensor_program.mul %c3, %t : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %m, %a, %c2, %n : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Permutations of any rank and element width move raw bytes: i64 with
// [2, 0, 1], and bf16 transposed.
// CHECK-LABEL: func.func @raw_permutations
// CHECK-DAG: tensor_program.constant dense<{{\[\[\[}}0, 4, 8], [12, 16, 20]], {{\[\[}}1, 5, 9], [13, 17, 21]], {{\[\[}}2, 6, 10], [14, 18, 22]], {{\[\[}}3, 7, 11], [15, 19, 23]]]> : tensor<4x2x3xi64>
// CHECK-DAG: tensor_program.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xbf16>
// CHECK-NOT: tensor_program.permute
func.func @raw_permutations() -> (tensor<4x2x3xi64>, tensor<3x2xbf16>) {
  %i = tensor_program.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x3x4xi64>
  %p = tensor_program.permute %i [2, 0, 1] : tensor<2x3x4xi64> -> tensor<4x2x3xi64>
  %b = tensor_program.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xbf16>
  %t = tensor_program.permute %b [1, 0] : tensor<2x3xbf16> -> tensor<3x2xbf16>
  return %p, %t : tensor<4x2x3xi64>, tensor<3x2xbf16>
}

// -----

// Flips of constants move raw bytes too, at any size (above
// max-elements, the SMALL prefix), along one dimension or several.
// CHECK-LABEL: func.func @raw_flips
// CHECK-DAG: tensor_program.constant dense<{{\[\[}}2, 1, 0], [5, 4, 3]]> : tensor<2x3xi64>
// CHECK-DAG: tensor_program.constant dense<{{\[\[}}6.000000e+00, 5.000000e+00, 4.000000e+00], [3.000000e+00, 2.000000e+00, 1.000000e+00]]> : tensor<2x3xf32>
// CHECK-NOT: tensor_program.flip
// SMALL-LABEL: func.func @raw_flips
// SMALL-NOT: tensor_program.flip
func.func @raw_flips() -> (tensor<2x3xi64>, tensor<2x3xf32>) {
  %i = tensor_program.constant dense<[[0, 1, 2], [3, 4, 5]]> : tensor<2x3xi64>
  %a = tensor_program.flip %i [1] : tensor<2x3xi64>
  %f = tensor_program.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = tensor_program.flip %f [0, 1] : tensor<2x3xf32>
  return %a, %b : tensor<2x3xi64>, tensor<2x3xf32>
}
