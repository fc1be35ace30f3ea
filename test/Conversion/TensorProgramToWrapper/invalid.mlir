// RUN: wrapper-opt %s --convert-tensor-program-to-wrapper --split-input-file -verify-diagnostics

// Tests that what the host graph cannot express is refused.
func.func @extern_bad_schema(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'wrapper.extern_alloc' op 'aten::relu' has no argument 'inplace' (schema: aten::relu(Tensor self) -> Tensor)}}
  %0 = tensor_program.extern "aten::relu"(%x) args {inplace = true} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @composite(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'tensor_program.softmax' op is a composite; run --tensor-program-decompose first}}
  %0 = tensor_program.softmax %x dim 0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
