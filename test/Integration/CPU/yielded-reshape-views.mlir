// RUN: wrapper-run %s --verify --print=false --seed 3 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 4 --plan-memory=pool --parallel=false | FileCheck %s
// RUN: wrapper-compile %s --emit-mlir=frontend -o - | FileCheck %s --check-prefix=HOST
// CHECK-COUNT-3: vs interpreter: {{.*}}: ok
// A kernel's result that reshapes another of its results (GPT-2's MLP: the
// activation returned in one shape, read by the next product in another)
// is a view of that result's buffer, not a second copy the kernel writes;
// the product reads the view.
// HOST: wrapper.graph @main
// HOST: %[[ACT:.*]] = wrapper.alloc() : memref<2x12x32xf32>
// HOST: %[[NEG:.*]] = wrapper.alloc() : memref<24x32xf32>
// HOST-NEXT: wrapper.call @main_kernel_0(%arg0, %arg1, %arg2, %[[ACT]], %[[NEG]]) :
// HOST-NEXT: %[[VIEW:.*]] = wrapper.reinterpret %[[ACT]]{{.*}} to memref<24x32xf32>
// HOST: wrapper.call @main_kernel_1(%[[VIEW]]
func.func @main(%x: tensor<24x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>,
                %w2: tensor<32x8xf32>) -> (tensor<2x12x32xf32>, tensor<24x8xf32>, tensor<24x32xf32>) {
  %p = tensor_program.matmul %x, %w : (tensor<24x16xf32>, tensor<16x32xf32>) -> tensor<24x32xf32>
  %q = tensor_program.add %p, %b : (tensor<24x32xf32>, tensor<32xf32>) -> tensor<24x32xf32>
  %r = tensor_program.reshape %q : tensor<24x32xf32> -> tensor<2x12x32xf32>
  %g = tensor_program.tanh %r : tensor<2x12x32xf32>
  %f = tensor_program.reshape %g : tensor<2x12x32xf32> -> tensor<24x32xf32>
  %o = tensor_program.matmul %f, %w2 : (tensor<24x32xf32>, tensor<32x8xf32>) -> tensor<24x8xf32>
  %n = tensor_program.neg %f : tensor<24x32xf32>
  return %g, %o, %n : tensor<2x12x32xf32>, tensor<24x8xf32>, tensor<24x32xf32>
}
