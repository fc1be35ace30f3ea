// The GEMM template against the reference interpreter (naive loops) on
// shapes with tails everywhere: M, N and K are not multiples of the
// register tile (12 x 32), and 150 x 300 x 300 spans several row blocks,
// column blocks and K slices with the default blocking (mc 144, nc 256)
// and, with --gemm-options, with small blocks (kc 128: three K slices, the
// last 44 deep; mc 48: four row blocks; nc 64: five column blocks). Every
// fused epilogue kind: bias, relu, gelu, silu, residual add, row scale, cast
// to bf16; M = 1; a dynamic M (7 and 1); constant weights packed at compile
// time; one and two threads; a narrow N (one column block) whose rows are
// split between 2 and 3 threads; a dynamic K of 5 and 0; and the same
// programs without the template.
// RUN: wrapper-run %s --entry=tails --verify --print=false --seed 3 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=tails --verify --print=false --seed 4 --num-threads=1 --parallel=false | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=tails --verify --print=false --seed 5 --gemm-options="kc=128 mc=48 nc=64" | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=epilogues --verify --print=false --seed 6 --atol=1e-4 --gemm-options="kc=16 nc=32" | FileCheck %s --check-prefix=SIX
// RUN: not wrapper-run %s --entry=tails --print=false --gemm-options="kc=0" 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: error: wrapper-gemm-template: kc must be at least 1, got 0
// RUN: wrapper-run %s --entry=epilogues --verify --print=false --seed 5 --atol=1e-4 | FileCheck %s --check-prefix=SIX
// RUN: wrapper-run %s --entry=epilogues --verify --print=false --seed 5 --atol=1e-4 --gemm=false | FileCheck %s --check-prefix=SIX
// RUN: wrapper-run %s --entry=vector_row --verify --print=false --seed 6 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=dynamic --verify --print=false --seed 7 --dynamic-size=7 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=dynamic --verify --print=false --seed 8 --dynamic-size=1 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=frozen --verify --print=false --seed 9 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=frozen --verify --print=false --seed 9 --fold-constants=false | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=tiny --verify --print=false --seed 10 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=narrow --verify --print=false --seed 11 --num-threads=2 --gemm-options=min-parallel-work=0 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=narrow --verify --print=false --seed 12 --num-threads=3 --gemm-options=min-parallel-work=0 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=dynamic_k --verify --print=false --seed 13 --dynamic-size=5 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=dynamic_k --verify --print=false --seed 14 --dynamic-size=0 | FileCheck %s --check-prefix=ONE
// Empty products: N = 0 and M = 0 at run time (on 2 threads, where the
// thread split divides by the number of column blocks).
// RUN: wrapper-run %s --entry=dynamic_n --verify --print=false --seed 16 --dynamic-size=0 --num-threads=2 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=dynamic_n --verify --print=false --seed 17 --dynamic-size=3 --num-threads=2 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=dynamic --verify --print=false --seed 18 --dynamic-size=0 --num-threads=2 | FileCheck %s --check-prefix=ONE
// The micro-kernel follows the target, not the host: AVX2 code for
// --mcpu=haswell (run here), AVX-512 code for skylake-avx512 (compiled).
// RUN: wrapper-run %s --entry=tails --verify --print=false --seed 15 --mcpu=haswell --gemm-options=report=true 2>&1 | FileCheck %s --check-prefix=HASWELL
// HASWELL: remark: GEMM template: micro-kernel 6x16 (8 lanes)
// HASWELL: output #0 vs interpreter: {{.*}}: ok
// RUN: wrapper-compile %s --entry=tails -o %t.so --mcpu=skylake-avx512 --gemm-options=report=true 2>&1 | FileCheck %s --check-prefix=SKX
// SKX: remark: GEMM template: micro-kernel 12x32 (16 lanes)
// ONE: output #0 vs interpreter: {{.*}}: ok
// ONE-NOT: output #1
// SIX-COUNT-6: vs interpreter: {{.*}}: ok

func.func @tails(%a: tensor<150x300xf32>, %b: tensor<300x300xf32>) -> tensor<150x300xf32> {
  %c = tensor_program.matmul %a, %b : (tensor<150x300xf32>, tensor<300x300xf32>) -> tensor<150x300xf32>
  return %c : tensor<150x300xf32>
}

