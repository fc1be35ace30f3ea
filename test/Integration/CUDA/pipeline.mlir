// RUN: wrapper-opt %s --wrapper-cuda-pipeline | FileCheck %s
// RUN: wrapper-opt %s --wrapper-cuda-pipeline="chip=sm_80 features=+ptx70 block-size=128" | FileCheck %s --check-prefix=SM80
// The CUDA pipeline on a pointwise program with a dynamic batch and a
// broadcast bias (checked without a GPU): one kernel serialized to PTX for
// the chosen chip, in a gpu.binary; blocks of block-size threads along the
// inner dimension; host code that copies the arguments to device buffers
// from the runtime's allocator, launches, and copies the result back.
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
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: ld.global
// CHECK-SAME: st.global
// SM80: .target sm_80
// SM80-SAME: .maxntid 128, 1, 1
func.func @main(%x: tensor<?x1000xf32>, %b: tensor<1000xf32>) -> tensor<?x1000xf32> {
  %s = tensor_program.add %x, %b : (tensor<?x1000xf32>, tensor<1000xf32>) -> tensor<?x1000xf32>
  %g = tensor_program.gelu %s : tensor<?x1000xf32>
  return %g : tensor<?x1000xf32>
}

