// RUN: wrapper-opt %s -split-input-file -verify-diagnostics

// Tests the verifier rules of the wrapper dialect, one case each.

// expected-error @below {{unknown device kind 'tpu'; expected 'cpu' or 'cuda'}}
wrapper.graph @unknown_device(%x: memref<4xf32, #wrapper.device<tpu>>) {
  wrapper.return
}

// -----

// expected-error @below {{the cpu device takes no ordinal}}
wrapper.graph @cpu_with_ordinal(%x: memref<4xf32, #wrapper.device<cpu:1>>) {
  wrapper.return
}

// -----

// expected-error @below {{device ordinal must be non-negative, got -1}}
wrapper.graph @negative_ordinal(%x: memref<4xf32, #wrapper.device<cuda:-1>>) {
  wrapper.return
}

// -----

// expected-error @below {{'wrapper.graph' op argument #0 memory space must be a #wrapper.device attribute or absent, got 1 : i64}}
wrapper.graph @foreign_memory_space(%x: memref<4xf32, 1>) {
  wrapper.return
}

// -----

// expected-error @below {{tuple element #0 must be a memref, tuple or list, got 'tensor<4xf32>'}}
func.func private @tuple_of_tensor() -> !wrapper.tuple<tensor<4xf32>>

// -----

// expected-error @below {{'wrapper.graph' op argument #0 must be a buffer (memref) or a scalar (index, integer, float), got 'tensor<4xf32>'}}
wrapper.graph @tensor_argument(%x: tensor<4xf32>) {
  wrapper.return
}

// -----

// expected-error @below {{'wrapper.graph' op result #0 must be a buffer (memref) or a scalar (index, integer, float), got '!wrapper.list<>'}}
wrapper.graph @list_result() -> !wrapper.list<> {
  %l = wrapper.extern_alloc "aten::f" -> !wrapper.list<>
  wrapper.return %l : !wrapper.list<>
}

// -----

// expected-error @below {{'wrapper.graph' op unknown wrapper argument attribute 'wrapper.donated'}}
wrapper.graph @unknown_arg_attr(%x: memref<4xf32> {wrapper.donated}) {
  wrapper.return
}

// -----

// expected-error @below {{'wrapper.graph' op 'wrapper.mutated' must be a unit attribute}}
wrapper.graph @mutated_not_unit(%x: memref<4xf32> {wrapper.mutated = 1 : i64}) {
  wrapper.return
}

// -----

// expected-error @below {{'wrapper.graph' op 'wrapper.packed_b' must be a positive i64}}
wrapper.graph @packed_b_zero(%w: memref<2x16x32xf32> {wrapper.packed_b = 0 : i64}) {
  wrapper.return
}

// -----

// expected-error @below {{'wrapper.graph' op argument #0 is marked 'wrapper.packed_b = 16' but is not a [panels][K][16] buffer}}
wrapper.graph @packed_b_not_panels(%w: memref<16x32xf32> {wrapper.packed_b = 16 : i64}) {
  wrapper.return
}

// -----

// expected-error @below {{'wrapper.graph' op argument #0 is marked mutated but is not a buffer}}
wrapper.graph @mutated_scalar(%n: index {wrapper.mutated}) {
  wrapper.return
}

// -----

// expected-error @below {{'func.func' op 'wrapper.mutated' is only valid on wrapper.graph arguments}}
func.func @mutated_on_func(%x: memref<4xf32> {wrapper.mutated}) {
  return
}

// -----

// expected-error @below {{'wrapper.graph' op 'wrapper.releasable' must be a unit attribute on a function's argument}}
wrapper.graph @releasable_on_graph(%x: memref<4xf32> {wrapper.releasable}) {
  wrapper.return
}

// -----

// expected-error @below {{'func.func' op 'wrapper.releasable' must be a unit attribute on a function's argument}}
func.func @releasable_not_unit(%x: memref<4xf32> {wrapper.releasable = 1 : i64}) {
  return
}

// -----

// expected-error @below {{'func.func' op argument #0 is marked 'wrapper.releasable' but is not a buffer}}
func.func @releasable_scalar(%n: index {wrapper.releasable}) {
  return
}

// -----

// expected-error @below {{'wrapper.graph' op 'wrapper.alias_of' must be an i64 argument index}}
wrapper.graph @alias_not_index(%x: memref<4xf32>) -> (memref<4xf32> {wrapper.alias_of = "x"}) {
  wrapper.return %x : memref<4xf32>
}

// -----

