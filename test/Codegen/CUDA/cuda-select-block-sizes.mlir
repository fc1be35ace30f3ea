// RUN: wrapper-opt %s --split-input-file --wrapper-cuda-select-block-sizes | FileCheck %s
// RUN: wrapper-opt %s --split-input-file --wrapper-cuda-select-block-sizes --wrapper-tile-parallel-loops-for-gpu=block-size=256 | FileCheck %s --check-prefix=TILED
// RUN: not wrapper-opt %s --split-input-file --wrapper-cuda-select-block-sizes=max-block-size=2048 2>&1 | FileCheck %s --check-prefix=BAD

// Tests the recorded launch configuration: a loop nest with enough
// iterations gets the maximum, a short one its count rounded up to a warp,
// a dynamic one the maximum, a recorded choice stays, nested loops get
// nothing; the tiling reads the choice.

// CHECK-LABEL: func.func @sizes
// CHECK: scf.parallel
// CHECK: } {wrapper.cuda_block_size = 256 : i64}
// CHECK: scf.parallel
// CHECK-NOT: wrapper.cuda_block_size
// CHECK: } {wrapper.cuda_block_size = 32 : i64}
// CHECK: scf.parallel
// CHECK: } {wrapper.cuda_block_size = 256 : i64}
// CHECK: scf.parallel
// CHECK: } {wrapper.cuda_block_size = 128 : i64}

// The short loop is tiled by its own 32, the others by 256.
// TILED-LABEL: func.func @sizes
// TILED: arith.constant 256 : index
// TILED: arith.constant 32 : index
func.func @sizes(%a: memref<64x1000xf32>, %b: memref<5x8xf32>, %c: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c1000 = arith.constant 1000 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c1000) step (%c1, %c1) {
    memref.store %zero, %a[%i, %j] : memref<64x1000xf32>
  }
  scf.parallel (%i) = (%c0) to (%c5) step (%c1) {
    scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
      memref.store %zero, %b[%i, %j] : memref<5x8xf32>
    }
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %zero, %c[%i] : memref<?xf32>
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %zero, %c[%i] : memref<?xf32>
  } {wrapper.cuda_block_size = 128 : i64}
  return
}

// BAD: error: max-block-size must be between 1 and 1024, got 2048
