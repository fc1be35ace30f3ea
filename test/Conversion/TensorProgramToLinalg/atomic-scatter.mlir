// RUN: wrapper-opt %s --convert-tensor-program-to-linalg=atomic-scatter-add=true | FileCheck %s --check-prefix=KEEP
// RUN: wrapper-opt %s --convert-tensor-program-to-linalg | FileCheck %s --check-prefix=DEFAULT

// With atomic-scatter-add, a scatter that adds f32 values over repeated
// indices (an embedding's backward) stays for bufferization; a row scatter
// (a parallel select), a scatter without reduction, one that takes the
// maximum and one of bf16 values are lowered as always.
// KEEP-LABEL: func.func @embedding_backward
// KEEP: tensor_program.scatter %{{.*}} dim 0 reduce add
// KEEP-LABEL: func.func @lowered
// KEEP-NOT: tensor_program.scatter
// KEEP: return

// (Bufferized as parallel atomic adds: test/Integration/CUDA/atomic-scatter.mlir.)

// DEFAULT-LABEL: func.func @embedding_backward
// DEFAULT-NOT: tensor_program.scatter
// DEFAULT: scf.for
func.func @embedding_backward(%grad: tensor<10x4xf32>, %index: tensor<6x4xi64>, %src: tensor<6x4xf32>) -> tensor<10x4xf32> {
  %0 = tensor_program.scatter %grad, %index, %src dim 0 reduce add : (tensor<10x4xf32>, tensor<6x4xi64>, tensor<6x4xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

func.func @lowered(%x: tensor<10x4xf32>, %rows: tensor<10x1xi64>, %v: tensor<10x1xf32>,
                   %index: tensor<6x4xi64>, %src: tensor<6x4xf32>,
                   %h: tensor<10x4xbf16>, %hs: tensor<6x4xbf16>)
    -> (tensor<10x4xf32>, tensor<10x4xf32>, tensor<10x4xf32>, tensor<10x4xbf16>) {
  %0 = tensor_program.scatter %x, %rows, %v dim 1 reduce add : (tensor<10x4xf32>, tensor<10x1xi64>, tensor<10x1xf32>) -> tensor<10x4xf32>
  %1 = tensor_program.scatter %x, %index, %src dim 0 : (tensor<10x4xf32>, tensor<6x4xi64>, tensor<6x4xf32>) -> tensor<10x4xf32>
  %2 = tensor_program.scatter %x, %index, %src dim 0 reduce max : (tensor<10x4xf32>, tensor<6x4xi64>, tensor<6x4xf32>) -> tensor<10x4xf32>
  %3 = tensor_program.scatter %h, %index, %hs dim 0 reduce add : (tensor<10x4xbf16>, tensor<6x4xi64>, tensor<6x4xbf16>) -> tensor<10x4xbf16>
  return %0, %1, %2, %3 : tensor<10x4xf32>, tensor<10x4xf32>, tensor<10x4xf32>, tensor<10x4xbf16>
}
