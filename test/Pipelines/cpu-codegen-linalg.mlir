// RUN: wrapper-opt %s --wrapper-cpu-codegen | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs | FileCheck %s

// Tests that --wrapper-cpu-codegen takes an upstream linalg-on-tensors
// program (no tensor_program) and runs it: a 2x3 by 3x2 matmul plus a bias.
//   [[1,2,3],[4,5,6]] @ [[1,0],[0,1],[1,1]] = [[4,5],[10,11]]; + [0.5, -1]

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %a = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = arith.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %bias = arith.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  %e2 = tensor.empty() : tensor<2x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<2x2xf32>, tensor<2xf32>) outs(%e2 : tensor<2x2xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  %m = bufferization.to_buffer %r : tensor<2x2xf32> to memref<2x2xf32>
  %u = memref.cast %m : memref<2x2xf32> to memref<*xf32>
  // CHECK: [4.5,   4]
  // CHECK: [10.5,   10]
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
