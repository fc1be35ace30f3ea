// RUN: wrapper-opt %s --wrapper-cuda-name-kernels --split-input-file | FileCheck %s

// Each outlined kernel takes its module's name; the launches follow.
// CHECK-LABEL: func.func @f
// CHECK: gpu.launch_func @f_kernel::@f_kernel blocks
// CHECK: gpu.launch_func @f_kernel_0::@f_kernel_0 blocks
// CHECK: gpu.launch_func @f_kernel_0::@f_kernel_0 blocks
// CHECK: gpu.module @f_kernel {
// CHECK-NEXT: gpu.func @f_kernel(
// CHECK: gpu.module @f_kernel_0 {
// CHECK-NEXT: gpu.func @f_kernel_0(
module attributes {gpu.container_module} {
  func.func @f(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @f_kernel::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @f_kernel_0::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @f_kernel_0::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
  gpu.module @f_kernel {
    gpu.func @f_kernel(%m: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @f_kernel_0 {
    gpu.func @f_kernel(%m: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// A module with two kernels, or whose name a symbol inside it already
// holds, keeps its names.
// CHECK-LABEL: func.func @g
// CHECK: gpu.launch_func @two::@a blocks
// CHECK: gpu.launch_func @taken::@k blocks
// CHECK: gpu.func @a(
// CHECK: gpu.func @b(
// CHECK: gpu.func @k(
// CHECK: gpu.func @taken(
module attributes {gpu.container_module} {
  func.func @g(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @two::@a blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @taken::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
  gpu.module @two {
    gpu.func @a(%m: memref<4xf32>) kernel {
      gpu.return
    }
    gpu.func @b(%m: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @taken {
    gpu.func @k(%m: memref<4xf32>) kernel {
      gpu.return
    }
    gpu.func @taken(%m: memref<4xf32>) {
      gpu.return
    }
  }
}
