// RUN: wrapper-opt %s -split-input-file -wrapper-bucket-collectives="bucket-bytes=1024 mode=coalesced" | FileCheck %s --check-prefix=COAL
// RUN: wrapper-opt %s -split-input-file -wrapper-bucket-collectives="bucket-bytes=1024" -wrapper-verify-lifetimes | FileCheck %s --check-prefix=CONCAT
// RUN: wrapper-opt %s -split-input-file -wrapper-bucket-collectives="bucket-bytes=0 schedule=false" | FileCheck %s --check-prefix=OFF
// RUN: wrapper-opt %s -split-input-file -wrapper-bucket-collectives="bucket-bytes=1024 report" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: wrapper-opt %s -split-input-file -wrapper-bucket-collectives="bucket-bytes=1024 first-bucket-bytes=256 report" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FIRST

// Three gradients of one group, each produced, reduced and then used by an
// update: one bucket. The merged collective starts after the last producer
// and is waited for just before the first use.

wrapper.kernel @produce = @produce_impl
func.func private @produce_impl(%a: memref<?xf32>) {
  return
}
wrapper.kernel @use = @use_impl
func.func private @use_impl(%a: memref<?xf32>) {
  return
}

// COAL-LABEL: wrapper.graph @gradients
// COAL: wrapper.call @produce(%[[G0:.*]]) : memref<64xf32>
// COAL: wrapper.call @produce(%[[G1:.*]]) : memref<32xf32>
// COAL: wrapper.call @produce(%[[G2:.*]]) : memref<16xf32>
// COAL-NEXT: %[[W:.*]] = wrapper.collective_start "all_reduce" outs(%[[G0]], %[[G1]], %[[G2]] : memref<64xf32>, memref<32xf32>, memref<16xf32>) group "0" reduce "avg" -> !wrapper.work
// COAL-NEXT: wrapper.comment
// COAL-NEXT: wrapper.collective_wait %[[W]]
// COAL-NEXT: wrapper.call @use(%[[G0]])
// COAL-NOT: collective_start

// The copies are kernels of their own.
// CONCAT: func.func private @collective_bucket_copy_0_impl(%{{.*}}: memref<64xf32>, %{{.*}}: memref<64xf32, strided<[1]>>)
// CONCAT-NEXT: memref.copy
// CONCAT: wrapper.kernel @collective_bucket_copy_0 = @collective_bucket_copy_0_impl metadata {kind = "copy"}
// CONCAT-LABEL: wrapper.graph @gradients
// CONCAT: wrapper.call @produce(%[[G2:.*]]) : memref<16xf32>
// CONCAT: %[[B:.*]] = wrapper.alloc() : memref<112xf32>
// CONCAT: %[[V0:.*]] = wrapper.reinterpret %[[B]] to offset: [0], sizes: [64], strides: [1] : memref<112xf32> to memref<64xf32, strided<[1]>>
// CONCAT: wrapper.call @collective_bucket_copy_0(%[[G0:.*]], %[[V0]])
// CONCAT: %[[V1:.*]] = wrapper.reinterpret %[[B]] to offset: [64], sizes: [32], strides: [1] : memref<112xf32> to memref<32xf32, strided<[1], offset: 64>>
// CONCAT: %[[V2:.*]] = wrapper.reinterpret %[[B]] to offset: [96], sizes: [16], strides: [1]
// CONCAT: %[[W:.*]] = wrapper.collective_start "all_reduce" outs(%[[B]] : memref<112xf32>) group "0" reduce "avg" -> !wrapper.work
// CONCAT-NEXT: wrapper.comment
// CONCAT-NEXT: wrapper.collective_wait %[[W]]
// CONCAT-NEXT: wrapper.call @collective_bucket_copy_3(%[[V0]], %[[G0]])
// CONCAT-NEXT: wrapper.call @collective_bucket_copy_4(%[[V1]], %{{.*}})
// CONCAT-NEXT: wrapper.call @collective_bucket_copy_5(%[[V2]], %[[G2]])
// CONCAT-NEXT: wrapper.free %[[B]] : memref<112xf32>
// CONCAT-NEXT: wrapper.call @use(%[[G0]])

// OFF-LABEL: wrapper.graph @gradients
// OFF-COUNT-3: wrapper.collective_start "all_reduce"