// expected-error @below {{'wrapper.graph' op unknown wrapper result attribute 'wrapper.aliases'}}
wrapper.graph @unknown_result_attr(%x: memref<4xf32>) -> (memref<4xf32> {wrapper.aliases = 0 : i64}) {
  wrapper.return %x : memref<4xf32>
}

// -----

// expected-error @below {{'wrapper.graph' op result #0 'wrapper.alias_of = 2' is out of range for a graph with 1 arguments}}
wrapper.graph @alias_out_of_range(%x: memref<4xf32>) -> (memref<4xf32> {wrapper.alias_of = 2 : i64}) {
  wrapper.return %x : memref<4xf32>
}

// -----

// expected-error @below {{'wrapper.graph' op result #0 aliases argument #0, but only buffers can alias}}
wrapper.graph @alias_of_scalar(%n: index) -> (index {wrapper.alias_of = 0 : i64}) {
  wrapper.return %n : index
}

// -----

// expected-error @below {{'wrapper.graph' op result #0 aliases argument #0, but their element types or devices differ}}
wrapper.graph @alias_other_dtype(%x: memref<4xf32>) -> (memref<4xf16> {wrapper.alias_of = 0 : i64}) {
  %b = wrapper.alloc() : memref<4xf16>
  wrapper.return %b : memref<4xf16>
}

// -----

// expected-error @below {{'wrapper.graph' op result #0 is declared to alias argument #0, but the returned value is not a view of it}}
wrapper.graph @alias_not_a_view(%x: memref<4xf32>) -> (memref<4xf32> {wrapper.alias_of = 0 : i64}) {
  %b = wrapper.alloc() : memref<4xf32>
  wrapper.return %b : memref<4xf32>
}

// -----

// expected-error @below {{'wrapper.graph' op result #0 is argument #0 or a view of it, but the signature does not declare 'wrapper.alias_of'}}
wrapper.graph @undeclared_alias(%x: memref<4xf32>) -> memref<2x2xf32> {
  %v = wrapper.reinterpret %x to offset: [0], sizes: [2, 2], strides: [2, 1] : memref<4xf32> to memref<2x2xf32>
  wrapper.return %v : memref<2x2xf32>
}

// -----

wrapper.graph @return_count(%x: memref<4xf32>) -> (memref<4xf32> {wrapper.alias_of = 0 : i64}) {
  // expected-error @below {{'wrapper.return' op returns 0 values, but the enclosing graph returns 1}}
  wrapper.return
}

// -----

wrapper.graph @return_type() -> memref<4xf32> {
  %b = wrapper.alloc() : memref<8xf32>
  // expected-error @below {{'wrapper.return' op operand #0 has type 'memref<8xf32>', but the graph's result #0 has type 'memref<4xf32>'}}
  wrapper.return %b : memref<8xf32>
}

// -----

wrapper.graph @alloc_missing_size(%n: index) {
  // expected-error @below {{'wrapper.alloc' op expects 1 dynamic size operands (one per dynamic dimension of 'memref<?x4xf32>'), got 0}}
  %b = wrapper.alloc() : memref<?x4xf32>
  wrapper.return
}

// -----

wrapper.graph @alloc_with_offset() {
  // expected-error @below {{'wrapper.alloc' op result layout must be the identity or static non-negative strides with offset 0, got 'memref<4xf32, strided<[1], offset: 2>>'}}
  %b = wrapper.alloc() : memref<4xf32, strided<[1], offset: 2>>
  wrapper.return
}

// -----

wrapper.graph @alloc_overflow() {
  // expected-error @below {{'wrapper.alloc' op storage of 'memref<4611686018427387904x4xf32>' overflows a 64-bit byte count}}
  %b = wrapper.alloc() : memref<4611686018427387904x4xf32>
  wrapper.return
}

// -----

wrapper.graph @alloc_foreign_space() {
  // expected-error @below {{'wrapper.alloc' op result #0 memory space must be a #wrapper.device attribute or absent, got "gpu"}}
  %b = wrapper.alloc() : memref<4xf32, "gpu">
  wrapper.return
}

// -----

wrapper.graph @free_argument(%x: memref<4xf32>) {
  // expected-error @below {{'wrapper.free' op cannot free argument #0, which the caller owns; only buffers allocated in this graph can be freed}}
  wrapper.free %x : memref<4xf32>
  wrapper.return
}

// -----

