// RUN: not wrapper-opt %s 2>&1 | FileCheck %s
// RUN: not wrapper-opt %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING

// Tests that malformed input and a missing file get a diagnostic and a
// non-zero exit code, not a crash.
// CHECK: bad-input.mlir:9:21: error: expected '('
// MISSING: cannot open input file
wrapper.graph @g() {
  %b = wrapper.alloc : memref<4xf32>
  wrapper.return
}
