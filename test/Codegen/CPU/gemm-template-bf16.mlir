// RUN: wrapper-opt %s --split-input-file --wrapper-gemm-template="report=true min-parallel-work=0" --verify-diagnostics | FileCheck %s
// RUN: wrapper-opt %s --split-input-file --wrapper-gemm-template="bf16-pairs=false min-parallel-work=0" 2>/dev/null | FileCheck %s --check-prefix=EXT
//
// f16 and bf16 products accumulated into an f32 C on the GEMM template.
// Where the module's target has AVX512-BF16, a bf16 product keeps its
// panels in bf16 with pairs of consecutive k interleaved in each lane and
// the micro-kernel multiplies them with vdpbf16ps (x86vector.avx512.dot);
// without it (or with bf16-pairs=false) A and B are extended to f32 while
// packed and the f32 micro-kernel runs. The cast to bf16 after the
// product is the epilogue.

#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @pairs
// A's panels are bf16 pairs: ceil(K/2) * mr * 2 elements per panel.
// CHECK: memref.alloc({{.*}}) {alignment = 64 : i64} : memref<?xbf16>
// CHECK: memref.load %arg0{{.*}} : memref<100x75xbf16>
// CHECK: memref.store {{.*}} : memref<?xbf16>
// B's rows k and k + 1 interleaved into one vector of 16 pairs.
// CHECK: vector.load %arg1{{.*}} : memref<75x70xbf16>, vector<16xbf16>
// CHECK: vector.interleave {{.*}} : vector<16xbf16> -> vector<32xbf16>
// CHECK: vector.store {{.*}} : memref<?xbf16>, vector<32xbf16>
// CHECK: func.call @__wrapper_gemm_ukernel_bf16x2_12x32_v16
// The epilogue rounds C to bf16.
// CHECK: arith.truncf {{.*}} : vector<16xf32> to vector<16xbf16>
// CHECK: vector.maskedstore %arg2{{.*}} : memref<100x70xbf16>, vector<16xi1>, vector<16xbf16>
// The micro-kernel: per pair of k, two vectors of B and, per row, A's pair
// broadcast as one 32-bit word; 12 x 2 dots.
// CHECK-LABEL: func.func private @__wrapper_gemm_ukernel_bf16x2_12x32_v16
// CHECK-SAME: (%{{.*}}: memref<?xbf16>, %{{.*}}: index, %{{.*}}: memref<?xbf16>
// CHECK: %[[PAIRS:.*]] = arith.divui
// CHECK: scf.for {{.*}} to %[[PAIRS]]
// CHECK-COUNT-2: vector.load {{.*}} : memref<?xbf16>, vector<32xbf16>
// CHECK: vector.load {{.*}} : memref<?xbf16>, vector<2xbf16>
// CHECK: vector.bitcast {{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK: vector.broadcast {{.*}} : i32 to vector<16xi32>
// CHECK: vector.bitcast {{.*}} : vector<16xi32> to vector<32xbf16>
// CHECK-COUNT-24: x86vector.avx512.dot
// CHECK-NOT: x86vector.avx512.dot
// CHECK: scf.yield
// EXT-LABEL: func.func @pairs
// EXT: memref.load %arg0{{.*}} : memref<100x75xbf16>
// EXT: arith.extf {{.*}} : bf16 to f32
// EXT: vector.load %arg1{{.*}} : memref<75x70xbf16>, vector<16xbf16>
// EXT: arith.extf {{.*}} : vector<16xbf16> to vector<16xf32>
// EXT: func.call @__wrapper_gemm_ukernel_f32_12x32_v16
// EXT-NOT: x86vector
module attributes {wrapper.cpu_target = {cpu = "sapphirerapids", features = "+avx512f,+avx512bf16", vector_width = 16 : i64}} {
  func.func @pairs(%a: memref<100x75xbf16>, %b: memref<75x70xbf16>, %out: memref<100x70xbf16>) {
    %zero = arith.constant 0.0 : f32
    %c = memref.alloc() : memref<100x70xf32>
    linalg.fill ins(%zero : f32) outs(%c : memref<100x70xf32>)
    // expected-remark @below {{GEMM template: micro-kernel 12x32 (16 lanes, bf16 pairs (vdpbf16ps)), kc 512, mc 144, nc 256; B packed at run time (the kernel function is not defined by a wrapper.kernel); epilogue fused (1 payload ops)}}
    linalg.matmul ins(%a, %b : memref<100x75xbf16>, memref<75x70xbf16>) outs(%c : memref<100x70xf32>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%c : memref<100x70xf32>) outs(%out : memref<100x70xbf16>) {
    ^bb0(%x: f32, %y: bf16):
      %t = arith.truncf %x : f32 to bf16
      linalg.yield %t : bf16
    }
    memref.dealloc %c : memref<100x70xf32>
    return
  }
}

