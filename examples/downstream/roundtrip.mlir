// Checked by scripts/test.sh: downstream-opt %s | downstream-opt | FileCheck %s

// CHECK-LABEL: func.func @program
// CHECK: tensor_program.add
// CHECK: tensor_program.softmax
func.func @program(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = tensor_program.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = tensor_program.softmax %0 dim 1 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

func.func private @kernel_impl(memref<4xf32>, memref<4xf32>)
// CHECK: wrapper.kernel @kernel = @kernel_impl
wrapper.kernel @kernel = @kernel_impl

// CHECK-LABEL: wrapper.graph @host
// CHECK: wrapper.alloc
// CHECK: wrapper.call @kernel
// CHECK: wrapper.return
wrapper.graph @host(%x: memref<4xf32>) -> memref<4xf32> {
  %buf0 = wrapper.alloc() : memref<4xf32>
  wrapper.call @kernel(%x, %buf0) : memref<4xf32>, memref<4xf32>
  wrapper.return %buf0 : memref<4xf32>
}
