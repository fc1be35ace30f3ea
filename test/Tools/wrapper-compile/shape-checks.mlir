// Tests that a compiled model checks, before reading any input, every
// relation between dynamic sizes that its code relies on, and refuses
// inputs that break one with a message naming the inputs, dimensions and
// sizes (through the C ABI of model.so; wrapper-run checks the same ones).
// Without these checks such inputs made the code read past the smaller
// buffer (a crash, or garbage in the output).
//
// Inputs: f32 arrays of shapes [4, 8], [3, 8], [1, 8], [8, 4], [3, 4].
// RUN: rm -rf %t && mkdir -p %t
// RUN: wrapper-run %s --entry=make --interpret --print=false --save=%t/in_
//
// Equal dynamic sizes: the operands of an elementwise op.
// RUN: wrapper-compile %s --entry=add -o %t/add.so
// RUN: run_model %t/add.so %t/in_0.npy %t/in_0.npy | FileCheck %s --check-prefix=OK
// RUN: not run_model %t/add.so %t/in_0.npy %t/in_1.npy 2>&1 | FileCheck %s --check-prefix=ADD
// RUN: not wrapper-run %s --entry=add --input=%t/in_0.npy --input=%t/in_1.npy 2>&1 | FileCheck %s --check-prefix=ADD
// ADD: the input shapes do not fit the program: input #1 dimension 0 (3) must equal input #0 dimension 0 (4), as 'tensor_program.add' at {{.*}}shape-checks.mlir{{.*}} (operand #1 dimension 0) requires
//
// A dynamic size of 1 is not broadcast at run time (only static 1s are):
// RUN: not run_model %t/add.so %t/in_2.npy %t/in_0.npy 2>&1 | FileCheck %s --check-prefix=ONE
// ONE: input #1 dimension 0 (4) must equal input #0 dimension 0 (1)
//
// A dynamic size broadcast against a static one must equal it:
// RUN: wrapper-compile %s --entry=add_static -o %t/add_static.so
// RUN: run_model %t/add_static.so %t/in_0.npy %t/in_0.npy | FileCheck %s --check-prefix=OK
// RUN: not run_model %t/add_static.so %t/in_1.npy %t/in_0.npy 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: input #0 dimension 0 (3) must equal 4, as 'tensor_program.add' at {{.*}} (operand #0 dimension 0) requires
//
// A reshape keeps the element count (its sizes computed from the input):
// RUN: wrapper-compile %s --entry=halves -o %t/halves.so
// RUN: run_model %t/halves.so %t/in_0.npy | FileCheck %s --check-prefix=OK
// RUN: not run_model %t/halves.so %t/in_1.npy 2>&1 | FileCheck %s --check-prefix=RESHAPE
// RESHAPE: ((input #0 dimension 0 floordiv 2) * 16) (16) must equal (input #0 dimension 0 * 8) (24), as 'tensor_program.reshape' at {{.*}} (the element count must not change) requires
//
// The contracting dimensions of a product:
// RUN: wrapper-compile %s --entry=product -o %t/product.so
// RUN: run_model %t/product.so %t/in_0.npy %t/in_3.npy | FileCheck %s --check-prefix=OK
// RUN: not run_model %t/product.so %t/in_0.npy %t/in_4.npy 2>&1 | FileCheck %s --check-prefix=MATMUL
// MATMUL: input #1 dimension 0 (3) must equal input #0 dimension 1 (8), as 'tensor_program.matmul' at {{.*}} (the contracting dimensions must be equal) requires
//
// The other dimensions of a concatenation:
// RUN: wrapper-compile %s --entry=join -o %t/join.so
// RUN: run_model %t/join.so %t/in_0.npy %t/in_1.npy | FileCheck %s --check-prefix=OK
// RUN: not run_model %t/join.so %t/in_0.npy %t/in_3.npy 2>&1 | FileCheck %s --check-prefix=CONCAT
// CONCAT: input #1 dimension 1 (4) must equal input #0 dimension 1 (8), as 'tensor_program.concat' at {{.*}} (input #1 dimension 1) requires
//
// A view that reads a fixed extent of its input:
// RUN: wrapper-compile %s --entry=window -o %t/window.so
// RUN: run_model %t/window.so %t/in_4.npy | FileCheck %s --check-prefix=OK
// RUN: not run_model %t/window.so %t/in_2.npy 2>&1 | FileCheck %s --check-prefix=STRIDED
// STRIDED: 12 must not exceed (input #0 dimension 0 * input #0 dimension 1) (8), as 'tensor_program.as_strided' at {{.*}} (the furthest element read must lie inside the input) requires
//
// OK: output0: float32

func.func @make() -> (tensor<4x8xf32>, tensor<3x8xf32>, tensor<1x8xf32>, tensor<8x4xf32>, tensor<3x4xf32>) {
  %a = tensor_program.full 1.0 : tensor<4x8xf32>
  %b = tensor_program.full 2.0 : tensor<3x8xf32>
  %c = tensor_program.full 3.0 : tensor<1x8xf32>
  %d = tensor_program.full 4.0 : tensor<8x4xf32>
  %e = tensor_program.full 5.0 : tensor<3x4xf32>
  return %a, %b, %c, %d, %e : tensor<4x8xf32>, tensor<3x8xf32>, tensor<1x8xf32>, tensor<8x4xf32>, tensor<3x4xf32>
}

func.func @add(%x: tensor<?x8xf32>, %y: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = tensor_program.add %x, %y : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

func.func @add_static(%x: tensor<?x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tensor_program.add %x, %y : (tensor<?x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

func.func @halves(%x: tensor<?x8xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %h = arith.divsi %n, %c2 : index
  %0 = tensor_program.reshape %x [%h] : tensor<?x8xf32> -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

func.func @product(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = tensor_program.matmul %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @join(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = tensor_program.concat %a, %b dim 0 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @window(%a: tensor<?x?xf32>) -> tensor<2x2xf32> {
  %0 = tensor_program.as_strided %a sizes [2, 2] strides [4, 7] offset 0 : tensor<?x?xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
