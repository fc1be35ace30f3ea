// RUN: wrapper-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: wrapper-opt %s --split-input-file --verify-diagnostics --convert-wrapper-to-standard | FileCheck %s --check-prefix=LOWER

// The ops of the extern C ABI round-trip, and lower to stack descriptors.
// CHECK-LABEL: wrapper.graph @abi
// CHECK: %[[D:.*]] = wrapper.tensor_descriptor %arg0 : memref<4x8xf32>
// CHECK: %[[R:.*]] = wrapper.result_descriptors [memref<?x2xf32>]
// CHECK: wrapper.check_status %{{.*}}, "aten::mm" : i32
// CHECK: wrapper.descriptor_buffer %[[R]][0] : memref<?x2xf32>
// LOWER-LABEL: func.func @abi
// LOWER: memref.extract_strided_metadata %arg0
// LOWER: llvm.alloca %{{.*}} x !llvm.struct<(ptr, i32, i32, ptr, ptr)>
// LOWER: call @wrapper_shim_mm(
// LOWER: call @wrapper_shim_check(
// LOWER: %[[DATA:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// LOWER: %[[SIZES:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// LOWER: %[[ROWS:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// LOWER: builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<?x2xf32>
wrapper.graph @abi(%a: memref<4x8xf32>, %b: memref<8x2xf32>) -> memref<?x2xf32> {
  %d0 = wrapper.tensor_descriptor %a : memref<4x8xf32>
  %d1 = wrapper.tensor_descriptor %b : memref<8x2xf32>
  %r = wrapper.result_descriptors [memref<?x2xf32>]
  %s = func.call @wrapper_shim_mm(%d0, %d1, %r) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
  wrapper.check_status %s, "aten::mm" : i32
  %buf = wrapper.descriptor_buffer %r[0] : memref<?x2xf32>
  wrapper.return %buf : memref<?x2xf32>
}
func.func private @wrapper_shim_mm(!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32

// -----

wrapper.graph @no_dtype(%a: memref<4xindex>) {
  // expected-error @below {{'wrapper.tensor_descriptor' op the buffer has element type 'index', which the C ABI has no dtype for}}
  %d = wrapper.tensor_descriptor %a : memref<4xindex>
  wrapper.return
}

// -----

wrapper.graph @strided_result() {
  // expected-error @below {{'wrapper.result_descriptors' op type #0 must have the identity layout (results are contiguous)}}
  %r = wrapper.result_descriptors [memref<4xf32, strided<[2]>>]
  wrapper.return
}

// -----

wrapper.graph @index_out_of_range() {
  %r = wrapper.result_descriptors [memref<4xf32>]
  // expected-error @below {{'wrapper.descriptor_buffer' op index 1 is out of range for 1 descriptors}}
  %b = wrapper.descriptor_buffer %r[1] : memref<4xf32>
  wrapper.return
}

// -----

wrapper.graph @type_mismatch() {
  %r = wrapper.result_descriptors [memref<4xf32>]
  // expected-error @below {{'wrapper.descriptor_buffer' op has type 'memref<4xi32>', but descriptor #0 describes 'memref<4xf32>'}}
  %b = wrapper.descriptor_buffer %r[0] : memref<4xi32>
  wrapper.return
}

// -----

func.func @not_from_result_descriptors(%p: !llvm.ptr) {
  // expected-error @below {{'wrapper.descriptor_buffer' op reads descriptors that are not from 'wrapper.result_descriptors'}}
  %b = wrapper.descriptor_buffer %p[0] : memref<4xf32>
  return
}
