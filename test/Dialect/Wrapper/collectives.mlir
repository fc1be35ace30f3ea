// RUN: wrapper-opt %s | wrapper-opt | FileCheck %s
// RUN: wrapper-opt %s -wrapper-verify-lifetimes | FileCheck %s --check-prefix=LIVE

// Collectives round-trip: all_reduce in place (one buffer and coalesced),
// all_gather_into_tensor and reduce_scatter_tensor, dynamic dim 0.

// CHECK-LABEL: wrapper.graph @collectives
// CHECK: %[[W0:.*]] = wrapper.collective_start "all_reduce" outs(%{{.*}} : memref<8xf32>) group "0" reduce "sum" -> !wrapper.work
// CHECK: wrapper.collective_wait %[[W0]]
// CHECK: wrapper.collective_start "all_reduce" outs(%{{.*}}, %{{.*}} : memref<8xf32>, memref<2x3xf64>) group "tp" reduce "avg" -> !wrapper.work
// CHECK: wrapper.collective_start "all_gather_into_tensor" ins(%{{.*}} : memref<4x8xf32>) outs(%{{.*}} : memref<8x8xf32>) group "0" size 2 -> !wrapper.work
// CHECK: wrapper.collective_start "reduce_scatter_tensor" ins(%{{.*}} : memref<?x8xf32>) outs(%{{.*}} : memref<?x8xf32>) group "0" reduce "max" size 4 -> !wrapper.work
// LIVE-LABEL: wrapper.graph @collectives
wrapper.graph @collectives(%x: memref<4x8xf32>, %s: memref<?x8xf32>, %n: index) -> memref<8x8xf32> {
  %a = wrapper.alloc() : memref<8xf32>
  %w0 = wrapper.collective_start "all_reduce" outs(%a : memref<8xf32>) group "0" reduce "sum" -> !wrapper.work
  wrapper.collective_wait %w0
  %b = wrapper.alloc() : memref<2x3xf64>
  %w1 = wrapper.collective_start "all_reduce" outs(%a, %b : memref<8xf32>, memref<2x3xf64>) group "tp" reduce "avg" -> !wrapper.work
  wrapper.collective_wait %w1
  wrapper.free %a : memref<8xf32>
  wrapper.free %b : memref<2x3xf64>
  %y = wrapper.alloc() : memref<8x8xf32>
  %w2 = wrapper.collective_start "all_gather_into_tensor" ins(%x : memref<4x8xf32>) outs(%y : memref<8x8xf32>) group "0" size 2 -> !wrapper.work
  wrapper.collective_wait %w2
  %z = wrapper.alloc(%n) : memref<?x8xf32>
  %w3 = wrapper.collective_start "reduce_scatter_tensor" ins(%s : memref<?x8xf32>) outs(%z : memref<?x8xf32>) group "0" reduce "max" size 4 -> !wrapper.work
  wrapper.collective_wait %w3
  wrapper.free %z : memref<?x8xf32>
  wrapper.return %y : memref<8x8xf32>
}
