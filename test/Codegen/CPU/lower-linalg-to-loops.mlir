// RUN: wrapper-opt %s --wrapper-lower-linalg-to-loops="min-parallel-iterations=0 vectorize=false" --split-input-file --verify-diagnostics | FileCheck %s
// RUN: wrapper-opt %s --wrapper-lower-linalg-to-loops="vectorize=false" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=SMALL
// RUN: wrapper-opt %s --wrapper-lower-linalg-to-loops="parallel=false vectorize=false" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=SEQ

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Tests that an op outside any parallel loop gets scf.parallel over its
// parallel dimensions and scf.for over its reduction, and that ops inside a
// parallel tile loop get only scf.for (no nested parallel regions).
// CHECK-LABEL: func.func @levels
// CHECK: scf.parallel (%{{.*}}) = {{.*}} {
// CHECK-NEXT: scf.for
// CHECK: scf.forall
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: scf.for
// SEQ-LABEL: func.func @levels
// SEQ-NOT: scf.parallel
// With the default threshold, 8x16 points are too few for threads.
// SMALL-LABEL: func.func @levels
// SMALL-NOT: scf.parallel
func.func @levels(%x: memref<8x16xf32>, %s: memref<8xf32>, %y: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x16xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  scf.forall (%i) in (8) {
    %xs = memref.subview %x[%i, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<1x16xf32, strided<[16, 1], offset: ?>>
    %ys = memref.subview %y[%i, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<1x16xf32, strided<[16, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%xs : memref<1x16xf32, strided<[16, 1], offset: ?>>) outs(%ys : memref<1x16xf32, strided<[16, 1], offset: ?>>) {
    ^bb0(%in: f32, %out: f32):
      %n = arith.negf %in : f32
      linalg.yield %n : f32
    }
  }
  return
}

// -----

// Tests that threads split only the outermost dimension of an op with
// several parallel ones (the inner loop stays a sequential, vectorizable
// scf.for), and that an op reducing over its first dimension stays
// sequential (one parallel region per reduction step would be far slower).
// CHECK-LABEL: func.func @outer_only
// CHECK: scf.parallel (%{{[^,]*}}) = {{.*}} {
// CHECK-NEXT: scf.for
// CHECK-NOT: scf.parallel
// CHECK: return
// SMALL-LABEL: func.func @outer_only
// SMALL: scf.parallel (%{{[^,]*}}) = {{.*}} {
// SMALL-NEXT: scf.for
// SMALL-NOT: scf.parallel
// SMALL: return
func.func @outer_only(%x: memref<256x128xf32>, %y: memref<256x128xf32>, %s: memref<128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<256x128xf32>) outs(%y : memref<256x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<256x128xf32>) outs(%s : memref<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// Tests that an op on tensors is refused: bufferize first.
func.func @tensors(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{wrapper-lower-linalg-to-loops: expected an op on buffers (run bufferization first)}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}
