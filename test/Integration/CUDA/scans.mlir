// RUN: wrapper-opt %s --wrapper-cuda-pipeline="device-arguments=true" | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 5 --dynamic-size=37 | FileCheck %s --check-prefix=EXEC
// RUN: %if cuda-runtime %{ wrapper-run %s --target=cuda --verify --print=false --seed 5 --dynamic-size=37 | FileCheck %s --check-prefix=EXEC %}
// cumsum on CUDA is ceil(log2 n) parallel steps (convert-tensor-program-
// to-linalg's parallel-scans), not a host loop of a launch or two per
// position: GPT-2's mask (a cumsum over 128 positions) was 256 of a
// training step's 513 launches. The static scan over 128 positions is
// one kernel (each element sums the positions up to it); the dynamic one a
// host loop over bitwidth(n - 1) steps.
// CHECK-LABEL: llvm.func @main(
// CHECK: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.cond_br
// CHECK: gpu.launch_func
// CHECK: llvm.return
// On the CPU (the sequential loop) and on the GPU, against the reference
// interpreter, whose bf16 running sums stay unrounded as PyTorch's and both
// lowerings' do (only the stored sums are rounded):
// EXEC-COUNT-3: vs interpreter: {{.*}}: ok
func.func @main(%mask: tensor<4x128xi64>, %x: tensor<?x6xf32>, %h: tensor<5x?xbf16>)
    -> (tensor<4x128xi64>, tensor<?x6xf32>, tensor<5x?xbf16>) {
  %0 = tensor_program.cumsum %mask dim 1 : tensor<4x128xi64>
  %1 = tensor_program.cumsum %x dim 0 : tensor<?x6xf32>
  %2 = tensor_program.cumsum %h dim 1 : tensor<5x?xbf16>
  return %0, %1, %2 : tensor<4x128xi64>, tensor<?x6xf32>, tensor<5x?xbf16>
}