wrapper.constant @c : memref<4xf32> external
wrapper.graph @free_constant() {
  %c = wrapper.get_constant @c : memref<4xf32>
  // expected-error @below {{'wrapper.free' op cannot free a constant; constants live as long as the compiled model}}
  wrapper.free %c : memref<4xf32>
  wrapper.return
}

// -----

wrapper.graph @free_view() {
  %b = wrapper.alloc() : memref<4xf32>
  %v = wrapper.reinterpret %b to offset: [0], sizes: [2], strides: [1] : memref<4xf32> to memref<2xf32>
  // expected-error @below {{'wrapper.free' op cannot free a view created by 'wrapper.reinterpret'; free the buffer it views instead}}
  wrapper.free %v : memref<2xf32>
  wrapper.return
}

// -----

func.func @free_in_func(%x: memref<4xf32>) -> memref<4xf32> {
  %b = memref.alloc() : memref<4xf32>
  // expected-error @below {{'wrapper.free' op cannot free a value that is not a buffer allocated in this graph (defined by 'memref.alloc')}}
  wrapper.free %b : memref<4xf32>
  return %x : memref<4xf32>
}

// -----

wrapper.graph @double_free() {
  %b = wrapper.alloc() : memref<4xf32>
  // expected-note @below {{previous free is here}}
  wrapper.free %b : memref<4xf32>
  // expected-error @below {{'wrapper.free' op frees a buffer that is already freed}}
  wrapper.free %b : memref<4xf32>
  wrapper.return
}

// -----

func.func private @k_impl(memref<4xf32>)
wrapper.kernel @k = @k_impl
wrapper.graph @use_after_free() {
  %b = wrapper.alloc() : memref<4xf32>
  // expected-error @below {{'wrapper.free' op frees a buffer that is used later}}
  wrapper.free %b : memref<4xf32>
  // expected-note @below {{later use is here}}
  wrapper.call @k(%b) : memref<4xf32>
  wrapper.return
}

// -----

func.func private @k_impl(memref<4xf32>)
wrapper.kernel @k = @k_impl
wrapper.graph @use_after_free_if_not_reused() {
  %b = wrapper.alloc() : memref<4xf32>
  // expected-error @below {{'wrapper.free_if_not_reused' op frees a buffer that is used later; after 'wrapper.free_if_not_reused' only one 'wrapper.reuse' may take it}}
  wrapper.free_if_not_reused %b : memref<4xf32>
  // expected-note @below {{later use is here}}
  wrapper.call @k(%b) : memref<4xf32>
  wrapper.return
}

// -----

wrapper.graph @free_if_not_reused_argument(%x: memref<4xf32>) {
  // expected-error @below {{'wrapper.free_if_not_reused' op cannot free argument #0, which the caller owns; only buffers allocated in this graph can be freed}}
  wrapper.free_if_not_reused %x : memref<4xf32>
  wrapper.return
}

// -----

wrapper.graph @reuse_argument(%x: memref<4xf32>) {
  // expected-error @below {{'wrapper.reuse' op cannot reuse argument #0, which the caller owns; only buffers allocated in this graph can be reused}}
  %r = wrapper.reuse %x : memref<4xf32> to memref<4xf32>
  wrapper.return
}

// -----

wrapper.graph @reuse_across_devices() {
  %b = wrapper.alloc() : memref<4xf32>
  // expected-error @below {{'wrapper.reuse' op cannot reuse storage across devices: the old buffer is on cpu, the new buffer on cuda:0}}
  %r = wrapper.reuse %b : memref<4xf32> to memref<4xf32, #wrapper.device<cuda:0>>
  wrapper.return
}

// -----

wrapper.graph @reuse_across_dtypes() {
  %b = wrapper.alloc() : memref<4xf32>
  // expected-error @below {{'wrapper.reuse' op cannot reuse storage across element types: the old buffer holds 'f32', the new buffer 'i32'}}
  %r = wrapper.reuse %b : memref<4xf32> to memref<4xi32>
  wrapper.return
}

// -----

wrapper.graph @reuse_too_small() {
  %b = wrapper.alloc() : memref<4xf32>
  // expected-error @below {{'wrapper.reuse' op the new buffer needs 32 bytes, but the reused storage holds only 16 bytes}}
  %r = wrapper.reuse %b : memref<4xf32> to memref<2x4xf32>
  wrapper.return
}

// -----

wrapper.graph @reuse_dynamic(%n: index) {
  %b = wrapper.alloc(%n) : memref<?xf32>
  // expected-error @below {{'wrapper.reuse' op a buffer with dynamic sizes can only take the storage of a buffer of identical type, got 'memref<?xf32>' and 'memref<?x2xf32>'}}
  %r = wrapper.reuse %b : memref<?xf32> to memref<?x2xf32>
  wrapper.return
}

