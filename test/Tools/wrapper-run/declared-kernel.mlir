// A host program whose kernel is only declared: wrapper-run compiles the
// module alone, so it says which kernel lacks a body instead of failing in
// the JIT with a bare symbol name; wrapper-compile says the graph is a host
// program, which it does not compile.
//
// RUN: not wrapper-run %s 2>&1 | FileCheck %s --check-prefix=JIT
// JIT-NOT: JIT session error
// JIT: wrapper-run: error: kernel @add is implemented by @add_impl, which is only declared in the module: give it a body (the module is compiled alone; nothing else is linked in)
// RUN: not wrapper-compile %s -o %t.so 2>&1 | FileCheck %s --check-prefix=COMPILE
// COMPILE: wrapper-compile: error: the module has no public function to run; 'call' is a wrapper.graph (a host program), which wrapper-run executes; wrapper-compile and the Python package compile tensor_program functions
// RUN: not wrapper-compile %s -o %t.so --entry=call 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: wrapper-compile: error: no function named 'call' with a body in the module; 'call' is a wrapper.graph

func.func private @add_impl(memref<4xf32>, memref<4xf32>, memref<4xf32>)
wrapper.kernel @add = @add_impl metadata {kind = "pointwise"}

wrapper.graph @call(%x: memref<4xf32>, %y: memref<4xf32>) -> memref<4xf32> {
  %buf0 = wrapper.alloc() {name = "buf0"} : memref<4xf32>
  wrapper.call @add(%x, %y, %buf0) : memref<4xf32>, memref<4xf32>, memref<4xf32>
  wrapper.return %buf0 : memref<4xf32>
}
