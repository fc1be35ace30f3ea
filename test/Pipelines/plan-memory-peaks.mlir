// RUN: bash %S/Inputs/check-peaks.sh wrapper-opt %S/../Integration/CPU | FileCheck %s
// Tests that on every CPU integration program, planning with reuse and
// with pool never raises the static peak and passes the lifetime checker.
// CHECK: mlp-block.mlir reuse: static peak
// CHECK: checked {{[1-9][0-9]+}} graphs, 0 above the unplanned peak, 0 failed
