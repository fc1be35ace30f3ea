// RUN: wrapper-opt %s --wrapper-approximate-math | FileCheck %s

// Transcendentals on f32 (scalars and vectors) become arithmetic; f64 keeps
// the math op (the approximations are for f32).

// CHECK-LABEL: func.func @f32_exp
// CHECK-NOT: math.exp
// CHECK: arith.mulf
func.func @f32_exp(%x: f32) -> f32 {
  %y = math.exp %x : f32
  return %y : f32
}

// CHECK-LABEL: func.func @vector_tanh
// CHECK-NOT: math.tanh
// CHECK: arith.{{.*}} : vector<8xf32>
func.func @vector_tanh(%x: vector<8xf32>) -> vector<8xf32> {
  %y = math.tanh %x : vector<8xf32>
  return %y : vector<8xf32>
}

// CHECK-LABEL: func.func @f64_exp
// CHECK: math.exp %{{.*}} : f64
func.func @f64_exp(%x: f64) -> f64 {
  %y = math.exp %x : f64
  return %y : f64
}
