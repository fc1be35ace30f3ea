// The AOT artifact for CUDA (wrapper-compile --target=cuda): the entry is
// compiled with --wrapper-cuda-pipeline (kernels as PTX inside the library,
// the matmul through cuBLAS) and linked with the CUDA runtime;
// wrapper_model_run copies the inputs to the device and the outputs back,
// wrapper_model_run_device runs on device memory.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: wrapper-compile %s --target=cuda -o %t/model.so
// RUN: wrapper-run %s --interpret --print=false --dynamic-size=7 --seed=3 --save-inputs=%t/in_ --save=%t/ref_
//
// Without a GPU, creating the model says why it cannot run:
// RUN: %if !cuda-runtime %{ not run_model %t/model.so %t/in_0.npy %t/in_1.npy %t/in_2.npy 2>&1 | FileCheck %s --check-prefix=NOGPU %}
// NOGPU: run_model: this model runs on CUDA: CUDA is not available
//
// On a GPU, the outputs match the interpreter's:
// RUN: %if cuda-runtime %{ run_model %t/model.so %t/in_0.npy %t/in_1.npy %t/in_2.npy --ref %t/ref_0.npy %t/ref_1.npy | FileCheck %s %}
// CHECK: output0: float32, 672 elements
// CHECK-NEXT: vs reference: max abs error {{.*}}: ok
// CHECK: output1: float32, 7 elements
// CHECK-NEXT: vs reference: max abs error {{.*}}: ok
//
// On device memory (wrapper_model_run_device on the runtime's stream): no
// copy between host and device during the run, the same outputs:
// RUN: %if cuda-runtime %{ run_model %t/model.so %t/in_0.npy %t/in_1.npy %t/in_2.npy --ref %t/ref_0.npy %t/ref_1.npy --device | FileCheck %s --check-prefix=DEVICE %}
// DEVICE: device run: 0 copies between host and device
// DEVICE: output0: float32, 672 elements
// DEVICE-NEXT: vs reference: max abs error {{.*}}: ok
// DEVICE: output1: float32, 7 elements
// DEVICE-NEXT: vs reference: max abs error {{.*}}: ok
//
// A CPU model refuses device memory:
// RUN: wrapper-compile %s -o %t/cpu.so
// RUN: not run_model %t/cpu.so %t/in_0.npy %t/in_1.npy %t/in_2.npy --device 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: run_model: run failed: wrapper_model_run_device: this model runs on the CPU; wrapper_model_run takes its inputs
//
// With --cuda-binary=cubin (where the toolkit's ptxas is) the kernels are
// compiled ahead of time; on a GPU the outputs match as well:
// RUN: %if cuda-ptxas %{ wrapper-compile %s --target=cuda --cuda-binary=cubin -o %t/cubin.so %}
// RUN: %if cuda-ptxas && cuda-runtime %{ run_model %t/cubin.so %t/in_0.npy %t/in_1.npy %t/in_2.npy --ref %t/ref_0.npy %t/ref_1.npy | FileCheck %s %}
//
// With --cuda-release-arguments each input is released after its last
// reader (the product reads %w, the bias kernel %b); a caller that donates
// nothing gets the same outputs:
// RUN: wrapper-compile %s --target=cuda --cuda-release-arguments --emit-mlir=llvm -o - | FileCheck %s --check-prefix=RELEASE
// RELEASE: llvm.func @wrapperCudaReleaseArgument(i64)
// RELEASE: llvm.call @wrapperCudaGemm
// RELEASE-COUNT-2: llvm.call @wrapperCudaReleaseArgument
// RELEASE: gpu.launch_func
// RELEASE-NEXT: llvm.ptrtoint
// RELEASE-NEXT: llvm.call @wrapperCudaReleaseArgument
// RELEASE-NOT: llvm.call @mgpuStreamSynchronize
// RELEASE-NOT: llvm.call @wrapperCudaReleaseArgument
// RUN: wrapper-compile %s --target=cuda --cuda-release-arguments -o %t/release.so
// RUN: %if cuda-runtime %{ run_model %t/release.so %t/in_0.npy %t/in_1.npy %t/in_2.npy --ref %t/ref_0.npy %t/ref_1.npy --device | FileCheck %s --check-prefix=DEVICE %}
//
// Refused: an unknown target, appended weights on CUDA.
// RUN: not wrapper-compile %s --target=tpu -o %t/x.so 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: wrapper-compile: error: --target must be cpu or cuda, got 'tpu'
// RUN: not wrapper-compile %s --target=cuda --weights=appended -o %t/x.so 2>&1 | FileCheck %s --check-prefix=WEIGHTS
// RUN: not wrapper-compile %s --cuda-release-arguments -o %t/x.so 2>&1 | FileCheck %s --check-prefix=RELEASE-CPU
// RUN: not wrapper-run %s --cuda-release-arguments 2>&1 | FileCheck %s --check-prefix=RELEASE-CPU
// RELEASE-CPU: error: --cuda-release-arguments frees donated device inputs; it needs --target=cuda
// RUN: not wrapper-compile %s --cuda-allow-tf32 -o %t/x.so 2>&1 | FileCheck %s --check-prefix=TF32-CPU
// RUN: not wrapper-run %s --cuda-allow-tf32-convolutions 2>&1 | FileCheck %s --check-prefix=TF32CONV-CPU
// TF32-CPU: error: --cuda-allow-tf32 chooses cuBLAS's tensor cores; it needs --target=cuda
// TF32CONV-CPU: error: --cuda-allow-tf32-convolutions chooses cuBLAS's tensor cores; it needs --target=cuda
// WEIGHTS: wrapper-compile: error: --weights=appended is not supported with --target=cuda
func.func @main(%x: tensor<?x64xf32>, %w: tensor<64x96xf32>, %b: tensor<96xf32>) -> (tensor<?x96xf32>, tensor<?xf32>) {
  %0 = tensor_program.matmul %x, %w : (tensor<?x64xf32>, tensor<64x96xf32>) -> tensor<?x96xf32>
  %1 = tensor_program.add %0, %b : (tensor<?x96xf32>, tensor<96xf32>) -> tensor<?x96xf32>
  %2 = tensor_program.gelu %1 : tensor<?x96xf32>
  %3 = tensor_program.reduce_sum %2 dims [1] : tensor<?x96xf32> -> tensor<?xf32>
  return %2, %3 : tensor<?x96xf32>, tensor<?xf32>
}
