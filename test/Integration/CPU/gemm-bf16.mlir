// bf16 and f16 products on the GEMM template (accumulated in f32, rounded
// by the epilogue) against the reference interpreter: an odd K (the last
// bf16 pair padded with a zero), tails in M and N, several K slices (K of
// 1100 with the default kc of 512, and kc 64), a bias + gelu epilogue
// computed in bf16, constant weights packed at compile time (B, and A as
// convolutions have it, 600 deep: two K slices, 300 pairs), products of
// 4 rows or fewer (B read in place), a batched product, a dynamic M, a
// dynamic K (odd, over three K slices, and 0), f16,
// and the same with vdpbf16ps off (--mattr=-avx512bf16, or bf16-pairs=false)
// and with AVX2 vectors. Where the host has AVX512-BF16 the default runs
// use the bf16-pair micro-kernel (the REMARK line checks it there).
// RUN: wrapper-run %s --entry=odd_k --verify --print=false --seed 1 | FileCheck %s
// RUN: wrapper-run %s --entry=odd_k --verify --print=false --seed 1 --gemm-options="kc=64 mc=24 nc=64" | FileCheck %s
// RUN: wrapper-run %s --entry=odd_k --verify --print=false --seed 1 --gemm-options="bf16-pairs=false" | FileCheck %s
// RUN: wrapper-run %s --entry=odd_k --verify --print=false --seed 1 --mattr=-avx512bf16 | FileCheck %s
// RUN: wrapper-run %s --entry=odd_k --verify --print=false --seed 1 --mattr=-avx512f | FileCheck %s
// RUN: wrapper-run %s --entry=deep --verify --print=false --seed 2 | FileCheck %s
// RUN: wrapper-run %s --entry=bias_gelu --verify --print=false --seed 3 | FileCheck %s
// RUN: wrapper-run %s --entry=frozen --verify --print=false --seed 4 | FileCheck %s
// RUN: wrapper-run %s --entry=frozen --verify --print=false --seed 4 --mattr=-avx512bf16 | FileCheck %s
// RUN: wrapper-run %s --entry=frozen_a --verify --print=false --seed 4 | FileCheck %s
// RUN: wrapper-run %s --entry=rows3 --verify --print=false --seed 5 | FileCheck %s
// RUN: wrapper-run %s --entry=rows3 --verify --print=false --seed 5 --mattr=-avx512f | FileCheck %s
// RUN: wrapper-run %s --entry=batched --verify --print=false --seed 6 | FileCheck %s
// RUN: wrapper-run %s --entry=dynamic --verify --print=false --seed 7 --dynamic-size=29 | FileCheck %s
// RUN: wrapper-run %s --entry=dynamic --verify --print=false --seed 7 --dynamic-size=1 | FileCheck %s
// RUN: wrapper-run %s --entry=dynamic_k --verify --print=false --seed 9 --dynamic-size=1101 | FileCheck %s
// RUN: wrapper-run %s --entry=dynamic_k --verify --print=false --seed 9 --dynamic-size=0 | FileCheck %s
// RUN: wrapper-run %s --entry=half --verify --print=false --seed 8 | FileCheck %s
// RUN: wrapper-run %s --entry=half --verify --print=false --seed 8 --mattr=-avx512f | FileCheck %s
// RUN: wrapper-compile %s --entry=frozen --gemm-options="report=true" -o %t.so 2>&1 | FileCheck %s --check-prefix=REMARK
// CHECK: vs interpreter: {{.*}}: ok
// CHECK-NOT: vs interpreter: {{.*}}: MISMATCH
// REMARK: GEMM template: micro-kernel {{.*}}; B prepacked at compile time
func.func @odd_k(%a: tensor<50x75xbf16>, %w: tensor<75x70xbf16>) -> tensor<50x70xbf16> {
  %m = tensor_program.matmul %a, %w : (tensor<50x75xbf16>, tensor<75x70xbf16>) -> tensor<50x70xbf16>
  return %m : tensor<50x70xbf16>
}
func.func @deep(%a: tensor<30x1101xbf16>, %w: tensor<1101x40xbf16>) -> tensor<30x40xbf16> {
  %m = tensor_program.matmul %a, %w : (tensor<30x1101xbf16>, tensor<1101x40xbf16>) -> tensor<30x40xbf16>
  return %m : tensor<30x40xbf16>
}
func.func @bias_gelu(%a: tensor<37x64xbf16>, %w: tensor<64x45xbf16>, %bias: tensor<45xbf16>) -> tensor<37x45xbf16> {
  %m = tensor_program.matmul %a, %w : (tensor<37x64xbf16>, tensor<64x45xbf16>) -> tensor<37x45xbf16>
  %bb = tensor_program.broadcast %bias : tensor<45xbf16> -> tensor<37x45xbf16>
  %s = tensor_program.add %m, %bb : (tensor<37x45xbf16>, tensor<37x45xbf16>) -> tensor<37x45xbf16>
  %g = tensor_program.gelu %s : tensor<37x45xbf16>
  return %g : tensor<37x45xbf16>
}
func.func @frozen(%a: tensor<20x33xbf16>) -> tensor<20x50xbf16> {
  %i = tensor_program.iota dim 1 : tensor<33x50xf32>
  %s = tensor_program.constant dense<0.01> : tensor<33x50xf32>
  %ws = tensor_program.mul %i, %s : (tensor<33x50xf32>, tensor<33x50xf32>) -> tensor<33x50xf32>
  %w = tensor_program.cast %ws : tensor<33x50xf32> to tensor<33x50xbf16>
  %m = tensor_program.matmul %a, %w : (tensor<20x33xbf16>, tensor<33x50xbf16>) -> tensor<20x50xbf16>
  return %m : tensor<20x50xbf16>
}
func.func @frozen_a(%x: tensor<600x50xbf16>) -> tensor<20x50xbf16> {
  %i = tensor_program.iota dim 1 : tensor<20x600xf32>
  %s = tensor_program.constant dense<0.001> : tensor<20x600xf32>
  %ws = tensor_program.mul %i, %s : (tensor<20x600xf32>, tensor<20x600xf32>) -> tensor<20x600xf32>
  %w = tensor_program.cast %ws : tensor<20x600xf32> to tensor<20x600xbf16>
  %m = tensor_program.matmul %w, %x : (tensor<20x600xbf16>, tensor<600x50xbf16>) -> tensor<20x50xbf16>
  %r = tensor_program.relu %m : tensor<20x50xbf16>
  return %r : tensor<20x50xbf16>
}
func.func @rows3(%a: tensor<3x130xbf16>, %w: tensor<130x70xbf16>) -> tensor<3x70xbf16> {
  %m = tensor_program.matmul %a, %w : (tensor<3x130xbf16>, tensor<130x70xbf16>) -> tensor<3x70xbf16>
  return %m : tensor<3x70xbf16>
}
func.func @batched(%a: tensor<3x17x24xbf16>, %w: tensor<3x24x33xbf16>) -> tensor<3x17x33xbf16> {
  %m = tensor_program.batch_matmul %a, %w : (tensor<3x17x24xbf16>, tensor<3x24x33xbf16>) -> tensor<3x17x33xbf16>
  return %m : tensor<3x17x33xbf16>
}
func.func @dynamic(%a: tensor<?x40xbf16>, %w: tensor<40x36xbf16>) -> tensor<?x36xbf16> {
  %m = tensor_program.matmul %a, %w : (tensor<?x40xbf16>, tensor<40x36xbf16>) -> tensor<?x36xbf16>
  return %m : tensor<?x36xbf16>
}
func.func @half(%a: tensor<26x51xf16>, %w: tensor<51x40xf16>) -> tensor<26x40xf16> {
  %m = tensor_program.matmul %a, %w : (tensor<26x51xf16>, tensor<51x40xf16>) -> tensor<26x40xf16>
  return %m : tensor<26x40xf16>
}
func.func @dynamic_k(%a: tensor<30x?xbf16>, %b: tensor<?x40xbf16>, %bias: tensor<40xbf16>) -> tensor<30x40xbf16> {
  %c = tensor_program.matmul %a, %b : (tensor<30x?xbf16>, tensor<?x40xbf16>) -> tensor<30x40xbf16>
  %d = tensor_program.add %c, %bias : (tensor<30x40xbf16>, tensor<40xbf16>) -> tensor<30x40xbf16>
  return %d : tensor<30x40xbf16>
}
