// RUN: wrapper-opt %s --split-input-file --wrapper-cuda-row-kernels | FileCheck %s

// A row max, then a row-wise subtraction: one launch, one block per row
// (grid = rows), the reduction through gpu.all_reduce and thread 0's store,
// a barrier between the ops; the allocation between them moves before the
// launch, the free after it.
// CHECK-LABEL: func.func @run
// CHECK: %[[ALLOC:.*]] = memref.alloc() : memref<16x1xf32>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<16x512xf32>
// CHECK: %[[ROWS:.*]] = arith.muli %{{.*}}, %c16
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[ROWS]], {{.*}}) threads({{.*}}) in (%{{.*}} = %c64,
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<16x512xf32>, vector<4xf32>
// CHECK: gpu.all_reduce maximumf {{.*}} uniform
// CHECK: scf.if
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: vector.store
// CHECK: gpu.terminator
// CHECK: memref.dealloc %[[ALLOC]]
// CHECK-NOT: linalg.generic
func.func @run(%x: memref<16x512xf32>) -> memref<16x512xf32> {
  %init = arith.constant 0xFF800000 : f32
  %alloc = memref.alloc() : memref<16x1xf32>
  linalg.fill ins(%init : f32) outs(%alloc : memref<16x1xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16x512xf32>) outs(%alloc : memref<16x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %acc, %in : f32
    linalg.yield %m : f32
  }
  %out = memref.alloc() : memref<16x512xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %alloc : memref<16x512xf32>, memref<16x1xf32>) outs(%out : memref<16x512xf32>) {
  ^bb0(%in: f32, %mx: f32, %o: f32):
    %s = arith.subf %in, %mx : f32
    linalg.yield %s : f32
  }
  memref.dealloc %alloc : memref<16x1xf32>
  return %out : memref<16x512xf32>
}

// -----

// The second op reads the row maxima of other rows (a transposed access):
// rows would depend on each other, so it stays out of the run; the
// reduction alone becomes the kernel.
// CHECK-LABEL: func.func @dependent_rows
// CHECK: gpu.launch
// CHECK: gpu.all_reduce maximumf
// CHECK: gpu.terminator
// CHECK: linalg.generic
func.func @dependent_rows(%x: memref<16x16xf32>, %acc: memref<16xf32>, %out: memref<16x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16x16xf32>) outs(%acc : memref<16xf32>) {
  ^bb0(%in: f32, %a: f32):
    %m = arith.maximumf %a, %in : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %acc : memref<16x16xf32>, memref<16xf32>) outs(%out : memref<16x16xf32>) {
  ^bb0(%in: f32, %mx: f32, %o: f32):
    %s = arith.subf %in, %mx : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Not a row reduction: a column sum (reduction over the outer dimension),
// a reduction of f64 (gpu.all_reduce of 32-bit values only), and a short
// elementwise row stay linalg.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: gpu.launch
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: gpu.launch
func.func @left_alone(%x: memref<16x16xf32>, %col: memref<16xf32>, %y: memref<16x16xf64>, %row: memref<16xf64>, %z: memref<16x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16x16xf32>) outs(%col : memref<16xf32>) {
  ^bb0(%in: f32, %a: f32):
    %s = arith.addf %a, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%y : memref<16x16xf64>) outs(%row : memref<16xf64>) {
  ^bb0(%in: f64, %a: f64):
    %s = arith.addf %a, %in : f64
    linalg.yield %s : f64
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<16x16xf32>) outs(%z : memref<16x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  return
}

// -----

// Several innermost reduction loops fold into one row (upstream's
// collapseOpIterationDims on the buffers): a max over [rows, 5, 6] becomes
// one over [rows, 30], a sum of a whole [3, 5, 6] buffer one over [90]
// (one block); each is then a row kernel.
// CHECK-LABEL: func.func @folded_reductions
// CHECK: memref.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : memref<?x5x6xf32> into memref<?x30xf32>
// CHECK: gpu.launch
// CHECK: gpu.all_reduce maximumf
// CHECK: memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : memref<3x5x6xf32> into memref<90xf32>
// CHECK: gpu.launch
// CHECK: gpu.all_reduce add
func.func @folded_reductions(%y: memref<?x5x6xf32>, %rows: memref<?xf32>, %x: memref<3x5x6xf32>, %s: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>],
                  iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%y : memref<?x5x6xf32>) outs(%rows : memref<?xf32>) {
  ^bb0(%in: f32, %a: f32):
    %m = arith.maximumf %a, %in : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>],
                  iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%x : memref<3x5x6xf32>) outs(%s : memref<f32>) {
  ^bb0(%in: f32, %a: f32):
    %t = arith.addf %a, %in : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// An elementwise op alone with long aligned rows is a row kernel when it
// has several rows; a single row (a [512] buffer, [1, 1024]) would be one
// block, so it keeps the parallel-loop mapping (spread over the GPU, and
// fused there with the loops around it).
// CHECK-LABEL: func.func @lone_elementwise
// CHECK: gpu.launch
// CHECK: vector.load {{.*}} : memref<16x512xf32>, vector<4xf32>
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : memref<512xf32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : memref<1x1024xf32>)
func.func @lone_elementwise(%x: memref<16x512xf32>, %y: memref<16x512xf32>, %v: memref<512xf32>,
                            %w: memref<512xf32>, %r: memref<1x1024xf32>, %s: memref<1x1024xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<16x512xf32>) outs(%y : memref<16x512xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%v : memref<512xf32>) outs(%w : memref<512xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%r : memref<1x1024xf32>) outs(%s : memref<1x1024xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  return
}

// -----

// RUN: not wrapper-opt %s --split-input-file --wrapper-cuda-row-kernels=block-size=2048 2>&1 | FileCheck %s --check-prefix=BLOCK
// BLOCK: error: wrapper-cuda-row-kernels: block-size 2048 exceeds the 1024 threads a CUDA block may have
func.func @block_size(%x: memref<4xf32>) {
  return
}