// -----

wrapper.graph @reuse_freed() {
  %b = wrapper.alloc() : memref<4xf32>
  // expected-note @below {{it is freed here}}
  wrapper.free %b : memref<4xf32>
  // expected-error @below {{'wrapper.reuse' op cannot reuse the storage of a freed buffer}}
  %r = wrapper.reuse %b : memref<4xf32> to memref<4xf32>
  wrapper.return
}

// -----

func.func private @k_impl(memref<4xf32>)
wrapper.kernel @k = @k_impl
wrapper.graph @reuse_live() {
  %b = wrapper.alloc() : memref<4xf32>
  // expected-error @below {{'wrapper.reuse' op takes the storage of a buffer that is used later}}
  %r = wrapper.reuse %b : memref<4xf32> to memref<4xf32>
  // expected-note @below {{later use is here}}
  wrapper.call @k(%b) : memref<4xf32>
  wrapper.return
}

// -----

wrapper.graph @reinterpret_element_type(%x: memref<4xf32>) {
  // expected-error @below {{'wrapper.reinterpret' op element type 'i32' of the view does not match the source's 'f32'}}
  %v = wrapper.reinterpret %x to offset: [0], sizes: [4], strides: [1] : memref<4xf32> to memref<4xi32>
  wrapper.return
}

// -----

wrapper.graph @reinterpret_memory_space(%x: memref<4xf32>) {
  // expected-error @below {{'wrapper.reinterpret' op memory space of the view does not match the source's}}
  %v = wrapper.reinterpret %x to offset: [0], sizes: [4], strides: [1] : memref<4xf32> to memref<4xf32, #wrapper.device<cuda:0>>
  wrapper.return
}

// -----

wrapper.graph @reinterpret_size_mismatch(%x: memref<16xf32>) {
  // expected-error @below {{'wrapper.reinterpret' op size #1 is 4, but dimension 1 of the result type is 3}}
  %v = wrapper.reinterpret %x to offset: [0], sizes: [2, 4], strides: [4, 1] : memref<16xf32> to memref<2x3xf32, strided<[4, 1]>>
  wrapper.return
}

// -----

wrapper.graph @reinterpret_negative_size(%x: memref<16xf32>) {
  // expected-error @below {{expected sizes to be non-negative, but got -2}}
  %v = wrapper.reinterpret %x to offset: [0], sizes: [-2], strides: [1] : memref<16xf32> to memref<?xf32>
  wrapper.return
}

// -----

