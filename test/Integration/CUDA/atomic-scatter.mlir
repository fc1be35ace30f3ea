// RUN: wrapper-opt %s --wrapper-cuda-pipeline="device-arguments=true" | FileCheck %s
// RUN: wrapper-opt %s --wrapper-cuda-pipeline="device-arguments=true" --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUFFERS
// RUN: %if cuda-runtime %{ wrapper-run %s --target=cuda --verify --print=false --seed 5 --dynamic-size=37 | FileCheck %s --check-prefix=EXEC %}
// A scatter that adds over repeated indices (an embedding's backward: the
// rows of the gradient added into the rows their tokens name, 37 tokens
// into 16 rows) is a parallel kernel of atomic adds on CUDA
// (convert-tensor-program-to-linalg's atomic-scatter-add; the sequential
// loop nest it is on the CPU would be host code), f32 and i32 alike.
// CHECK-LABEL: llvm.func @main(
// CHECK-NOT: scf.for
// CHECK: gpu.launch_func
// CHECK: llvm.return
// CHECK: gpu.binary {{.*}}atom.global.add.f32
// CHECK: gpu.binary {{.*}}atom.global.add.u32
// Bufferized in place (into the zeros, the counts' copy): a parallel loop
// over the index, each element added atomically at its clamped row.
// BUFFERS-LABEL: IR Dump After OneShotBufferizePass
// BUFFERS: scf.parallel (%[[J:.*]], %[[C:.*]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}}) step
// BUFFERS: %[[AT:.*]] = memref.load %{{.*}}[%[[J]], %[[C]]] : memref<?x8xi64>
// BUFFERS: %[[V:.*]] = memref.load %{{.*}}[%[[J]], %[[C]]] : memref<?x8xf32>
// BUFFERS: arith.index_cast %[[AT]]
// BUFFERS: %[[ROW:.*]] = arith.minsi
// BUFFERS: memref.atomic_rmw addf %[[V]], %{{.*}}[%[[ROW]], %[[C]]] : (f32, memref<16x8xf32>) -> f32
// BUFFERS: memref.atomic_rmw addi
// On the GPU, against the reference interpreter:
// EXEC-COUNT-2: vs interpreter: {{.*}}: ok
func.func @main(%grad: tensor<?x8xf32>, %counts: tensor<16x8xi32>) -> (tensor<16x8xf32>, tensor<16x8xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %grad, %c0 : tensor<?x8xf32>
  %rows = tensor_program.iota dim 0 [%n] : tensor<?x8xi64>
  %seven = tensor_program.constant dense<7> : tensor<i64>
  %sixteen = tensor_program.constant dense<16> : tensor<i64>
  %r = tensor_program.mul %rows, %seven : (tensor<?x8xi64>, tensor<i64>) -> tensor<?x8xi64>
  %token = tensor_program.remainder %r, %sixteen : (tensor<?x8xi64>, tensor<i64>) -> tensor<?x8xi64>
  %zero = tensor_program.full 0.0 : tensor<16x8xf32>
  %g = tensor_program.scatter %zero, %token, %grad dim 0 reduce add : (tensor<16x8xf32>, tensor<?x8xi64>, tensor<?x8xf32>) -> tensor<16x8xf32>
  %ones = tensor_program.full 1.0 [%n] : tensor<?x8xi32>
  %c = tensor_program.scatter %counts, %token, %ones dim 0 reduce add : (tensor<16x8xi32>, tensor<?x8xi64>, tensor<?x8xi32>) -> tensor<16x8xi32>
  return %g, %c : tensor<16x8xf32>, tensor<16x8xi32>
}
