// RUN: wrapper-opt %s --wrapper-cpu-codegen | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs | FileCheck %s
// RUN: wrapper-opt %s --wrapper-read-through-pads --canonicalize --cse --wrapper-fuse-horizontal --canonicalize \
// RUN:   | FileCheck %s --check-prefix=FUSED
// RUN: wrapper-opt %s --wrapper-read-through-pads --canonicalize --cse --wrapper-fuse-horizontal --canonicalize \
// RUN:   | wrapper-opt --wrapper-cpu-codegen | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs | FileCheck %s

// Runs the same program as written and after --wrapper-read-through-pads
// and --wrapper-fuse-horizontal (what the CUDA pipeline runs on kernels):
// both print the values worked out by hand below. The program reads a
// transposed, reshaped and padded tensor (no pad or transpose left after
// the passes), and computes two independent elementwise results over the
// same loops plus a transposed copy of one of them (one generic after,
// which no longer writes the untransposed result).

// FUSED-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// FUSED-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// FUSED-DAG: #[[T:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// FUSED-LABEL: func.func @compute
// FUSED-SAME: (%[[X:.+]]: tensor<2x6xf32>, %[[M:.+]]: tensor<3xf32>, %[[V:.+]]: tensor<2x3xf32>)
// FUSED-NOT: tensor.pad
// FUSED-NOT: linalg.transpose
// FUSED: %[[SQ:.+]] = linalg.generic
// FUSED-SAME: outs(%{{.*}} : tensor<4x3x2xf32>)
// FUSED: arith.cmpi ult
// FUSED: tensor.extract %[[X]]
// FUSED: %[[R:.+]]:2 = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]], #[[T]]]
// FUSED-SAME: ins(%[[V]], %[[M]] : tensor<2x3xf32>, tensor<3xf32>)
// FUSED-SAME: outs(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3x2xf32>)
// FUSED: arith.subf
// FUSED: arith.mulf
// FUSED-NOT: linalg.generic
// FUSED: return %[[SQ]], %[[R]]#0, %[[R]]#1
// FUSED-LABEL: func.func @strided
// FUSED-NOT: linalg.transpose
// FUSED: return

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

func.func private @printMemrefF32(memref<*xf32>)

func.func @compute(%x: tensor<2x6xf32>, %m: tensor<3xf32>, %v: tensor<2x3xf32>)
    -> (tensor<4x3x2xf32>, tensor<2x3xf32>, tensor<3x2xf32>) {
  %fill = arith.constant 1.5 : f32
  // p[a][b][c] = x[c][(a - 1) * 3 + b] for a in 1..2, else 1.5; squared.
  %e0 = tensor.empty() : tensor<6x2xf32>
  %t = linalg.transpose ins(%x : tensor<2x6xf32>) outs(%e0 : tensor<6x2xf32>) permutation = [1, 0]
  %ex = tensor.expand_shape %t [[0, 1], [2]] output_shape [2, 3, 2] : tensor<6x2xf32> into tensor<2x3x2xf32>
  %p = tensor.pad %ex low[1, 0, 0] high[1, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %fill : f32
  } : tensor<2x3x2xf32> to tensor<4x3x2xf32>
  %e1 = tensor.empty() : tensor<4x3x2xf32>
  %sq = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<4x3x2xf32>) outs(%e1 : tensor<4x3x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<4x3x2xf32>
  // d = v - m (per column), q = v * 2, and q transposed.
  %e2 = tensor.empty() : tensor<2x3xf32>
  %d = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%v, %m : tensor<2x3xf32>, tensor<3xf32>) outs(%e2 : tensor<2x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  %e3 = tensor.empty() : tensor<2x3xf32>
  %q = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%v : tensor<2x3xf32>) outs(%e3 : tensor<2x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %s = arith.mulf %a, %two : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  %e4 = tensor.empty() : tensor<3x2xf32>
  %qt = linalg.transpose ins(%q : tensor<2x3xf32>) outs(%e4 : tensor<3x2xf32>) permutation = [1, 0]
  return %sq, %d, %qt : tensor<4x3x2xf32>, tensor<2x3xf32>, tensor<3x2xf32>
}

