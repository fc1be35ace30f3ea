// RUN: wrapper-opt %s --convert-tensor-program-to-linalg=parallel-scans=true | FileCheck %s --check-prefix=STEPS
// RUN: wrapper-opt %s --convert-tensor-program-to-linalg=parallel-scans=true \
// RUN:   | wrapper-opt --wrapper-cpu-codegen | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs | FileCheck %s
// RUN: wrapper-opt %s --convert-tensor-program-to-linalg \
// RUN:   | wrapper-opt --wrapper-cpu-codegen | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs | FileCheck %s

// cumsum in parallel form (what the CUDA pipeline asks for: a loop over
// the scanned dimension is a kernel launch per position there) computes
// what the sequential loop computes: both runs print the sums worked out
// by hand below. A static scan of at most 1024 positions is one
// elementwise generic, each element summing the positions up to it in a
// loop of its own; longer static scans unroll ceil(log2 n) steps (shifts
// 1, 2, 4, ... below n); a dynamic size loops over bitwidth(n - 1) of them.

// STEPS-LABEL: func.func @rows
// STEPS: linalg.generic
// STEPS-SAME: iterator_types = ["parallel", "parallel"]
// STEPS: %[[I:.*]] = linalg.index 1
// STEPS: %[[END:.*]] = arith.addi %[[I]], %c1
// STEPS: scf.for %[[J:.*]] = %c0 to %[[END]]
// STEPS: tensor.extract %{{.*}}[%{{.*}}, %[[J]]]
// STEPS: arith.addf
// STEPS-NOT: linalg.generic
// STEPS: return
func.func @rows(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = tensor_program.cumsum %x dim 1 : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// STEPS-LABEL: func.func @long_rows
// STEPS-NOT: scf.for
// STEPS-COUNT-11: linalg.generic
// STEPS-NOT: linalg.generic
// STEPS: return
func.func @long_rows(%x: tensor<2x1100xf32>) -> tensor<2x1100xf32> {
  %0 = tensor_program.cumsum %x dim 1 : tensor<2x1100xf32>
  return %0 : tensor<2x1100xf32>
}

// STEPS-LABEL: func.func @columns
// STEPS: math.ctlz
// STEPS: scf.for
// STEPS: arith.shli
// STEPS: linalg.generic
// STEPS: tensor.extract
// STEPS: tensor.insert_slice
// STEPS: scf.yield
func.func @columns(%x: tensor<?x3xi64>) -> tensor<?x3xi64> {
  %0 = tensor_program.cumsum %x dim 0 : tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI64(memref<*xi64>)

func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0], [0.5, -1.0, 2.0, 8.0, -4.0]]> : tensor<2x5xf32>
  %r = call @rows(%x) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %b0 = bufferization.to_buffer %r : tensor<2x5xf32> to memref<2x5xf32>
  %u0 = memref.cast %b0 : memref<2x5xf32> to memref<*xf32>
  // CHECK: [1,   3,   6,   10,   15],
  // CHECK-NEXT: [0.5,   -0.5,   1.5,   9.5,   5.5]]
  call @printMemrefF32(%u0) : (memref<*xf32>) -> ()
  %c = arith.constant dense<[[1, 10, 100], [2, 20, 200], [3, 30, 300], [4, 40, 400], [5, 50, 500]]> : tensor<5x3xi64>
  %d = tensor.cast %c : tensor<5x3xi64> to tensor<?x3xi64>
  %s = call @columns(%d) : (tensor<?x3xi64>) -> tensor<?x3xi64>
  %b1 = bufferization.to_buffer %s : tensor<?x3xi64> to memref<?x3xi64>
  %u1 = memref.cast %b1 : memref<?x3xi64> to memref<*xi64>
  // CHECK: [1,   10,   100],
  // CHECK-NEXT: [3,   30,   300],
  // CHECK-NEXT: [6,   60,   600],
  // CHECK-NEXT: [10,   100,   1000],
  // CHECK-NEXT: [15,   150,   1500]]
  call @printMemrefI64(%u1) : (memref<*xi64>) -> ()
  // One row: no step at all.
  %one = arith.constant dense<[[7, 8, 9]]> : tensor<1x3xi64>
  %od = tensor.cast %one : tensor<1x3xi64> to tensor<?x3xi64>
  %os = call @columns(%od) : (tensor<?x3xi64>) -> tensor<?x3xi64>
  %b2 = bufferization.to_buffer %os : tensor<?x3xi64> to memref<?x3xi64>
  %u2 = memref.cast %b2 : memref<?x3xi64> to memref<*xi64>
  // CHECK: {{\[}}[7,   8,   9]]
  call @printMemrefI64(%u2) : (memref<*xi64>) -> ()
  return
}
