// RUN: wrapper-run %s --verify --print=false --seed 9 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-decompose --tensor-program-fuse | wrapper-run - --verify --print=false --seed 31 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 51 --mattr=-avx512f,-avx2 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 52 --mcpu=x86-64 | FileCheck %s
// CHECK-COUNT-3: vs interpreter: {{.*}}: ok
func.func @main(%x: tensor<8x100xf32>) -> (tensor<8x100xf32>, tensor<8x100xf32>, tensor<8x100xf32>) {
  // Large logits: the max subtraction keeps exp from overflowing.
  %big = tensor_program.constant dense<100.0> : tensor<f32>
  %y = tensor_program.mul %x, %big : (tensor<8x100xf32>, tensor<f32>) -> tensor<8x100xf32>
  %0 = tensor_program.softmax %y dim 1 : tensor<8x100xf32>
  %1 = tensor_program.softmax %x dim 0 : tensor<8x100xf32>
  %2 = tensor_program.log_softmax %x dim 1 : tensor<8x100xf32>
  return %0, %1, %2 : tensor<8x100xf32>, tensor<8x100xf32>, tensor<8x100xf32>
}
