// RUN: wrapper-opt %s --wrapper-gemm-template | FileCheck %s
// RUN: wrapper-opt %s --wrapper-cpu-target="cpu=skylake-avx512 features=+avx512f" --wrapper-gemm-template | FileCheck %s --check-prefix=AVX512
// RUN: wrapper-opt %s --wrapper-gemm-template="vector-width=4" | FileCheck %s --check-prefix=OPTION

// Tests that without a vector-width option the GEMM template takes the
// width from the module's recorded target (here AVX2's 8 lanes, whatever
// the machine running the test), that --wrapper-cpu-target replaces it,
// and that the pass option wins over both.

// CHECK: func.call @__wrapper_gemm_ukernel_f32_6x16_v8
// AVX512: func.call @__wrapper_gemm_ukernel_f32_12x32_v16
// OPTION: func.call @__wrapper_gemm_ukernel_f32_6x8_v4
module attributes {wrapper.cpu_target = {cpu = "haswell", features = "+avx2", vector_width = 8 : i64}} {
  func.func @product(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
    linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
    return
  }
}
