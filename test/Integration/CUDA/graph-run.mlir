// REQUIRES: cuda-runtime
// RUN: wrapper-run %s --target=cuda --cuda-graph --verify --print=false --seed 5 --dynamic-size 7 | FileCheck %s
// RUN: wrapper-run %s --target=cuda --cuda-graph --print=false --seed 5 --dynamic-size 7 --benchmark=10 | FileCheck %s --check-prefix=BENCH
// A host graph on the GPU (a constant, a cuBLAS product, softmax, an
// elementwise tail, a planned reuse) captured into a CUDA graph after one
// eager call and replayed: the outputs of a replay match the reference
// interpreter, and the benchmark's calls are graph launches (no kernel
// launches of their own).
// CHECK: output #0 vs interpreter: {{.*}}: ok
// BENCH: benchmark: 10 runs on the GPU (CUDA graph replays), mean {{.*}} per run, {{[0-9]+}} launches, 13 graph launches
func.func @main(%x: tensor<?x8xf32>, %w: tensor<8x8xf32>) -> tensor<?x8xf32> {
  %c = tensor_program.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %a = tensor_program.add %x, %c : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %m = tensor_program.matmul %a, %w : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32>
  %s = tensor_program.softmax %m dim 1 : tensor<?x8xf32>
  %e = tensor_program.exp %s : tensor<?x8xf32>
  return %e : tensor<?x8xf32>
}
