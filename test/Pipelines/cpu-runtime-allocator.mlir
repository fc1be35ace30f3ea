// RUN: wrapper-opt %s --wrapper-cpu-codegen | FileCheck %s --check-prefix=MALLOC
// RUN: wrapper-opt %s --wrapper-cpu-codegen=runtime-allocator=true | FileCheck %s --check-prefix=RUNTIME
// RUN: wrapper-opt %s --wrapper-cpu-codegen=runtime-allocator=true | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs,%wrapper_lib_dir/libwrapper_runtime%shlibext | FileCheck %s --check-prefix=OUT
// UNSUPPORTED: asan

// Tests the runtime-allocator option: buffers come from the runtime's
// block cache (finalize-memref-to-llvm's generic functions, aligned as
// each alloc asks, so that a buffer starts at its block) instead of
// malloc and free, and a program that allocates and frees a buffer on each
// of several calls gets the right results.

// MALLOC-LABEL: llvm.func @main
// MALLOC: llvm.call @malloc
// MALLOC-NOT: _mlir_memref_to_llvm
// MALLOC: llvm.call @free

// RUNTIME-LABEL: llvm.func @main
// RUNTIME-NOT: llvm.call @malloc
// RUNTIME-NOT: llvm.call @_mlir_memref_to_llvm_alloc(
// RUNTIME: llvm.call @_mlir_memref_to_llvm_aligned_alloc
// RUNTIME-NOT: llvm.call @free(
// RUNTIME: llvm.call @_mlir_memref_to_llvm_free

func.func private @printMemrefF32(memref<*xf32>)

func.func @scaled(%n: index, %v: f32) -> f32 {
  %b = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%v : f32) outs(%b : memref<?xf32>)
  %s = memref.alloc() : memref<f32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<f32>)
  linalg.reduce ins(%b : memref<?xf32>) outs(%s : memref<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %sum = arith.addf %in, %acc : f32
      linalg.yield %sum : f32
    }
  %r = memref.load %s[] : memref<f32>
  memref.dealloc %b : memref<?xf32>
  memref.dealloc %s : memref<f32>
  return %r : f32
}

func.func @main() {
  %sums = memref.alloc() : memref<3xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %n = arith.constant 100000 : index
  scf.for %i = %c0 to %c3 step %c1 {
    %f = arith.index_cast %i : index to i32
    %v = arith.sitofp %f : i32 to f32
    %r = func.call @scaled(%n, %v) : (index, f32) -> f32
    memref.store %r, %sums[%i] : memref<3xf32>
  }
  %u = memref.cast %sums : memref<3xf32> to memref<*xf32>
  // OUT: [0,  100000,  200000]
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %sums : memref<3xf32>
  return
}
