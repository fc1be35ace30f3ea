// RUN: wrapper-opt %s --split-input-file --wrapper-cpu-target="cpu=skylake-avx512 features=+avx512f,+avx2" | FileCheck %s --check-prefix=GIVEN
// RUN: wrapper-opt %s --split-input-file --wrapper-cpu-target="cpu=znver3 vector-width=8" | FileCheck %s --check-prefix=WIDTH
// RUN: wrapper-opt %s --split-input-file --wrapper-cpu-target | FileCheck %s --check-prefix=DEFAULT
// RUN: not wrapper-opt %s --split-input-file --wrapper-cpu-target="vector-width=12" 2>&1 | FileCheck %s --check-prefix=BAD

// Given options are recorded (and replace a recorded target); the width
// comes from the features, or from vector-width. Without options, a
// recorded target stays and a module without one gets the host's (some
// width of 4, 8 or 16).

// GIVEN: module attributes {wrapper.cpu_target = {cpu = "skylake-avx512", features = "+avx512f,+avx2", vector_width = 16 : i64}}
// WIDTH: module attributes {wrapper.cpu_target = {cpu = "znver3", features = "", vector_width = 8 : i64}}
// DEFAULT: module attributes {wrapper.cpu_target = {cpu = "{{.*}}", features = "{{.*}}", vector_width = {{4|8|16}} : i64}}
// BAD: error: wrapper-cpu-target: vector-width must be 4, 8 or 16 (f32 lanes), got 12
module {
}

// -----

// GIVEN: module attributes {wrapper.cpu_target = {cpu = "skylake-avx512", features = "+avx512f,+avx2", vector_width = 16 : i64}}
// DEFAULT: module attributes {wrapper.cpu_target = {cpu = "old", features = "", vector_width = 4 : i64}}
module attributes {wrapper.cpu_target = {cpu = "old", features = "", vector_width = 4 : i64}} {
}
