// How the GEMM template splits a product over the threads (row chunks x
// column blocks, chosen per call from omp_get_max_threads) and how a batch
// of larger products chooses between the batch and the rows at run time,
// against the reference interpreter at thread counts that divide the work
// evenly, unevenly, and exceed it.
// RUN: wrapper-run %s --entry=odd --verify --print=false --num-threads=1 | FileCheck %s
// RUN: wrapper-run %s --entry=odd --verify --print=false --num-threads=2 | FileCheck %s
// RUN: wrapper-run %s --entry=odd --verify --print=false --num-threads=3 | FileCheck %s
// RUN: wrapper-run %s --entry=odd --verify --print=false --num-threads=16 | FileCheck %s
// RUN: wrapper-run %s --entry=wide --verify --print=false --num-threads=2 | FileCheck %s
// RUN: wrapper-run %s --entry=wide --verify --print=false --num-threads=5 --gemm-options="nc=64" | FileCheck %s
// RUN: wrapper-run %s --entry=wide --verify --print=false --num-threads=4 --gemm-options="nc=32 mc=24" | FileCheck %s
// RUN: wrapper-run %s --entry=wide --verify --print=false --num-threads=3 --gemm-options="kc=16" | FileCheck %s
// RUN: wrapper-run %s --entry=narrow --verify --print=false --num-threads=7 | FileCheck %s
// RUN: wrapper-run %s --entry=dyn --verify --print=false --dynamic-size=29 --num-threads=3 | FileCheck %s
// RUN: wrapper-run %s --entry=dyn --verify --print=false --dynamic-size=1 --num-threads=4 | FileCheck %s
// RUN: wrapper-run %s --entry=batched --verify --print=false --num-threads=2 | FileCheck %s
// RUN: wrapper-run %s --entry=batched --verify --print=false --num-threads=4 | FileCheck %s
// RUN: wrapper-run %s --entry=batched --verify --print=false --num-threads=5 | FileCheck %s
// RUN: wrapper-run %s --entry=batched --verify --print=false --parallel=false | FileCheck %s
// CHECK: vs interpreter: {{.*}}: ok
// CHECK-NOT: MISMATCH

// Both sides odd: 17 row panels by 7 column panels (the last 5 wide).
func.func @odd(%a: tensor<197x64xf32>, %b: tensor<64x197xf32>) -> tensor<197x197xf32> {
  %c = tensor_program.matmul %a, %b : (tensor<197x64xf32>, tensor<64x197xf32>) -> tensor<197x197xf32>
  return %c : tensor<197x197xf32>
}

// More columns than one nc block, with a bias epilogue: read from the local
// tile with one K slice (40), from C with kc=16 (three slices).
func.func @wide(%a: tensor<50x40xf32>, %b: tensor<40x600xf32>, %bias: tensor<600xf32>) -> tensor<50x600xf32> {
  %c = tensor_program.matmul %a, %b : (tensor<50x40xf32>, tensor<40x600xf32>) -> tensor<50x600xf32>
  %d = tensor_program.add %c, %bias : (tensor<50x600xf32>, tensor<600xf32>) -> tensor<50x600xf32>
  return %d : tensor<50x600xf32>
}

// One column panel, more threads than row panels.
func.func @narrow(%a: tensor<40x300xf32>, %b: tensor<300x5xf32>) -> tensor<40x5xf32> {
  %c = tensor_program.matmul %a, %b : (tensor<40x300xf32>, tensor<300x5xf32>) -> tensor<40x5xf32>
  return %c : tensor<40x5xf32>
}

// A dynamic M.
func.func @dyn(%a: tensor<?x70xf32>, %b: tensor<70x90xf32>) -> tensor<?x90xf32> {
  %c = tensor_program.matmul %a, %b : (tensor<?x70xf32>, tensor<70x90xf32>) -> tensor<?x90xf32>
  return %c : tensor<?x90xf32>
}

// Six products above min-parallel-work: over the batch on 2 threads (3
// each) and 4 (two rounds, 3/4 busy); on 5 over the rows of one product
// after the other.
func.func @batched(%a: tensor<6x97x64xf32>, %b: tensor<6x64x101xf32>) -> tensor<6x97x101xf32> {
  %c = tensor_program.matmul %a, %b : (tensor<6x97x64xf32>, tensor<6x64x101xf32>) -> tensor<6x97x101xf32>
  return %c : tensor<6x97x101xf32>
}
