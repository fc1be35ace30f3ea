// RUN: wrapper-opt %s --split-input-file --wrapper-lower-linalg-to-loops="vector-width=16 min-parallel-iterations=1000000" --canonicalize --cse | FileCheck %s

// A 3x3 max pool of stride 2 (inside a tile: buffers of one channel): scf.for
// over the window (kh outer, kw inner, the op's order) around an
// elementwise maximum on the input viewed at the window position with
// stride 2, vectorized along the output row (the window tensor, read only
// for its shape, goes).
// CHECK-LABEL: func.func @max_pool
// CHECK: scf.for %[[KH:.*]] = %c0 to %c3 step %c1 {
// CHECK:   scf.for %[[KW:.*]] = %c0 to %c3 step %c1 {
// CHECK:     %[[IN:.*]] = memref.subview %{{.*}}[0, 0, %[[KH]], %[[KW]]] [1, 2, 16, 16] [1, 1, 2, 2]
// CHECK:     scf.for
// CHECK:       scf.for
// CHECK:         vector.transfer_read %[[IN]]
// CHECK:         arith.maximumf {{.*}} : vector<1x1x1x16xf32>
func.func @max_pool(%x: memref<1x2x33x33xf32>, %window: memref<3x3xf32>, %out: memref<1x2x16x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %window : memref<1x2x33x33xf32>, memref<3x3xf32>) outs(%out : memref<1x2x16x16xf32>) {
  ^bb0(%in: f32, %w: f32, %o: f32):
    %m = arith.maximumf %o, %in : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// A depthwise convolution with dilation 2 and a dynamic row count (an edge
// tile): the weight at the window position is a view of its channel, the
// input view starts at twice the window position.
// CHECK-LABEL: func.func @depthwise
// CHECK: scf.for %[[KH:.*]] = %c0 to %c3 step %c1 {
// CHECK:   scf.for %[[KW:.*]] = %c0 to %c3 step %c1 {
// CHECK:     %[[H:.*]] = arith.muli %[[KH]], %c2
// CHECK:     %[[W:.*]] = arith.muli %[[KW]], %c2
// CHECK:     memref.subview %{{.*}}[0, 0, %[[H]], %[[W]]] [1, 4, %{{.*}}, 16] [1, 1, 1, 1]
// CHECK:     memref.subview %{{.*}}[0, %[[KH]], %[[KW]]] [4, 1, 1] [1, 1, 1] : memref<4x3x3xf32> to memref<4xf32
// CHECK:     arith.mulf {{.*}} : vector<1x1x1x16xf32>
// CHECK:     arith.addf {{.*}} : vector<1x1x1x16xf32>
func.func @depthwise(%x: memref<1x4x?x20xf32>, %w: memref<4x3x3xf32>, %out: memref<1x4x?x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4 * 2, d3 + d5 * 2)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<1x4x?x20xf32>, memref<4x3x3xf32>) outs(%out : memref<1x4x?x16xf32>) {
  ^bb0(%in: f32, %k: f32, %o: f32):
    %p = arith.mulf %in, %k : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left alone: a row reduction (no index mixes an output and a window
// dimension) and a payload that reads its indices.
// CHECK-LABEL: func.func @not_windows
// CHECK-NOT: memref.subview %arg2
// CHECK: arith.sitofp
// CHECK-NOT: memref.subview %arg2
// CHECK: return
func.func @not_windows(%x: memref<8x64xf32>, %s: memref<8xf32>, %y: memref<10xf32>, %win: memref<3xf32>, %o: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<8x64xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %acc, %in : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 + d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%y, %win : memref<10xf32>, memref<3xf32>) outs(%o : memref<8xf32>) {
  ^bb0(%in: f32, %w: f32, %acc: f32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    %m = arith.mulf %in, %f : f32
    %a = arith.addf %acc, %m : f32
    linalg.yield %a : f32
  }
  return
}
