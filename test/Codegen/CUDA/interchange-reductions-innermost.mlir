// RUN: wrapper-opt %s --wrapper-interchange-reductions-innermost | FileCheck %s

// A column sum (reduction over the outer dimension) gets its reduction
// loop innermost; a row sum is already in order and stays as it is.

// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @column_sum
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction"]}
func.func @column_sum(%a: memref<64x32xf32>, %out: memref<32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<64x32xf32>) outs(%out : memref<32xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// CHECK-LABEL: func.func @row_sum
// CHECK: iterator_types = ["parallel", "reduction"]
func.func @row_sum(%a: memref<64x32xf32>, %out: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<64x32xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}
