// Functions larger than --optimized-instruction-limit (a host program of
// thousands of kernel calls: RAFT's on CUDA took LLVM more than 20 minutes
// to optimize and generate) are compiled without optimization, in an
// object file of their own; the model they make runs as the optimized one.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: wrapper-run %s --interpret --print=false --dynamic-size=6 --seed=7 --save-inputs=%t/in_ --save=%t/ref_
// RUN: wrapper-compile %s -o %t/model.so --optimized-instruction-limit=20 --timing 2>&1 | FileCheck %s --check-prefix=NOTE
// NOTE: wrapper-compile: 'main' has more than 20 LLVM instructions: compiled without optimization
// NOTE: LLVM optimization and code generation
// RUN: run_model %t/model.so %t/in_0.npy %t/in_1.npy --ref %t/ref_0.npy | FileCheck %s
// CHECK: vs reference: max abs error {{.*}}: ok
// With the default limit nothing is left unoptimized:
// RUN: wrapper-compile %s -o %t/default.so --timing 2>&1 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT-NOT: compiled without optimization
// RUN: run_model %t/default.so %t/in_0.npy %t/in_1.npy --ref %t/ref_0.npy | FileCheck %s
// The CUDA host program (kernel launches, module loads in constructors)
// split the same way links, and runs where there is a GPU:
// RUN: wrapper-compile %s --target=cuda -o %t/cuda.so --optimized-instruction-limit=20 --timing 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: %if cuda-runtime %{ run_model %t/cuda.so %t/in_0.npy %t/in_1.npy --ref %t/ref_0.npy | FileCheck %s %}
func.func @main(%x: tensor<?x16xf32>, %w: tensor<16x8xf32>) -> tensor<?x8xf32> {
  %m = tensor_program.matmul %x, %w : (tensor<?x16xf32>, tensor<16x8xf32>) -> tensor<?x8xf32>
  %r = tensor_program.relu %m : tensor<?x8xf32>
  %s = tensor_program.softmax %r dim 1 : tensor<?x8xf32>
  %e = tensor_program.exp %s : tensor<?x8xf32>
  %t = tensor_program.reduce_sum %e dims [0] keepdim : tensor<?x8xf32> -> tensor<1x8xf32>
  %d = tensor_program.div %e, %t : (tensor<?x8xf32>, tensor<1x8xf32>) -> tensor<?x8xf32>
  return %d : tensor<?x8xf32>
}
