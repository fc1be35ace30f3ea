// RUN: wrapper-opt %s -split-input-file -wrapper-verify-lifetimes -verify-diagnostics

// The lifetime checker: a buffer in flight is neither used, written, freed
// nor taken by a second collective before its wait.

wrapper.kernel @k = @k_impl
func.func private @k_impl(%a: memref<8xf32>) {
  return
}

wrapper.graph @write_in_flight() {
  %a = wrapper.alloc() : memref<8xf32>
  // expected-note @below {{the collective starts here; wait for it first}}
  %w = wrapper.collective_start "all_reduce" outs(%a : memref<8xf32>) group "0" reduce "sum" -> !wrapper.work
  // expected-error @below {{uses storage while a collective on it is in flight}}
  wrapper.call @k(%a) : memref<8xf32>
  wrapper.collective_wait %w
  wrapper.free %a : memref<8xf32>
  wrapper.return
}

// -----

wrapper.graph @free_in_flight() {
  %a = wrapper.alloc() : memref<8xf32>
  // expected-note @below {{the collective starts here; wait for it first}}
  %w = wrapper.collective_start "all_reduce" outs(%a : memref<8xf32>) group "0" reduce "sum" -> !wrapper.work
  // expected-error @below {{uses storage while a collective on it is in flight}}
  wrapper.free %a : memref<8xf32>
  wrapper.collective_wait %w
  wrapper.return
}

// -----

wrapper.graph @view_in_flight() -> memref<4xf32> {
  %a = wrapper.alloc() : memref<8xf32>
  %v = wrapper.reinterpret %a to offset: [4], sizes: [4], strides: [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  // expected-note @below {{the collective starts here; wait for it first}}
  %w = wrapper.collective_start "all_reduce" outs(%v : memref<4xf32, strided<[1], offset: 4>>) group "0" reduce "sum" -> !wrapper.work
  %b = wrapper.alloc() : memref<4xf32>
  // expected-error @below {{uses storage while a collective on it is in flight}}
  wrapper.debug_print %a, "a" : memref<8xf32>
  wrapper.collective_wait %w
  wrapper.free %a : memref<8xf32>
  wrapper.return %b : memref<4xf32>
}

// -----

wrapper.graph @two_collectives(%x: memref<8xf32>) {
  %a = wrapper.alloc() : memref<8xf32>
  // expected-note @below {{that collective starts here}}
  %w0 = wrapper.collective_start "all_reduce" outs(%a : memref<8xf32>) group "0" reduce "sum" -> !wrapper.work
  // expected-error @below {{starts a collective on storage that another collective in flight holds}}
  %w1 = wrapper.collective_start "all_reduce" outs(%a : memref<8xf32>) group "1" reduce "sum" -> !wrapper.work
  wrapper.collective_wait %w0
  wrapper.collective_wait %w1
  wrapper.free %a : memref<8xf32>
  wrapper.return
}

// -----

// Reading the input of a gather while it is in flight is fine; the buffers
// are free to use after the wait.
wrapper.graph @read_input_in_flight(%x: memref<4xf32>) -> memref<8xf32> {
  %y = wrapper.alloc() : memref<8xf32>
  %w = wrapper.collective_start "all_gather_into_tensor" ins(%x : memref<4xf32>) outs(%y : memref<8xf32>) group "0" size 2 -> !wrapper.work
  wrapper.debug_print %x, "x" : memref<4xf32>
  wrapper.collective_wait %w
  wrapper.debug_print %y, "y" : memref<8xf32>
  wrapper.return %y : memref<8xf32>
}
