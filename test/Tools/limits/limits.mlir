// Tests pathological inputs: each gets a diagnostic or a correct result,
// never a crash, a hang or an integer overflow.
//
// Nesting deeper than the parser's stack allows is refused up front, by
// every tool (regions and attribute arrays alike):
// RUN: %python %S/gen.py deep %t.deep.mlir
// RUN: not wrapper-opt %t.deep.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not wrapper-run %t.deep.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not wrapper-compile %t.deep.mlir -o %t.so 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: error: {{.*}}deep.mlir: nesting deeper than 1024 levels at line 1025 (the parser would run out of stack)
// RUN: %python %S/gen.py deep-attr %t.attr.mlir
// RUN: not wrapper-opt %t.attr.mlir 2>&1 | FileCheck %s --check-prefix=ATTR
// ATTR: error: {{.*}}attr.mlir: nesting deeper than 1024 levels at line 1
//
// So is input on which an upstream parser crashes instead of failing
// (linalg.reduce/broadcast/transpose with a malformed integer list):
// RUN: not wrapper-opt %S/Inputs/unterminated-dimensions.mlir 2>&1 | FileCheck %s --check-prefix=LIST
// RUN: not wrapper-run %S/Inputs/unterminated-dimensions.mlir 2>&1 | FileCheck %s --check-prefix=LIST
// LIST: error: {{.*}}unterminated-dimensions.mlir: malformed 'dimensions' of linalg.reduce at line 4: expected '[' integers separated by ',' ']'
// RUN: not wrapper-opt %S/Inputs/linalg-properties.mlir 2>&1 | FileCheck %s --check-prefix=PROPS
// PROPS: error: {{.*}}linalg-properties.mlir: malformed properties of linalg.fill at line 4: expected '<{' attributes '}>'
//
// 2 x 10^4 ops compile (fused into one kernel) and compute the right
// values:
// RUN: %python %S/gen.py many %t.many.mlir
// RUN: wrapper-run %t.many.mlir --verify --print=false | FileCheck %s --check-prefix=MANY
// MANY: output #0 vs interpreter: {{.*}}: ok
//
// Sizes that overflow a 64-bit byte count are refused where they appear:
// wrapper-compile refuses a static tensor above --max-tensor-bytes (1 TiB)
// before compiling (the allocation's verifier would refuse this one later;
// test/Dialect/Wrapper/invalid.mlir checks that).
// RUN: not wrapper-compile %S/Inputs/huge-static.mlir -o %t.huge.so 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: wrapper-compile: error: a tensor<4611686018427387904x4xf32> at loc({{.*}}huge-static.mlir":2:1) needs more than 1099511627776 bytes (--max-tensor-bytes); it could not be allocated
// RUN: not wrapper-run %S/Inputs/huge-static.mlir 2>&1 | FileCheck %s --check-prefix=HUGEIN
// HUGEIN: wrapper-run: error: argument #0 of type tensor<4611686018427387904x4xf32> needs more than 2^63 bytes
// RUN: not wrapper-run %S/Inputs/dynamic.mlir --dynamic-size=4611686018427387904 2>&1 | FileCheck %s --check-prefix=HUGEDYN
// HUGEDYN: wrapper-run: error: argument #0 of type tensor<?x4xf32> needs more than 2^63 bytes, more than --max-alloc-bytes=17179869184
// RUN: not wrapper-run %S/Inputs/dynamic.mlir --dynamic-size=-3 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: wrapper-run: error: --dynamic-size must be non-negative, got -3
// RUN: not wrapper-run %S/Inputs/dynamic.mlir --dynamic-size=100000000 --max-alloc-bytes=1000000 2>&1 | FileCheck %s --check-prefix=LIMIT
// LIMIT: wrapper-run: error: argument #0 of type tensor<?x4xf32> needs 1600000000 bytes, more than --max-alloc-bytes=1000000
//
// Zero-sized dimensions, static and dynamic, run and give empty or
// identity results:
// RUN: wrapper-run %S/Inputs/zero.mlir --verify --print=false | FileCheck %s --check-prefix=ZERO
// RUN: wrapper-run %S/Inputs/dynamic.mlir --dynamic-size=0 --verify | FileCheck %s --check-prefix=ZERODYN
// ZERO-COUNT-2: vs interpreter: max abs error 0, max rel error 0 {{.*}}: ok
// ZERODYN: output #0: f32 [0, 4]
// ZERODYN: vs interpreter: {{.*}}: ok
