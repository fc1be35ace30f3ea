// RUN: wrapper-opt %s --split-input-file --wrapper-read-through-pads --canonicalize | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// A padded input: read from the source, shifted by the low padding, with
// the padding value outside it; the pad is gone.
// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.+]]: tensor<4x3xf32>, %[[Y:.+]]: tensor<4x4xf32>)
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG: %[[PAD:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[Y]] : tensor<4x4xf32>)
// CHECK: %[[I:.+]] = linalg.index 0
// CHECK: %[[J:.+]] = linalg.index 1
// CHECK: %[[S:.+]] = arith.subi %[[J]], %[[C1]]
// CHECK: %[[IN:.+]] = arith.cmpi ult, %[[S]], %[[C3]]
// CHECK: %[[V:.+]] = tensor.extract %[[X]]
// CHECK: %[[P:.+]] = arith.select %[[IN]], %[[V]], %[[PAD]]
// CHECK: arith.addf %[[P]]
func.func @pad(%x: tensor<4x3xf32>, %y: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x3xf32> to tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %y : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A padded slice of a collapsed tensor (a convolution gradient's shifted
// window): the pad is read through; the views under it stay (they copy
// nothing).
// CHECK-LABEL: func.func @slice_of_collapse
// CHECK: %[[C:.+]] = tensor.collapse_shape
// CHECK: %[[S:.+]] = tensor.extract_slice %[[C]]
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic
// CHECK: tensor.extract %[[S]]
// CHECK: arith.select
func.func @slice_of_collapse(%x: tensor<2x3x4xf32>) -> tensor<3x2xf32> {
  %zero = arith.constant 0.0 : f32
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %s = tensor.extract_slice %c[1, 0] [2, 2] [2, 3] : tensor<6x4xf32> to tensor<2x2xf32>
  %p = tensor.pad %s low[1, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<2x2xf32> to tensor<3x2xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<3x2xf32>) outs(%e : tensor<3x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>

// Left alone: views with no pad or transpose underneath (already free), a
// pad whose value depends on the index and a dynamic shape.
// CHECK-LABEL: func.func @left_alone
// CHECK: tensor.collapse_shape
// CHECK: tensor.pad
// CHECK: tensor.pad
// CHECK-NOT: tensor.pad
// CHECK-NOT: tensor.extract
// CHECK: return
func.func @left_alone(%x: tensor<2x3x4xf32>, %d: tensor<?x4xf32>)
    -> (tensor<6x4xf32>, tensor<7x4xf32>, tensor<?x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %e0 = tensor.empty() : tensor<6x4xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<6x4xf32>) outs(%e0 : tensor<6x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<6x4xf32>
  %p1 = tensor.pad %c low[1, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    %f = arith.index_cast %i : index to i32
    %v = arith.sitofp %f : i32 to f32
    tensor.yield %v : f32
  } : tensor<6x4xf32> to tensor<7x4xf32>
  %e1 = tensor.empty() : tensor<7x4xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p1 : tensor<7x4xf32>) outs(%e1 : tensor<7x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<7x4xf32>
  %p2 = tensor.pad %d low[1, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<?x4xf32> to tensor<?x4xf32>
  %c0 = arith.constant 0 : index
  %n2 = tensor.dim %p2, %c0 : tensor<?x4xf32>
  %e2 = tensor.empty(%n2) : tensor<?x4xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p2 : tensor<?x4xf32>) outs(%e2 : tensor<?x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<?x4xf32>
  return %r0, %r1, %r2 : tensor<6x4xf32>, tensor<7x4xf32>, tensor<?x4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>

// A pad read whole (by a reduction, a product, through a slice by a
// product, and returned) would be a buffer filled with zeros and a copy
// into it: two kernels on a GPU. It is one generic instead, reading the
// source where it is and selecting the padding value elsewhere; the
// elementwise reader still reads through the pad itself.
// CHECK-LABEL: func.func @read_whole
// CHECK-SAME: (%[[X:.+]]: tensor<6x4xf32>,
// CHECK-NOT: tensor.pad
// CHECK: %[[P:.+]] = linalg.generic
// CHECK: tensor.extract %[[X]]
// CHECK: arith.select
// CHECK: linalg.generic {{.*}}["parallel", "reduction"]{{.*}} ins(%[[P]] :
// CHECK: %[[S:.+]] = tensor.extract_slice %[[P]]
// CHECK: linalg.matmul ins(%[[S]],
// CHECK: linalg.generic
// CHECK: tensor.extract %[[X]]
// CHECK: return {{.*}}%[[P]]
func.func @read_whole(%x: tensor<6x4xf32>, %acc: tensor<7xf32>, %w: tensor<4x3xf32>, %mm: tensor<6x3xf32>)
    -> (tensor<7xf32>, tensor<6x3xf32>, tensor<7x4xf32>, tensor<7x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<6x4xf32> to tensor<7x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<7x4xf32>) outs(%acc : tensor<7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<7xf32>
  %s = tensor.extract_slice %p[0, 0] [6, 4] [1, 1] : tensor<7x4xf32> to tensor<6x4xf32>
  %m = linalg.matmul ins(%s, %w : tensor<6x4xf32>, tensor<4x3xf32>) outs(%mm : tensor<6x3xf32>) -> tensor<6x3xf32>
  %e = tensor.empty() : tensor<7x4xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<7x4xf32>) outs(%e : tensor<7x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.negf %a : f32
    linalg.yield %v : f32
  } -> tensor<7x4xf32>
  return %r, %m, %n, %p : tensor<7xf32>, tensor<6x3xf32>, tensor<7x4xf32>, tensor<7x4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A transposed, collapsed and sliced tensor: the slice's offset and stride,
// the collapse's delinearization and the transpose's permutation in one
// read of the original tensor.
// CHECK-LABEL: func.func @slice_of_transpose
// CHECK-SAME: (%[[X:.+]]: tensor<3x2x4xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic
// CHECK-DAG: arith.remui
// CHECK-DAG: arith.divui
// CHECK: tensor.extract %[[X]]
func.func @slice_of_transpose(%x: tensor<3x2x4xf32>) -> tensor<2x2xf32> {
  %e0 = tensor.empty() : tensor<2x3x4xf32>
  %t = linalg.transpose ins(%x : tensor<3x2x4xf32>) outs(%e0 : tensor<2x3x4xf32>) permutation = [1, 0, 2]
  %c = tensor.collapse_shape %t [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %s = tensor.extract_slice %c[1, 0] [2, 2] [2, 3] : tensor<6x4xf32> to tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
