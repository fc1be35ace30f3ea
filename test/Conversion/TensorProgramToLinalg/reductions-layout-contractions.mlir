// RUN: wrapper-opt %s --convert-tensor-program-to-linalg --split-input-file | FileCheck %s --implicit-check-not=tensor_program.

// Tests that a keepdim sum fills with 0 and maps the kept dimension to 0.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @sum_keepdim
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.fill ins(%[[Z]] : f32)
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.addf
func.func @sum_keepdim(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %0 = tensor_program.reduce_sum %x dims [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// Tests that a bf16 max accumulates in f32 from -inf and rounds at the end;
// a dynamic mean divides by the element count read at run time.
// CHECK-LABEL: func.func @max_and_mean
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.maximumf
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: tensor.dim
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: arith.divf
func.func @max_and_mean(%x: tensor<4x8xbf16>, %y: tensor<?x8xf32>) -> (tensor<4xbf16>, tensor<8xf32>) {
  %0 = tensor_program.reduce_max %x dims [1] : tensor<4x8xbf16> -> tensor<4xbf16>
  %1 = tensor_program.reduce_mean %y dims [0] : tensor<?x8xf32> -> tensor<8xf32>
  return %0, %1 : tensor<4xbf16>, tensor<8xf32>
}

// -----

// Tests that argmax carries value and index, and takes NaN as a maximum.
// CHECK-LABEL: func.func @argmax
// CHECK: linalg.generic
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
// CHECK: linalg.index 1
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f32, i64
func.func @argmax(%x: tensor<4x8xf32>) -> tensor<4xi64> {
  %0 = tensor_program.argmax %x dim 1 : tensor<4x8xf32> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Tests the layout lowerings.
// CHECK-LABEL: func.func @layout
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x8xf32>) outs(%{{.*}} : tensor<8x4xf32>) permutation = [1, 0]
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
// CHECK: tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [2, 16] : tensor<32xf32> into tensor<2x16xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 2] [4, 2] [1, 2] : tensor<4x8xf32> to tensor<4x2xf32>
// CHECK: tensor.concat dim(0)
// CHECK: tensor.pad %{{.*}} low[0, 1] high[0, 2]
// CHECK: tensor.extract
func.func @layout(%x: tensor<4x8xf32>) -> (tensor<8x4xf32>, tensor<2x16xf32>, tensor<4x2xf32>, tensor<8x8xf32>, tensor<4x11xf32>, tensor<2x2xf32>) {
  %0 = tensor_program.permute %x [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = tensor_program.reshape %x : tensor<4x8xf32> -> tensor<2x16xf32>
  %2 = tensor_program.slice %x dim 1 start 2 end 6 step 2 : tensor<4x8xf32> -> tensor<4x2xf32>
  %3 = tensor_program.concat %x, %x dim 0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %4 = tensor_program.pad %x low [0, 1] high [0, 2] value 0.0 : tensor<4x8xf32> -> tensor<4x11xf32>
  %5 = tensor_program.as_strided %x sizes [2, 2] strides [1, 2] offset 1 : tensor<4x8xf32> -> tensor<2x2xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<8x4xf32>, tensor<2x16xf32>, tensor<4x2xf32>, tensor<8x8xf32>, tensor<4x11xf32>, tensor<2x2xf32>
}

// -----

// Tests that a slice of a dynamic dimension clamps at run time.
// CHECK-LABEL: func.func @dynamic_slice
// CHECK: arith.minsi
// CHECK: arith.ceildivsi
// CHECK: tensor.extract_slice
func.func @dynamic_slice(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = tensor_program.slice %x dim 0 start 1 end 9 step 3 : tensor<?x8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// Tests that 2-D matmul and 3-D batch_matmul use the named ops (f16 operands
// accumulated into an f32 C, then rounded), that an N-d lhs by a 2-d rhs
// folds its leading dimensions into the rows of a 2-D linalg.matmul, and
// that other batch broadcasting uses a contraction generic.
// CHECK-LABEL: func.func @contractions
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x2xf32>)
// CHECK: linalg.batch_matmul
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<3x4x8xf32> into tensor<12x8xf32>
// CHECK: %[[P:.*]] = linalg.matmul ins(%[[FLAT]], %{{.*}} : tensor<12x8xf32>, tensor<8x2xf32>)
// CHECK: tensor.expand_shape %[[P]] {{\[\[}}0, 1], [2]] output_shape [3, 4, 2] : tensor<12x2xf32> into tensor<3x4x2xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: %[[F16ACC:.*]] = linalg.fill {{.*}} -> tensor<4x2xf32>
// CHECK: %[[F16P:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x2xf16>) outs(%[[F16ACC]] : tensor<4x2xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[F16P]] : tensor<4x2xf32>) outs(%{{.*}} : tensor<4x2xf16>)
// CHECK: arith.truncf
func.func @contractions(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<3x4x8xf32>, %d: tensor<3x8x2xf32>,
                        %h: tensor<4x8xf16>, %k: tensor<8x2xf16>)
    -> (tensor<4x2xf32>, tensor<3x4x2xf32>, tensor<3x4x2xf32>, tensor<3x4x2xf32>, tensor<4x2xf16>) {
  %0 = tensor_program.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %1 = tensor_program.batch_matmul %c, %d : (tensor<3x4x8xf32>, tensor<3x8x2xf32>) -> tensor<3x4x2xf32>
  %2 = tensor_program.matmul %c, %b : (tensor<3x4x8xf32>, tensor<8x2xf32>) -> tensor<3x4x2xf32>
  %4 = tensor_program.matmul %a, %d : (tensor<4x8xf32>, tensor<3x8x2xf32>) -> tensor<3x4x2xf32>
  %3 = tensor_program.matmul %h, %k : (tensor<4x8xf16>, tensor<8x2xf16>) -> tensor<4x2xf16>
  return %0, %1, %2, %4, %3 : tensor<4x2xf32>, tensor<3x4x2xf32>, tensor<3x4x2xf32>, tensor<3x4x2xf32>, tensor<4x2xf16>
}

// -----

// Tests that a product reads an operand that transposes the last two
// dimensions in place, through transposed indexing maps (A as (k, m), B as
// (n, k)), so the transposes are left unused (canonicalization erases
// them): a 2-D linalg.matmul (bf16 operands still accumulating in f32), and
// a batched product as a contraction generic (the named batch_matmul takes
// the default maps only).
// CHECK-DAG: #[[AT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[BA:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[BBT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[BC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @transposed_operands
// CHECK-SAME: (%[[X:.*]]: tensor<8x?xf32>, %[[W:.*]]: tensor<2x8xf32>, %[[Y:.*]]: tensor<4x8xf32>, %[[H:.*]]: tensor<8x4xbf16>, %[[K:.*]]: tensor<2x8xbf16>, %[[D:.*]]: tensor<3x2x8xf32>, %[[YB:.*]]: tensor<3x4x8xf32>)
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x2xf32>
// CHECK: %[[ACC:.*]] = linalg.fill {{.*}} outs(%[[E]] : tensor<?x2xf32>)
// CHECK: linalg.matmul indexing_maps = [#[[AT]], #[[BT]], #[[C]]] ins(%[[X]], %[[W]] : tensor<8x?xf32>, tensor<2x8xf32>) outs(%[[ACC]] : tensor<?x2xf32>)
// CHECK: linalg.matmul indexing_maps = [#[[A]], #[[BT]], #[[C]]] ins(%[[Y]], %[[W]] : tensor<4x8xf32>, tensor<2x8xf32>)
// CHECK: %[[HP:.*]] = linalg.matmul indexing_maps = [#[[AT]], #[[BT]], #[[C]]] ins(%[[H]], %[[K]] : tensor<8x4xbf16>, tensor<2x8xbf16>) outs(%{{.*}} : tensor<4x2xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[HP]] : tensor<4x2xf32>) outs(%{{.*}} : tensor<4x2xbf16>)
// CHECK: linalg.generic {indexing_maps = [#[[BA]], #[[BBT]], #[[BC]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[YB]], %[[D]] : tensor<3x4x8xf32>, tensor<3x2x8xf32>)
func.func @transposed_operands(%x: tensor<8x?xf32>, %w: tensor<2x8xf32>, %y: tensor<4x8xf32>,
                               %h: tensor<8x4xbf16>, %k: tensor<2x8xbf16>, %d: tensor<3x2x8xf32>,
                               %yb: tensor<3x4x8xf32>)
    -> (tensor<?x2xf32>, tensor<4x2xf32>, tensor<4x2xbf16>, tensor<3x4x2xf32>) {
  %xt = tensor_program.permute %x [1, 0] : tensor<8x?xf32> -> tensor<?x8xf32>
  %wt = tensor_program.permute %w [1, 0] : tensor<2x8xf32> -> tensor<8x2xf32>
  %0 = tensor_program.matmul %xt, %wt : (tensor<?x8xf32>, tensor<8x2xf32>) -> tensor<?x2xf32>
  %1 = tensor_program.matmul %y, %wt : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %ht = tensor_program.permute %h [1, 0] : tensor<8x4xbf16> -> tensor<4x8xbf16>
  %kt = tensor_program.permute %k [1, 0] : tensor<2x8xbf16> -> tensor<8x2xbf16>
  %2 = tensor_program.matmul %ht, %kt : (tensor<4x8xbf16>, tensor<8x2xbf16>) -> tensor<4x2xbf16>
  %dt = tensor_program.permute %d [0, 2, 1] : tensor<3x2x8xf32> -> tensor<3x8x2xf32>
  %3 = tensor_program.batch_matmul %yb, %dt : (tensor<3x4x8xf32>, tensor<3x8x2xf32>) -> tensor<3x4x2xf32>
  return %0, %1, %2, %3 : tensor<?x2xf32>, tensor<4x2xf32>, tensor<4x2xbf16>, tensor<3x4x2xf32>
}

// -----

// Tests that flip reads its input at size - 1 - i along the flipped
// dimensions (a dynamic one through tensor.dim) and at i along the others.
// CHECK-LABEL: func.func @flip
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK: %[[LAST0:.*]] = arith.subi %[[N]], %[[C1:.*]] : index
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[LAST1:.*]] = arith.subi %[[C3]], %[[C1]] : index
// CHECK: linalg.generic
// CHECK-SAME: outs(
// CHECK: %[[I:.*]] = linalg.index 0
// CHECK: %[[FI:.*]] = arith.subi %[[LAST0]], %[[I]]
// CHECK: %[[J:.*]] = linalg.index 1
// CHECK: %[[FJ:.*]] = arith.subi %[[LAST1]], %[[J]]
// CHECK: tensor.extract %[[X]][%[[FI]], %[[FJ]]]
func.func @flip(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = tensor_program.flip %x [0, 1] : tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
