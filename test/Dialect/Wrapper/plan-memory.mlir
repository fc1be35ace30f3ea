// RUN: wrapper-opt %s --wrapper-plan-memory --wrapper-verify-lifetimes --split-input-file | FileCheck %s --check-prefix=REUSE
// RUN: wrapper-opt %s --wrapper-plan-memory="strategy=pool" --wrapper-verify-lifetimes --split-input-file | FileCheck %s --check-prefix=POOL
// RUN: wrapper-opt %s --wrapper-plan-memory="strategy=pool report=true" --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// RUN: wrapper-opt %s --wrapper-plan-memory="strategy=none report=true" --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=NONE
// RUN: not wrapper-opt %s --wrapper-plan-memory="strategy=greedy" --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

func.func private @k1_impl(memref<16x16xf32>, memref<16x16xf32>)
wrapper.kernel @k1 = @k1_impl
func.func private @k2_impl(memref<16x16xf32>, memref<256xf32>)
wrapper.kernel @k2 = @k2_impl
func.func private @k3_impl(memref<256xf32>, memref<16x16xf32>)
wrapper.kernel @k3 = @k3_impl

// Tests that a buffer takes the storage of the most recently freed one of
// the same size (another shape too), and that a pool that would raise the
// peak (it stays allocated while the returned buffer is allocated) is not
// used: the graph gets reuse instead.
// REUSE-LABEL: wrapper.graph @chain
// REUSE: %[[A:.*]] = wrapper.alloc() : memref<16x16xf32>
// REUSE: %[[B:.*]] = wrapper.alloc() : memref<256xf32>
// REUSE-NOT: wrapper.free %[[A]]
// REUSE: %[[C:.*]] = wrapper.reuse %[[A]] : memref<16x16xf32> to memref<16x16xf32>
// REUSE-NOT: wrapper.free %[[B]]
// REUSE: %[[D:.*]] = wrapper.reuse %[[B]] : memref<256xf32> to memref<16x16xf32>
// REUSE: wrapper.free %[[C]]
// REUSE: wrapper.return %[[D]]
// REPORT: remark: wrapper-plan-memory (pool): allocations 4 -> 2, static peak 2048 -> 2048 bytes, 2 reused, a pool of 2048 bytes would raise the static peak to 3072 (planned with reuse)
// POOL-LABEL: wrapper.graph @chain
// POOL-NOT: wrapper.view
// POOL: wrapper.reuse
// NONE: remark: wrapper-plan-memory (none): allocations 4 -> 4, static peak 2048 -> 2048 bytes
// BAD: for the --strategy option: Cannot find option named 'greedy'!
wrapper.graph @chain(%x: memref<16x16xf32>) -> memref<16x16xf32> {
  %a = wrapper.alloc() : memref<16x16xf32>
  wrapper.call @k1(%x, %a) : memref<16x16xf32>, memref<16x16xf32>
  %b = wrapper.alloc() : memref<256xf32>
  wrapper.call @k2(%a, %b) : memref<16x16xf32>, memref<256xf32>
  wrapper.free %a : memref<16x16xf32>
  %c = wrapper.alloc() : memref<16x16xf32>
  wrapper.call @k3(%b, %c) : memref<256xf32>, memref<16x16xf32>
  wrapper.free %b : memref<256xf32>
  %d = wrapper.alloc() : memref<16x16xf32>
  wrapper.call @k1(%c, %d) : memref<16x16xf32>, memref<16x16xf32>
  wrapper.free %c : memref<16x16xf32>
  wrapper.return %d : memref<16x16xf32>
}

// -----

func.func private @k_impl(memref<8xf32>, memref<8xf32>)
wrapper.kernel @k = @k_impl
func.func private @kh_impl(memref<8xf16>, memref<8xf16>)
wrapper.kernel @kh = @kh_impl

