// RUN: wrapper-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(wrapper-write-outputs-in-place))" | FileCheck %s
// RUN: wrapper-opt %s --split-input-file --wrapper-cpu-codegen | FileCheck %s --check-prefix=CODEGEN

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// An output that is a reshape of what the generic computes: the reshape
// moves onto the destination (a view made at the top of the function) and
// the generic's init becomes a tensor.empty of its own type, so that the
// whole pipeline writes the output in place (no memref.copy).
// CHECK-LABEL: func.func @expanded_output
// CHECK-SAME: (%[[X:.*]]: memref<6x8xf32>, %[[B:.*]]: memref<8xf32>, %[[OUT:.*]]: memref<2x3x8xf32>)
// CHECK: %[[VIEW:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0, 1], [2]] : memref<2x3x8xf32> into memref<6x8xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<6x8xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<6x8xf32>)
// CHECK-NOT: tensor.expand_shape
// CHECK: bufferization.materialize_in_destination %[[R]] in restrict writable %[[VIEW]] : (tensor<6x8xf32>, memref<6x8xf32>)
func.func @expanded_output(%x: memref<6x8xf32>, %b: memref<8xf32>, %out: memref<2x3x8xf32>) {
  %xt = bufferization.to_tensor %x restrict : memref<6x8xf32> to tensor<6x8xf32>
  %bt = bufferization.to_tensor %b restrict : memref<8xf32> to tensor<8xf32>
  %e = tensor.empty() : tensor<2x3x8xf32>
  %c = tensor.collapse_shape %e [[0, 1], [2]] : tensor<2x3x8xf32> into tensor<6x8xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%xt, %bt : tensor<6x8xf32>, tensor<8xf32>) outs(%c : tensor<6x8xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %s = arith.addf %a, %v : f32
    linalg.yield %s : f32
  } -> tensor<6x8xf32>
  %y = tensor.expand_shape %r [[0, 1], [2]] output_shape [2, 3, 8] : tensor<6x8xf32> into tensor<2x3x8xf32>
  bufferization.materialize_in_destination %y in restrict writable %out : (tensor<2x3x8xf32>, memref<2x3x8xf32>) -> ()
  return
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// A linear layer's output reshaped to [batch, tokens, features]: the GEMM
// template's epilogue writes it where it goes (it wrote a temporary that
// was copied).
// CODEGEN-LABEL: llvm.func @linear_output
// CODEGEN-NOT: llvm.intr.memcpy
// CODEGEN-NOT: memrefCopy
// CODEGEN: llvm.return
func.func @linear_output(%x: memref<6x8xf32>, %w: memref<8x16xf32>, %b: memref<16xf32>, %out: memref<2x3x16xf32>) {
  %z = arith.constant 0.0 : f32
  %xt = bufferization.to_tensor %x restrict : memref<6x8xf32> to tensor<6x8xf32>
  %wt = bufferization.to_tensor %w restrict : memref<8x16xf32> to tensor<8x16xf32>
  %bt = bufferization.to_tensor %b restrict : memref<16xf32> to tensor<16xf32>
  %e0 = tensor.empty() : tensor<6x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e0 : tensor<6x16xf32>) -> tensor<6x16xf32>
  %p = linalg.matmul ins(%xt, %wt : tensor<6x8xf32>, tensor<8x16xf32>) outs(%f : tensor<6x16xf32>) -> tensor<6x16xf32>
  %e = tensor.empty() : tensor<2x3x16xf32>
  %c = tensor.collapse_shape %e [[0, 1], [2]] : tensor<2x3x16xf32> into tensor<6x16xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%p, %bt : tensor<6x16xf32>, tensor<16xf32>) outs(%c : tensor<6x16xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %s = arith.addf %a, %v : f32
    linalg.yield %s : f32
  } -> tensor<6x16xf32>
  %y = tensor.expand_shape %r [[0, 1], [2]] output_shape [2, 3, 16] : tensor<6x16xf32> into tensor<2x3x16xf32>
  bufferization.materialize_in_destination %y in restrict writable %out : (tensor<2x3x16xf32>, memref<2x3x16xf32>) -> ()
  return
}

// -----

// A collapsed output with a dynamic dimension: the destination is expanded,
// the dynamic size derived from it (its dimension over the group's static
// sizes).
// CHECK-LABEL: func.func @collapsed_dynamic_output
// CHECK-SAME: (%[[X:.*]]: memref<?x4x8xf32>, %[[OUT:.*]]: memref<?x8xf32>)
// CHECK: %[[D:.*]] = memref.dim %[[OUT]], %c0
// CHECK: %[[N:.*]] = arith.divui %[[D]], %c4
// CHECK: %[[VIEW:.*]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1], [2]] output_shape [%[[N]], 4, 8] : memref<?x8xf32> into memref<?x4x8xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK: bufferization.materialize_in_destination %[[R]] in restrict writable %[[VIEW]] : (tensor<?x4x8xf32>, memref<?x4x8xf32>)
func.func @collapsed_dynamic_output(%x: memref<?x4x8xf32>, %out: memref<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %xt = bufferization.to_tensor %x restrict : memref<?x4x8xf32> to tensor<?x4x8xf32>
  %n = tensor.dim %xt, %c0 : tensor<?x4x8xf32>
  %e = tensor.empty(%n) : tensor<?x4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%xt : tensor<?x4x8xf32>) outs(%e : tensor<?x4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.negf %a : f32
    linalg.yield %s : f32
  } -> tensor<?x4x8xf32>
  %y = tensor.collapse_shape %r [[0, 1], [2]] : tensor<?x4x8xf32> into tensor<?x8xf32>
  bufferization.materialize_in_destination %y in restrict writable %out : (tensor<?x8xf32>, memref<?x8xf32>) -> ()
  return
}

