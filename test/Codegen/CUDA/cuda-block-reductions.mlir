// RUN: wrapper-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(wrapper-cuda-block-reductions))' | FileCheck %s
// RUN: not wrapper-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(wrapper-cuda-block-reductions{block-size=100}))' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: wrapper-cuda-block-reductions: block-size 100 must be a multiple of 32 up to 1024 (0: chosen per reduction)

// A batch_norm statistic: the sum over d0 and d2 of [8, 64, 1024], one
// output per channel. One block per channel; the threads stride over the
// 8 x 1024 reduced elements (d2 fastest), fold them, combine through
// gpu.all_reduce; thread 0 adds the total to the output's initial value.
// CHECK-LABEL: func.func @channel_sum
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64{{(_[0-9]+)?}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%[[BX:.*]] = %c256,
// CHECK: %[[P:.*]] = scf.for %[[J:.*]] = %[[T]] to %c8192 step %[[BX]] iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[D2:.*]] = arith.remui %[[J]], %{{.*}}
// CHECK: %[[D0:.*]] = arith.divui %[[J]], %{{.*}}
// CHECK: %[[X:.*]] = memref.load %{{.*}}[%[[D0]], %[[B]], %[[D2]]] : memref<8x64x1024xf32>
// CHECK: %[[S:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK: %[[N:.*]] = arith.addf %[[ACC]], %[[S]]
// CHECK: scf.yield %[[N]]
// CHECK: %[[TOTAL:.*]] = gpu.all_reduce add %[[P]] uniform
// CHECK: scf.if
// CHECK: %[[I:.*]] = memref.load %{{.*}}[%[[B]]] : memref<64xf32>
// CHECK: %[[R:.*]] = arith.addf %[[I]], %[[TOTAL]]
// CHECK: memref.store %[[R]], %{{.*}}[%[[B]]] : memref<64xf32>
// CHECK-NOT: linalg.generic
func.func @channel_sum(%x: memref<8x64x1024xf32>, %out: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>],
                  iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%x : memref<8x64x1024xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Keepdim outputs (constant 0 indices), a broadcast input and linalg.index;
// a dynamic parallel size: the launch is guarded against zero blocks, the
// maximum's identity is -inf, 32 threads for 2 x 64 reduced elements.
// CHECK-LABEL: func.func @keepdim_max
// CHECK: scf.if
// CHECK: gpu.launch
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: scf.for
// CHECK: arith.index_cast
// CHECK: arith.maximumf
// CHECK: gpu.all_reduce maximumf
func.func @keepdim_max(%x: memref<2x?x64xf32>, %m: memref<1x?x1xf32>, %out: memref<1x?x1xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (0, d1, 0)>, affine_map<(d0, d1, d2) -> (0, d1, 0)>],
                  iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%x, %m : memref<2x?x64xf32>, memref<1x?x1xf32>) outs(%out : memref<1x?x1xf32>) {
  ^bb0(%in: f32, %mean: f32, %acc: f32):
    %i = linalg.index 2 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %d = arith.subf %in, %mean : f32
    %v = arith.mulf %d, %f : f32
    %r = arith.maximumf %acc, %v : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Left alone: fewer reduced elements than min-reduction (8 x 8 < 128),
// 64-bit accumulators, two outputs, a reduction already inside a launch,
// and an output indexed by a reduced loop.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c16
func.func @left_alone(%a: memref<8x16x8xf32>, %b: memref<16xf32>, %c: memref<64x512xf64>,
                      %d: memref<64xf64>, %e: memref<16xf32>, %f: memref<16x512xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>],
                  iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%a : memref<8x16x8xf32>) outs(%b : memref<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%c : memref<64x512xf64>) outs(%d : memref<64xf64>) {
  ^bb0(%in: f64, %acc: f64):
    %s = arith.addf %acc, %in : f64
    linalg.yield %s : f64
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%f : memref<16x512xf32>) outs(%b, %e : memref<16xf32>, memref<16xf32>) {
  ^bb0(%in: f32, %acc: f32, %acc2: f32):
    %s = arith.addf %acc, %in : f32
    %t = arith.maximumf %acc2, %in : f32
    linalg.yield %s, %t : f32, f32
  }
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%f : memref<16x512xf32>) outs(%b : memref<16xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %s = arith.addf %acc, %in : f32
      linalg.yield %s : f32
    }
    gpu.terminator
  }
  return
}


