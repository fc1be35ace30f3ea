// Tests that wrapper-run refuses bad input with a message naming the input,
// the expected and the actual value, and a non-zero exit code.
//
// Make .npy files with the interpreter: a [2, 3] f32, and a [2, 3] i32.
// RUN: rm -rf %t && mkdir -p %t
// RUN: wrapper-run %s --entry=make_f32 --interpret --print=false --save=%t/f32_
// RUN: wrapper-run %s --entry=make_i32 --interpret --print=false --save=%t/i32_
// RUN: wrapper-run %s --entry=make_f32_4x3 --interpret --print=false --save=%t/big_
//
// Wrong shape:
// RUN: not wrapper-run %s --entry=takes_4x3 --input=%t/f32_0.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: wrapper-run: error: input '{{.*}}f32_0.npy' (for argument #0) has shape [2, 3], but dimension 0 must be 4 (tensor<4x3xf32>)
//
// Wrong dtype:
// RUN: not wrapper-run %s --entry=takes_4x3 --input=%t/i32_0.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: has dtype int32, expected float32 (tensor<4x3xf32>)
//
// Wrong rank:
// RUN: not wrapper-run %s --entry=takes_vector --input=%t/f32_0.npy 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: has shape [2, 3] of rank 2, expected rank 1 (tensor<?xf32>)
//
// Wrong number of inputs:
// RUN: not wrapper-run %s --entry=takes_4x3 --input=%t/f32_0.npy --input=%t/f32_0.npy 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: 'takes_4x3' takes 1 arguments, but 2 --input files were given
//
// A dynamic dimension that does not match its partner:
// RUN: not wrapper-run %s --entry=dynamic_pair --input=%t/f32_0.npy --input=%t/big_0.npy 2>&1 | FileCheck %s --check-prefix=DYN
// DYN: wrapper-run: error: the input shapes do not fit the program: input #1 dimension 0 (4) must equal input #0 dimension 0 (2), as 'tensor_program.add' at {{.*}} (operand #1 dimension 0) requires
//
// Missing entry function and ambiguous entry:
// RUN: not wrapper-run %s --entry=nope 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: wrapper-run: error: no function named 'nope' with a body in the module
// RUN: not wrapper-run %s 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
// AMBIGUOUS: wrapper-run: error: the module has 9 entry candidates (function make_f32, {{.*}}); name one with --entry
//
// An extern kernel the registry does not know, and one that fails at run
// time (random indices out of range):
// RUN: not wrapper-run %s --entry=uses_extern 2>&1 | FileCheck %s --check-prefix=EXTERN
// EXTERN: error: 'wrapper.extern_alloc' op calls 'mylib::fancy', which the extern registry does not know; the C ABI needs its schema
// RUN: not wrapper-run %s --entry=bad_index 2>&1 | FileCheck %s --check-prefix=BADINDEX
// BADINDEX: error: extern kernel aten::embedding failed: aten::embedding: index {{-?[0-9]+}} is out of range for dimension 0 of size 3
//
// Missing and malformed files:
// RUN: not wrapper-run %s --entry=takes_4x3 --input=%t/missing.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: wrapper-run: error: cannot open '{{.*}}missing.npy': No such file or directory
// RUN: printf 'not a numpy file' > %t/bad.npy
// RUN: not wrapper-run %s --entry=takes_4x3 --input=%t/bad.npy 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: wrapper-run: error: '{{.*}}bad.npy' is not a .npy file (bad magic)
// RUN: head -c 100 %t/f32_0.npy > %t/cut.npy
// RUN: not wrapper-run %s --entry=takes_vector --input=%t/cut.npy 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: wrapper-run: error: '{{.*}}cut.npy' is truncated
// RUN: head -c 140 %t/f32_0.npy > %t/short.npy
// RUN: not wrapper-run %s --entry=takes_vector --input=%t/short.npy 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: wrapper-run: error: '{{.*}}short.npy' holds 12 bytes of data, but its shape and dtype need 24
//
// A reference that does not match:
// RUN: not wrapper-run %s --entry=make_f32 --compare=%t/i32_0.npy 2>&1 | FileCheck %s --check-prefix=REF
// REF: reference '{{.*}}i32_0.npy' (for argument #0) has dtype int32, expected float32
// RUN: wrapper-run %s --entry=make_f32 --compare=%t/f32_0.npy | FileCheck %s --check-prefix=MATCH
// MATCH: output #0 vs {{.*}}f32_0.npy: max abs error 0, max rel error 0 (rtol 0.0001, atol 1e-05): ok
//
// An unknown target (processor):
// RUN: not wrapper-run %s --entry=takes_4x3 --mcpu=nonsense 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: wrapper-run: error: unknown CPU 'nonsense' for x86_64
//
// An allocation limit:
// RUN: not wrapper-run %s --entry=takes_4x3 --max-alloc-bytes=16 2>&1 | FileCheck %s --check-prefix=LIMIT
// LIMIT: wrapper-run: error: argument #0 of type tensor<4x3xf32> needs 48 bytes, more than --max-alloc-bytes=16

func.func @make_f32() -> tensor<2x3xf32> {
  %0 = tensor_program.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

func.func @make_i32() -> tensor<2x3xi32> {
  %0 = tensor_program.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

func.func @takes_4x3(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = tensor_program.neg %x : tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

func.func @takes_vector(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tensor_program.neg %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}

func.func @make_f32_4x3() -> tensor<4x3xf32> {
  %0 = tensor_program.full 1.5 : tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

func.func @dynamic_pair(%x: tensor<?x3xf32>, %y: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = tensor_program.add %x, %y : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

func.func @uses_extern(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor_program.extern "mylib::fancy"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @bad_index(%w: tensor<3x4xf32>, %i: tensor<8xi64>) -> tensor<8x4xf32> {
  %0 = tensor_program.extern "aten::embedding"(%w, %i) : (tensor<3x4xf32>, tensor<8xi64>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

func.func @scalar_arg(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
