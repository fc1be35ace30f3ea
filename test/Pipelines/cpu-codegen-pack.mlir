// RUN: wrapper-opt %s --wrapper-cpu-codegen | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs | FileCheck %s

// Tests that --wrapper-cpu-codegen lowers linalg.pack and linalg.unpack
// (with padding, outer and inner permutations, static and dynamic inner
// tiles) and a product of packed operands (linalg.mmt4d).

func.func private @printMemrefF32(memref<*xf32>)

func.func @print(%t: tensor<?x?xf32>) {
  %m = bufferization.to_buffer %t : tensor<?x?xf32> to memref<?x?xf32>
  %u = memref.cast %m : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  // A 3x5 matrix, a[i][j] = 10 i + j.
  %a = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0],
                             [10.0, 11.0, 12.0, 13.0, 14.0],
                             [20.0, 21.0, 22.0, 23.0, 24.0]]> : tensor<3x5xf32>
  %pad = arith.constant -1.0 : f32

  // Packed into 2x2 tiles, padded with -1: 2x3 tiles of 2x2.
  %e = tensor.empty() : tensor<2x3x2x2xf32>
  %p = linalg.pack %a padding_value(%pad : f32) inner_dims_pos = [0, 1]
      inner_tiles = [2, 2] into %e : tensor<3x5xf32> -> tensor<2x3x2x2xf32>
  %pc = tensor.collapse_shape %p [[0, 1, 2], [3]] : tensor<2x3x2x2xf32> into tensor<12x2xf32>
  %pd = tensor.cast %pc : tensor<12x2xf32> to tensor<?x?xf32>
  // CHECK: [0,   1]
  // CHECK-NEXT: [10,   11]
  // CHECK-NEXT: [2,   3]
  // CHECK-NEXT: [12,   13]
  // CHECK-NEXT: [4,   -1]
  // CHECK-NEXT: [14,   -1]
  // CHECK-NEXT: [20,   21]
  // CHECK-NEXT: [-1,   -1]
  call @print(%pd) : (tensor<?x?xf32>) -> ()

  // Unpacked back (the padding dropped).
  %ue = tensor.empty() : tensor<3x5xf32>
  %u = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [2, 2]
      into %ue : tensor<2x3x2x2xf32> -> tensor<3x5xf32>
  %ud = tensor.cast %u : tensor<3x5xf32> to tensor<?x?xf32>
  // CHECK: [0,   1,   2,   3,   4]
  // CHECK-NEXT: [10,   11,   12,   13,   14]
  // CHECK-NEXT: [20,   21,   22,   23,   24]
  call @print(%ud) : (tensor<?x?xf32>) -> ()

  // Transposed tiles: outer dims swapped, the tile's columns first.
  %te = tensor.empty() : tensor<3x2x2x2xf32>
  %t = linalg.pack %a padding_value(%pad : f32) outer_dims_perm = [1, 0]
      inner_dims_pos = [1, 0] inner_tiles = [2, 2] into %te
      : tensor<3x5xf32> -> tensor<3x2x2x2xf32>
  %tu = linalg.unpack %t outer_dims_perm = [1, 0] inner_dims_pos = [1, 0]
      inner_tiles = [2, 2] into %ue : tensor<3x2x2x2xf32> -> tensor<3x5xf32>
  %tud = tensor.cast %tu : tensor<3x5xf32> to tensor<?x?xf32>
  // CHECK: [0,   1,   2,   3,   4]
  // CHECK-NEXT: [10,   11,   12,   13,   14]
  // CHECK-NEXT: [20,   21,   22,   23,   24]
  call @print(%tud) : (tensor<?x?xf32>) -> ()

  // A dynamic inner tile (3 columns) packs the same as a static one.
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %dyn = tensor.empty(%c2, %c3) : tensor<3x?x1x?xf32>
  %d = linalg.pack %a padding_value(%pad : f32) inner_dims_pos = [0, 1]
      inner_tiles = [1, %c3] into %dyn : tensor<3x5xf32> -> tensor<3x?x1x?xf32>
  %dc = tensor.collapse_shape %d [[0, 1, 2], [3]] : tensor<3x?x1x?xf32> into tensor<?x?xf32>
  // CHECK: [0,   1,   2]
  // CHECK-NEXT: [3,   4,   -1]
  // CHECK-NEXT: [10,   11,   12]
  // CHECK-NEXT: [13,   14,   -1]
  // CHECK-NEXT: [20,   21,   22]
  // CHECK-NEXT: [23,   24,   -1]
  call @print(%dc) : (tensor<?x?xf32>) -> ()

  // mmt4d of packed operands: A (4x4, 2x2 tiles) times B^T (4x4, 2x2
  // tiles), unpacked: A = identity scaled by 2, B = [[1..4] rows].
  %ia = arith.constant dense<[[2.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0],
                              [0.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 2.0]]> : tensor<4x4xf32>
  %ib = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0],
                              [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0]]> : tensor<4x4xf32>
  %r = call @packed_product(%ia, %ib) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %rd = tensor.cast %r : tensor<4x4xf32> to tensor<?x?xf32>
  // CHECK: [2,   4,   6,   8]
  // CHECK-NEXT: [10,   12,   14,   16]
  // CHECK-NEXT: [18,   20,   22,   24]
  // CHECK-NEXT: [26,   28,   30,   32]
  call @print(%rd) : (tensor<?x?xf32>) -> ()
  return
}

// A function returning the product of packed operands: its temporaries are
// freed while the result is kept, which the deallocation lowers through a
// helper function the module holds.
func.func private @packed_product(%ia: tensor<4x4xf32>, %ib: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %pae = tensor.empty() : tensor<2x2x2x2xf32>
  %pa = linalg.pack %ia inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %pae
      : tensor<4x4xf32> -> tensor<2x2x2x2xf32>
  // B packed with N outer and N inner first (as mmt4d takes it: [N1, K1, N0, K0]).
  %pbe = tensor.empty() : tensor<2x2x2x2xf32>
  %pb = linalg.pack %ib outer_dims_perm = [1, 0] inner_dims_pos = [1, 0]
      inner_tiles = [2, 2] into %pbe : tensor<4x4xf32> -> tensor<2x2x2x2xf32>
  %zero = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<2x2x2x2xf32>
  %cz = linalg.fill ins(%zero : f32) outs(%ce : tensor<2x2x2x2xf32>) -> tensor<2x2x2x2xf32>
  %pc4 = linalg.mmt4d ins(%pa, %pb : tensor<2x2x2x2xf32>, tensor<2x2x2x2xf32>)
      outs(%cz : tensor<2x2x2x2xf32>) -> tensor<2x2x2x2xf32>
  %re = tensor.empty() : tensor<4x4xf32>
  %r = linalg.unpack %pc4 inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %re
      : tensor<2x2x2x2xf32> -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
