// RUN: wrapper-run %s --verify --print=false --seed 19 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// CHECK-COUNT-2: vs interpreter: {{.*}}: ok
func.func @main(%a: tensor<8x24xbf16>, %w: tensor<24x16xbf16>) -> (tensor<8x16xbf16>, tensor<8x16xbf16>) {
  %0 = tensor_program.matmul %a, %w : (tensor<8x24xbf16>, tensor<24x16xbf16>) -> tensor<8x16xbf16>
  %1 = tensor_program.gelu %0 : tensor<8x16xbf16>
  return %0, %1 : tensor<8x16xbf16>, tensor<8x16xbf16>
}
