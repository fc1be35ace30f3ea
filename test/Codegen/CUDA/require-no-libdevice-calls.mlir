// RUN: not wrapper-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(wrapper-require-no-libdevice-calls{cuda-toolkit=/opt/none}))' 2>&1 | FileCheck %s
// RUN: not wrapper-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(wrapper-require-no-libdevice-calls))' 2>&1 | FileCheck %s --check-prefix=ENV

// CHECK: error: kernels call __nv_expf from CUDA's libdevice, which was not found (no nvvm/libdevice/libdevice.10.bc under /opt/none)
// ENV: error: kernels call __nv_expf {{.*}}(CUDA_ROOT, CUDA_HOME, CUDA_PATH unset and no /usr/local/cuda)
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @__nv_expf(f32) -> f32
  }
}

// -----

// A kernel module without libdevice calls passes.
// CHECK-NOT: error
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @__other(f32) -> f32
  }
}
