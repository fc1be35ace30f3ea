// RUN: wrapper-opt %s --pass-pipeline='builtin.module(gpu.module(wrapper-lower-all-reduce))' | FileCheck %s

// A block-wide sum becomes warp shuffles and a step through workgroup
// memory.

module attributes {gpu.container_module} {
  // CHECK-LABEL: gpu.func @row_sum
  // CHECK-NOT: gpu.all_reduce
  // CHECK: gpu.shuffle xor
  // CHECK: gpu.barrier
  gpu.module @kernels {
    gpu.func @row_sum(%x: f32, %out: memref<1xf32>) kernel {
      %s = gpu.all_reduce add %x uniform {} : (f32) -> f32
      %c0 = arith.constant 0 : index
      memref.store %s, %out[%c0] : memref<1xf32>
      gpu.return
    }
  }
}
