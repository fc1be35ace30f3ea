// RUN: wrapper-opt %s -split-input-file -verify-diagnostics

// The verifier rules of wrapper.collective_start and collective_wait.

wrapper.graph @unknown(%a: memref<8xf32>) {
  // expected-error @below {{unknown collective 'broadcast'; expected 'all_reduce', 'all_gather_into_tensor' or 'reduce_scatter_tensor'}}
  %w = wrapper.collective_start "broadcast" outs(%a : memref<8xf32>) group "0" -> !wrapper.work
  wrapper.collective_wait %w
  wrapper.return
}

// -----

wrapper.graph @no_group(%a: memref<8xf32>) {
  // expected-error @below {{needs a process group name}}
  %w = wrapper.collective_start "all_reduce" outs(%a : memref<8xf32>) group "" reduce "sum" -> !wrapper.work
  wrapper.collective_wait %w
  wrapper.return
}

// -----

wrapper.graph @no_reduction(%a: memref<8xf32>) {
  // expected-error @below {{'all_reduce' needs a reduction ('reduce')}}
  %w = wrapper.collective_start "all_reduce" outs(%a : memref<8xf32>) group "0" -> !wrapper.work
  wrapper.collective_wait %w
  wrapper.return
}

// -----

wrapper.graph @bad_reduction(%a: memref<8xf32>) {
  // expected-error @below {{unknown reduction 'mean'; expected sum, avg, product, min or max}}
  %w = wrapper.collective_start "all_reduce" outs(%a : memref<8xf32>) group "0" reduce "mean" -> !wrapper.work
  wrapper.collective_wait %w
  wrapper.return
}

// -----

wrapper.graph @avg_of_ints(%a: memref<8xi32>) {
  // expected-error @below {{averages a buffer of 'i32'; 'avg' needs floating-point elements}}
  %w = wrapper.collective_start "all_reduce" outs(%a : memref<8xi32>) group "0" reduce "avg" -> !wrapper.work
  wrapper.collective_wait %w
  wrapper.return
}

// -----

wrapper.graph @gather_reduces(%a: memref<4xf32>, %b: memref<8xf32>) {
  // expected-error @below {{'all_gather_into_tensor' takes no reduction, got 'sum'}}
  %w = wrapper.collective_start "all_gather_into_tensor" ins(%a : memref<4xf32>) outs(%b : memref<8xf32>) group "0" reduce "sum" size 2 -> !wrapper.work
  wrapper.collective_wait %w
  wrapper.return
}

// -----

wrapper.graph @all_reduce_ins(%a: memref<8xf32>, %b: memref<8xf32>) {
  // expected-error @below {{'all_reduce' reduces its outputs in place and takes no inputs}}
  %w = wrapper.collective_start "all_reduce" ins(%a : memref<8xf32>) outs(%b : memref<8xf32>) group "0" reduce "sum" -> !wrapper.work
  wrapper.collective_wait %w
  wrapper.return
}

// -----

wrapper.graph @gather_without_size(%a: memref<4xf32>, %b: memref<8xf32>) {
  // expected-error @below {{'all_gather_into_tensor' needs the group's size ('size', at least 1)}}
  %w = wrapper.collective_start "all_gather_into_tensor" ins(%a : memref<4xf32>) outs(%b : memref<8xf32>) group "0" -> !wrapper.work
  wrapper.collective_wait %w
  wrapper.return
}

// -----

wrapper.graph @gather_shape(%a: memref<4x2xf32>, %b: memref<6x2xf32>) {
  // expected-error @below {{output #0 must have dim 0 of 8 (input dim 0 4 times 2 ranks), got 6}}
  %w = wrapper.collective_start "all_gather_into_tensor" ins(%a : memref<4x2xf32>) outs(%b : memref<6x2xf32>) group "0" size 2 -> !wrapper.work
  wrapper.collective_wait %w
  wrapper.return
}

// -----

wrapper.graph @scatter_uneven(%a: memref<6xf32>, %b: memref<1xf32>) {
  // expected-error @below {{input #0 has dim 0 of 6, which 4 ranks cannot split evenly}}
  %w = wrapper.collective_start "reduce_scatter_tensor" ins(%a : memref<6xf32>) outs(%b : memref<1xf32>) group "0" reduce "sum" size 4 -> !wrapper.work
  wrapper.collective_wait %w
  wrapper.return
}

// -----

wrapper.graph @scatter_dtype(%a: memref<8xf32>, %b: memref<4xf16>) {
  // expected-error @below {{input #0 has element type 'f32' but output #0 has 'f16'}}
  %w = wrapper.collective_start "reduce_scatter_tensor" ins(%a : memref<8xf32>) outs(%b : memref<4xf16>) group "0" reduce "sum" size 2 -> !wrapper.work
  wrapper.collective_wait %w
  wrapper.return
}

// -----

wrapper.graph @scatter_trailing(%a: memref<8x3xf32>, %b: memref<4x2xf32>) {
  // expected-error @below {{input #0 and output #0 differ in dim 1}}
  %w = wrapper.collective_start "reduce_scatter_tensor" ins(%a : memref<8x3xf32>) outs(%b : memref<4x2xf32>) group "0" reduce "sum" size 2 -> !wrapper.work
  wrapper.collective_wait %w
  wrapper.return
}

// -----

wrapper.graph @two_devices(%a: memref<8xf32>, %b: memref<8xf32, #wrapper.device<cuda:0>>) {
  // expected-error @below {{has buffers on cpu and on cuda:0; a collective runs on one device}}
  %w = wrapper.collective_start "all_reduce" outs(%a, %b : memref<8xf32>, memref<8xf32, #wrapper.device<cuda:0>>) group "0" reduce "sum" -> !wrapper.work
  wrapper.collective_wait %w
  wrapper.return
}

// -----

wrapper.graph @twice(%a: memref<8xf32>) {
  // expected-error @below {{takes the same buffer twice}}
  %w = wrapper.collective_start "all_reduce" outs(%a, %a : memref<8xf32>, memref<8xf32>) group "0" reduce "sum" -> !wrapper.work
  wrapper.collective_wait %w
  wrapper.return
}

// -----

wrapper.graph @never_waited(%a: memref<8xf32>) {
  // expected-error @below {{is never waited for; add a 'wrapper.collective_wait'}}
  %w = wrapper.collective_start "all_reduce" outs(%a : memref<8xf32>) group "0" reduce "sum" -> !wrapper.work
  wrapper.return
}

// -----

wrapper.graph @waited_twice(%a: memref<8xf32>) {
  // expected-error @below {{is waited for more than once}}
  %w = wrapper.collective_start "all_reduce" outs(%a : memref<8xf32>) group "0" reduce "sum" -> !wrapper.work
  wrapper.collective_wait %w
  wrapper.collective_wait %w
  wrapper.return
}

// -----

wrapper.graph @wait_from_argument(%w: !wrapper.work) {
  // expected-error @below {{waits for a handle that no 'wrapper.collective_start' made}}
  wrapper.collective_wait %w
  wrapper.return
}
