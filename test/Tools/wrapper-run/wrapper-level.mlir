// Tests that wrapper-run runs a wrapper-level module: a host graph and its
// kernel, written by hand. Its output is compared with the same computation
// written in tensor_program and run through the interpreter.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: wrapper-run %S/Inputs/add-relu.mlir --interpret --print=false --seed=4 --save-inputs=%t/in_ --save=%t/ref_
// RUN: wrapper-run %s --input=%t/in_0.npy --input=%t/in_1.npy --compare=%t/ref_0.npy --print=false | FileCheck %s
// CHECK: output #0 vs {{.*}}ref_0.npy: max abs error 0, max rel error 0 (rtol 0.0001, atol 1e-05): ok
// RUN: not wrapper-run %s --verify 2>&1 | FileCheck %s --check-prefix=NOORACLE
// NOORACLE: wrapper-run: error: the reference interpreter runs tensor_program functions, not wrapper graphs; use --compare with reference files
// RUN: not wrapper-run %S/Inputs/two-entries.mlir 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
// AMBIGUOUS: wrapper-run: error: the module has 2 entry candidates (function f, graph g); name one with --entry
// RUN: wrapper-run %S/Inputs/two-entries.mlir --entry=g --input=%t/in_0.npy --compare=%t/in_0.npy --print=false | FileCheck %s --check-prefix=PICKED
// PICKED: output #0 vs {{.*}}in_0.npy: max abs error 0

func.func private @add_relu_impl(%a: memref<4x8xf32>, %b: memref<8xf32>, %out: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<4x8xf32>, memref<8xf32>) outs(%out : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  }
  return
}
wrapper.kernel @add_relu = @add_relu_impl metadata {kind = "pointwise"}

wrapper.graph @main(%a: memref<4x8xf32>, %b: memref<8xf32>) -> memref<4x8xf32> {
  wrapper.comment "Source nodes: add, relu"
  %buf0 = wrapper.alloc() {name = "buf0"} : memref<4x8xf32>
  wrapper.call @add_relu(%a, %b, %buf0) : memref<4x8xf32>, memref<8xf32>, memref<4x8xf32>
  wrapper.return %buf0 : memref<4x8xf32>
}
