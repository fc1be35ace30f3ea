// RUN: wrapper-opt %s --split-input-file --wrapper-tile-parallel-loops-for-gpu=block-size=128 | FileCheck %s
// RUN: wrapper-opt %s --split-input-file --wrapper-tile-parallel-loops-for-gpu="block-size=128 linearize=false" | FileCheck %s --check-prefix=DIMS
// RUN: not wrapper-opt %s --split-input-file --wrapper-tile-parallel-loops-for-gpu=block-size=0 2>&1 | FileCheck %s --check-prefix=BAD

// Default: the loop is collapsed into one dimension of 64 * 1000
// iterations, tiled by the block size (tiles on block x, the intra-tile
// loop on thread x) and delinearized row-major inside the guard.

// CHECK-LABEL: func.func @two_dims
// CHECK: arith.constant 0.0
// CHECK: arith.constant 64 : index
// CHECK: %[[C1000:.*]] = arith.constant 1000 : index
// CHECK: %[[TOTAL:.*]] = arith.muli %{{.*}}, %[[C1000]] : index
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: %[[STEP:.*]] = arith.muli %{{.*}}, %[[C128]] : index
// CHECK: scf.parallel (%[[TILE:.*]]) = (%{{.*}}) to (%[[TOTAL]]) step (%[[STEP]])
// CHECK: scf.parallel (%[[T:.*]]) =
// CHECK: %[[I:.*]] = arith.addi %[[T]], %[[TILE]] : index
// CHECK: scf.if
// CHECK: %[[COL:.*]] = arith.remsi %[[I]], %[[C1000]] : index
// CHECK: %[[ROW:.*]] = arith.divsi %[[I]], %[[C1000]] : index
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[ROW]], %[[COL]]]
// CHECK: {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}

// linearize=false: the innermost dimension is tiled (its tiles on block x,
// the intra-tile loop on thread x), the outer one on block y.

// DIMS-LABEL: func.func @two_dims
// DIMS: %[[C128:.*]] = arith.constant 128 : index
// DIMS: %[[STEP:.*]] = arith.muli %{{.*}}, %[[C128]] : index
// DIMS: scf.parallel (%{{.*}}, %{{.*}}) = {{.*}} step (%{{.*}}, %[[STEP]])
// DIMS: scf.parallel
// DIMS: scf.if
// DIMS: memref.store
// DIMS: {mapping = [#gpu.loop_dim_map<processor = sequential, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// DIMS: {mapping = [#gpu.loop_dim_map<processor = block_y, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// BAD: error: block-size must be at least 1, got 0
func.func @two_dims(%a: memref<64x1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c1000 = arith.constant 1000 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c1000) step (%c1, %c1) {
    memref.store %zero, %a[%i, %j] : memref<64x1000xf32>
  }
  return
}

// -----

// Five dimensions with a dynamic one (a depthwise convolution's output
// loop): one grid dimension; nothing runs sequentially in a thread.

// CHECK-LABEL: func.func @five_dims
// CHECK: scf.parallel (%{{[^,]*}}) =
// CHECK: scf.parallel (%{{[^,]*}}) =
// CHECK-NOT: processor = sequential
// CHECK: processor = thread_x
// CHECK: processor = block_x
// DIMS-LABEL: func.func @five_dims
// DIMS: processor = sequential
func.func @five_dims(%a: memref<?x96x1x14x14xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c14 = arith.constant 14 : index
  %c96 = arith.constant 96 : index
  %n = memref.dim %a, %c0 : memref<?x96x1x14x14xf32>
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j, %k, %l, %m) = (%c0, %c0, %c0, %c0, %c0) to (%n, %c96, %c1, %c14, %c14) step (%c1, %c1, %c1, %c1, %c1) {
    memref.store %zero, %a[%i, %j, %k, %l, %m] : memref<?x96x1x14x14xf32>
  }
  return
}
