// RUN: wrapper-opt %s --wrapper-cuda-pipeline --split-input-file | FileCheck %s
// RUN: wrapper-opt %s --wrapper-cuda-pipeline="cublas=false" --split-input-file | FileCheck %s --check-prefix=LOOPS
// RUN: wrapper-opt %s --wrapper-cuda-pipeline="device-arguments=true" --split-input-file | FileCheck %s --check-prefix=DEVICE
// Matrix products on CUDA (checked without a GPU): a linear layer's matmul
// becomes a call of the runtime's wrapperCudaGemm (cuBLAS), queued on the
// stream behind the argument copies without a host wait; the bias and relu
// stay a generated kernel, launched after it. With cublas=false the product
// is a kernel of its own.
// CHECK-LABEL: llvm.func @linear(
// CHECK: llvm.call @mgpuMemcpy
// CHECK-NOT: mgpuStreamSynchronize
// CHECK: llvm.call @wrapperCudaGemm(
// CHECK-NOT: mgpuStreamSynchronize
// CHECK: gpu.launch_func
// CHECK: llvm.call @mgpuStreamSynchronize
// CHECK: gpu.binary
// CHECK-NOT: .entry
// CHECK-SAME: .visible .entry linear_kernel(
// CHECK-NOT: .entry
// CHECK-SAME: "
// LOOPS-LABEL: llvm.func @linear(
// LOOPS-NOT: wrapperCudaGemm
// LOOPS: gpu.binary
// LOOPS-COUNT-3: .visible .entry
// With device arguments the whole call is queued: no wait at all.
// DEVICE-LABEL: llvm.func @linear(
// DEVICE-NOT: mgpuStreamSynchronize
// DEVICE: llvm.call @wrapperCudaGemm(
// DEVICE-NOT: mgpuStreamSynchronize
// DEVICE: llvm.return
func.func @linear(%x: tensor<?x256xf32>, %w: tensor<256x128xf32>, %b: tensor<128xf32>) -> tensor<?x128xf32> {
  %0 = tensor_program.matmul %x, %w : (tensor<?x256xf32>, tensor<256x128xf32>) -> tensor<?x128xf32>
  %1 = tensor_program.add %0, %b : (tensor<?x128xf32>, tensor<128xf32>) -> tensor<?x128xf32>
  %2 = tensor_program.relu %1 : tensor<?x128xf32>
  return %2 : tensor<?x128xf32>
}

// -----

// A bf16 batched product that is the result: cuBLAS with bf16 inputs
// writes bf16 into the result itself (dtypes 9 | 9 << 8 | 9 << 16; f32
// accumulation inside cuBLAS): no f32 accumulator, no rounding kernel.
// CHECK-LABEL: llvm.func @attention_scores(
// CHECK-NOT: 461065
// CHECK: llvm.mlir.constant(592137 : i32)
// CHECK: llvm.call @wrapperCudaGemm(
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
func.func @attention_scores(%q: tensor<4x64x32xbf16>, %k: tensor<4x32x64xbf16>) -> tensor<4x64x64xbf16> {
  %0 = tensor_program.batch_matmul %q, %k : (tensor<4x64x32xbf16>, tensor<4x32x64xbf16>) -> tensor<4x64x64xbf16>
  return %0 : tensor<4x64x64xbf16>
}
