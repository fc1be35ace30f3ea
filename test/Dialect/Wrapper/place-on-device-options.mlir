// RUN: not wrapper-opt %s --wrapper-place-on-device=device=cpu 2>&1 | FileCheck %s
// RUN: not wrapper-opt %s --wrapper-place-on-device=device=cuda:x 2>&1 | FileCheck %s --check-prefix=ORDINAL
// RUN: wrapper-opt %s --wrapper-place-on-device=device=cuda:1 | FileCheck %s --check-prefix=ONE

// CHECK: error: wrapper-place-on-device: device 'cpu' is not 'cuda' or 'cuda:N'
// ORDINAL: error: wrapper-place-on-device: device 'cuda:x' is not 'cuda' or 'cuda:N'
// ONE: wrapper.kernel @k = @k_impl on #wrapper.device<cuda:1>
// ONE: wrapper.graph @g(%{{.*}}: memref<4xf32, #wrapper.device<cuda:1>>)
wrapper.kernel @k = @k_impl
func.func private @k_impl(memref<4xf32>)
wrapper.graph @g(%x: memref<4xf32>) {
  wrapper.call @k(%x) : memref<4xf32>
  wrapper.return
}
