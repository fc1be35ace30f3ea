// A CPU model.so whose code makes strided copies (slices, concatenations,
// a pad's interior) copies them with its own loops (linalg.copy, from
// --wrapper-strided-copies-to-linalg), not through memrefCopy, and needs no
// MLIR library at run time (the runtime still defines memrefCopy for
// programs that call it). Its outputs match the reference interpreter's.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: wrapper-compile %s -o %t/model.so
// RUN: llvm-nm -D --undefined-only %t/model.so | FileCheck %s --check-prefix=SYMBOLS
// SYMBOLS-NOT: memrefCopy
// RUN: llvm-readelf -d %t/model.so | FileCheck %s --check-prefix=NEEDED --implicit-check-not=libmlir
// NEEDED: libwrapper_runtime.so
// RUN: wrapper-run %s --interpret --print=false --seed=4 --save-inputs=%t/in_ --save=%t/ref_
// RUN: run_model %t/model.so %t/in_0.npy %t/in_1.npy --ref %t/ref_0.npy %t/ref_1.npy %t/ref_2.npy %t/ref_3.npy | FileCheck %s
// CHECK-COUNT-4: vs reference: max abs error {{.*}}: ok
func.func @main(%x: tensor<5x8xf32>, %y: tensor<3x8xf32>) -> (tensor<5x3xf32>, tensor<8x8xf32>, tensor<7x11xf32>, tensor<2x4x8xf32>) {
  %0 = tensor_program.slice %x dim 1 start 1 end 100 step 3 : tensor<5x8xf32> -> tensor<5x3xf32>
  %1 = tensor_program.concat %x, %y dim 0 : (tensor<5x8xf32>, tensor<3x8xf32>) -> tensor<8x8xf32>
  %2 = tensor_program.pad %x low [1, 2] high [1, 1] value -2.5 : tensor<5x8xf32> -> tensor<7x11xf32>
  %3 = tensor_program.broadcast %y : tensor<3x8xf32> -> tensor<2x3x8xf32>
  %4 = tensor_program.slice %3 dim 1 start 1 : tensor<2x3x8xf32> -> tensor<2x2x8xf32>
  %5 = tensor_program.concat %4, %4 dim 1 : (tensor<2x2x8xf32>, tensor<2x2x8xf32>) -> tensor<2x4x8xf32>
  return %0, %1, %2, %5 : tensor<5x3xf32>, tensor<8x8xf32>, tensor<7x11xf32>, tensor<2x4x8xf32>
}