// -----

// Slices of a transpose that together cover it (attention's q, k, v): each
// slice becomes the transpose of the input's slice, written into its own
// output; the whole transpose is gone.
// CHECK-LABEL: func.func @sliced_transpose
// CHECK-NOT: tensor.extract_slice {{.*}} : tensor<2x4x6xf32> to tensor<1x4x6xf32>
// CHECK: %[[S0:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0] [6, 1, 4] [1, 1, 1] : tensor<6x2x4xf32> to tensor<6x1x4xf32>
// CHECK: %[[T0:.*]] = linalg.transpose ins(%[[S0]] : tensor<6x1x4xf32>) outs(%{{.*}} : tensor<1x4x6xf32>) permutation = [1, 2, 0]
// CHECK: %[[S1:.*]] = tensor.extract_slice %{{.*}}[0, 1, 0] [6, 1, 4] [1, 1, 1] : tensor<6x2x4xf32> to tensor<6x1x4xf32>
// CHECK: %[[T1:.*]] = linalg.transpose ins(%[[S1]] : tensor<6x1x4xf32>) outs(%{{.*}} : tensor<1x4x6xf32>) permutation = [1, 2, 0]
// CHECK-NOT: linalg.transpose
// CHECK: bufferization.materialize_in_destination %[[T0]]
// CHECK: bufferization.materialize_in_destination %[[T1]]
// CODEGEN-LABEL: llvm.func @sliced_transpose
// CODEGEN-NOT: llvm.intr.memcpy
// CODEGEN-NOT: memrefCopy
// CODEGEN: llvm.return
func.func @sliced_transpose(%x: memref<6x2x4xf32>, %o0: memref<1x4x6xf32>, %o1: memref<1x4x6xf32>) {
  %xt = bufferization.to_tensor %x restrict : memref<6x2x4xf32> to tensor<6x2x4xf32>
  %e = tensor.empty() : tensor<2x4x6xf32>
  %t = linalg.transpose ins(%xt : tensor<6x2x4xf32>) outs(%e : tensor<2x4x6xf32>) permutation = [1, 2, 0]
  %s0 = tensor.extract_slice %t[0, 0, 0] [1, 4, 6] [1, 1, 1] : tensor<2x4x6xf32> to tensor<1x4x6xf32>
  %s1 = tensor.extract_slice %t[1, 0, 0] [1, 4, 6] [1, 1, 1] : tensor<2x4x6xf32> to tensor<1x4x6xf32>
  bufferization.materialize_in_destination %s0 in restrict writable %o0 : (tensor<1x4x6xf32>, memref<1x4x6xf32>) -> ()
  bufferization.materialize_in_destination %s1 in restrict writable %o1 : (tensor<1x4x6xf32>, memref<1x4x6xf32>) -> ()
  return
}

// -----

// Left alone: slices that overlap (more elements than the result: computed
// twice), a slice of a product (the GEMM template takes products whole),
// and ops on buffers.
// CHECK-LABEL: func.func @overlapping_slices
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: tensor.extract_slice %[[T]][0, 0] [2, 4]
// CHECK: tensor.extract_slice %[[T]][1, 0] [2, 4]
func.func @overlapping_slices(%x: tensor<4x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %e = tensor.empty() : tensor<3x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x3xf32>) outs(%e : tensor<3x4xf32>) permutation = [1, 0]
  %s0 = tensor.extract_slice %t[0, 0] [2, 4] [1, 1] : tensor<3x4xf32> to tensor<2x4xf32>
  %s1 = tensor.extract_slice %t[1, 0] [2, 4] [1, 1] : tensor<3x4xf32> to tensor<2x4xf32>
  return %s0, %s1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// CHECK-LABEL: func.func @sliced_product
// CHECK: %[[P:.*]] = linalg.matmul
// CHECK: tensor.extract_slice %[[P]][0, 0] [2, 8]
func.func @sliced_product(%a: tensor<4x3xf32>, %b: tensor<3x8xf32>) -> tensor<2x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = linalg.matmul ins(%a, %b : tensor<4x3xf32>, tensor<3x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = tensor.extract_slice %p[0, 0] [2, 8] [1, 1] : tensor<4x8xf32> to tensor<2x8xf32>
  return %s : tensor<2x8xf32>
}

