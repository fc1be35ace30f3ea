// RUN: wrapper-opt %s --convert-wrapper-to-llvm | FileCheck %s --implicit-check-not=wrapper.
// RUN: wrapper-opt %s --convert-wrapper-to-llvm | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs | FileCheck %s --check-prefix=OUT

// Tests that a host program with a kernel on buffers lowers to the LLVM
// dialect and runs: the kernel adds 1.5 to each element of a constant.
// CHECK: llvm.func @main()
// CHECK: llvm.call @malloc
// CHECK: llvm.call @add_impl
// CHECK: llvm.call @free
// OUT: [2.5,  3.5,  4.5,  5.5]

func.func private @printMemrefF32(memref<*xf32>)
func.func private @add_impl(%in: memref<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %h = arith.constant 1.5 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %in[%i] : memref<4xf32>
    %y = arith.addf %x, %h : f32
    memref.store %y, %out[%i] : memref<4xf32>
  }
  return
}
wrapper.kernel @add = @add_impl
wrapper.constant @c : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

wrapper.graph @main() {
  %c = wrapper.get_constant @c : memref<4xf32>
  %buf = wrapper.alloc() : memref<4xf32>
  wrapper.call @add(%c, %buf) : memref<4xf32>, memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  wrapper.free %buf : memref<4xf32>
  wrapper.return
}
