// RUN: wrapper-opt %s --split-input-file --wrapper-fuse-elementwise-keep-contractions | FileCheck %s
// RUN: wrapper-opt %s --split-input-file --wrapper-fuse-elementwise-keep-contractions=recompute=true | FileCheck %s --check-prefix=RECOMPUTE

#id = affine_map<(d0, d1) -> (d0, d1)>

// Two elementwise generics become one.

// CHECK-LABEL: func.func @chain
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: arith.addf
// CHECK: arith.mulf
func.func @chain(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A named matmul takes no producer and its consumer does not take it: it
// stays a linalg.matmul for the GEMM template and cuBLAS.

// CHECK-LABEL: func.func @matmul_stays
// CHECK: linalg.generic
// CHECK: linalg.matmul
// CHECK: linalg.generic
func.func @matmul_stays(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %neg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %p = linalg.matmul ins(%neg, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x16xf32>) outs(%e2 : tensor<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A cheap producer with two users: kept apart by default (it has more than
// one use), recomputed in both users with recompute=true.

// CHECK-LABEL: func.func @two_users
// CHECK-COUNT-3: linalg.generic
// RECOMPUTE-LABEL: func.func @two_users
// RECOMPUTE-COUNT-2: linalg.generic
// RECOMPUTE-NOT: linalg.generic
func.func @two_users(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %ab = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = math.absf %x : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %sq, %ab : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A product written as a linalg.generic (a weight shared by every batch
// element, as convolutions give) keeps the reshape of its output outside:
// it stays a batched matrix product over [b, m, n] instead of taking the
// expanded [b, m, h, w] shape.

// CHECK-LABEL: func.func @generic_product_keeps_its_reshape
// RECOMPUTE-LABEL: func.func @generic_product_keeps_its_reshape
// RECOMPUTE: tensor.expand_shape
// CHECK: %[[P:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: outs(%{{.*}} : tensor<2x4x16xf32>)
// CHECK: tensor.expand_shape %[[P]] {{\[\[}}0], [1], [2, 3]] output_shape [2, 4, 4, 4]
func.func @generic_product_keeps_its_reshape(%w: tensor<4x8xf32>, %x: tensor<2x8x16xf32>) -> tensor<2x4x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%w, %x : tensor<4x8xf32>, tensor<2x8x16xf32>) outs(%acc : tensor<2x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x16xf32>
  %r = tensor.expand_shape %p [[0], [1], [2, 3]] output_shape [2, 4, 4, 4] : tensor<2x4x16xf32> into tensor<2x4x4x4xf32>
  return %r : tensor<2x4x4x4xf32>
}

// -----

// The elementwise consumer of an expanded product (a 1x1 convolution's
// [F, P] product viewed as [1, F, H, W], scaled per channel and clamped)
// takes the product's shape: the unit batch loop and the scale's broadcast
// unit dimensions go, its [H, W] loops collapse to P, and the reshape moves
// after it, so that it reads the product at (m, n) as a GEMM epilogue.

// CHECK-LABEL: func.func @epilogue_takes_the_product_shape
// CHECK: %[[P:.*]] = linalg.matmul
// CHECK: %[[S:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : tensor<4x1x1xf32> into tensor<4xf32>
// CHECK: %[[E:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[P]], %[[S]] : tensor<4x16xf32>, tensor<4xf32>)
// CHECK: tensor.expand_shape %[[E]] {{\[\[}}0, 1], [2, 3]] output_shape [1, 4, 4, 4] : tensor<4x16xf32> into tensor<1x4x4x4xf32>
// RECOMPUTE-LABEL: func.func @epilogue_takes_the_product_shape
func.func @epilogue_takes_the_product_shape(%w: tensor<4x8xf32>, %x: tensor<8x16xf32>, %s: tensor<4x1x1xf32>) -> tensor<1x4x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %p = linalg.matmul ins(%w, %x : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  %v = tensor.expand_shape %p [[0, 1], [2, 3]] output_shape [1, 4, 4, 4] : tensor<4x16xf32> into tensor<1x4x4x4xf32>
  %o = tensor.empty() : tensor<1x4x4x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v, %s : tensor<1x4x4x4xf32>, tensor<4x1x1xf32>) outs(%o : tensor<1x4x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %c = arith.maximumf %m, %zero : f32
    linalg.yield %c : f32
  } -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// A convolution's product over the batch plus its bias, [F, N * P] viewed
// as [F, N, P], permuted to [N, F, P] (the innermost dimension in place)
// and read by one elementwise op (relu): the transpose becomes a generic
// fused into it, one permuted read with contiguous rows instead of a copy
// through a transposed temporary (the bias stays the product's epilogue).
// Transposes of other values (an input, attention's heads) and of the
// innermost dimension stay.
// CHECK-DAG: #[[PERM:.*]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-LABEL: func.func @permuted_epilogue(
// CHECK: %[[P:.*]] = linalg.matmul
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<4x12xf32>, tensor<4x1xf32>)
// CHECK: arith.addf
// CHECK: %[[V:.*]] = tensor.expand_shape %[[B]]
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[PERM]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[V]] : tensor<4x2x6xf32>)
// CHECK: arith.maximumf
// CHECK-NOT: linalg.generic
// CHECK: return
// CHECK-LABEL: func.func @transposes_kept(
// CHECK: linalg.transpose {{.*}} permutation = [1, 0]
// CHECK: linalg.transpose {{.*}} permutation = [1, 0, 2]
func.func @permuted_epilogue(%w: tensor<4x3xf32>, %cols: tensor<3x12xf32>, %bias: tensor<4x1xf32>) -> tensor<2x4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x12xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x12xf32>) -> tensor<4x12xf32>
  %p = linalg.matmul ins(%w, %cols : tensor<4x3xf32>, tensor<3x12xf32>) outs(%f : tensor<4x12xf32>) -> tensor<4x12xf32>
  %be = tensor.empty() : tensor<4x12xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p, %bias : tensor<4x12xf32>, tensor<4x1xf32>) outs(%be : tensor<4x12xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x12xf32>
  %v = tensor.expand_shape %b [[0], [1, 2]] output_shape [4, 2, 6] : tensor<4x12xf32> into tensor<4x2x6xf32>
  %te = tensor.empty() : tensor<2x4x6xf32>
  %t = linalg.transpose ins(%v : tensor<4x2x6xf32>) outs(%te : tensor<2x4x6xf32>) permutation = [1, 0, 2]
  %re = tensor.empty() : tensor<2x4x6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%t : tensor<2x4x6xf32>) outs(%re : tensor<2x4x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x4x6xf32>
  return %r : tensor<2x4x6xf32>
}

func.func @transposes_kept(%x: tensor<4x6xf32>, %y: tensor<4x2x6xf32>) -> (tensor<6x4xf32>, tensor<2x4x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x6xf32>) outs(%e : tensor<6x4xf32>) permutation = [1, 0]
  %re = tensor.empty() : tensor<6x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<6x4xf32>) outs(%re : tensor<6x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<6x4xf32>
  %e3 = tensor.empty() : tensor<2x4x6xf32>
  %t3 = linalg.transpose ins(%y : tensor<4x2x6xf32>) outs(%e3 : tensor<2x4x6xf32>) permutation = [1, 0, 2]
  %re3 = tensor.empty() : tensor<2x4x6xf32>
  %r3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%t3 : tensor<2x4x6xf32>) outs(%re3 : tensor<2x4x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x4x6xf32>
  return %r, %r3 : tensor<6x4xf32>, tensor<2x4x6xf32>
}