// Tests that the most recently freed buffer is taken first, that another
// element type is never taken, and that an allocation between a free and a
// later allocation closes the window (reusing across it could raise the
// peak).
// REUSE-LABEL: wrapper.graph @order
// REUSE: %[[P:.*]] = wrapper.alloc() : memref<8xf32>
// REUSE: %[[Q:.*]] = wrapper.alloc() : memref<8xf32>
// REUSE: %[[H:.*]] = wrapper.alloc() : memref<8xf16>
// REUSE: wrapper.free %[[H]]
// REUSE: %[[R:.*]] = wrapper.reuse %[[Q]] : memref<8xf32> to memref<8xf32>
// REUSE: wrapper.free %[[P]]
// REUSE: %[[G:.*]] = wrapper.alloc() : memref<4xf32>
// REUSE: %[[S:.*]] = wrapper.alloc() : memref<8xf32>
wrapper.graph @order(%x: memref<8xf32>, %xh: memref<8xf16>) -> (memref<8xf32>, memref<8xf32>) {
  %p = wrapper.alloc() : memref<8xf32>
  wrapper.call @k(%x, %p) : memref<8xf32>, memref<8xf32>
  %q = wrapper.alloc() : memref<8xf32>
  wrapper.call @k(%p, %q) : memref<8xf32>, memref<8xf32>
  %h = wrapper.alloc() : memref<8xf16>
  wrapper.call @kh(%xh, %h) : memref<8xf16>, memref<8xf16>
  wrapper.free %q : memref<8xf32>
  wrapper.free %h : memref<8xf16>
  %r = wrapper.alloc() : memref<8xf32>
  wrapper.call @k(%p, %r) : memref<8xf32>, memref<8xf32>
  wrapper.free %p : memref<8xf32>
  %g = wrapper.alloc() : memref<4xf32>
  wrapper.free %g : memref<4xf32>
  %s = wrapper.alloc() : memref<8xf32>
  wrapper.call @k(%r, %s) : memref<8xf32>, memref<8xf32>
  wrapper.return %r, %s : memref<8xf32>, memref<8xf32>
}

// -----

func.func private @kd_impl(memref<?x8xf32>, memref<?x8xf32>)
wrapper.kernel @kd = @kd_impl

// Tests that dynamic buffers are reused only when their sizes are provably
// equal: here both sizes are dimension 0 of %x, once through the size of
// another allocation; the one sized by %n is not.
// REUSE-LABEL: wrapper.graph @dynamic
// REUSE: %[[A:.*]] = wrapper.alloc(%{{.*}}) : memref<?x8xf32>
// REUSE: %[[B:.*]] = wrapper.reuse %[[A]] : memref<?x8xf32> to memref<?x8xf32>
// REUSE: %[[C:.*]] = wrapper.alloc(%{{.*}}) : memref<?x8xf32>
// POOL-LABEL: wrapper.graph @dynamic
// POOL-NOT: wrapper.view
// REPORT: remark: wrapper-plan-memory (pool): allocations 4 -> 3, static peak 0 -> 0 bytes, 1 reused, 3 of dynamic size not counted, nothing to pool (planned with reuse)
wrapper.graph @dynamic(%x: memref<?x8xf32>, %n: index) -> memref<?x8xf32> {
  %c0 = arith.constant 0 : index
  %d = memref.dim %x, %c0 : memref<?x8xf32>
  %a = wrapper.alloc(%d) : memref<?x8xf32>
  wrapper.call @kd(%x, %a) : memref<?x8xf32>, memref<?x8xf32>
  %d2 = memref.dim %a, %c0 : memref<?x8xf32>
  %t = wrapper.alloc(%d2) : memref<?x8xf32>
  wrapper.call @kd(%a, %t) : memref<?x8xf32>, memref<?x8xf32>
  wrapper.free %a : memref<?x8xf32>
  %d3 = memref.dim %t, %c0 : memref<?x8xf32>
  %b = wrapper.alloc(%d3) : memref<?x8xf32>
  wrapper.call @kd(%t, %b) : memref<?x8xf32>, memref<?x8xf32>
  wrapper.free %t : memref<?x8xf32>
  %c = wrapper.alloc(%n) : memref<?x8xf32>
  wrapper.call @kd(%b, %c) : memref<?x8xf32>, memref<?x8xf32>
  wrapper.free %b : memref<?x8xf32>
  wrapper.return %c : memref<?x8xf32>
}

