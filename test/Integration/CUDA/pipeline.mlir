// RUN: wrapper-opt %s --wrapper-cuda-pipeline | FileCheck %s
// RUN: wrapper-opt %s --wrapper-cuda-pipeline="chip=sm_80 features=+ptx70 block-size=128 vectorize=false" | FileCheck %s --check-prefix=SM80
// RUN: wrapper-opt %s --wrapper-cuda-pipeline="device-arguments=true" | FileCheck %s --check-prefix=DEVICE
// The CUDA pipeline on a pointwise program with a dynamic batch and a
// broadcast bias (checked without a GPU): one kernel serialized to PTX for
// the chosen chip, in a gpu.binary; host code that copies the arguments to
// device buffers from the runtime's allocator, launches, and copies the
// result back. Rows of 1000 f32 are long and aligned: one block per row,
// 128 threads (250 four-element vectors), 128-bit loads and stores. Without
// vectorization, parallel loops in blocks of block-size threads.
// CHECK: llvm.func @main(
// CHECK: llvm.call @mgpuMemAlloc
// CHECK: llvm.call @mgpuMemcpy
// CHECK: gpu.launch_func <%{{.*}} : !llvm.ptr> @main_kernel::@main_kernel
// CHECK: llvm.call @mgpuMemcpy
// CHECK: llvm.call @mgpuMemFree
// CHECK: gpu.binary @main_kernel
// CHECK-SAME: chip = "sm_90"
// CHECK-SAME: .target sm_90
// CHECK-SAME: .visible .entry main_kernel(
// CHECK-SAME: .maxntid 128, 1, 1
// CHECK-SAME: {{(ld|st)}}.global.v4.b32
// CHECK-SAME: {{(ld|st)}}.global.v4.b32
// SM80: .target sm_80
// SM80-SAME: .maxntid 128, 1, 1
// SM80-NOT: ld.global.v4
// SM80-SAME: ld.global.b32
// SM80-NOT: ld.global.v4
// With device arguments, no copies and no wait: the caller's buffers are
// used and the result is a device buffer.
// DEVICE: llvm.func @main(
// DEVICE-NOT: mgpuMemcpy
// DEVICE-NOT: mgpuStreamSynchronize
// DEVICE: llvm.call @mgpuMemAlloc
// DEVICE-NOT: mgpuMemcpy
// DEVICE-NOT: mgpuStreamSynchronize
// DEVICE: gpu.launch_func
// DEVICE-NOT: mgpuMemcpy
// DEVICE-NOT: mgpuStreamSynchronize
// DEVICE: llvm.return
func.func @main(%x: tensor<?x1000xf32>, %b: tensor<1000xf32>) -> tensor<?x1000xf32> {
  %s = tensor_program.add %x, %b : (tensor<?x1000xf32>, tensor<1000xf32>) -> tensor<?x1000xf32>
  %g = tensor_program.gelu %s : tensor<?x1000xf32>
  return %g : tensor<?x1000xf32>
}

