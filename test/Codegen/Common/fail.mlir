// RUN: not wrapper-opt %s --wrapper-fail='message="binary=cubin needs ptxas"' 2>&1 | FileCheck %s
// RUN: not wrapper-opt %s --wrapper-fail 2>&1 | FileCheck %s --check-prefix=DEFAULT

// CHECK: error: binary=cubin needs ptxas
// DEFAULT: error: failed
module {
}
