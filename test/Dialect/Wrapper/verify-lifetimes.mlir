// RUN: wrapper-opt %s --mlir-very-unsafe-disable-verifier-on-parsing --verify-each=false --wrapper-verify-lifetimes --split-input-file --verify-diagnostics
// RUN: wrapper-opt %S/plan-memory.mlir --wrapper-plan-memory=strategy=pool --wrapper-verify-lifetimes --split-input-file | FileCheck %s --check-prefix=OK
// OK: wrapper.graph @pool

// The checker runs on IR that the op verifiers would reject, as after a
// faulty pass: parsing without verification.

func.func private @k_impl(memref<8xf32>, memref<8xf32>)
wrapper.kernel @k = @k_impl

// Tests a use through a view after the viewed storage was freed (the op
// verifier only follows the freed value itself).
wrapper.graph @view_after_free(%x: memref<8xf32>) -> memref<8xf32> {
  %a = wrapper.alloc() : memref<8xf32>
  %v = wrapper.reinterpret %a to offset: [0], sizes: [8], strides: [1] : memref<8xf32> to memref<8xf32>
  // expected-note @+1 {{the storage ends here}}
  wrapper.free %a : memref<8xf32>
  %r = wrapper.alloc() : memref<8xf32>
  // expected-error @+1 {{uses storage after it was freed}}
  wrapper.call @k(%v, %r) : memref<8xf32>, memref<8xf32>
  wrapper.return %r : memref<8xf32>
}

// -----

func.func private @k_impl(memref<8xf32>, memref<8xf32>)
wrapper.kernel @k = @k_impl

// Tests a double free.
wrapper.graph @double_free(%x: memref<8xf32>) {
  %a = wrapper.alloc() : memref<8xf32>
  wrapper.call @k(%x, %a) : memref<8xf32>, memref<8xf32>
  // expected-note @+1 {{it ended here}}
  wrapper.free %a : memref<8xf32>
  // expected-error @+1 {{frees storage a second time}}
  wrapper.free %a : memref<8xf32>
  wrapper.return
}

// -----

func.func private @k_impl(memref<8xf32>, memref<8xf32>)
wrapper.kernel @k = @k_impl

// Tests a leak.
wrapper.graph @leak(%x: memref<8xf32>) {
  // expected-error @+1 {{storage is neither freed nor returned (a leak)}}
  %a = wrapper.alloc() : memref<8xf32>
  wrapper.call @k(%x, %a) : memref<8xf32>, memref<8xf32>
  // expected-note @+1 {{the graph ends here}}
  wrapper.return
}

// -----

func.func private @k_impl(memref<8xf32>, memref<8xf32>)
wrapper.kernel @k = @k_impl

// Tests a use of storage after a reuse took it, and a reuse of freed
// storage.
wrapper.graph @after_reuse(%x: memref<8xf32>) -> memref<8xf32> {
  %a = wrapper.alloc() : memref<8xf32>
  wrapper.call @k(%x, %a) : memref<8xf32>, memref<8xf32>
  wrapper.free_if_not_reused %a : memref<8xf32>
  // expected-note @+1 {{the storage ends here}}
  %b = wrapper.reuse %a : memref<8xf32> to memref<8xf32>
  // expected-error @+1 {{uses storage after it was handed to a reuse}}
  wrapper.call @k(%a, %b) : memref<8xf32>, memref<8xf32>
  %c = wrapper.alloc() : memref<8xf32>
  // expected-note @+1 {{it was freed here}}
  wrapper.free %c : memref<8xf32>
  // expected-error @+1 {{reuses storage that was already freed}}
  %d = wrapper.reuse %c : memref<8xf32> to memref<8xf32>
  wrapper.free %d : memref<8xf32>
  wrapper.return %b : memref<8xf32>
}

// -----

func.func private @k_impl(memref<8xf32>, memref<8xf32>)
wrapper.kernel @k = @k_impl

// Tests two views of a pool whose bytes overlap while both are live, and a
// use of a view after its pool was freed.
wrapper.graph @pool(%x: memref<8xf32>) -> memref<8xf32> {
  %pool = wrapper.alloc() : memref<64xi8>
  // expected-note @+1 {{bytes [0, 32) viewed here}}
  %a = wrapper.view %pool[0] : memref<64xi8> to memref<8xf32>
  wrapper.call @k(%x, %a) : memref<8xf32>, memref<8xf32>
  // expected-error @+1 {{bytes [16, 48) of the pool overlap a view that is still live}}
  %b = wrapper.view %pool[16] : memref<64xi8> to memref<8xf32>
  wrapper.call @k(%a, %b) : memref<8xf32>, memref<8xf32>
  // expected-note @+1 {{the storage ends here}}
  wrapper.free %pool : memref<64xi8>
  %r = wrapper.alloc() : memref<8xf32>
  // expected-error @+1 {{uses storage after it was freed}}
  wrapper.call @k(%b, %r) : memref<8xf32>, memref<8xf32>
  wrapper.return %r : memref<8xf32>
}
