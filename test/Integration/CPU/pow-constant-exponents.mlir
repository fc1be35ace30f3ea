// RUN: wrapper-run %s --verify --print=false --seed 2 | FileCheck %s
// RUN: wrapper-opt %s --wrapper-cpu-frontend | FileCheck %s --check-prefix=IR
// RUN: wrapper-opt %s --wrapper-cpu-frontend | grep -c math.powf | FileCheck %s --check-prefix=ONE
// ONE: {{^1$}}
// CHECK-COUNT-5: vs interpreter: {{.*}}: ok
//
// pow with a constant exponent that PyTorch's CPU kernel special-cases
// (2, 3, 0.5, -1 here) is multiplications, sqrt and reciprocals, as there
// (gelu's tanh form cubes its input: a libm powf per element was the
// slowest kernel of a GPT-2 training step); other exponents call powf.
// IR-DAG: arith.mulf
// IR-DAG: math.sqrt
// IR-DAG: arith.divf
func.func @main(%x: tensor<4x33xf32>) -> (tensor<4x33xf32>, tensor<4x33xf32>, tensor<4x33xf32>, tensor<4x33xf32>, tensor<4x33xf32>) {
  %a = tensor_program.abs %x : tensor<4x33xf32>
  %c3 = tensor_program.constant dense<3.0> : tensor<f32>
  %c2 = tensor_program.constant dense<2.0> : tensor<f32>
  %ch = tensor_program.constant dense<0.5> : tensor<f32>
  %cm = tensor_program.constant dense<-1.0> : tensor<f32>
  %c7 = tensor_program.constant dense<1.7> : tensor<f32>
  %p3 = tensor_program.pow %x, %c3 : (tensor<4x33xf32>, tensor<f32>) -> tensor<4x33xf32>
  %p2 = tensor_program.pow %x, %c2 : (tensor<4x33xf32>, tensor<f32>) -> tensor<4x33xf32>
  %ph = tensor_program.pow %a, %ch : (tensor<4x33xf32>, tensor<f32>) -> tensor<4x33xf32>
  %pm = tensor_program.pow %x, %cm : (tensor<4x33xf32>, tensor<f32>) -> tensor<4x33xf32>
  %p7 = tensor_program.pow %a, %c7 : (tensor<4x33xf32>, tensor<f32>) -> tensor<4x33xf32>
  return %p3, %p2, %ph, %pm, %p7 : tensor<4x33xf32>, tensor<4x33xf32>, tensor<4x33xf32>, tensor<4x33xf32>, tensor<4x33xf32>
}
