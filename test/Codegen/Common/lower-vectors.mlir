// RUN: wrapper-opt %s --wrapper-lower-vectors --canonicalize --split-input-file | FileCheck %s

// What linalg vectorization produces, made one-dimensional.

// Tests a row reduction step: the unit dimension dropped, the in-bounds
// transfer a plain load, the multi-reduction a horizontal vector.reduction.
// CHECK-LABEL: func.func @row_sum
// CHECK: %[[X:.*]] = vector.load %{{.*}} : memref<8x64xf32>, vector<16xf32>
// CHECK: vector.reduction <add>, %[[X]], %{{.*}} : vector<16xf32> into f32
// CHECK-NOT: vector.multi_reduction
func.func @row_sum(%m: memref<8x64xf32>, %i: index, %k: index, %acc: f32) -> f32 {
  %pad = ub.poison : f32
  %x = vector.transfer_read %m[%i, %k], %pad {in_bounds = [true, true]} : memref<8x64xf32>, vector<1x16xf32>
  %a = vector.broadcast %acc : f32 to vector<1xf32>
  %r = vector.multi_reduction <add>, %x, %a [1] : vector<1x16xf32> to vector<1xf32>
  %s = vector.extract %r[0] : f32 from vector<1xf32>
  return %s : f32
}

// -----

// Tests a column reduction step: a reduction over a unit dimension is an
// elementwise add, never a transpose.
// CHECK-LABEL: func.func @column_add
// CHECK: %[[X:.*]] = vector.load %{{.*}} : memref<8x64xf32>, vector<16xf32>
// CHECK: %[[ACC:.*]] = vector.load %{{.*}} : memref<64xf32>, vector<16xf32>
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : vector<16xf32>
// CHECK: vector.store %[[S]]
// CHECK-NOT: vector.transpose
func.func @column_add(%m: memref<8x64xf32>, %o: memref<64xf32>, %i: index, %k: index) {
  %pad = ub.poison : f32
  %x = vector.transfer_read %m[%i, %k], %pad {in_bounds = [true, true]} : memref<8x64xf32>, vector<1x16xf32>
  %acc = vector.transfer_read %o[%k], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
  %r = vector.multi_reduction <add>, %x, %acc [0] : vector<1x16xf32> to vector<16xf32>
  vector.transfer_write %r, %o[%k] {in_bounds = [true]} : vector<16xf32>, memref<64xf32>
  return
}

// -----

// Tests a row statistic broadcast over a row: one scalar load and a
// broadcast (a splat), not one insert per lane.
// CHECK-LABEL: func.func @row_statistic
// CHECK: vector.load %{{.*}} : memref<8xf32>, vector<f32>
// CHECK: vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK-NOT: vector.insert
// CHECK: vector.store
func.func @row_statistic(%m: memref<8xf32>, %o: memref<8x64xf32>, %i: index, %k: index) {
  %pad = ub.poison : f32
  %s = vector.transfer_read %m[%i], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0) -> (0, 0)>} : memref<8xf32>, vector<1x16xf32>
  vector.transfer_write %s, %o[%i, %k] {in_bounds = [true, true]} : vector<1x16xf32>, memref<8x64xf32>
  return
}

// -----

// Tests what is left alone: a transfer that may run out of bounds (it is
// --convert-vector-to-scf's).
// CHECK-LABEL: func.func @out_of_bounds
// CHECK: vector.transfer_read
func.func @out_of_bounds(%m: memref<?xf32>, %k: index) -> vector<16xf32> {
  %pad = arith.constant 0.0 : f32
  %x = vector.transfer_read %m[%k], %pad : memref<?xf32>, vector<16xf32>
  return %x : vector<16xf32>
}

// -----

// A 1-D read from a buffer with a small constant innermost stride (a
// stride-2 slice, as a strided convolution's or pooling's input) is one
// contiguous load of the elements it spans and a shuffle of every other
// one; a stride beyond 4 and a dynamic stride stay transfers (lowered to
// scalar loads later).
// CHECK-LABEL: func.func @strided_reads
// CHECK: memref.extract_strided_metadata %arg0
// CHECK: %[[FLAT:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [15], strides: [1]
// CHECK: %[[WIDE:.*]] = vector.load %[[FLAT]][%{{.*}}] : memref<15xf32, strided<[1], offset: ?>>, vector<15xf32>
// CHECK: vector.shuffle %[[WIDE]], %[[WIDE]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<15xf32>, vector<15xf32>
// CHECK: vector.transfer_read %arg1
// CHECK: vector.transfer_read %arg2
func.func @strided_reads(%a: memref<4x32xf32, strided<[64, 2], offset: ?>>,
                         %b: memref<32xf32, strided<[5], offset: ?>>,
                         %c: memref<32xf32, strided<[?], offset: ?>>, %i: index, %j: index)
    -> (vector<8xf32>, vector<8xf32>, vector<8xf32>) {
  %pad = arith.constant 0.0 : f32
  %0 = vector.transfer_read %a[%i, %j], %pad {in_bounds = [true]} : memref<4x32xf32, strided<[64, 2], offset: ?>>, vector<8xf32>
  %1 = vector.transfer_read %b[%j], %pad {in_bounds = [true]} : memref<32xf32, strided<[5], offset: ?>>, vector<8xf32>
  %2 = vector.transfer_read %c[%j], %pad {in_bounds = [true]} : memref<32xf32, strided<[?], offset: ?>>, vector<8xf32>
  return %0, %1, %2 : vector<8xf32>, vector<8xf32>, vector<8xf32>
}