// CHECK-LABEL: func.func @buffers
// CHECK: linalg.fill
// CHECK: linalg.transpose
func.func @buffers(%x: memref<4x3xf32>, %y: memref<3x4xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%x : memref<4x3xf32>)
  linalg.transpose ins(%x : memref<4x3xf32>) outs(%y : memref<3x4xf32>) permutation = [1, 0]
  return
}

// -----

// A destination that cannot be viewed with the output's shape (its rows
// are not contiguous): the reshape stays.
// CHECK-LABEL: func.func @strided_destination
// CHECK: %[[Y:.*]] = tensor.expand_shape
// CHECK: bufferization.materialize_in_destination %[[Y]]
func.func @strided_destination(%x: tensor<6x8xf32>, %out: memref<2x3x8xf32, strided<[64, 16, 1]>>) {
  %y = tensor.expand_shape %x [[0, 1], [2]] output_shape [2, 3, 8] : tensor<6x8xf32> into tensor<2x3x8xf32>
  bufferization.materialize_in_destination %y in restrict writable %out : (tensor<2x3x8xf32>, memref<2x3x8xf32, strided<[64, 16, 1]>>) -> ()
  return
}

// -----

// Two padded outputs whose zero fills CSE merged into one tiled loop: each
// output but the last gets a fill of its own (recomputing a fill costs less
// than a copy), so that the empty-tensor elimination puts neither output's
// interior in the other's buffer (it did: the second output read the
// first's values).
// CHECK-LABEL: func.func @shared_fill
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<4x6xf32>
// CHECK: %[[F0:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %[[E0]])
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4x6xf32>
// CHECK: %[[F1:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %[[E1]])
// CHECK: %[[I0:.*]] = tensor.insert_slice %{{.*}} into %[[F1]]
// CHECK: %[[I1:.*]] = tensor.insert_slice %{{.*}} into %[[F0]]
// CHECK: bufferization.materialize_in_destination %[[I0]]
// CHECK: bufferization.materialize_in_destination %[[I1]]
func.func @shared_fill(%x: memref<4x4xf32>, %y: memref<4x4xf32>, %o0: memref<4x6xf32>, %o1: memref<4x6xf32>) {
  %cst = arith.constant 0.0 : f32
  %xt = bufferization.to_tensor %x restrict : memref<4x4xf32> to tensor<4x4xf32>
  %yt = bufferization.to_tensor %y restrict : memref<4x4xf32> to tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x6xf32>
  %f = scf.forall (%i) = (0) to (4) step (2) shared_outs(%s = %e) -> (tensor<4x6xf32>) {
    %t = tensor.extract_slice %s[%i, 0] [2, 6] [1, 1] : tensor<4x6xf32> to tensor<2x6xf32>
    %z = linalg.fill ins(%cst : f32) outs(%t : tensor<2x6xf32>) -> tensor<2x6xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %z into %s[%i, 0] [2, 6] [1, 1] : tensor<2x6xf32> into tensor<4x6xf32>
    }
  }
  %a = tensor.insert_slice %xt into %f[0, 1] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<4x6xf32>
  %b = tensor.insert_slice %yt into %f[0, 1] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<4x6xf32>
  bufferization.materialize_in_destination %a in restrict writable %o0 : (tensor<4x6xf32>, memref<4x6xf32>) -> ()
  bufferization.materialize_in_destination %b in restrict writable %o1 : (tensor<4x6xf32>, memref<4x6xf32>) -> ()
  return
}

// -----

#id2s = affine_map<(d0, d1) -> (d0, d1)>

// Two outputs written over one computed value: it is not recomputed, the
// first output writes over a copy of it, the last over the value itself.
// CHECK-LABEL: func.func @shared_value
// CHECK: %[[V:.*]] = linalg.generic
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x6xf32>
// CHECK: %[[C:.*]] = linalg.copy ins(%[[V]] : tensor<4x6xf32>) outs(%[[E]] : tensor<4x6xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %[[C]]
// CHECK-NOT: linalg.copy
// CHECK: tensor.insert_slice %{{.*}} into %[[V]]
func.func @shared_value(%x: memref<4x4xf32>, %o0: memref<4x6xf32>, %o1: memref<4x6xf32>) {
  %xt = bufferization.to_tensor %x restrict : memref<4x4xf32> to tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x6xf32>
  %v = linalg.generic {indexing_maps = [#id2s], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<4x6xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    linalg.yield %f : f32
  } -> tensor<4x6xf32>
  %a = tensor.insert_slice %xt into %v[0, 1] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<4x6xf32>
  %b = tensor.insert_slice %xt into %v[0, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<4x6xf32>
  bufferization.materialize_in_destination %a in restrict writable %o0 : (tensor<4x6xf32>, memref<4x6xf32>) -> ()
  bufferization.materialize_in_destination %b in restrict writable %o1 : (tensor<4x6xf32>, memref<4x6xf32>) -> ()
  return
}