// -----

// Without AVX512-BF16 in the target (and for f16 everywhere), the operands
// are extended to f32 while packed.
// CHECK-LABEL: func.func @no_bf16_feature
// CHECK: arith.extf {{.*}} : bf16 to f32
// CHECK: arith.extf {{.*}} : vector<16xbf16> to vector<16xf32>
// CHECK: func.call @__wrapper_gemm_ukernel_f32_12x32_v16
// CHECK-NOT: x86vector
// CHECK-LABEL: func.func @half
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: arith.extf {{.*}} : vector<16xf16> to vector<16xf32>
// CHECK: func.call @__wrapper_gemm_ukernel_f32_12x32_v16
module attributes {wrapper.cpu_target = {cpu = "skylake-avx512", features = "+avx512f,+avx512bf16,-avx512bf16", vector_width = 16 : i64}} {
  func.func @no_bf16_feature(%a: memref<40x64xbf16>, %b: memref<64x48xbf16>, %c: memref<40x48xf32>) {
    // expected-remark @below {{GEMM template: micro-kernel 12x32 (16 lanes, bf16 extended to f32), kc 512}}
    linalg.matmul ins(%a, %b : memref<40x64xbf16>, memref<64x48xbf16>) outs(%c : memref<40x48xf32>)
    return
  }
  func.func @half(%a: memref<40x64xf16>, %b: memref<64x48xf16>, %c: memref<40x48xf32>) {
    // expected-remark @below {{GEMM template: micro-kernel 12x32 (16 lanes, f16 extended to f32), kc 512}}
    linalg.matmul ins(%a, %b : memref<40x64xf16>, memref<64x48xf16>) outs(%c : memref<40x48xf32>)
    return
  }
}

// -----

// A product of 4 rows or fewer reads bf16 B in place (no panels) and
// extends each vector.
// CHECK-LABEL: func.func @small_m
// CHECK-NOT: memref.alloc
// CHECK: vector.maskedload %arg1{{.*}} : memref<64x48xbf16>, vector<16xi1>, vector<16xbf16> into vector<16xbf16>
// CHECK: arith.extf {{.*}} : vector<16xbf16> to vector<16xf32>
// CHECK: vector.fma
module attributes {wrapper.cpu_target = {cpu = "sapphirerapids", features = "+avx512f,+avx512bf16", vector_width = 16 : i64}} {
  func.func @small_m(%a: memref<2x64xbf16>, %b: memref<64x48xbf16>, %c: memref<2x48xf32>) {
    // expected-remark @below {{GEMM template: small M (2 rows, 4 or fewer)}}
    linalg.matmul ins(%a, %b : memref<2x64xbf16>, memref<64x48xbf16>) outs(%c : memref<2x48xf32>)
    return
  }
}

// -----

// Products whose operands differ, or whose C is not f32, stay for the loop
// lowering.
module attributes {wrapper.cpu_target = {cpu = "sapphirerapids", features = "+avx512f,+avx512bf16", vector_width = 16 : i64}} {
  func.func @refused(%a: memref<8x8xbf16>, %b: memref<8x8xf16>, %c: memref<8x8xf32>,
                     %d: memref<8x8xbf16>, %e: memref<8x8xbf16>) {
    // expected-remark @below {{GEMM template not used: operands are not f32, or f16/bf16 into f32}}
    linalg.matmul ins(%a, %b : memref<8x8xbf16>, memref<8x8xf16>) outs(%c : memref<8x8xf32>)
    // expected-remark @below {{GEMM template not used: operands are not f32, or f16/bf16 into f32}}
    linalg.matmul ins(%a, %d : memref<8x8xbf16>, memref<8x8xbf16>) outs(%e : memref<8x8xbf16>)
    return
  }
}
