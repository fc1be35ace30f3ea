// RUN: wrapper-opt %s --convert-tensor-program-to-linalg --split-input-file -verify-diagnostics

// Tests that ops without a linalg form are refused with a pointer to the
// pass that lowers them.
func.func @extern(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'tensor_program.extern' op has no linalg form; lower the program with --convert-tensor-program-to-wrapper (the wrapper pipelines)}}
  %0 = tensor_program.extern "aten::relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @copy_back(%x: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.copy_back' op has no linalg form; lower the program with --convert-tensor-program-to-wrapper (the wrapper pipelines)}}
  tensor_program.copy_back %x to %x : tensor<4xf32>
  return
}
