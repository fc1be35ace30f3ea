// RUN: wrapper-run %s --verify --print=false --seed 18 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-decompose --tensor-program-fuse | wrapper-run - --verify --print=false --seed 37 | FileCheck %s
// CHECK-COUNT-3: vs interpreter: {{.*}}: ok
// f16 arithmetic is done in f32 and rounded once per op.
func.func @main(%x: tensor<12x40xf16>, %b: tensor<40xf16>) -> (tensor<12x40xf16>, tensor<12xf16>, tensor<12x40xf16>) {
  %0 = tensor_program.add %x, %b : (tensor<12x40xf16>, tensor<40xf16>) -> tensor<12x40xf16>
  %1 = tensor_program.reduce_sum %0 dims [1] : tensor<12x40xf16> -> tensor<12xf16>
  %2 = tensor_program.softmax %0 dim 1 : tensor<12x40xf16>
  return %0, %1, %2 : tensor<12x40xf16>, tensor<12xf16>, tensor<12x40xf16>
}
