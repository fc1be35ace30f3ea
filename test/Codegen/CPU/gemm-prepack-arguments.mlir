// RUN: wrapper-opt %s --split-input-file --wrapper-gemm-template="vector-width=16 report=true min-parallel-work=0 prepack-arguments=1 small-m-rows=4" --verify-diagnostics | FileCheck %s

// Weights packed by the caller: B is graph argument #1, listed in
// prepack-arguments and read only by the kernel's call, so the graph takes
// it as panels ([ceil(34/64)][3][64] for a 5-row product) marked
// wrapper.packed_b, and the kernel packs no B at run time.
// CHECK-LABEL: wrapper.graph @weights
// CHECK-SAME: (%{{.*}}: memref<5x3xf32>, %[[W:.*]]: memref<1x3x64xf32> {wrapper.packed_b = 64 : i64})
// CHECK: wrapper.call @k(%{{.*}}, %[[W]], %{{.*}}) : memref<5x3xf32>, memref<1x3x64xf32>, memref<5x34xf32>
// CHECK-LABEL: func.func private @k_impl
// CHECK-SAME: %{{.*}}: memref<1x3x64xf32>
// CHECK: func.call @__wrapper_gemm_ukernel
wrapper.graph @weights(%x: memref<5x3xf32>, %w: memref<3x34xf32>) -> memref<5x34xf32> {
  %buf = wrapper.alloc() : memref<5x34xf32>
  wrapper.call @k(%x, %w, %buf) : memref<5x3xf32>, memref<3x34xf32>, memref<5x34xf32>
  wrapper.return %buf : memref<5x34xf32>
}
func.func private @k_impl(%a: memref<5x3xf32>, %b: memref<3x34xf32>, %out: memref<5x34xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<5x34xf32>)
  // expected-remark @below {{B packed by the caller (graph argument #1)}}
  linalg.matmul ins(%a, %b : memref<5x3xf32>, memref<3x34xf32>) outs(%out : memref<5x34xf32>)
  return
}
wrapper.kernel @k = @k_impl metadata {kind = "matmul", source_ops = ["matmul"]}

// -----

// A B from an argument that is not listed (the caller's input, #0) is
// packed at run time; so is a listed one that something else reads.
// CHECK-LABEL: wrapper.graph @inputs
// CHECK-SAME: (%{{.*}}: memref<3x34xf32>, %{{.*}}: memref<5x3xf32>)
wrapper.graph @inputs(%w: memref<3x34xf32>, %x: memref<5x3xf32>) -> memref<5x34xf32> {
  %buf = wrapper.alloc() : memref<5x34xf32>
  wrapper.call @k(%x, %w, %buf) : memref<5x3xf32>, memref<3x34xf32>, memref<5x34xf32>
  wrapper.return %buf : memref<5x34xf32>
}
func.func private @k_impl(%a: memref<5x3xf32>, %b: memref<3x34xf32>, %out: memref<5x34xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<5x34xf32>)
  // expected-remark @below {{B packed at run time (B is argument #0 of the graph, not one of prepack-arguments)}}
  linalg.matmul ins(%a, %b : memref<5x3xf32>, memref<3x34xf32>) outs(%out : memref<5x34xf32>)
  return
}
wrapper.kernel @k = @k_impl metadata {kind = "matmul", source_ops = ["matmul"]}

// -----

// CHECK-LABEL: wrapper.graph @shared
// CHECK-SAME: (%{{.*}}: memref<5x3xf32>, %{{.*}}: memref<3x34xf32>)
wrapper.graph @shared(%x: memref<5x3xf32>, %w: memref<3x34xf32>) -> (memref<5x34xf32>, memref<5x34xf32>) {
  %buf = wrapper.alloc() : memref<5x34xf32>
  wrapper.call @k(%x, %w, %buf) : memref<5x3xf32>, memref<3x34xf32>, memref<5x34xf32>
  %buf2 = wrapper.alloc() : memref<5x34xf32>
  wrapper.call @k2(%x, %w, %buf2) : memref<5x3xf32>, memref<3x34xf32>, memref<5x34xf32>
  wrapper.return %buf, %buf2 : memref<5x34xf32>, memref<5x34xf32>
}
func.func private @k_impl(%a: memref<5x3xf32>, %b: memref<3x34xf32>, %out: memref<5x34xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<5x34xf32>)
  // expected-remark @below {{B packed at run time (graph argument #1 has other uses)}}
  linalg.matmul ins(%a, %b : memref<5x3xf32>, memref<3x34xf32>) outs(%out : memref<5x34xf32>)
  return
}
func.func private @k2_impl(%a: memref<5x3xf32>, %b: memref<3x34xf32>, %out: memref<5x34xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<5x34xf32>)
  // expected-remark @below {{B packed at run time (graph argument #1 has other uses)}}
  linalg.matmul ins(%a, %b : memref<5x3xf32>, memref<3x34xf32>) outs(%out : memref<5x34xf32>)
  return
}
wrapper.kernel @k = @k_impl metadata {kind = "matmul", source_ops = ["matmul"]}
wrapper.kernel @k2 = @k2_impl metadata {kind = "matmul", source_ops = ["matmul"]}
