// Weights packed by the caller: with gemm-options' prepack-arguments, a
// product whose B is one of the listed arguments (and read by nothing else)
// takes it as the GEMM template's panels, [ceil(N/nr)][K][nr]; the model's
// signature says so, and the model run on panels made outside matches the
// reference interpreter on the unpacked weights. (Swappable packages list
// their weights; their loaders pack them once per set.)
//
// REQUIRES: python-numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: wrapper-compile %s -o %t/packed.so --gemm-options="prepack-arguments=1,2 report=true" 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK: remark: GEMM template: {{.*}}; B packed by the caller (graph argument #1)
// RUN: not run_model %t/packed.so | FileCheck %s --check-prefix=SIG
// SIG: input arg0: float32 [?, 16]
// SIG-NEXT: input arg1: float32 [{{[0-9]+}}, 16, [[NR:[0-9]+]]]
// SIG-NEXT: input arg2: float32 [40]
//
// RUN: wrapper-run %s --interpret --print=false --dynamic-size=7 --seed=5 --save-inputs=%t/in_ --save=%t/ref_
// RUN: not run_model %t/packed.so | sed -n 's/.*input arg1: float32 \[[0-9]*, 16, \([0-9]*\)\]/\1/p' > %t/nr
// RUN: %python %S/Inputs/pack_panels.py %t/in_1.npy `cat %t/nr` %t/panels.npy
// RUN: run_model %t/packed.so %t/in_0.npy %t/panels.npy %t/in_2.npy --ref %t/ref_0.npy | FileCheck %s --check-prefix=EXEC
// EXEC: vs reference: max abs error {{.*}}: ok
//
// Unpacked weights are refused by their shape, not misread:
// RUN: not run_model %t/packed.so %t/in_0.npy %t/in_1.npy %t/in_2.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: run_model: run failed: input arg1 {{.*}}expected
//
// A listed argument that something else reads too stays as it is:
// RUN: wrapper-compile %S/Inputs/shared-weight.mlir -o %t/shared.so --gemm-options="prepack-arguments=1 report=true" 2>&1 | FileCheck %s --check-prefix=SHARED
// SHARED: B packed at run time (graph argument #1 has other uses)
// RUN: not run_model %t/shared.so | FileCheck %s --check-prefix=SHAREDSIG
// SHAREDSIG: input arg1: float32 [16, 40]
//
// The option takes integers:
// RUN: not wrapper-compile %s -o %t/bad.so --gemm-options="prepack-arguments=1,x" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: wrapper-compile: error: option 'prepack-arguments' of gemm-options is a list of integers, got '1,x'

func.func @main(%x: tensor<?x16xf32>, %wt: tensor<16x40xf32>, %b: tensor<40xf32>) -> tensor<?x40xf32> {
  %w = tensor_program.permute %wt [1, 0] : tensor<16x40xf32> -> tensor<40x16xf32>
  %h = tensor_program.linear %x, %w bias %b : (tensor<?x16xf32>, tensor<40x16xf32>, tensor<40xf32>) -> tensor<?x40xf32>
  %r = tensor_program.relu %h : tensor<?x40xf32>
  return %r : tensor<?x40xf32>
}
