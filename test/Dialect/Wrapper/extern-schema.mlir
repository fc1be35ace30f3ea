// RUN: wrapper-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Tests calls of registered kernels that fit their schemas (lib/Extern/
// externs.yaml): optional tensors absent, given, or None as a unit value;
// lists as arrays or a broadcast integer; tuples of results; the in-place
// form with self as its output; the out= form.
// CHECK-LABEL: wrapper.graph @fits
wrapper.graph @fits(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %b: memref<4xf32>,
                    %m: memref<4x8xf32>, %s: memref<f32>, %acc: memref<4x8xf32> {wrapper.mutated}) {
  %c0 = wrapper.extern_alloc "aten::conv2d" ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>) -> memref<1x4x6x6xf32>
  %c1 = wrapper.extern_alloc "aten::conv2d" ins(%x, %w, %b : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>, memref<4xf32>) args {stride = [1, 1], padding = 1 : i64, groups = 1 : i64} -> memref<1x4x8x8xf32>
  %t = wrapper.extern_alloc "aten::topk" ins(%m : memref<4x8xf32>) args {k = 2 : i64, largest = false} -> !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>>
  %mm = wrapper.extern_alloc "aten::_scaled_mm" ins(%m, %m, %s, %s : memref<4x8xf32>, memref<4x8xf32>, memref<f32>, memref<f32>) args {bias = unit} -> memref<4x4xf32>
  wrapper.extern_out "aten::add_" ins(%m : memref<4x8xf32>) outs(%acc : memref<4x8xf32>) args {alpha = 2 : i64}
  wrapper.extern_out "aten::mm.out" ins(%m, %m : memref<4x8xf32>, memref<4x8xf32>) outs(%acc : memref<4x8xf32>)
  wrapper.free %c0 : memref<1x4x6x6xf32>
  wrapper.free %c1 : memref<1x4x8x8xf32>
  wrapper.free %t : !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>>
  wrapper.free %mm : memref<4x4xf32>
  wrapper.return
}

// -----

wrapper.graph @unknown_argument(%m: memref<4x8xf32>) {
  // expected-error @below {{'wrapper.extern_alloc' op 'aten::mm' has no argument 'gamma' (schema: aten::mm(Tensor self, Tensor mat2) -> Tensor)}}
  %0 = wrapper.extern_alloc "aten::mm" ins(%m, %m : memref<4x8xf32>, memref<4x8xf32>) args {gamma = 1 : i64} -> memref<4x4xf32>
  wrapper.return
}

// -----

wrapper.graph @wrong_kind(%m: memref<4x8xf32>) {
  // expected-error @below {{'wrapper.extern_alloc' op argument 'k' of 'aten::topk' has type int, got 2.000000e+00 : f64}}
  %0 = wrapper.extern_alloc "aten::topk" ins(%m : memref<4x8xf32>) args {k = 2.0 : f64} -> !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>>
  wrapper.return
}

// -----

wrapper.graph @missing(%m: memref<4x8xf32>) {
  // expected-error @below {{'wrapper.extern_alloc' op 'aten::mm' needs argument 'mat2' of type Tensor, which the call does not give}}
  %0 = wrapper.extern_alloc "aten::mm" ins(%m : memref<4x8xf32>) -> memref<4x4xf32>
  wrapper.return
}

// -----

wrapper.graph @too_many(%m: memref<4x8xf32>) {
  // expected-error @below {{'wrapper.extern_alloc' op operand #1 of 'aten::relu' has no argument to stand for (schema: aten::relu(Tensor self) -> Tensor)}}
  %0 = wrapper.extern_alloc "aten::relu" ins(%m, %m : memref<4x8xf32>, memref<4x8xf32>) -> memref<4x8xf32>
  wrapper.return
}

// -----

wrapper.graph @operand_kind(%m: memref<4x8xf32>, %i: memref<4xi64>) {
  %k = arith.constant 2.5 : f32
  // expected-error @below {{'wrapper.extern_alloc' op operand #1 of 'aten::index_select' is argument 'dim' of type int, got 'f32'}}
  %0 = wrapper.extern_alloc "aten::index_select" ins(%m, %k, %i : memref<4x8xf32>, f32, memref<4xi64>) -> memref<4x8xf32>
  wrapper.return
}

// -----

wrapper.graph @results(%m: memref<4x8xf32>) {
  // expected-error @below {{'wrapper.extern_alloc' op 'aten::topk' returns 2 tensors, but the call has 3}}
  %v, %i, %j = wrapper.extern_alloc "aten::topk" ins(%m : memref<4x8xf32>) args {k = 2 : i64} -> memref<4x2xf32>, memref<4x2xi64>, memref<4x2xi64>
  wrapper.return
}

// -----

wrapper.graph @list_size(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>) {
  // expected-error @below {{'wrapper.extern_alloc' op argument 'stride' of 'aten::conv2d' has type int[2], got [1, 1, 1]}}
  %0 = wrapper.extern_alloc "aten::conv2d" ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>) args {stride = [1, 1, 1]} -> memref<1x4x6x6xf32>
  wrapper.return
}

// -----

wrapper.graph @required_none(%m: memref<4x8xf32>) {
  // expected-error @below {{'wrapper.extern_alloc' op argument 'k' of 'aten::topk' has type int, got unit}}
  %0 = wrapper.extern_alloc "aten::topk" ins(%m : memref<4x8xf32>) args {k} -> !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>>
  wrapper.return
}

// -----

wrapper.graph @tuple_arity(%m: memref<4x8xf32>) {
  // expected-error @below {{'wrapper.extern_alloc' op 'aten::topk' returns 2 tensors, but the call has 3}}
  %t = wrapper.extern_alloc "aten::topk" ins(%m : memref<4x8xf32>) args {k = 2 : i64} -> !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>, memref<4x2xi64>>
  wrapper.return
}

// -----

// Results are checked against the schema's returns by kind: topk returns
// two tensors, unbind a list of them.
wrapper.graph @tuple_element_kind(%m: memref<4x8xf32>) {
  // expected-error @below {{'wrapper.extern_alloc' op result #1 of 'aten::topk' is a Tensor (schema: aten::topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)), got '!wrapper.list<memref<4x2xf32>>'}}
  %t = wrapper.extern_alloc "aten::topk" ins(%m : memref<4x8xf32>) args {k = 2 : i64} -> !wrapper.tuple<memref<4x2xf32>, !wrapper.list<memref<4x2xf32>>>
  wrapper.return
}

// -----

wrapper.graph @list_return_kind(%m: memref<4x8xf32>) {
  // expected-error @below {{'wrapper.extern_alloc' op result #0 of 'aten::unbind' is a Tensor[] (schema: aten::unbind(Tensor self, int dim=0) -> Tensor[]), got 'memref<8xf32>'}}
  %u = wrapper.extern_alloc "aten::unbind" ins(%m : memref<4x8xf32>) -> memref<8xf32>
  wrapper.return
}
