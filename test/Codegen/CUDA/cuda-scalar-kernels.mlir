// RUN: wrapper-opt %s --wrapper-cuda-scalar-kernels --split-input-file | FileCheck %s

// A rank-0 fill (a size used as a number) and a whole-tensor reduction to a
// scalar have no parallel loop: each moves into a one-iteration scf.parallel.
// CHECK-LABEL: func.func @scalars(
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: scf.parallel (%{{.*}}) = (%[[ZERO]]) to (%[[ONE]]) step (%[[ONE]]) {
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<f32>)
// CHECK: scf.parallel
// CHECK-NEXT: linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "reduction"]
func.func @scalars(%size: index, %x: memref<4x8xf32>, %out: memref<f32>, %sum: memref<f32>) {
  %i = arith.index_cast %size : index to i64
  %f = arith.sitofp %i : i64 to f32
  linalg.fill ins(%f : f32) outs(%out : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<4x8xf32>) outs(%sum : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Ops with a parallel loop, and loop-free ops already inside a parallel
// loop, are left alone.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<8xf32>)
// CHECK: scf.parallel
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<f32>)
// CHECK-NOT: scf.parallel
func.func @left_alone(%v: f32, %row: memref<8xf32>, %out: memref<f32>) {
  linalg.fill ins(%v : f32) outs(%row : memref<8xf32>)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    linalg.fill ins(%v : f32) outs(%out : memref<f32>)
    scf.reduce
  }
  return
}

// -----

// Tensors are left alone (the pass runs after bufferization).
// CHECK-LABEL: func.func @tensors(
// CHECK-NOT: scf.parallel
func.func @tensors(%v: f32) -> tensor<f32> {
  %e = tensor.empty() : tensor<f32>
  %r = linalg.fill ins(%v : f32) outs(%e : tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
