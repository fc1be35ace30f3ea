// RUN: rm -rf %t && mkdir -p %t && %python %S/Inputs/make-weights.py %t
// RUN: wrapper-opt %s -split-input-file --tensor-program-load-weights=file=%t/weights.safetensors -verify-diagnostics | FileCheck %s
// RUN: not wrapper-opt %s -split-input-file --tensor-program-load-weights=file=%t/missing.safetensors 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not wrapper-opt %s -split-input-file --tensor-program-load-weights=file=%t/bad.safetensors 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not wrapper-opt %s -split-input-file --tensor-program-load-weights 2>&1 | FileCheck %s --check-prefix=NOFILE
// MISSING: error: 'tensor_program.constant' op has no value: cannot read the weights file '{{.*}}missing.safetensors': No such file or directory
// BAD: error: 'tensor_program.constant' op has no value: '{{.*}}bad.safetensors' is not a safetensors file: its header length 1099511627776 exceeds the file
// NOFILE: error: 'tensor_program.constant' op has no value: its resource has no data in the IR and no weights file is given (module attribute tensor_program.weights or the pass's file option)

// Tests that constants written as dense_resource get the file's values,
// whatever their dtype (bool and bf16 included).
// CHECK-LABEL: func @weights
// CHECK: tensor_program.constant dense<{{\[\[}}0.000000e+00, 1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00, 5.000000e+00]]> : tensor<2x3xf32>
// CHECK: tensor_program.constant dense<[7, -1]> : tensor<2xi64>
// CHECK: tensor_program.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK: tensor_program.constant dense<[1.000000e+00, -2.000000e+00]> : tensor<2xbf16>
func.func @weights() -> (tensor<2x3xf32>, tensor<2xi64>, tensor<3xi1>, tensor<2xbf16>) {
  %w = tensor_program.constant dense_resource<w> : tensor<2x3xf32>
  %b = tensor_program.constant dense_resource<b> : tensor<2xi64>
  %m = tensor_program.constant dense_resource<m> : tensor<3xi1>
  %h = tensor_program.constant dense_resource<h> : tensor<2xbf16>
  return %w, %b, %m, %h : tensor<2x3xf32>, tensor<2xi64>, tensor<3xi1>, tensor<2xbf16>
}

// -----

// Tests that a name the file lacks is an error naming it.
func.func @unknown_name() -> tensor<2xf32> {
  // expected-error @+1 {{'tensor_program.constant' op has no value: the weights file has no tensor named 'nope'}}
  %w = tensor_program.constant dense_resource<nope> : tensor<2xf32>
  return %w : tensor<2xf32>
}

// -----

// Tests that the file's dtype must be the constant's.
func.func @wrong_dtype() -> tensor<2x3xf16> {
  // expected-error @+1 {{'tensor_program.constant' op weight 'w' has dtype F32 in the file, but the constant is F16}}
  %w = tensor_program.constant dense_resource<w> : tensor<2x3xf16>
  return %w : tensor<2x3xf16>
}

// -----

// Tests that the file's shape must be the constant's.
func.func @wrong_shape() -> tensor<3x2xf32> {
  // expected-error @+1 {{'tensor_program.constant' op weight 'w' has shape [2, 3] in the file, but the constant's type is tensor<3x2xf32>}}
  %w = tensor_program.constant dense_resource<w> : tensor<3x2xf32>
  return %w : tensor<3x2xf32>
}
