// RUN: wrapper-opt %s --split-input-file --wrapper-tile-parallel-loops-for-gpu=block-size=128 | FileCheck %s
// RUN: not wrapper-opt %s --split-input-file --wrapper-tile-parallel-loops-for-gpu=block-size=0 2>&1 | FileCheck %s --check-prefix=BAD

// The innermost dimension is tiled by the block size: its tiles on block x,
// the intra-tile loop on thread x; the outer dimension on block y.

// CHECK-LABEL: func.func @two_dims
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: %[[STEP:.*]] = arith.muli %{{.*}}, %[[C128]] : index
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = {{.*}} step (%{{.*}}, %[[STEP]])
// CHECK: scf.parallel
// CHECK: scf.if
// CHECK: memref.store
// CHECK: {mapping = [#gpu.loop_dim_map<processor = sequential, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_y, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
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
