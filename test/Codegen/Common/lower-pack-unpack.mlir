// RUN: wrapper-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(wrapper-lower-pack-unpack))" | FileCheck %s

// Static inner tiles: pad, expand_shape and transpose (pack); transpose,
// collapse_shape and extract_slice (unpack).

// CHECK-LABEL: func.func @static_pack
// CHECK-NOT: linalg.pack
// CHECK: tensor.pad
// CHECK: tensor.expand_shape
// CHECK: linalg.transpose
func.func @static_pack(%a: tensor<3x5xf32>) -> tensor<2x3x2x2xf32> {
  %pad = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x2x2xf32>
  %p = linalg.pack %a padding_value(%pad : f32) inner_dims_pos = [0, 1]
      inner_tiles = [2, 2] into %e : tensor<3x5xf32> -> tensor<2x3x2x2xf32>
  return %p : tensor<2x3x2x2xf32>
}

// CHECK-LABEL: func.func @static_unpack
// CHECK-NOT: linalg.unpack
// CHECK: linalg.transpose
// CHECK: tensor.collapse_shape
// CHECK: tensor.extract_slice
func.func @static_unpack(%p: tensor<2x3x2x2xf32>) -> tensor<3x5xf32> {
  %e = tensor.empty() : tensor<3x5xf32>
  %u = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [2, 2]
      into %e : tensor<2x3x2x2xf32> -> tensor<3x5xf32>
  return %u : tensor<3x5xf32>
}

// -----

// A dynamic inner tile: the outer dimensions tiled by 1 with scf.for, each
// tile decomposed.

// CHECK-LABEL: func.func @dynamic_pack
// CHECK-NOT: linalg.pack
// CHECK: scf.for
// CHECK: scf.for
// CHECK: tensor.insert_slice
func.func @dynamic_pack(%a: tensor<3x5xf32>, %t: index, %n: index) -> tensor<3x?x1x?xf32> {
  %pad = arith.constant 0.0 : f32
  %e = tensor.empty(%n, %t) : tensor<3x?x1x?xf32>
  %p = linalg.pack %a padding_value(%pad : f32) inner_dims_pos = [0, 1]
      inner_tiles = [1, %t] into %e : tensor<3x5xf32> -> tensor<3x?x1x?xf32>
  return %p : tensor<3x?x1x?xf32>
}
