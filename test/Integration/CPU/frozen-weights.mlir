// RUN: wrapper-run %s --verify --print=false --seed 5 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 5 --fold-constants=false | FileCheck %s
// RUN: wrapper-opt %s --wrapper-cpu-pipeline=gemm=false | FileCheck %s --check-prefix=FROZEN --implicit-check-not="tensor<3x4xf32>"
// RUN: wrapper-opt %s --wrapper-cpu-pipeline | FileCheck %s --check-prefix=PACKED --implicit-check-not="tensor<3x4xf32>" --implicit-check-not="tensor<4x3xf32>"
// RUN: wrapper-opt %s --wrapper-cpu-pipeline | grep -c "dense<\[2.000000e-01, 4.000000e-01, 6.000000e-01\]>" | FileCheck %s --check-prefix=ONCE
// CHECK: output #0 vs interpreter: {{.*}}: ok
// ONCE: {{^}}1{{$}}
// PACKED: llvm.mlir.global private constant @main_constant_{{[0-9]+}}_packed[[NR:[0-9]+]]({{.*}} : tensor<1x4x[[NR]]xf32>)
// A linear layer with constant (frozen) weights: the transpose of the
// weight and the scaled bias are computed at compile time; the results
// match the interpreter run on the unfolded program, with and without
// folding; the folded bias and an equal constant are stored once. With the
// GEMM template the transposed weight is stored only in its packed panel
// layout ([N/nr][K][nr], zero padded; nr = 4 vectors for this M = 2:
// 64 with AVX-512, 32 with AVX2).
// FROZEN-DAG: llvm.mlir.global private constant @main_constant_{{[0-9]+}}(dense<[2.000000e-01, 4.000000e-01, 6.000000e-01]> : tensor<3xf32>)
// FROZEN-DAG: llvm.mlir.global private constant @main_constant_{{[0-9]+}}(dense<{{\[\[}}1.000000e+00, -1.000000e+00, 5.000000e-01], [2.000000e+00, 0.000000e+00, 1.000000e+00], [3.000000e+00, 1.000000e+00, -5.000000e-01], [4.000000e+00, 2.000000e+00, 2.500000e-01]]> : tensor<4x3xf32>)
func.func @main(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = tensor_program.constant dense<[[1.0, 2.0, 3.0, 4.0], [-1.0, 0.0, 1.0, 2.0], [0.5, 1.0, -0.5, 0.25]]> : tensor<3x4xf32>
  %b = tensor_program.constant dense<[0.1, 0.2, 0.3]> : tensor<3xf32>
  %s = tensor_program.constant dense<2.0> : tensor<f32>
  %bs = tensor_program.mul %b, %s : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %y = tensor_program.linear %x, %w bias %bs : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %g = tensor_program.gelu %y : tensor<2x3xf32>
  %c = tensor_program.constant dense<[0.2, 0.4, 0.6]> : tensor<3xf32>
  %o = tensor_program.add %g, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %o : tensor<2x3xf32>
}
