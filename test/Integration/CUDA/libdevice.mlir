// RUN: wrapper-opt %s --wrapper-cuda-pipeline | FileCheck %s
// RUN: not wrapper-opt %s --wrapper-cuda-pipeline="cuda-toolkit=%t.missing" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING
// Kernels that call libdevice (exp, erf, tanh) get it linked in (found in
// the CUDA toolkit: the cuda-toolkit option, else $CUDA_ROOT, $CUDA_HOME,
// $CUDA_PATH, /usr/local/cuda): the PTX defines what it calls, so the
// driver can load it. Without libdevice, the pipeline says so instead of
// emitting PTX that fails to load.
// REQUIRES: cuda-libdevice
// CHECK: gpu.binary
// CHECK-NOT: extern .func {{.*}}__nv_
// CHECK-NOT: call.uni {{.*}}__nv_
// CHECK-SAME: .entry main_kernel
// MISSING: error: kernels call __nv_{{[a-z]+}} from CUDA's libdevice, which was not found (no nvvm/libdevice/libdevice.10.bc under {{.*}}.missing); set CUDA_HOME or the pipeline's cuda-toolkit option to the CUDA toolkit
func.func @main(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %0 = tensor_program.exp %x : tensor<64x256xf32>
  %1 = tensor_program.gelu %0 : tensor<64x256xf32>
  %2 = tensor_program.tanh %1 : tensor<64x256xf32>
  return %2 : tensor<64x256xf32>
}
