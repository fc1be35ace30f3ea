// A --cc that does not exist is an error naming it (the default compiler
// falls back to cc when it is missing, as on a machine with the tools but
// not the compiler they were built with).
// RUN: not wrapper-compile %s -o %t.so --cc=/nonexistent/clang 2>&1 | FileCheck %s
// CHECK: wrapper-compile: error: cannot find the C compiler '/nonexistent/clang' (nor cc)
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor_program.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