// REPORT: remark: collective buckets: 1 merging 3 of 3 all_reduces (concat, at most 1024 bytes each)
// The first bucket holds at most 256 bytes: the first gradient alone; the
// other two make the second bucket.
// FIRST: remark: collective buckets: 1 merging 2 of 3 all_reduces
wrapper.graph @gradients() {
  %g0 = wrapper.alloc() : memref<64xf32>
  wrapper.call @produce(%g0) : memref<64xf32>
  %w0 = wrapper.collective_start "all_reduce" outs(%g0 : memref<64xf32>) group "0" reduce "avg" -> !wrapper.work
  %g1 = wrapper.alloc() : memref<32xf32>
  wrapper.call @produce(%g1) : memref<32xf32>
  %w1 = wrapper.collective_start "all_reduce" outs(%g1 : memref<32xf32>) group "0" reduce "avg" -> !wrapper.work
  %g2 = wrapper.alloc() : memref<16xf32>
  wrapper.call @produce(%g2) : memref<16xf32>
  %w2 = wrapper.collective_start "all_reduce" outs(%g2 : memref<16xf32>) group "0" reduce "avg" -> !wrapper.work
  wrapper.comment "compute that overlaps the bucket"
  wrapper.collective_wait %w0
  wrapper.collective_wait %w1
  wrapper.collective_wait %w2
  wrapper.call @use(%g0) : memref<64xf32>
  wrapper.call @use(%g1) : memref<32xf32>
  wrapper.call @use(%g2) : memref<16xf32>
  wrapper.free %g0 : memref<64xf32>
  wrapper.free %g1 : memref<32xf32>
  wrapper.free %g2 : memref<16xf32>
  wrapper.return
}

// -----

// What must not be merged: another group, another reduction, another
// element type, a bucket that would exceed the size, and a collective whose
// input is the result of an earlier one (its wait comes first).

wrapper.kernel @use = @use_impl
func.func private @use_impl(%a: memref<?xf32>, %b: memref<?xf32>) {
  return
}

// COAL-LABEL: wrapper.graph @apart
// COAL-COUNT-6: wrapper.collective_start "all_reduce" outs(%{{[^,]*}} : memref<{{[^,]*}}>) group
// COAL-NOT: wrapper.collective_start

// REPORT: remark: collective buckets: 0 merging 0 of 6 all_reduces
wrapper.graph @apart(%x: memref<8xf32>) {
  %a = wrapper.alloc() : memref<8xf32>
  %wa = wrapper.collective_start "all_reduce" outs(%a : memref<8xf32>) group "0" reduce "sum" -> !wrapper.work
  %b = wrapper.alloc() : memref<8xf32>
  %wb = wrapper.collective_start "all_reduce" outs(%b : memref<8xf32>) group "1" reduce "sum" -> !wrapper.work
  %c = wrapper.alloc() : memref<8xf32>
  %wc = wrapper.collective_start "all_reduce" outs(%c : memref<8xf32>) group "1" reduce "max" -> !wrapper.work
  %d = wrapper.alloc() : memref<8xf64>
  %wd = wrapper.collective_start "all_reduce" outs(%d : memref<8xf64>) group "0" reduce "sum" -> !wrapper.work
  %e = wrapper.alloc() : memref<1024xf32>
  %we = wrapper.collective_start "all_reduce" outs(%e : memref<1024xf32>) group "0" reduce "sum" -> !wrapper.work
  wrapper.collective_wait %wa
  wrapper.collective_wait %wb
  wrapper.collective_wait %wc
  wrapper.collective_wait %wd
  wrapper.collective_wait %we
  %f = wrapper.alloc() : memref<8xf32>
  wrapper.call @use(%a, %f) : memref<8xf32>, memref<8xf32>
  %wf = wrapper.collective_start "all_reduce" outs(%f : memref<8xf32>) group "0" reduce "sum" -> !wrapper.work
  wrapper.collective_wait %wf
  wrapper.free %a : memref<8xf32>
  wrapper.free %b : memref<8xf32>
  wrapper.free %c : memref<8xf32>
  wrapper.free %d : memref<8xf64>
  wrapper.free %e : memref<1024xf32>
  wrapper.free %f : memref<8xf32>
  wrapper.return
}

// -----