// -----

func.func private @k_impl(memref<64xf32>, memref<64xf32>)
wrapper.kernel @k = @k_impl

// Tests the pool: four buffers, the first two live together, the last two
// together; greedy packing puts the later pair into the bytes of the first.
// REPORT: remark: wrapper-plan-memory (pool): allocations 4 -> 1, static peak 512 -> 512 bytes, 4 buffers in pools of 512 bytes, fragmentation 0%
// POOL-LABEL: wrapper.graph @pool
// POOL: %[[POOL:.*]] = wrapper.alloc() {name = "pool"} : memref<512xi8>
// POOL: %[[A:.*]] = wrapper.view %[[POOL]][0] : memref<512xi8> to memref<64xf32>
// POOL: %[[B:.*]] = wrapper.view %[[POOL]][256] : memref<512xi8> to memref<64xf32>
// POOL: %[[C:.*]] = wrapper.view %[[POOL]][0] : memref<512xi8> to memref<64xf32>
// POOL: %[[D:.*]] = wrapper.view %[[POOL]][256] : memref<512xi8> to memref<64xf32>
// POOL: wrapper.free %[[POOL]] : memref<512xi8>
// POOL-NEXT: wrapper.return
wrapper.graph @pool(%x: memref<64xf32>, %y: memref<64xf32> {wrapper.mutated}) -> (memref<64xf32> {wrapper.alias_of = 1 : i64}) {
  %a = wrapper.alloc() : memref<64xf32>
  wrapper.call @k(%x, %a) : memref<64xf32>, memref<64xf32>
  %b = wrapper.alloc() : memref<64xf32>
  wrapper.call @k(%a, %b) : memref<64xf32>, memref<64xf32>
  wrapper.free %a : memref<64xf32>
  %c = wrapper.alloc() : memref<64xf32>
  wrapper.call @k(%b, %c) : memref<64xf32>, memref<64xf32>
  wrapper.free %b : memref<64xf32>
  %d = wrapper.alloc() : memref<64xf32>
  wrapper.call @k(%c, %d) : memref<64xf32>, memref<64xf32>
  wrapper.free %c : memref<64xf32>
  wrapper.call @k(%d, %y) : memref<64xf32>, memref<64xf32>
  wrapper.free %d : memref<64xf32>
  wrapper.return %y : memref<64xf32>
}

// -----

func.func private @k_impl(memref<64xf32>, memref<64xf32>)
wrapper.kernel @k = @k_impl
func.func private @kb_impl(memref<64xf32>, memref<128xf32>)
wrapper.kernel @kb = @kb_impl

// Tests a pool of buffers of two sizes beside a returned buffer, which
// keeps its own allocation; the peak stays.
// REPORT: remark: wrapper-plan-memory (pool): allocations 3 -> 2, static peak 1280 -> 1280 bytes, 2 buffers in pools of 768 bytes, fragmentation 0%
// POOL-LABEL: wrapper.graph @mixed
// POOL: %[[POOL:.*]] = wrapper.alloc() {name = "pool"} : memref<768xi8>
// POOL: wrapper.view %[[POOL]][512] : memref<768xi8> to memref<64xf32>
// POOL: wrapper.alloc() : memref<128xf32>
// POOL: wrapper.view %[[POOL]][0] : memref<768xi8> to memref<128xf32>
wrapper.graph @mixed(%x: memref<64xf32>) -> memref<128xf32> {
  %a = wrapper.alloc() : memref<64xf32>
  wrapper.call @k(%x, %a) : memref<64xf32>, memref<64xf32>
  %r = wrapper.alloc() : memref<128xf32>
  wrapper.call @kb(%a, %r) : memref<64xf32>, memref<128xf32>
  %big = wrapper.alloc() : memref<128xf32>
  wrapper.call @kb(%x, %big) : memref<64xf32>, memref<128xf32>
  wrapper.free %big : memref<128xf32>
  wrapper.free %a : memref<64xf32>
  wrapper.return %r : memref<128xf32>
}