wrapper.graph @reinterpret_offset_mismatch(%x: memref<16xf32>) {
  // expected-error @below {{'wrapper.reinterpret' op offset does not match the offset of the result type 'memref<4xf32, strided<[1], offset: 2>>'}}
  %v = wrapper.reinterpret %x to offset: [4], sizes: [4], strides: [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: 2>>
  wrapper.return
}

// -----

wrapper.graph @reinterpret_stride_mismatch(%x: memref<16xf32>) {
  // expected-error @below {{'wrapper.reinterpret' op stride #0 does not match the stride of the result type 'memref<4xf32>'}}
  %v = wrapper.reinterpret %x to offset: [0], sizes: [4], strides: [2] : memref<16xf32> to memref<4xf32>
  wrapper.return
}

// -----

wrapper.graph @reinterpret_out_of_bounds(%x: memref<16xf32>) {
  // expected-error @below {{'wrapper.reinterpret' op view reaches element 20, but the storage it views holds 16 elements}}
  %v = wrapper.reinterpret %x to offset: [5], sizes: [4, 4], strides: [4, 1] : memref<16xf32> to memref<4x4xf32, strided<[4, 1], offset: 5>>
  wrapper.return
}

// -----

// Tests that the bounds are those of the storage, not of the viewed view.
wrapper.graph @reinterpret_of_view_out_of_bounds() {
  %b = wrapper.alloc() : memref<8xf32>
  %v = wrapper.reinterpret %b to offset: [0], sizes: [2], strides: [1] : memref<8xf32> to memref<2xf32>
  // expected-error @below {{'wrapper.reinterpret' op view reaches element 8, but the storage it views holds 8 elements}}
  %w = wrapper.reinterpret %v to offset: [0], sizes: [3], strides: [4] : memref<2xf32> to memref<3xf32, strided<[4]>>
  wrapper.free %b : memref<8xf32>
  wrapper.return
}

// -----

func.func private @impl(memref<4xf32>)
// expected-error @below {{'wrapper.kernel' op implementation @missing does not name a symbol}}
wrapper.kernel @k = @missing

// -----

wrapper.constant @c : memref<4xf32> external
// expected-error @below {{'wrapper.kernel' op implementation @c must be a 'func.func' or a 'gpu.func', got 'wrapper.constant'}}
wrapper.kernel @k = @c

// -----

gpu.module @m {
  gpu.func @device_fn(%x: memref<4xf32>) {
    gpu.return
  }
}
// expected-error @below {{'wrapper.kernel' op implementation @m::@device_fn is a gpu.func without the 'kernel' attribute}}
wrapper.kernel @k = @m::@device_fn

// -----

wrapper.graph @call_undefined_kernel(%x: memref<4xf32> {wrapper.mutated}) {
  // expected-error @below {{'wrapper.call' op @nope does not name a wrapper.kernel}}
  wrapper.call @nope(%x) : memref<4xf32>
  wrapper.return
}

// -----

func.func private @impl(memref<4xf32>, memref<4xf32>)
wrapper.kernel @k = @impl
wrapper.graph @call_wrong_arg_count(%x: memref<4xf32>) {
  // expected-error @below {{'wrapper.call' op kernel @k takes 2 arguments, but 1 were given}}
  wrapper.call @k(%x) : memref<4xf32>
  wrapper.return
}

// -----

func.func private @impl(memref<8xf32>)
wrapper.kernel @k = @impl
wrapper.graph @call_wrong_shape(%x: memref<4xf32>) {
  // expected-error @below {{'wrapper.call' op argument #0 of type 'memref<4xf32>' is not compatible with parameter type 'memref<8xf32>' of kernel @k}}
  wrapper.call @k(%x) : memref<4xf32>
  wrapper.return
}

// -----

func.func private @impl(memref<4xf32>, i64)
wrapper.kernel @k = @impl
wrapper.graph @call_wrong_scalar(%x: memref<4xf32>, %n: index) {
  // expected-error @below {{'wrapper.call' op argument #1 has type 'index', but kernel @k expects 'i64'}}
  wrapper.call @k(%x, %n) : memref<4xf32>, index
  wrapper.return
}

// -----

func.func private @impl(memref<4xf32>)
wrapper.kernel @k = @impl
wrapper.graph @call_cpu_kernel_on_gpu_buffer(%x: memref<4xf32, #wrapper.device<cuda:0>>) {
  // expected-error @below {{'wrapper.call' op argument #0 lives on cuda:0, but kernel @k runs on cpu}}
  wrapper.call @k(%x) : memref<4xf32, #wrapper.device<cuda:0>>
  wrapper.return
}

// -----

func.func private @impl(memref<4xf32>)
wrapper.kernel @k = @impl on #wrapper.device<cuda>
wrapper.graph @call_device_kernel_on_cpu_buffer(%x: memref<4xf32>) {
  // expected-error @below {{'wrapper.call' op argument #0 lives on cpu, but kernel @k runs on cuda:0}}
  wrapper.call @k(%x) : memref<4xf32>
  wrapper.return
}

// -----

func.func private @impl(memref<4xf32>)
wrapper.kernel @k = @impl on #wrapper.device<cuda:1>
wrapper.graph @call_device_kernel_on_other_device(%x: memref<4xf32, #wrapper.device<cuda:0>>) {
  // expected-error @below {{'wrapper.call' op argument #0 lives on cuda:0, but kernel @k runs on cuda:1}}
  wrapper.call @k(%x) : memref<4xf32, #wrapper.device<cuda:0>>
  wrapper.return
}

// -----

func.func private @impl(memref<4xf32>)
wrapper.kernel @k = @impl on #wrapper.device<cuda>
wrapper.graph @launch_device_kernel(%x: memref<4xf32, #wrapper.device<cuda>>) {
  %c1 = arith.constant 1 : index
  // expected-error @below {{'wrapper.call' op host-launched kernel @k takes no launch grid or block size}}
  wrapper.call @k(%x) grid(%c1, %c1, %c1) block(%c1, %c1, %c1) : memref<4xf32, #wrapper.device<cuda>>
  wrapper.return
}

// -----

gpu.module @m {
  gpu.func @f(%x: memref<4xf32>) kernel {
    gpu.return
  }
}
// expected-error @below {{'wrapper.kernel' op implementation @m::@f is a gpu.func, which runs on a CUDA device; the 'on' clause is for func.func kernels}}
wrapper.kernel @k = @m::@f on #wrapper.device<cuda>

// -----

gpu.module @m {
  gpu.func @f(%x: memref<4xf32>) kernel {
    gpu.return
  }
}
wrapper.kernel @k = @m::@f
wrapper.graph @call_gpu_kernel_on_cpu_buffer(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @below {{'wrapper.call' op argument #0 lives on cpu, but kernel @k runs on a CUDA device}}
  wrapper.call @k(%x) grid(%c1, %c1, %c1) block(%c1, %c1, %c1) : memref<4xf32>
  wrapper.return
}

// -----

gpu.module @m {
  gpu.func @f(%x: memref<4xf32>) kernel {
    gpu.return
  }
}
wrapper.kernel @k = @m::@f
wrapper.graph @call_gpu_kernel_without_grid(%x: memref<4xf32, #wrapper.device<cuda:0>>) {
  // expected-error @below {{'wrapper.call' op GPU kernel @k needs a launch grid and a block size}}
  wrapper.call @k(%x) : memref<4xf32, #wrapper.device<cuda:0>>
  wrapper.return
}

// -----

func.func private @impl(memref<4xf32>)
wrapper.kernel @k = @impl
wrapper.graph @call_cpu_kernel_with_grid(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @below {{'wrapper.call' op CPU kernel @k takes no launch grid or block size}}
  wrapper.call @k(%x) grid(%c1, %c1, %c1) block(%c1, %c1, %c1) : memref<4xf32>
  wrapper.return
}

// -----

func.func private @impl(memref<4xf32>)
wrapper.kernel @k = @impl
wrapper.graph @call_two_dimensional_grid(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @below {{'wrapper.call' op launch grid must have 3 dimensions, got 2}}
  wrapper.call @k(%x) grid(%c1, %c1) block(%c1, %c1, %c1) : memref<4xf32>
  wrapper.return
}

// -----

func.func private @impl(memref<4xf32>)
wrapper.kernel @k = @impl
wrapper.graph @call_one_dimensional_block(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @below {{'wrapper.call' op block size must have 3 dimensions, got 1}}
  wrapper.call @k(%x) grid(%c1, %c1, %c1) block(%c1) : memref<4xf32>
  wrapper.return
}

// -----

wrapper.graph @extern_empty_callee(%x: memref<4xf32>) {
  %b = wrapper.alloc() : memref<4xf32>
  // expected-error @below {{'wrapper.extern_out' op callee name must not be empty}}
  wrapper.extern_out "" ins(%x : memref<4xf32>) outs(%b : memref<4xf32>)
  wrapper.return
}

// -----

wrapper.graph @extern_callee_with_space(%x: memref<4xf32>) {
  %b = wrapper.alloc() : memref<4xf32>
  // expected-error @below {{'wrapper.extern_out' op callee name 'aten::add Tensor' must not contain whitespace}}
  wrapper.extern_out "aten::add Tensor" ins(%x : memref<4xf32>) outs(%b : memref<4xf32>)
  wrapper.return
}

// -----

wrapper.graph @extern_out_without_outputs(%x: memref<4xf32>) {
  // expected-error @below {{'wrapper.extern_out' op needs at least one output buffer}}
  "wrapper.extern_out"(%x) <{callee = "aten::relu", operandSegmentSizes = array<i32: 1, 0>}> : (memref<4xf32>) -> ()
  wrapper.return
}

// -----

wrapper.graph @extern_out_same_output_twice(%x: memref<4xf32>) {
  %b = wrapper.alloc() : memref<4xf32>
  // expected-error @below {{'wrapper.extern_out' op output #1 is the same buffer as output #0}}
  wrapper.extern_out "aten::split" ins(%x : memref<4xf32>) outs(%b, %b : memref<4xf32>, memref<4xf32>)
  wrapper.return
}

// -----

wrapper.graph @extern_out_writes_unmarked_input(%x: memref<4xf32>) {
  // expected-error @below {{'wrapper.extern_out' op output #0 writes argument #0 of the graph, which its signature does not mark 'wrapper.mutated'}}
  wrapper.extern_out "aten::relu_" outs(%x : memref<4xf32>)
  wrapper.return
}

// -----

wrapper.constant @c : memref<4xf32> external
wrapper.graph @extern_out_writes_constant() {
  %c = wrapper.get_constant @c : memref<4xf32>
  // expected-error @below {{'wrapper.extern_out' op output #0 writes a constant}}
  wrapper.extern_out "aten::relu_" outs(%c : memref<4xf32>)
  wrapper.return
}

// -----

wrapper.graph @extern_alloc_without_results(%x: memref<4xf32>) {
  // expected-error @below {{'wrapper.extern_alloc' op needs at least one result}}
  "wrapper.extern_alloc"(%x) <{callee = "aten::print"}> : (memref<4xf32>) -> ()
  wrapper.return
}

// -----

wrapper.graph @extern_alloc_tensor_result() {
  // expected-error @below {{'wrapper.extern_alloc' op result #0 must be variadic of memref of any type values or tuple or list of buffers, but got 'tensor<4xf32>'}}
  %t = wrapper.extern_alloc "aten::f" -> tensor<4xf32>
  wrapper.return
}

// -----

wrapper.graph @multi_output_empty_path() {
  %t = wrapper.extern_alloc "aten::f" -> !wrapper.tuple<memref<4xf32>>
  // expected-error @below {{'wrapper.multi_output' op index path must not be empty}}
  %x = wrapper.multi_output %t[] : !wrapper.tuple<memref<4xf32>> -> memref<4xf32>
  wrapper.return
}

// -----

wrapper.graph @multi_output_out_of_range() {
  %t = wrapper.extern_alloc "aten::f" -> !wrapper.tuple<memref<4xf32>, memref<4xi64>>
  // expected-error @below {{'wrapper.multi_output' op index 2 at position 0 of the index path is out of range for '!wrapper.tuple<memref<4xf32>, memref<4xi64>>' with 2 elements}}
  %x = wrapper.multi_output %t[2] : !wrapper.tuple<memref<4xf32>, memref<4xi64>> -> memref<4xf32>
  wrapper.return
}

// -----

wrapper.graph @multi_output_negative_index() {
  %t = wrapper.extern_alloc "aten::f" -> !wrapper.list<memref<4xf32>>
  // expected-error @below {{'wrapper.multi_output' op index -1 at position 0 of the index path is out of range for '!wrapper.list<memref<4xf32>>' with 1 elements}}
  %x = wrapper.multi_output %t[-1] : !wrapper.list<memref<4xf32>> -> memref<4xf32>
  wrapper.return
}

// -----

wrapper.graph @multi_output_path_too_deep() {
  %t = wrapper.extern_alloc "aten::f" -> !wrapper.tuple<memref<4xf32>>
  // expected-error @below {{'wrapper.multi_output' op position 1 of the index path indexes into 'memref<4xf32>', which is not a tuple or list}}
  %x = wrapper.multi_output %t[0, 0] : !wrapper.tuple<memref<4xf32>> -> memref<4xf32>
  wrapper.return
}

// -----

wrapper.graph @multi_output_wrong_type() {
  %t = wrapper.extern_alloc "aten::f" -> !wrapper.tuple<memref<4xf32>, memref<4xi64>>
  // expected-error @below {{'wrapper.multi_output' op result type 'memref<4xf32>' does not match the element type 'memref<4xi64>' at the index path}}
  %x = wrapper.multi_output %t[1] : !wrapper.tuple<memref<4xf32>, memref<4xi64>> -> memref<4xf32>
  wrapper.return
}

// -----

wrapper.graph @multi_output_twice() {
  %t = wrapper.extern_alloc "aten::f" -> !wrapper.tuple<memref<4xf32>>
  // expected-note @below {{first extracted here}}
  %x = wrapper.multi_output %t[0] : !wrapper.tuple<memref<4xf32>> -> memref<4xf32>
  // expected-error @below {{'wrapper.multi_output' op extracts an element that was already extracted}}
  %y = wrapper.multi_output %t[0] : !wrapper.tuple<memref<4xf32>> -> memref<4xf32>
  wrapper.return
}

// -----

// expected-error @below {{'wrapper.constant' op constant type 'memref<4xf32, strided<[2]>>' must have an identity layout}}
wrapper.constant @strided : memref<4xf32, strided<[2]>> external

// -----

// expected-error @below {{'wrapper.constant' op attribute 'type' failed to satisfy constraint: type attribute of statically shaped memref of any type values}}
wrapper.constant @dynamic : memref<?xf32> external

// -----

// expected-error @below {{'wrapper.constant' op value of type 'tensor<4xi32>' does not match the constant type 'memref<4xf32>'}}
"wrapper.constant"() <{sym_name = "c", type = memref<4xf32>, value = dense<1> : tensor<4xi32>}> : () -> ()

// -----

// expected-error @below {{constant value must be an elements attribute}}
wrapper.constant @not_elements : memref<4xf32> = "weights.bin"

// -----

wrapper.graph @get_undefined_constant() {
  // expected-error @below {{'wrapper.get_constant' op @nope does not name a wrapper.constant}}
  %c = wrapper.get_constant @nope : memref<4xf32>
  wrapper.return
}

// -----

wrapper.constant @c : memref<4xf32> external
wrapper.graph @get_constant_wrong_type() {
  // expected-error @below {{'wrapper.get_constant' op result type 'memref<8xf32>' does not match the type 'memref<4xf32>' of constant @c}}
  %c = wrapper.get_constant @c : memref<8xf32>
  wrapper.return
}

// -----

wrapper.graph @multi_line_comment() {
  // expected-error @below {{'wrapper.comment' op comment text must be a single line}}
  wrapper.comment "first\nsecond"
  wrapper.return
}

// -----

wrapper.graph @debug_save_not_npy(%x: memref<4xf32>) {
  // expected-error @below {{'wrapper.debug_save' op path must name a '.npy' file, got 'x.txt'}}
  wrapper.debug_save %x, "x.txt" : memref<4xf32>
  wrapper.return
}

// -----

// expected-error @below {{'wrapper.comment' op unknown wrapper attribute 'wrapper.note' on an operation}}
wrapper.comment "x" {wrapper.note = 1 : i64}

// -----

// expected-error @below {{'wrapper.graph' op body must end in 'wrapper.return'}}
"wrapper.graph"() <{function_type = () -> (), sym_name = "no_return"}> ({
  "llvm.unreachable"() : () -> ()
}) : () -> ()

// -----

wrapper.graph @view_of_floats(%p: memref<64xf32>) {
  // expected-error @below {{'wrapper.view' op pool must be a one-dimensional i8 buffer with identity layout, got 'memref<64xf32>'}}
  %v = wrapper.view %p[0] : memref<64xf32> to memref<4xf32>
  wrapper.return
}

// -----

wrapper.graph @view_misaligned(%p: memref<64xi8>) {
  // expected-error @below {{'wrapper.view' op byte offset 2 is not a multiple of the element size 4}}
  %v = wrapper.view %p[2] : memref<64xi8> to memref<4xf32>
  wrapper.return
}

// -----

wrapper.graph @view_outside(%p: memref<64xi8>) {
  // expected-error @below {{'wrapper.view' op the view needs bytes [48, 80), but the pool holds 64 bytes}}
  %v = wrapper.view %p[48] : memref<64xi8> to memref<8xf32>
  wrapper.return
}

// -----

wrapper.graph @view_dynamic(%p: memref<64xi8>) {
  // expected-error @below {{'wrapper.view' op result must have a static shape and identity layout, got 'memref<?xf32>'}}
  %v = wrapper.view %p[0] : memref<64xi8> to memref<?xf32>
  wrapper.return
}

// -----

wrapper.graph @view_device(%p: memref<64xi8>) {
  // expected-error @below {{'wrapper.view' op the view is on cuda:0, but the pool on cpu}}
  %v = wrapper.view %p[0] : memref<64xi8> to memref<4xf32, #wrapper.device<cuda:0>>
  wrapper.return
}

// -----

wrapper.graph @free_view() {
  %p = wrapper.alloc() : memref<64xi8>
  %v = wrapper.view %p[0] : memref<64xi8> to memref<4xf32>
  // expected-error @below {{'wrapper.free' op cannot free a view created by 'wrapper.view'; free the buffer it views instead}}
  wrapper.free %v : memref<4xf32>
  wrapper.free %p : memref<64xi8>
  wrapper.return
}

// -----

wrapper.graph @message_without_text() {
  // expected-error @below {{'wrapper.debug_message' op requires attribute 'message'}}
  "wrapper.debug_message"() : () -> ()
  wrapper.return
}

// -----

// expected-error @below {{'wrapper.cpu_target' must be a dictionary {cpu = string, features = string, vector_width = 4, 8 or 16} on a module}}
module attributes {wrapper.cpu_target = {cpu = "x", features = "", vector_width = 12 : i64}} {
}

// -----

func.func @bad_blocking(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  // expected-error @below {{'wrapper.gemm_blocking' must be a dictionary of positive integers kc, mc, mr, nc, nr, vl}}
  linalg.matmul {wrapper.gemm_blocking = {mr = 0 : i64}} ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}
