// A recorded blocking that does not hold is refused where it is used.
// RUN: not wrapper-opt %s --wrapper-gemm-template 2>&1 | FileCheck %s --check-prefix=BADREC
// BADREC: error: wrapper-gemm-template: recorded wrapper.gemm_blocking: nc must be a positive multiple of nr (16), got 40
func.func @bad_record(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul {wrapper.gemm_blocking = {kc = 64 : i64, mc = 48 : i64, mr = 6 : i64, nc = 40 : i64, nr = 16 : i64, vl = 8 : i64}}
    ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
