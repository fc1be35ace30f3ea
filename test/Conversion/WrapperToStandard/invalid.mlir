// RUN: wrapper-opt %s --convert-wrapper-to-standard --split-input-file -verify-diagnostics

// Tests what the lowering of the host program refuses.
wrapper.graph @cuda_buffer_printed() {
  %b = wrapper.alloc() : memref<4xf32, #wrapper.device<cuda:0>>
  // expected-error @below {{'wrapper.debug_print' op uses a buffer on cuda:0; the host lowering handles device buffers only in allocations, frees, views, kernel calls, constants and returns}}
  wrapper.debug_print %b, "b" : memref<4xf32, #wrapper.device<cuda:0>>
  wrapper.free %b : memref<4xf32, #wrapper.device<cuda:0>>
  wrapper.return
}

// -----

// expected-error @below {{'wrapper.constant' op is external and on a CUDA device; external constants are supported on the CPU only}}
wrapper.constant @device_weights : memref<4xf32, #wrapper.device<cuda>> external

// -----

gpu.module @kernels {
  gpu.func @k(%x: memref<4xf32>) kernel {
    gpu.return
  }
}
wrapper.kernel @gpu_kernel = @kernels::@k
wrapper.graph @gpu_call(%x: memref<4xf32, #wrapper.device<cuda>>) {
  %c1 = arith.constant 1 : index
  // expected-error @below {{'wrapper.call' op calls a GPU kernel; the host lowering calls func.func kernels only}}
  wrapper.call @gpu_kernel(%x) grid(%c1, %c1, %c1) block(%c1, %c1, %c1) : memref<4xf32, #wrapper.device<cuda>>
  wrapper.return
}

// -----

// expected-error @below {{'wrapper.constant' op is external; the CPU lowering needs its value (or external-constants, for a loader that fills pointer slots, as wrapper-compile --weights=appended does)}}
wrapper.constant @w : memref<4xf32> external

// -----

wrapper.graph @extern_call(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-error @below {{'wrapper.extern_alloc' op is not supported by the CPU lowering yet}}
  %b = wrapper.extern_alloc "aten::relu" ins(%x : memref<4xf32>) -> memref<4xf32>
  wrapper.return %b : memref<4xf32>
}

// -----

wrapper.graph @debug(%x: memref<4xcomplex<f32>>) {
  // expected-error @below {{'wrapper.debug_print' op cannot print or save elements of type 'complex<f32>'}}
  wrapper.debug_print %x, "x" : memref<4xcomplex<f32>>
  wrapper.return
}
