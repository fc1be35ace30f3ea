// RUN: wrapper-opt %s --wrapper-cuda-pipeline="device-arguments=true" | FileCheck %s
// RUN: wrapper-opt %s --wrapper-cuda-pipeline="device-arguments=true wrapper-host=false" | FileCheck %s --check-prefix=WHOLE
// The host graph on the device (checked without a GPU): a bias constant, a
// product through cuBLAS, softmax and an elementwise tail as separate
// kernels. The graph's buffers come from gpu.alloc (the runtime's caching
// allocator), its kernels are inlined into one host function (one stream,
// no wait between them), the planned reuse makes the output a view of the
// first intermediate, and the constant is read through its device copy
// (wrapperCudaConstant with the constant's slot), not copied per call.
// CHECK: llvm.mlir.global internal @__wrapper_cuda_constant_main_constant_0() {{.*}} : !llvm.array<2 x ptr>
// CHECK-LABEL: llvm.func @main(
// CHECK: llvm.mlir.addressof @__wrapper_cuda_constant_main_constant_0
// CHECK: llvm.call @wrapperCudaConstant(
// CHECK: gpu.launch_func
// CHECK: llvm.call @wrapperCudaGemm(
// CHECK-NOT: llvm.call @mgpuStreamSynchronize
// CHECK: gpu.launch_func
// CHECK-NOT: llvm.call @mgpuStreamSynchronize
// CHECK: llvm.return
// CHECK-NOT: llvm.call @mgpuMemcpy
// Each function as a whole (the second version): constants (here a global
// of bufferization) are read through device copies made once as well.
// WHOLE: llvm.mlir.global internal @__wrapper_cuda_constant___constant_8xf32()
// WHOLE-LABEL: llvm.func @main(
// WHOLE: llvm.call @wrapperCudaConstant(
// WHOLE: llvm.call @wrapperCudaGemm(
func.func @main(%x: tensor<?x8xf32>, %w: tensor<8x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x8xf32>
  %c = tensor_program.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %a = tensor_program.add %x, %c : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %m = tensor_program.matmul %a, %w : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32>
  %s = tensor_program.softmax %m dim 1 : tensor<?x8xf32>
  %e = tensor_program.exp %s : tensor<?x8xf32>
  return %e : tensor<?x8xf32>
}