// s[i][j] = -c[1 + 2i][3j] where c = collapse(transpose(x3)): a read
// through a strided slice, a collapse and a transpose.
func.func @strided(%x: tensor<3x2x4xf32>) -> tensor<2x2xf32> {
  %e0 = tensor.empty() : tensor<2x3x4xf32>
  %t = linalg.transpose ins(%x : tensor<3x2x4xf32>) outs(%e0 : tensor<2x3x4xf32>) permutation = [1, 0, 2]
  %c = tensor.collapse_shape %t [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %s = tensor.extract_slice %c[1, 0] [2, 2] [2, 3] : tensor<6x4xf32> to tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// A pad read whole (by a row sum, and returned): one generic after the
// passes instead of a fill and a copy. r = row sums of p, p = x padded
// with one row of 1.5 above and below.
func.func @padded(%x: tensor<2x3xf32>) -> (tensor<4xf32>, tensor<4x3xf32>) {
  %fill = arith.constant 1.5 : f32
  %p = tensor.pad %x low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %fill : f32
  } : tensor<2x3xf32> to tensor<4x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<4x3xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r, %p : tensor<4xf32>, tensor<4x3xf32>
}

func.func @main() {
  %x = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0, 11.0]]> : tensor<2x6xf32>
  %m = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %v = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %sq, %d, %qt = call @compute(%x, %m, %v)
      : (tensor<2x6xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<4x3x2xf32>, tensor<2x3xf32>, tensor<3x2xf32>)
  %b0 = bufferization.to_buffer %sq : tensor<4x3x2xf32> to memref<4x3x2xf32>
  %u0 = memref.cast %b0 : memref<4x3x2xf32> to memref<*xf32>
  // CHECK: [2.25,   2.25],
  // CHECK-NEXT: [2.25,   2.25],
  // CHECK-NEXT: [2.25,   2.25]],
  // CHECK-NEXT: [0,   36],
  // CHECK-NEXT: [1,   49],
  // CHECK-NEXT: [4,   64]],
  // CHECK-NEXT: [9,   81],
  // CHECK-NEXT: [16,   100],
  // CHECK-NEXT: [25,   121]],
  // CHECK-NEXT: [2.25,   2.25],
  // CHECK-NEXT: [2.25,   2.25],
  // CHECK-NEXT: [2.25,   2.25]]]
  call @printMemrefF32(%u0) : (memref<*xf32>) -> ()
  %b1 = bufferization.to_buffer %d : tensor<2x3xf32> to memref<2x3xf32>
  %u1 = memref.cast %b1 : memref<2x3xf32> to memref<*xf32>
  // CHECK: [0,   0,   0],
  // CHECK-NEXT: [3,   3,   3]]
  call @printMemrefF32(%u1) : (memref<*xf32>) -> ()
  %b2 = bufferization.to_buffer %qt : tensor<3x2xf32> to memref<3x2xf32>
  %u2 = memref.cast %b2 : memref<3x2xf32> to memref<*xf32>
  // CHECK: [2,   8],
  // CHECK-NEXT: [4,   10],
  // CHECK-NEXT: [6,   12]]
  call @printMemrefF32(%u2) : (memref<*xf32>) -> ()
  // x3[a][b][c] = 8a + 4b + c.
  %x3 = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]],
                              [[8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]],
                              [[16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]]> : tensor<3x2x4xf32>
  %st = call @strided(%x3) : (tensor<3x2x4xf32>) -> tensor<2x2xf32>
  %b3 = bufferization.to_buffer %st : tensor<2x2xf32> to memref<2x2xf32>
  %u3 = memref.cast %b3 : memref<2x2xf32> to memref<*xf32>
  // CHECK: [-8,   -11],
  // CHECK-NEXT: [-4,   -7]]
  call @printMemrefF32(%u3) : (memref<*xf32>) -> ()
  %px = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %pr, %pp = call @padded(%px) : (tensor<2x3xf32>) -> (tensor<4xf32>, tensor<4x3xf32>)
  %bpr = bufferization.to_buffer %pr : tensor<4xf32> to memref<4xf32>
  %upr = memref.cast %bpr : memref<4xf32> to memref<*xf32>
  // CHECK: [4.5,  6,  15,  4.5]
  call @printMemrefF32(%upr) : (memref<*xf32>) -> ()
  %bpp = bufferization.to_buffer %pp : tensor<4x3xf32> to memref<4x3xf32>
  %upp = memref.cast %bpp : memref<4x3xf32> to memref<*xf32>
  // CHECK: [1.5,   1.5,   1.5],
  // CHECK-NEXT: [1,   2,   3],
  // CHECK-NEXT: [4,   5,   6],
  // CHECK-NEXT: [1.5,   1.5,   1.5]]
  call @printMemrefF32(%upp) : (memref<*xf32>) -> ()
  return
}