// Each gradient's update right after its reduction (as an optimizer's
// step comes out of the host graph): the updates and frees that consume
// the reduced gradients move after the later gradients' producers, in their
// order, so the reductions form one bucket and their wait comes once.

wrapper.kernel @produce = @produce_impl
func.func private @produce_impl(%a: memref<?xf32>) {
  return
}
wrapper.kernel @update = @update_impl
func.func private @update_impl(%g: memref<?xf32>, %p: memref<?xf32>) {
  return
}

// COAL-LABEL: wrapper.graph @updates_after_each
// COAL: wrapper.call @produce(%[[G0:.*]]) : memref<64xf32>
// COAL: wrapper.call @produce(%[[G1:.*]]) : memref<32xf32>
// COAL-NEXT: %[[W:.*]] = wrapper.collective_start "all_reduce" outs(%[[G0]], %[[G1]] : memref<64xf32>, memref<32xf32>)
// COAL-NEXT: wrapper.collective_wait %[[W]]
// COAL-NEXT: wrapper.call @update(%[[G0]], %arg0)
// COAL-NEXT: wrapper.free %[[G0]]
// COAL-NEXT: wrapper.call @update(%[[G1]], %arg1)
// COAL-NEXT: wrapper.free %[[G1]]
// COAL-NEXT: wrapper.return
wrapper.graph @updates_after_each(%p0: memref<64xf32> {wrapper.mutated}, %p1: memref<32xf32> {wrapper.mutated}) {
  %g0 = wrapper.alloc() : memref<64xf32>
  wrapper.call @produce(%g0) : memref<64xf32>
  %w0 = wrapper.collective_start "all_reduce" outs(%g0 : memref<64xf32>) group "0" reduce "avg" -> !wrapper.work
  wrapper.collective_wait %w0
  wrapper.call @update(%g0, %p0) : memref<64xf32>, memref<64xf32>
  wrapper.free %g0 : memref<64xf32>
  %g1 = wrapper.alloc() : memref<32xf32>
  wrapper.call @produce(%g1) : memref<32xf32>
  %w1 = wrapper.collective_start "all_reduce" outs(%g1 : memref<32xf32>) group "0" reduce "avg" -> !wrapper.work
  wrapper.collective_wait %w1
  wrapper.call @update(%g1, %p1) : memref<32xf32>, memref<32xf32>
  wrapper.free %g1 : memref<32xf32>
  wrapper.return
}

// -----

// Dynamic sizes are not bucketed; each start rises to its buffer.

// COAL-LABEL: wrapper.graph @dynamic
// COAL: %[[A:.*]] = wrapper.alloc(%{{.*}}) : memref<?xf32>
// COAL-NEXT: wrapper.collective_start "all_reduce" outs(%[[A]] : memref<?xf32>)
// COAL: %[[B:.*]] = wrapper.alloc(%{{.*}}) : memref<?xf32>
// COAL-NEXT: wrapper.collective_start "all_reduce" outs(%[[B]] : memref<?xf32>)
wrapper.graph @dynamic(%n: index) {
  %a = wrapper.alloc(%n) : memref<?xf32>
  wrapper.comment "between"
  %wa = wrapper.collective_start "all_reduce" outs(%a : memref<?xf32>) group "0" reduce "sum" -> !wrapper.work
  %b = wrapper.alloc(%n) : memref<?xf32>
  %wb = wrapper.collective_start "all_reduce" outs(%b : memref<?xf32>) group "0" reduce "sum" -> !wrapper.work
  wrapper.collective_wait %wa
  wrapper.collective_wait %wb
  wrapper.free %a : memref<?xf32>
  wrapper.free %b : memref<?xf32>
  wrapper.return
}

// -----

// RUN: not wrapper-opt %s -split-input-file -wrapper-bucket-collectives="mode=ring" 2>&1 | FileCheck %s --check-prefix=BADMODE
// BADMODE: --wrapper-bucket-collectives: unknown mode 'ring'; expected 'concat' or 'coalesced'
// RUN: not wrapper-opt %s -split-input-file -wrapper-bucket-collectives="first-bucket-bytes=-1" 2>&1 | FileCheck %s --check-prefix=BADSIZE
// BADSIZE: --wrapper-bucket-collectives: bucket-bytes and first-bucket-bytes must not be negative, got 26214400 and -1
wrapper.graph @empty() {
  wrapper.return
}