func.func @epilogues(%x: tensor<13x40xf32>, %w: tensor<37x40xf32>, %bias: tensor<37xf32>, %res: tensor<13x37xf32>, %scale: tensor<13x1xf32>)
    -> (tensor<13x37xf32>, tensor<13x37xf32>, tensor<13x37xf32>, tensor<13x37xf32>, tensor<13x37xbf16>, tensor<13x37xf32>) {
  %y = tensor_program.linear %x, %w bias %bias : (tensor<13x40xf32>, tensor<37x40xf32>, tensor<37xf32>) -> tensor<13x37xf32>
  %relu = tensor_program.relu %y : tensor<13x37xf32>
  %y2 = tensor_program.linear %x, %w bias %bias : (tensor<13x40xf32>, tensor<37x40xf32>, tensor<37xf32>) -> tensor<13x37xf32>
  %gelu = tensor_program.gelu %y2 : tensor<13x37xf32>
  %y3 = tensor_program.linear %x, %w : (tensor<13x40xf32>, tensor<37x40xf32>) -> tensor<13x37xf32>
  %silu = tensor_program.silu %y3 : tensor<13x37xf32>
  %y4 = tensor_program.linear %x, %w bias %bias : (tensor<13x40xf32>, tensor<37x40xf32>, tensor<37xf32>) -> tensor<13x37xf32>
  %resid = tensor_program.add %y4, %res : (tensor<13x37xf32>, tensor<13x37xf32>) -> tensor<13x37xf32>
  %y5 = tensor_program.linear %x, %w : (tensor<13x40xf32>, tensor<37x40xf32>) -> tensor<13x37xf32>
  %cast = tensor_program.cast %y5 : tensor<13x37xf32> to tensor<13x37xbf16>
  %y6 = tensor_program.linear %x, %w : (tensor<13x40xf32>, tensor<37x40xf32>) -> tensor<13x37xf32>
  %row = tensor_program.mul %y6, %scale : (tensor<13x37xf32>, tensor<13x1xf32>) -> tensor<13x37xf32>
  return %relu, %gelu, %silu, %resid, %cast, %row : tensor<13x37xf32>, tensor<13x37xf32>, tensor<13x37xf32>, tensor<13x37xf32>, tensor<13x37xbf16>, tensor<13x37xf32>
}

// M = 1: one row of A against a 70 x 33 weight.
func.func @vector_row(%x: tensor<1x70xf32>, %w: tensor<70x33xf32>, %bias: tensor<33xf32>) -> tensor<1x33xf32> {
  %y = tensor_program.matmul %x, %w : (tensor<1x70xf32>, tensor<70x33xf32>) -> tensor<1x33xf32>
  %z = tensor_program.add %y, %bias : (tensor<1x33xf32>, tensor<33xf32>) -> tensor<1x33xf32>
  %g = tensor_program.gelu %z approximate tanh : tensor<1x33xf32>
  return %g : tensor<1x33xf32>
}

func.func @dynamic(%x: tensor<?x20xf32>, %w: tensor<45x20xf32>, %bias: tensor<45xf32>) -> tensor<?x45xf32> {
  %y = tensor_program.linear %x, %w bias %bias : (tensor<?x20xf32>, tensor<45x20xf32>, tensor<45xf32>) -> tensor<?x45xf32>
  %r = tensor_program.relu %y : tensor<?x45xf32>
  return %r : tensor<?x45xf32>
}

// Frozen weights (3 x 34: two panels, the second 2 columns wide).
func.func @frozen(%x: tensor<5x3xf32>) -> tensor<5x34xf32> {
  %w = tensor_program.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0],
    [-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5, 8.0, 8.5, 9.0, 9.5, 10.0, 10.5, 11.0, 11.5, 12.0, 12.5, 13.0, 13.5, 14.0, 14.5, 15.0, 15.5],
    [0.25, -0.25, 0.25, -0.25, 0.25, -0.25, 0.25, -0.25, 0.25, -0.25, 0.25, -0.25, 0.25, -0.25, 0.25, -0.25, 0.25, -0.25, 0.25, -0.25, 0.25, -0.25, 0.25, -0.25, 0.25, -0.25, 0.25, -0.25, 0.25, -0.25, 0.25, -0.25, 7.0, -7.0]]> : tensor<3x34xf32>
  %y = tensor_program.matmul %x, %w : (tensor<5x3xf32>, tensor<3x34xf32>) -> tensor<5x34xf32>
  %r = tensor_program.relu %y : tensor<5x34xf32>
  return %r : tensor<5x34xf32>
}

// Smaller than one vector in every dimension.
func.func @tiny(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  %c = tensor_program.matmul %a, %b : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %c : tensor<2x5xf32>
}

// One column block: the rows are split into mc-aligned chunks per thread
// (2 threads: 288 + 12 rows; 3 threads: 144 + 144 + 12; min-parallel-work=0,
// since 300x20x40 is below the default threshold for threads).
func.func @narrow(%a: tensor<300x40xf32>, %b: tensor<40x20xf32>, %bias: tensor<20xf32>) -> tensor<300x20xf32> {
  %c = tensor_program.matmul %a, %b : (tensor<300x40xf32>, tensor<40x20xf32>) -> tensor<300x20xf32>
  %d = tensor_program.add %c, %bias : (tensor<300x20xf32>, tensor<20xf32>) -> tensor<300x20xf32>
  return %d : tensor<300x20xf32>
}

// A dynamic K, 5 and 0: with K = 0 no K slice runs, the product is the
// zero fill and the epilogue still applies (the result is the bias).
func.func @dynamic_k(%a: tensor<6x?xf32>, %b: tensor<?x10xf32>, %bias: tensor<10xf32>) -> tensor<6x10xf32> {
  %c = tensor_program.matmul %a, %b : (tensor<6x?xf32>, tensor<?x10xf32>) -> tensor<6x10xf32>
  %d = tensor_program.add %c, %bias : (tensor<6x10xf32>, tensor<10xf32>) -> tensor<6x10xf32>
  return %d : tensor<6x10xf32>
}

func.func @dynamic_n(%a: tensor<5x7xf32>, %b: tensor<7x?xf32>) -> tensor<5x?xf32> {
  %c = tensor_program.matmul %a, %b : (tensor<5x7xf32>, tensor<7x?xf32>) -> tensor<5x?xf32>
  return %c : tensor<5x?xf32>
}
