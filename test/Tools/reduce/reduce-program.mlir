// Tests the reducer of the differential test on a stand-in failure: with
// zero tolerances, rounding differences between the compiled code and the
// interpreter count as failures, and the reducer must shrink a generated
// program to the few ops that show one, keeping it failing.
//
// RUN: %python %wrapper_src_root/scripts/gen-program.py 11 > %t.mlir
// RUN: env WRAPPER_RUN_FLAGS="--rtol=0 --atol=0" BUILD_DIR=%wrapper_obj_root bash %wrapper_src_root/scripts/reduce-program.sh %t.mlir 11 3 %t.reduced.mlir | FileCheck %s
// CHECK: reduce-program: 7 ops -> {{[12]}} ops in
// RUN: not wrapper-run %t.reduced.mlir --differential --seed 11 --dynamic-size 3 --rtol=0 --atol=0 | FileCheck %s --check-prefix=STILL
// STILL: differential: MISMATCH
//
// A program that does not fail is refused:
// RUN: not env BUILD_DIR=%wrapper_obj_root bash %wrapper_src_root/scripts/reduce-program.sh %t.mlir 11 3 %t.other.mlir 2>&1 | FileCheck %s --check-prefix=FINE
// FINE: reduce-program: {{.*}} does not fail
