// Tests the AOT artifact: wrapper-compile builds model.so, a C program loads
// it with dlopen through the model ABI, runs it on .npy inputs and compares
// the outputs with the reference interpreter's.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: wrapper-compile %s -o %t/model.so
// RUN: wrapper-run %s --interpret --print=false --dynamic-size=5 --seed=3 --save-inputs=%t/in_ --save=%t/ref_
// RUN: run_model %t/model.so %t/in_0.npy %t/in_1.npy %t/in_2.npy --ref %t/ref_0.npy %t/ref_1.npy | FileCheck %s
// CHECK: input arg0: float32 [?, 16]
// CHECK-NEXT: input arg1: float32 [16, 8]
// CHECK-NEXT: input arg2: float32 [8]
// CHECK-NEXT: output output0: float32 [?, 8]
// CHECK-NEXT: output output1: float32 [?]
// CHECK: output0: float32, 40 elements
// CHECK-NEXT: vs reference: max abs error {{.*}}: ok
// CHECK: output1: float32, 5 elements
// CHECK-NEXT: vs reference: max abs error {{.*}}: ok
//
// A wrong input shape is refused with a message, not run:
// RUN: not run_model %t/model.so %t/in_0.npy %t/in_0.npy %t/in_2.npy 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: run_model: run failed: input arg1 dimension 0 is 5, expected 16
//
// A model built for the baseline x86-64 CPU runs too:
// RUN: wrapper-compile %s -o %t/baseline.so --mcpu=x86-64
// RUN: run_model %t/baseline.so %t/in_0.npy %t/in_1.npy %t/in_2.npy --ref %t/ref_0.npy %t/ref_1.npy | FileCheck %s --check-prefix=BASELINE
// BASELINE-COUNT-2: vs reference: max abs error {{.*}}: ok
//
// So is a missing entry function and an unsupported signature:
// RUN: not wrapper-compile %s -o %t/x.so --entry=nope 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: wrapper-compile: error: no function named 'nope' with a body in the module
// RUN: not wrapper-compile %S/Inputs/scalar-result.mlir -o %t/y.so 2>&1 | FileCheck %s --check-prefix=SIG
// SIG: wrapper-compile: error: the model's signature has a value of type 'index', which the model ABI cannot pass

func.func @main(%x: tensor<?x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> (tensor<?x8xf32>, tensor<?xf32>) {
  %wt = tensor_program.permute %w [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %h = tensor_program.linear %x, %wt bias %b : (tensor<?x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %s = tensor_program.softmax %h dim 1 : tensor<?x8xf32>
  %m = tensor_program.reduce_max %h dims [1] : tensor<?x8xf32> -> tensor<?xf32>
  return %s, %m : tensor<?x8xf32>, tensor<?xf32>
}
