// UNSUPPORTED: asan
// Tests C++ emission of host graphs: the emitted code for each wrapper op,
// and, end to end, an MLP block whose C++ host (compiled with g++) and
// kernels (compiled by the LLVM path) compute exactly what wrapper-run's
// LLVM host computes. The kernels are compiled for the host CPU, as the JIT
// compiles them: the GEMM template's FMAs (llvm.fmuladd) are fused only
// where the target has FMA.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: wrapper-opt %S/../../Integration/CPU/mlp-block.mlir --wrapper-cpu-frontend -o %t/front.mlir
// RUN: wrapper-translate --wrapper-to-cpp-main %t/front.mlir -o %t/host.cpp
// RUN: FileCheck %s --input-file=%t/host.cpp --check-prefix=MLP
// RUN: wrapper-opt %t/front.mlir --wrapper-export-kernels --wrapper-cpu-codegen="c-interface=true parallel=false" | mlir-translate --mlir-to-llvmir -o %t/kernels.ll
// RUN: clang -Wno-override-module -c -O2 -march=native %t/kernels.ll -o %t/kernels.o
// RUN: g++ -std=c++17 -O2 -Wall -Wextra %t/host.cpp %t/kernels.o -I%wrapper_src_root/include -L%wrapper_lib_dir -lwrapper_runtime -Wl,-rpath,%wrapper_lib_dir -L%mlir_lib_dir -lmlir_c_runner_utils -Wl,-rpath,%mlir_lib_dir -lm -o %t/host
// RUN: wrapper-run %S/../../Integration/CPU/mlp-block.mlir --interpret --print=false --seed=3 --save-inputs=%t/in_
// RUN: %t/host %t/in_0.npy %t/in_1.npy %t/in_2.npy %t/in_3.npy %t/in_4.npy %t/out_0.npy
// RUN: wrapper-run %S/../../Integration/CPU/mlp-block.mlir --input=%t/in_0.npy --input=%t/in_1.npy --input=%t/in_2.npy --input=%t/in_3.npy --input=%t/in_4.npy --compare=%t/out_0.npy --print=false | FileCheck %s --check-prefix=SAME
// SAME: output #0 vs {{.*}}out_0.npy: max abs error 0, max rel error 0
//
// MLP: #include "Wrapper/Runtime/WrapperHost.hpp"
// MLP: extern "C" {
// MLP-NEXT: void _mlir_ciface_main_kernel_0_impl(wrapper::MemRef<float, 2> *, wrapper::MemRef<float, 2> *, wrapper::MemRef<float, 1> *, wrapper::MemRef<float, 2> *);
// MLP: void graph_main(wrapper::MemRef<float, 2> [[X:v[0-9]+]], wrapper::MemRef<float, 2> [[W1:v[0-9]+]], {{.*}}, wrapper::MemRef<float, 2>* [[OUT:v[0-9]+]]) {
// MLP-NEXT: // Source nodes: permute, matmul, add, gelu
// MLP-NEXT: wrapper::MemRef<float, 2> [[B0:v[0-9]+]] = wrapper::alloc<float, 2>(8, 256);
// MLP-NEXT: wrapper::call(_mlir_ciface_main_kernel_0_impl, [[W1]], [[X]], {{v[0-9]+}}, [[B0]]);
// MLP: wrapper::free([[B0]]);
// MLP-NEXT: wrapper::output([[OUT]], {{v[0-9]+}});
// MLP: int main(int argc, char **argv) {
// MLP: graph_main(in0, in1, in2, in3, in4, &out0);

// RUN: wrapper-translate --wrapper-to-cpp %s | FileCheck %s --check-prefix=OPS
// RUN: not wrapper-translate --wrapper-to-cpp %S/Inputs/unsupported.mlir --split-input-file 2>&1 | FileCheck %S/Inputs/unsupported.mlir --check-prefix=BAD

func.func private @k_impl(memref<?x4xf32>, memref<?x4xf32>)
wrapper.kernel @k = @k_impl
wrapper.constant @bias : memref<4xf32> = dense<[1.0, -2.5, 0.0, 3.0]>

// OPS: alignas(64) static const float bias[4] = {1.0f, -2.5f, 0.0f, 3.0f};
// OPS-LABEL: void ops(
// OPS: int64_t [[D:v[0-9]+]] = wrapper::dim({{v[0-9]+}}, 0);
// OPS: int64_t [[TWO:v[0-9]+]] = 2;
// OPS: int64_t [[N:v[0-9]+]] = [[D]] * [[TWO]];
// OPS: wrapper::MemRef<float, 2> [[A:v[0-9]+]] = wrapper::alloc<float, 2>([[N]], 4);
// OPS: wrapper::debugMessage("k");
// OPS: wrapper::MemRef<float, 1> [[C:v[0-9]+]] = wrapper::constant<float, 1>(bias, 4);
// OPS: wrapper::MemRef<float, 2> {{v[0-9]+}} = wrapper::reinterpret<float, 2, 1>([[C]], 0, 2, 2, 2, 1);
// OPS: wrapper::debugPrint("after \"k\"", [[A]]);
// OPS: wrapper::debugSave("/tmp/a.npy", [[A]]);
// OPS: wrapper::MemRef<int8_t, 1> [[P:v[0-9]+]] = wrapper::alloc<int8_t, 1>(256);
// OPS: wrapper::MemRef<float, 2> {{v[0-9]+}} = wrapper::view<float, 2>([[P]], 64, 4, 4);
// OPS: wrapper::free([[P]]);
// OPS: wrapper::MemRef<float, 2> [[S:v[0-9]+]] = wrapper::alloc<float, 2>(8, 8);
// OPS: wrapper::MemRef<float, 2> [[R:v[0-9]+]] = wrapper::reuse<float, 2>([[S]], 4, 16);
// OPS: wrapper::free([[R]]);
wrapper.graph @ops(%x: memref<?x4xf32>) -> (memref<?x4xf32>, memref<2x2xf32>) {
  %c0 = arith.constant 0 : index
  %d = memref.dim %x, %c0 : memref<?x4xf32>
  %c2 = arith.constant 2 : index
  %n = arith.muli %d, %c2 : index
  %a = wrapper.alloc(%n) : memref<?x4xf32>
  wrapper.debug_message "k"
  wrapper.call @k(%x, %a) : memref<?x4xf32>, memref<?x4xf32>
  %c = wrapper.get_constant @bias : memref<4xf32>
  %v = wrapper.reinterpret %c to offset: [0], sizes: [2, 2], strides: [2, 1] : memref<4xf32> to memref<2x2xf32>
  wrapper.debug_print %a, "after \"k\"" : memref<?x4xf32>
  wrapper.debug_save %a, "/tmp/a.npy" : memref<?x4xf32>
  %pool = wrapper.alloc() : memref<256xi8>
  %p = wrapper.view %pool[64] : memref<256xi8> to memref<4x4xf32>
  wrapper.free %pool : memref<256xi8>
  %s = wrapper.alloc() : memref<8x8xf32>
  %r = wrapper.reuse %s : memref<8x8xf32> to memref<4x16xf32>
  wrapper.free %r : memref<4x16xf32>
  wrapper.return %a, %v : memref<?x4xf32>, memref<2x2xf32>
}
