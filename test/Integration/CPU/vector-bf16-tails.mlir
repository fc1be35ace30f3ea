// bf16 and f16 kernels whose rows leave a static remainder that is not a
// power of two (49 = 32 + 17, 197 = 6 * 32 + 5) against the reference
// interpreter. The remainder is vectorized in power-of-two pieces (16 + 1,
// 4 + 1): LLVM's InstCombine narrows the f32 arithmetic between the
// extensions and the truncation to bf16 arithmetic, which its x86 backend
// could not legalize on 17-lane vectors (a crash compiling swin_t in
// bf16). The FileCheck run on the vectorized loops checks the pieces.
// RUN: wrapper-run %s --entry=rows49 --verify --print=false --seed 1 | FileCheck %s
// RUN: wrapper-run %s --entry=rows197 --verify --print=false --seed 2 | FileCheck %s
// RUN: wrapper-run %s --entry=rows49 --verify --print=false --seed 3 --mattr=-avx512f | FileCheck %s
// RUN: wrapper-run %s --entry=half49 --verify --print=false --seed 4 | FileCheck %s
// RUN: wrapper-opt %s --wrapper-cpu-frontend --wrapper-cpu-codegen="vector-width=16 parallel=false tile-elements=0" | FileCheck %s --check-prefix=PIECES
// CHECK: vs interpreter: {{.*}}: ok
// CHECK-NOT: MISMATCH
// PIECES-LABEL: llvm.func @rows49_kernel_0_impl
// PIECES-NOT: vector<17xbf16>
// PIECES: llvm.load {{.*}} -> vector<32xbf16>
// PIECES-NOT: vector<17xbf16>
// PIECES: llvm.load {{.*}} -> vector<16xbf16>
// PIECES-NOT: vector<17xbf16>
// PIECES: llvm.load {{.*}} -> vector<1xbf16>
// PIECES-NOT: vector<17xbf16>
// PIECES-LABEL: llvm.func @rows197
func.func @rows49(%a: tensor<5x49xbf16>, %b: tensor<5x49xbf16>) -> (tensor<5x49xbf16>, tensor<5x49xbf16>, tensor<5xbf16>) {
  %0 = tensor_program.add %a, %b : (tensor<5x49xbf16>, tensor<5x49xbf16>) -> tensor<5x49xbf16>
  %1 = tensor_program.softmax %0 dim 1 : tensor<5x49xbf16>
  %2 = tensor_program.gelu %1 : tensor<5x49xbf16>
  %3 = tensor_program.reduce_max %a dims [1] : tensor<5x49xbf16> -> tensor<5xbf16>
  return %0, %2, %3 : tensor<5x49xbf16>, tensor<5x49xbf16>, tensor<5xbf16>
}
func.func @rows197(%a: tensor<3x197xbf16>, %b: tensor<197xbf16>) -> tensor<3x197xbf16> {
  %bb = tensor_program.broadcast %b : tensor<197xbf16> -> tensor<3x197xbf16>
  %0 = tensor_program.mul %a, %bb : (tensor<3x197xbf16>, tensor<3x197xbf16>) -> tensor<3x197xbf16>
  %1 = tensor_program.layer_norm %0 normalized_rank 1 eps 1.0e-05 : (tensor<3x197xbf16>) -> tensor<3x197xbf16>
  return %1 : tensor<3x197xbf16>
}
func.func @half49(%a: tensor<5x49xf16>, %b: tensor<5x49xf16>) -> tensor<5x49xf16> {
  %0 = tensor_program.sub %a, %b : (tensor<5x49xf16>, tensor<5x49xf16>) -> tensor<5x49xf16>
  %1 = tensor_program.tanh %0 : tensor<5x49xf16>
  return %1 : tensor<5x49xf16>
}
