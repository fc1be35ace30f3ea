// Tests that a model.so whose extern kernel or proxy call fails returns the
// failure from wrapper_model_run (the caller prints it and goes on) instead
// of ending the process, and that a proxy call run without the Python
// package names the op it needs.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: wrapper-run %s --entry=make --interpret --print=false --save=%t/in_
//
// An embedding index out of range (the shim refuses it):
// RUN: wrapper-compile %s --entry=bad_index -o %t/bad_index.so
// RUN: not run_model %t/bad_index.so %t/in_0.npy %t/in_1.npy 2>&1 | FileCheck %s --check-prefix=EXTERN
// EXTERN: run_model: run failed: {{.*}}index 7 is out of range
// EXTERN-NOT: error: extern kernel
//
// A proxy call with no handler in the process:
// RUN: wrapper-compile %s --entry=proxy -o %t/proxy.so
// RUN: not run_model %t/proxy.so %t/in_0.npy 2>&1 | FileCheck %s --check-prefix=PROXY
// PROXY: run_model: run failed: aten.i0.default at node 'i0' runs in PyTorch (a proxy call), but no handler is registered in this process: run the model from the wrapper_mlir Python package

func.func @make() -> (tensor<3x4xf32>, tensor<2xi64>) {
  %w = tensor_program.full 1.0 : tensor<3x4xf32>
  %i = tensor_program.full 7.0 : tensor<2xi64>
  return %w, %i : tensor<3x4xf32>, tensor<2xi64>
}

func.func @bad_index(%w: tensor<3x4xf32>, %i: tensor<2xi64>) -> tensor<2x4xf32> {
  %0 = tensor_program.extern "aten::embedding"(%w, %i) : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

func.func @proxy(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = tensor_program.extern "proxy::1"(%x) args {key = 1 : i64, name = "aten.i0.default at node 'i0'"} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = tensor_program.relu %0 : tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}
