// RUN: wrapper-opt %s --convert-wrapper-to-standard=mark-releasable=true | FileCheck %s
// RUN: wrapper-opt %s --convert-wrapper-to-standard | FileCheck %s --check-prefix=PLAIN

// Tests that with mark-releasable the inputs the graph neither writes nor
// returns a view of are marked (a caller may give them up for the call):
// not the one it mutates, not the one an output aliases, not a scalar.
// Without the option nothing is marked.
// CHECK-LABEL: func.func @signature
// CHECK-SAME: (%{{.*}}: memref<4xf32> {wrapper.releasable}, %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>, %{{.*}}: index)
// PLAIN-NOT: wrapper.releasable
wrapper.graph @signature(%read: memref<4xf32>, %acc: memref<4xf32> {wrapper.mutated},
                         %x: memref<4xf32>, %n: index)
    -> (memref<2x2xf32> {wrapper.alias_of = 2 : i64}) {
  %view = wrapper.reinterpret %x to offset: [0], sizes: [2, 2], strides: [2, 1]
      : memref<4xf32> to memref<2x2xf32>
  wrapper.return %view : memref<2x2xf32>
}
