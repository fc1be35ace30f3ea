// RUN: wrapper-opt %s --wrapper-tile-and-fuse --canonicalize --cse --split-input-file | FileCheck %s
// RUN: wrapper-opt %s --wrapper-tile-and-fuse="tile-elements=16384" --canonicalize --cse --split-input-file | FileCheck %s --check-prefix=BIG
// RUN: not wrapper-opt %s --wrapper-tile-and-fuse="tile-elements=0" --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>

// Tests that a row softmax becomes one loop over rows in which the max, the
// exponential, the sum and the division are all computed on the row, the
// reductions writing rank-reduced tiles (unit dimensions dropped first).
// CHECK-LABEL: func.func @softmax
// CHECK: %[[R:.*]] = scf.forall (%[[I:.*]]) in (4096) shared_outs(%[[O:.*]] = %{{.*}}) -> (tensor<4096x4096xf32>)
// CHECK: %[[X:.*]] = tensor.extract_slice %{{.*}}[%[[I]], 0] [1, 4096] [1, 1]
// CHECK: linalg.fill {{.*}} -> tensor<1xf32>
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[X]] : tensor<1x4096xf32>)
// CHECK: arith.maximumf
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[MAX]] : tensor<1x4096xf32>, tensor<1xf32>)
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[E]] : tensor<1x4096xf32>)
// CHECK: arith.addf
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[E]], %[[SUM]] : tensor<1x4096xf32>, tensor<1xf32>)
// CHECK: arith.divf
// CHECK: tensor.parallel_insert_slice %[[Y]] into %[[O]][%[[I]], 0] [1, 4096] [1, 1]
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
// BIG-LABEL: func.func @softmax
// BIG: scf.forall (%{{.*}}) = (0) to (4096) step (4)
func.func @softmax(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4096x1xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4096x1xf32>) -> tensor<4096x1xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4096x4096xf32>) outs(%minit : tensor<4096x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %out, %in : f32
    linalg.yield %m : f32
  } -> tensor<4096x1xf32>
  %e2 = tensor.empty() : tensor<4096x4096xf32>
  %exp = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<4096x4096xf32>, tensor<4096x1xf32>) outs(%e2 : tensor<4096x4096xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<4096x4096xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4096x1xf32>) -> tensor<4096x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<4096x4096xf32>) outs(%sinit : tensor<4096x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<4096x1xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<4096x4096xf32>, tensor<4096x1xf32>) outs(%e2 : tensor<4096x4096xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<4096x4096xf32>
  return %y : tensor<4096x4096xf32>
}
// BAD: error: wrapper-tile-and-fuse: tile-elements must be at least 1, got 0

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (0, d1)>

// Tests that a column reduction that every row tile needs is not fused (it
// would be recomputed per tile): it stays outside the loop, computed once.
// CHECK-LABEL: func.func @column_sum
// CHECK: %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK: scf.forall
// CHECK-NOT: iterator_types = ["reduction", "parallel"]
// CHECK: tensor.parallel_insert_slice
func.func @column_sum(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x256xf32>) -> tensor<1x256xf32>
  %sum = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<64x256xf32>) outs(%init : tensor<1x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<1x256xf32>
  %e2 = tensor.empty() : tensor<64x256xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<64x256xf32>, tensor<1x256xf32>) outs(%e2 : tensor<64x256xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>

// Tests that a producer that is also a result of the function (a second
// kernel output) is fused and its tiles are yielded by the loop.
// CHECK-LABEL: func.func @two_outputs
// CHECK: %[[R:.*]]:2 = scf.forall
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK-COUNT-2: tensor.parallel_insert_slice
// CHECK: return %[[R]]#{{[01]}}, %[[R]]#{{[01]}}
func.func @two_outputs(%x: tensor<1024x512xf32>) -> (tensor<1024x512xf32>, tensor<1024xf32>) {
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<1024x512xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1024x512xf32>) outs(%e2 : tensor<1024x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<1024x512xf32>
  %e1 = tensor.empty() : tensor<1024xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1024xf32>) -> tensor<1024xf32>
  %sum = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<1024x512xf32>) outs(%init : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  return %exp, %sum : tensor<1024x512xf32>, tensor<1024xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>

// Tests that when rows are longer than a tile and get split, a row
// reduction is not fused (each piece of the row would recompute it).
// CHECK-LABEL: func.func @long_rows
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (16, 8192) step (1, 4096)
// CHECK-NOT: "reduction"
// CHECK: tensor.parallel_insert_slice
func.func @long_rows(%x: tensor<16x8192xf32>) -> tensor<16x8192xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x8192xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16x8192xf32>
  %y = linalg.generic {indexing_maps = [#id, #red, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<16x8192xf32>, tensor<16xf32>) outs(%e2 : tensor<16x8192xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<16x8192xf32>
  return %y : tensor<16x8192xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Tests that an op whose whole iteration space fits one tile is left alone.
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.forall
// CHECK: linalg.generic
func.func @small(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Tests that a dynamic row count is tiled by rows (the last tile may be
// partial), and a dynamic row length counts as long: single rows, split
// into tiles of tile-elements.
// CHECK-LABEL: func.func @dynamic
// CHECK: scf.forall (%{{.*}}) = (0) to (%{{.*}}) step (16)
// CHECK-LABEL: func.func @dynamic_cols
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (64, %{{.*}}) step (1, 4096)
func.func @dynamic(%x: tensor<?x256xf32>) -> tensor<?x256xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x256xf32>
  %e = tensor.empty(%n) : tensor<?x256xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x256xf32>) outs(%e : tensor<?x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n2 = arith.negf %in : f32
    linalg.yield %n2 : f32
  } -> tensor<?x256xf32>
  return %y : tensor<?x256xf32>
}
func.func @dynamic_cols(%x: tensor<64x?xf32>) -> tensor<64x?xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<64x?xf32>
  %e = tensor.empty(%n) : tensor<64x?xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x?xf32>) outs(%e : tensor<64x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n2 = arith.negf %in : f32
    linalg.yield %n2 : f32
  } -> tensor<64x?xf32>
  return %y : tensor<64x?xf32>
}

// -----

// A transpose (its input read across the innermost loop) keeps the square
// tiles of its vector loops whole: the rows of the loop it reads its
// input along come in multiples of 16 (4096 elements would be 4 rows of
// 1024), and a loop that one such tile covers is not tiled.
// CHECK-LABEL: func.func @transpose_rows
// CHECK: scf.forall (%{{.*}}) = (0) to (512) step (16)
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1024x16xf32>) outs(%{{.*}} : tensor<16x1024xf32>)
// CHECK-LABEL: func.func @transpose_whole
// CHECK-NOT: scf.forall
func.func @transpose_rows(%x: tensor<1024x512xf32>) -> tensor<512x1024xf32> {
  %e = tensor.empty() : tensor<512x1024xf32>
  %t = linalg.transpose ins(%x : tensor<1024x512xf32>) outs(%e : tensor<512x1024xf32>) permutation = [1, 0]
  return %t : tensor<512x1024xf32>
}
func.func @transpose_whole(%x: tensor<1024x12xf32>) -> tensor<12x1024xf32> {
  %e = tensor.empty() : tensor<12x1024xf32>
  %t = linalg.transpose ins(%x : tensor<1024x12xf32>) outs(%e : tensor<12x1024xf32>) permutation = [1, 0]
  return %t : tensor<12x1024xf32>
}
