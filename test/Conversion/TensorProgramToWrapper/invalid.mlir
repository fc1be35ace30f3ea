// RUN: wrapper-opt %s --convert-tensor-program-to-wrapper --split-input-file -verify-diagnostics

// Tests that what the host graph cannot express is refused.
func.func @extern(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'tensor_program.extern' op cannot be lowered yet: extern kernels need the runtime shim library}}
  %0 = tensor_program.extern "aten::relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @composite(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'tensor_program.softmax' op is a composite; run --tensor-program-decompose first}}
  %0 = tensor_program.softmax %x dim 0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
