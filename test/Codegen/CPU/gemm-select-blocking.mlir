// RUN: wrapper-opt %s --wrapper-gemm-select-blocking | FileCheck %s
// RUN: wrapper-opt %s --wrapper-gemm-select-blocking="vector-width=8 overwrite=true" | FileCheck %s --check-prefix=AVX2
// RUN: wrapper-opt %s --wrapper-gemm-select-blocking --wrapper-gemm-template="small-m-rows=4" | FileCheck %s --check-prefix=TEMPLATE
// RUN: not wrapper-opt %s --wrapper-gemm-select-blocking="vector-width=16 nc=100" 2>&1 | FileCheck %s --check-prefix=BAD

// Tests that the blocking the template would choose is recorded on each
// f32 product (the vector width from the module's target), that a recorded
// one is kept (unless overwrite) and used by the template, and that a
// product with 5 static rows gets a 5-row, 4-vector tile (4 rows or fewer
// take the template's small-M path, without a micro-kernel).

// CHECK-LABEL: func.func @square
// CHECK: linalg.matmul {wrapper.gemm_blocking = {kc = 512 : i64, mc = 144 : i64, mr = 12 : i64, nc = 256 : i64, nr = 32 : i64, vl = 16 : i64}}
// CHECK-LABEL: func.func @five_rows
// CHECK: linalg.matmul {wrapper.gemm_blocking = {kc = 512 : i64, mc = 140 : i64, mr = 5 : i64, nc = 256 : i64, nr = 64 : i64, vl = 16 : i64}}
// CHECK-LABEL: func.func @recorded
// CHECK: linalg.matmul {wrapper.gemm_blocking = {kc = 64 : i64, mc = 48 : i64, mr = 6 : i64, nc = 64 : i64, nr = 16 : i64, vl = 8 : i64}}
// AVX2-LABEL: func.func @square
// AVX2: mr = 6 : i64, nc = 256 : i64, nr = 16 : i64, vl = 8 : i64
// AVX2-LABEL: func.func @recorded
// AVX2: mr = 6 : i64, nc = 256 : i64, nr = 16 : i64, vl = 8 : i64
// TEMPLATE-DAG: func.call @__wrapper_gemm_ukernel_f32_12x32_v16
// TEMPLATE-DAG: func.call @__wrapper_gemm_ukernel_f32_5x64_v16
// TEMPLATE-DAG: func.call @__wrapper_gemm_ukernel_f32_6x16_v8
// BAD: error: wrapper-gemm-select-blocking: nc must be a positive multiple of nr (32), got 100
module attributes {wrapper.cpu_target = {cpu = "skylake-avx512", features = "+avx512f", vector_width = 16 : i64}} {
  func.func @square(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
    linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
    return
  }
  func.func @five_rows(%a: memref<5x64xf32>, %b: memref<64x64xf32>, %c: memref<5x64xf32>) {
    linalg.matmul ins(%a, %b : memref<5x64xf32>, memref<64x64xf32>) outs(%c : memref<5x64xf32>)
    return
  }
  func.func @recorded(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
    linalg.matmul {wrapper.gemm_blocking = {kc = 64 : i64, mc = 48 : i64, mr = 6 : i64, nc = 64 : i64, nr = 16 : i64, vl = 8 : i64}}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
    return
  }
}

