// RUN: wrapper-opt %s --convert-wrapper-to-standard --split-input-file -verify-diagnostics

// Tests what the CPU lowering of the host program refuses.
wrapper.graph @cuda_buffer() {
  // expected-error @below {{'wrapper.alloc' op uses a buffer on cuda:0; the CPU lowering handles CPU buffers only}}
  %b = wrapper.alloc() : memref<4xf32, #wrapper.device<cuda:0>>
  wrapper.free %b : memref<4xf32, #wrapper.device<cuda:0>>
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