// -----

// Batch norm's backward: a zero fill (in its generic form), the sum, its
// scaling into another buffer and a second epilogue reading both results
// at the same element, with a view and an allocation between. One launch:
// thread 0 starts from the fill's value (no fill launch, no load of the
// output), stores the sum, then computes and stores each epilogue's
// element (no launch per epilogue).
// CHECK-LABEL: func.func @fill_sum_and_epilogues
// CHECK-NOT: linalg.generic
// CHECK: gpu.launch blocks
// CHECK: %[[TOTAL:.*]] = gpu.all_reduce add
// CHECK: scf.if
// CHECK-NOT: memref.load
// CHECK: %[[S:.*]] = arith.addf %{{.*}}, %[[TOTAL]]
// CHECK: memref.store %[[S]], %arg2[%[[B:.*]]] : memref<64xf32>
// CHECK: %[[SCALED:.*]] = arith.mulf %[[S]], %{{.*}}
// CHECK: memref.store %[[SCALED]], %alloc[%[[B]]] : memref<64xf32>
// CHECK: %[[W:.*]] = memref.load %arg1[%[[B]]] : memref<64xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[SCALED]], %[[W]]
// CHECK: %[[Q:.*]] = arith.subf %[[P]], %[[S]]
// CHECK: memref.store %[[Q]], %collapse_shape[%[[B]]] : memref<64xf32>
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @fill_sum_and_epilogues(%x: memref<8x64x256xf32>, %w: memref<64xf32>,
                                  %sum: memref<64xf32>, %out: memref<1x64x1x1xf32>) -> memref<64xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.5 : f32
  linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%zero : f32) outs(%sum : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>],
                  iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%x : memref<8x64x256xf32>) outs(%sum : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  %flat = memref.collapse_shape %out [[0, 1, 2, 3]] : memref<1x64x1x1xf32> into memref<64xf32>
  %scaled = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%sum : memref<64xf32>) outs(%scaled : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.mulf %in, %scale : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%scaled, %w, %sum : memref<64xf32>, memref<64xf32>, memref<64xf32>) outs(%flat : memref<64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.subf %p, %c : f32
    linalg.yield %q : f32
  }
  return %scaled : memref<64xf32>
}

// -----

// Not taken into the launch: a fill with a read of its buffer before the
// reduction; an elementwise op that writes a buffer the reduction reads
// (other blocks may still read it); one that reads the sum broadcast (other
// blocks' elements); and one after a free (the reduction does not move past
// it).
// CHECK-LABEL: func.func @not_fused
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel"]
// CHECK: memref.copy
// CHECK: gpu.launch
// CHECK: gpu.terminator
// CHECK: linalg.generic
// CHECK-SAME: outs(%subview
// CHECK: gpu.launch
// CHECK: gpu.terminator
// CHECK: linalg.generic
// CHECK-SAME: outs(%arg3 : memref<64x64xf32>)
// CHECK: gpu.launch
// CHECK: memref.dealloc
// CHECK: linalg.generic
func.func @not_fused(%x: memref<8x64x256xf32>, %sum: memref<64xf32>, %seen: memref<64xf32>,
                     %y: memref<64x64xf32>, %tmp: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%zero : f32) outs(%sum : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  memref.copy %sum, %seen : memref<64xf32> to memref<64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>],
                  iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%x : memref<8x64x256xf32>) outs(%sum : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  %flat = memref.collapse_shape %x [[0, 1, 2]] : memref<8x64x256xf32> into memref<131072xf32>
  %head = memref.subview %flat[0] [64] [1] : memref<131072xf32> to memref<64xf32, strided<[1]>>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%sum : memref<64xf32>) outs(%head : memref<64xf32, strided<[1]>>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>],
                  iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%x : memref<8x64x256xf32>) outs(%sum : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%sum : memref<64xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>],
                  iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%x : memref<8x64x256xf32>) outs(%sum : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  memref.dealloc %tmp : memref<64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%sum : memref<64xf32>) outs(%seen : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  return
}
