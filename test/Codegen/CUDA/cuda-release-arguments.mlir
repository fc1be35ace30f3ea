// RUN: wrapper-opt %s --split-input-file --wrapper-cuda-release-arguments | FileCheck %s

// Each releasable argument is released right after its last reader at the
// top level: a launch of a kernel that reads a view of it, a loop whose body
// reads it, a runtime call that takes its pointer. Arguments that are not
// marked, or reach the return, are left alone; one nothing reads is
// released first.

// CHECK-LABEL: func.func private @wrapperCudaReleaseArgument(i64)
// CHECK-SAME: attributes {wrapper.cuda_stream_ordered}

// The marks are the pass's input only: none is left.
// CHECK-LABEL: func.func @backward
// CHECK-SAME: (%[[SAVED:[^:]+]]: memref<8xf32>, %[[GRAD:[^:]+]]: memref<2x4xf32>, %[[UNREAD:[^:]+]]: memref<4xf32>, %[[KEPT:[^:]+]]: memref<4xf32>, %[[RETURNED:[^:]+]]: memref<4xf32>)
// CHECK-NEXT: %[[P0:.*]] = memref.extract_aligned_pointer_as_index %[[UNREAD]]
// CHECK-NEXT: %[[I0:.*]] = arith.index_cast %[[P0]] : index to i64
// CHECK-NEXT: call @wrapperCudaReleaseArgument(%[[I0]])
// CHECK: %[[VIEW:.*]] = memref.collapse_shape %[[GRAD]]
// CHECK: gpu.launch_func @kernels::@scale {{.*}} args(%[[VIEW]] : memref<8xf32>
// CHECK-NEXT: %[[P1:.*]] = memref.extract_aligned_pointer_as_index %[[GRAD]]
// CHECK-NEXT: %[[I1:.*]] = arith.index_cast %[[P1]] : index to i64
// CHECK-NEXT: call @wrapperCudaReleaseArgument(%[[I1]])
// CHECK: scf.for
// CHECK: gpu.launch_func @kernels::@scale {{.*}} args(%[[SAVED]]
// CHECK: }
// CHECK-NEXT: %[[P2:.*]] = memref.extract_aligned_pointer_as_index %[[SAVED]]
// CHECK-NEXT: %[[I2:.*]] = arith.index_cast %[[P2]] : index to i64
// CHECK-NEXT: call @wrapperCudaReleaseArgument(%[[I2]])
// CHECK-NEXT: call @consume
// CHECK-NOT: wrapperCudaReleaseArgument
// CHECK: return
// CHECK-NOT: wrapper.releasable
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%a: memref<8xf32>, %b: memref<8xf32>) kernel {
      gpu.return
    }
  }
  func.func private @consume(memref<4xf32>)
  func.func @backward(%saved: memref<8xf32> {wrapper.releasable},
                      %grad: memref<2x4xf32> {wrapper.releasable},
                      %unread: memref<4xf32> {wrapper.releasable},
                      %kept: memref<4xf32>,
                      %returned: memref<4xf32> {wrapper.releasable})
      -> memref<4xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %out = gpu.alloc () : memref<8xf32>
    %view = memref.collapse_shape %grad [[0, 1]] : memref<2x4xf32> into memref<8xf32>
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%view : memref<8xf32>, %out : memref<8xf32>)
    scf.for %i = %c0 to %c3 step %c1 {
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
          args(%saved : memref<8xf32>, %out : memref<8xf32>)
    }
    call @consume(%kept) : (memref<4xf32>) -> ()
    call @consume(%returned) : (memref<4xf32>) -> ()
    gpu.dealloc %out : memref<8xf32>
    return %returned : memref<4xf32>
  }
}

// -----

// A pointer taken from the argument counts as a reader (a cuBLAS product
// through it): the release follows the call that takes it.

// CHECK-LABEL: func.func @product
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK-NEXT: %[[A:.*]] = arith.index_cast %[[P]]
// CHECK-NEXT: call @gemm(%[[A]])
// CHECK-NEXT: memref.extract_aligned_pointer_as_index %arg0
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: call @wrapperCudaReleaseArgument
// CHECK-NEXT: return
module {
  func.func private @gemm(i64) attributes {wrapper.cuda_stream_ordered}
  func.func @product(%a: memref<16xf32> {wrapper.releasable}) {
    %p = memref.extract_aligned_pointer_as_index %a : memref<16xf32> -> index
    %i = arith.index_cast %p : index to i64
    call @gemm(%i) : (i64) -> ()
    return
  }
}

// -----

// Sizes read from the descriptor are not the buffer: a result allocated
// with the argument's size may be returned, and a size read after the last
// reader does not hold the release back.

// CHECK-LABEL: func.func @sizes
// CHECK: gpu.launch_func
// CHECK-NEXT: memref.extract_aligned_pointer_as_index %arg0
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: call @wrapperCudaReleaseArgument
// CHECK-NEXT: memref.dim %arg0
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy(%a: memref<?xf32>, %b: memref<?xf32>) kernel {
      gpu.return
    }
  }
  func.func @sizes(%a: memref<?xf32> {wrapper.releasable}) -> (memref<?xf32>, index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %out = gpu.alloc (%n) : memref<?xf32>
    gpu.launch_func @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<?xf32>, %out : memref<?xf32>)
    %m = memref.dim %a, %c0 : memref<?xf32>
    return %out, %m : memref<?xf32>, index
  }
}

// -----

// Nothing marked: nothing declared.

// CHECK-LABEL: module
// CHECK-NOT: wrapperCudaReleaseArgument
module {
  func.func @plain(%a: memref<4xf32>) {
    return
  }
}
