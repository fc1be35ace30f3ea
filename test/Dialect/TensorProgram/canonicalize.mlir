// RUN: wrapper-opt %s --canonicalize --split-input-file | FileCheck %s

// Tests that x + (-0.0), x - 0.0, x * 1 and x / 1 fold to x.
// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]], %[[I]], %[[I]]
func.func @identities(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>) {
  %nz = tensor_program.constant dense<-0.0> : tensor<4xf32>
  %z = tensor_program.constant dense<0.0> : tensor<4xf32>
  %one = tensor_program.constant dense<1.0> : tensor<4xf32>
  %iz = tensor_program.constant dense<0> : tensor<4xi32>
  %ione = tensor_program.constant dense<1> : tensor<4xi32>
  %0 = tensor_program.add %x, %nz : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tensor_program.sub %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = tensor_program.mul %x, %one : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = tensor_program.div %x, %one : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = tensor_program.add %i, %iz : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %5 = tensor_program.mul %ione, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>
}

// -----

// Tests that x + 0.0 does not fold: it turns -0.0 into +0.0.
// CHECK-LABEL: func.func @plus_zero_is_not_identity
// CHECK: tensor_program.add
func.func @plus_zero_is_not_identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = tensor_program.constant dense<0.0> : tensor<4xf32>
  %0 = tensor_program.add %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that an identity that broadcasts x does not fold.
// CHECK-LABEL: func.func @broadcasting_identity
// CHECK: tensor_program.mul
func.func @broadcasting_identity(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  %one = tensor_program.constant dense<1.0> : tensor<2x4xf32>
  %0 = tensor_program.mul %x, %one : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that splat constants fold through add, sub and mul, with broadcasting.
// CHECK-LABEL: func.func @splats
// CHECK-DAG: %[[A:.*]] = tensor_program.constant dense<5.000000e+00> : tensor<2x4xf32>
// CHECK-DAG: %[[B:.*]] = tensor_program.constant dense<-1> : tensor<4xi32>
// CHECK: return %[[A]], %[[B]]
func.func @splats() -> (tensor<2x4xf32>, tensor<4xi32>) {
  %a = tensor_program.constant dense<2.0> : tensor<4xf32>
  %b = tensor_program.constant dense<3.0> : tensor<2x1xf32>
  %0 = tensor_program.add %a, %b : (tensor<4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %c = tensor_program.constant dense<2> : tensor<4xi32>
  %d = tensor_program.constant dense<3> : tensor<4xi32>
  %1 = tensor_program.sub %c, %d : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1 : tensor<2x4xf32>, tensor<4xi32>
}

// -----

// Tests that neg(neg(x)) and a cast to the same type fold to x.
// CHECK-LABEL: func.func @involutions
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @involutions(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tensor_program.neg %x : tensor<4xf32>
  %1 = tensor_program.neg %0 : tensor<4xf32>
  %2 = tensor_program.cast %x : tensor<4xf32> to tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that a static full becomes a splat constant, and a dynamic one stays.
// CHECK-LABEL: func.func @full
// CHECK-DAG: tensor_program.constant dense<2.500000e-01> : tensor<4xf16>
// CHECK-DAG: tensor_program.constant dense<3> : tensor<2xi8>
// CHECK-DAG: tensor_program.full 1.000000e+00 [%{{.*}}] : tensor<?xf32>
func.func @full(%n: index) -> (tensor<4xf16>, tensor<2xi8>, tensor<?xf32>) {
  %0 = tensor_program.full 0.25 : tensor<4xf16>
  %1 = tensor_program.full 3.0 : tensor<2xi8>
  %2 = tensor_program.full 1.0 [%n] : tensor<?xf32>
  return %0, %1, %2 : tensor<4xf16>, tensor<2xi8>, tensor<?xf32>
}

// -----

// Tests that no-op layout ops fold away.
// CHECK-LABEL: func.func @noop_layout
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @noop_layout(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = tensor_program.reshape %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = tensor_program.permute %x [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = tensor_program.broadcast %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = tensor_program.slice %x dim 1 start 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  %4 = tensor_program.concat %x dim 0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = tensor_program.pad %x low [0, 0] high [0, 0] value 1.0 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Tests that chains of reshapes and permutes collapse into one op.
// CHECK-LABEL: func.func @chains
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-DAG: %[[R:.*]] = tensor_program.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<24xf32>
// CHECK-DAG: %[[P:.*]] = tensor_program.permute %[[X]] [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK: return %[[R]], %[[P]]
func.func @chains(%x: tensor<2x3x4xf32>) -> (tensor<24xf32>, tensor<4x2x3xf32>) {
  %0 = tensor_program.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = tensor_program.reshape %0 : tensor<6x4xf32> -> tensor<24xf32>
  %2 = tensor_program.permute %x [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %3 = tensor_program.permute %2 [1, 2, 0] : tensor<3x4x2xf32> -> tensor<4x2x3xf32>
  return %1, %3 : tensor<24xf32>, tensor<4x2x3xf32>
}

// -----

// Tests that a slice that does not cover the dimension stays.
// CHECK-LABEL: func.func @partial_slice
// CHECK: tensor_program.slice
func.func @partial_slice(%x: tensor<4x8xf32>) -> tensor<4x7xf32> {
  %0 = tensor_program.slice %x dim 1 start 1 : tensor<4x8xf32> -> tensor<4x7xf32>
  return %0 : tensor<4x7xf32>
}

// -----

// A product by a matrix broadcast over the batch is a product by the matrix
// (aten.matmul's expand + bmm of a linear layer on a non-contiguous input),
// from either side; a broadcast that also expands the matrix's own
// dimensions, or whose removal would change the result, stays.
// CHECK-LABEL: func.func @product_of_broadcast_matrix
// CHECK-SAME: (%[[X:.*]]: tensor<197x2x768xf32>, %[[W:.*]]: tensor<768x64xf32>, %[[A:.*]]: tensor<5x6xf32>, %[[B:.*]]: tensor<3x6x4xf32>, %[[R:.*]]: tensor<1x64xf32>, %[[S:.*]]: tensor<6x4xf32>)
// CHECK: %[[P0:.*]] = tensor_program.matmul %[[X]], %[[W]] : (tensor<197x2x768xf32>, tensor<768x64xf32>) -> tensor<197x2x64xf32>
// CHECK: %[[P1:.*]] = tensor_program.matmul %[[X]], %[[W]] : (tensor<197x2x768xf32>, tensor<768x64xf32>) -> tensor<197x2x64xf32>
// CHECK: %[[P2:.*]] = tensor_program.matmul %[[A]], %[[B]] : (tensor<5x6xf32>, tensor<3x6x4xf32>) -> tensor<3x5x4xf32>
// CHECK: tensor_program.broadcast %[[R]]
// CHECK: tensor_program.batch_matmul
// CHECK: %[[BS:.*]] = tensor_program.broadcast %[[S]] : tensor<6x4xf32> -> tensor<3x6x4xf32>
// CHECK: tensor_program.matmul %[[A]], %[[BS]]
func.func @product_of_broadcast_matrix(%x: tensor<197x2x768xf32>, %w: tensor<768x64xf32>,
                                       %a: tensor<5x6xf32>, %b: tensor<3x6x4xf32>,
                                       %r: tensor<1x64xf32>, %s: tensor<6x4xf32>)
    -> (tensor<197x2x64xf32>, tensor<197x2x64xf32>, tensor<3x5x4xf32>, tensor<197x2x64xf32>, tensor<3x5x4xf32>) {
  %wb = tensor_program.broadcast %w : tensor<768x64xf32> -> tensor<197x768x64xf32>
  %0 = tensor_program.matmul %x, %wb : (tensor<197x2x768xf32>, tensor<197x768x64xf32>) -> tensor<197x2x64xf32>
  %1 = tensor_program.batch_matmul %x, %wb : (tensor<197x2x768xf32>, tensor<197x768x64xf32>) -> tensor<197x2x64xf32>
  %ab = tensor_program.broadcast %a : tensor<5x6xf32> -> tensor<3x5x6xf32>
  %2 = tensor_program.batch_matmul %ab, %b : (tensor<3x5x6xf32>, tensor<3x6x4xf32>) -> tensor<3x5x4xf32>
  %rb = tensor_program.broadcast %r : tensor<1x64xf32> -> tensor<197x768x64xf32>
  %3 = tensor_program.batch_matmul %x, %rb : (tensor<197x2x768xf32>, tensor<197x768x64xf32>) -> tensor<197x2x64xf32>
  %sb = tensor_program.broadcast %s : tensor<6x4xf32> -> tensor<3x6x4xf32>
  %4 = tensor_program.matmul %a, %sb : (tensor<5x6xf32>, tensor<3x6x4xf32>) -> tensor<3x5x4xf32>
  return %0, %1, %2, %3, %4 : tensor<197x2x64xf32>, tensor<197x2x64xf32>, tensor<3x5x4xf32>, tensor<197x2x64xf32>, tensor<3x5x4xf32>
}

// -----

// Tests flip's folds: dimensions of size 1 (or none) flipped, and the same
// dimensions flipped twice, are the input; other flips stay.
// CHECK-LABEL: func.func @flip_folds
// CHECK-SAME: (%[[X:.*]]: tensor<4x1x8xf32>)
// CHECK: %[[F:.*]] = tensor_program.flip %[[X]] [2] : tensor<4x1x8xf32>
// CHECK: %[[G:.*]] = tensor_program.flip %[[F]] [0] : tensor<4x1x8xf32>
// CHECK: return %[[X]], %[[X]], %[[X]], %[[G]]
func.func @flip_folds(%x: tensor<4x1x8xf32>) -> (tensor<4x1x8xf32>, tensor<4x1x8xf32>, tensor<4x1x8xf32>, tensor<4x1x8xf32>) {
  %0 = tensor_program.flip %x [1] : tensor<4x1x8xf32>
  %1 = tensor_program.flip %x [] : tensor<4x1x8xf32>
  %2 = tensor_program.flip %x [2, 0] : tensor<4x1x8xf32>
  %3 = tensor_program.flip %2 [0, 2] : tensor<4x1x8xf32>
  %4 = tensor_program.flip %x [2] : tensor<4x1x8xf32>
  %5 = tensor_program.flip %4 [0] : tensor<4x1x8xf32>
  return %0, %1, %3, %5 : tensor<4x1x8xf32>, tensor<4x1x8xf32>, tensor<4x1x8xf32>, tensor<4x1x8xf32>
}

// -----

// Tests that a reshape regrouping the leading dimensions of a transpose of
// the last two moves above it (the product then reads the transpose in
// place), with the dynamic sizes of the leading dimensions kept; and that it
// stays when the permute has another user, moves other dimensions, or the
// reshape changes the last two.
// CHECK-LABEL: func.func @reshape_of_last_two_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x5x7xf32>, %[[D:.*]]: tensor<?x3x5x7xf32>, %[[N:.*]]: index)
// CHECK: %[[R:.*]] = tensor_program.reshape %[[X]] : tensor<2x3x5x7xf32> -> tensor<6x5x7xf32>
// CHECK: %[[T:.*]] = tensor_program.permute %[[R]] [0, 2, 1] : tensor<6x5x7xf32> -> tensor<6x7x5xf32>
// CHECK: %[[RD:.*]] = tensor_program.reshape %[[D]] [%[[N]]] : tensor<?x3x5x7xf32> -> tensor<?x5x7xf32>
// CHECK: %[[TD:.*]] = tensor_program.permute %[[RD]] [0, 2, 1] : tensor<?x5x7xf32> -> tensor<?x7x5xf32>
// CHECK: %[[P1:.*]] = tensor_program.permute %[[X]] [0, 1, 3, 2]
// CHECK: tensor_program.reshape %[[P1]] : tensor<2x3x7x5xf32> -> tensor<6x7x5xf32>
// CHECK: %[[P2:.*]] = tensor_program.permute %[[X]] [1, 0, 3, 2]
// CHECK: tensor_program.reshape %[[P2]] : tensor<3x2x7x5xf32> -> tensor<6x7x5xf32>
// CHECK: %[[P3:.*]] = tensor_program.permute %[[X]] [0, 1, 3, 2]
// CHECK: tensor_program.reshape %[[P3]] : tensor<2x3x7x5xf32> -> tensor<2x3x35xf32>
func.func @reshape_of_last_two_transpose(%x: tensor<2x3x5x7xf32>, %d: tensor<?x3x5x7xf32>, %n: index)
    -> (tensor<6x7x5xf32>, tensor<?x7x5xf32>, tensor<6x7x5xf32>, tensor<2x3x7x5xf32>, tensor<6x7x5xf32>, tensor<2x3x35xf32>) {
  %t = tensor_program.permute %x [0, 1, 3, 2] : tensor<2x3x5x7xf32> -> tensor<2x3x7x5xf32>
  %r = tensor_program.reshape %t : tensor<2x3x7x5xf32> -> tensor<6x7x5xf32>
  %td = tensor_program.permute %d [0, 1, 3, 2] : tensor<?x3x5x7xf32> -> tensor<?x3x7x5xf32>
  %rd = tensor_program.reshape %td [%n] : tensor<?x3x7x5xf32> -> tensor<?x7x5xf32>
  %t1 = tensor_program.permute %x [0, 1, 3, 2] : tensor<2x3x5x7xf32> -> tensor<2x3x7x5xf32>
  %r1 = tensor_program.reshape %t1 : tensor<2x3x7x5xf32> -> tensor<6x7x5xf32>
  %t2 = tensor_program.permute %x [1, 0, 3, 2] : tensor<2x3x5x7xf32> -> tensor<3x2x7x5xf32>
  %r2 = tensor_program.reshape %t2 : tensor<3x2x7x5xf32> -> tensor<6x7x5xf32>
  %t3 = tensor_program.permute %x [0, 1, 3, 2] : tensor<2x3x5x7xf32> -> tensor<2x3x7x5xf32>
  %r3 = tensor_program.reshape %t3 : tensor<2x3x7x5xf32> -> tensor<2x3x35xf32>
  return %r, %rd, %r1, %t1, %r2, %r3 : tensor<6x7x5xf32>, tensor<?x7x5xf32>, tensor<6x7x5xf32>, tensor<2x3x7x5xf32>, tensor<6x7x5xf32>, tensor<2x3x35xf32>
}

// -----

// A permute of slices of a permute moves below the slices and composes with
// the permute there (a convolution's product transposed to NCHW, sliced,
// and transposed back by a weight gradient): the two cancel, leaving the
// slices of the product, with their dimensions permuted.
// CHECK-LABEL: func.func @permute_of_sliced_permute
// CHECK-SAME: (%[[X:.*]]: tensor<512x256x4x4xf32>, %[[Y:.*]]: tensor<2x3x4xf32>, %[[Z:.*]]: tensor<6x5xf32>)
// CHECK-DAG: %[[A:.*]] = tensor_program.slice %[[X]] dim 2 start 0 end 3 : tensor<512x256x4x4xf32> -> tensor<512x256x3x4xf32>
// CHECK-DAG: %[[B:.*]] = tensor_program.slice %[[A]] dim 3 start 0 end 3 : tensor<512x256x3x4xf32> -> tensor<512x256x3x3xf32>
// Not cancelling: one permute of the whole input, then the slice.
// CHECK-DAG: %[[P:.*]] = tensor_program.permute %[[Y]] [2, 1, 0] : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
// CHECK-DAG: %[[S:.*]] = tensor_program.slice %[[P]] dim 1 start 1 end 3 step 2 : tensor<4x3x2xf32> -> tensor<4x1x2xf32>
// Left: the slice has another user.
// CHECK-DAG: %[[T:.*]] = tensor_program.permute %[[Z]] [1, 0] : tensor<6x5xf32> -> tensor<5x6xf32>
// CHECK-DAG: %[[U:.*]] = tensor_program.slice %[[T]] dim 0 start 1 : tensor<5x6xf32> -> tensor<4x6xf32>
// CHECK-DAG: %[[V:.*]] = tensor_program.permute %[[U]] [1, 0] : tensor<4x6xf32> -> tensor<6x4xf32>
// CHECK: return %[[B]], %[[S]], %[[V]], %[[U]]
func.func @permute_of_sliced_permute(%x: tensor<512x256x4x4xf32>, %y: tensor<2x3x4xf32>, %z: tensor<6x5xf32>)
    -> (tensor<512x256x3x3xf32>, tensor<4x1x2xf32>, tensor<6x4xf32>, tensor<4x6xf32>) {
  %0 = tensor_program.permute %x [1, 0, 2, 3] : tensor<512x256x4x4xf32> -> tensor<256x512x4x4xf32>
  %1 = tensor_program.slice %0 dim 2 start 0 end 3 : tensor<256x512x4x4xf32> -> tensor<256x512x3x4xf32>
  %2 = tensor_program.slice %1 dim 3 start 0 end 3 : tensor<256x512x3x4xf32> -> tensor<256x512x3x3xf32>
  %3 = tensor_program.permute %2 [1, 0, 2, 3] : tensor<256x512x3x3xf32> -> tensor<512x256x3x3xf32>
  %4 = tensor_program.permute %y [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  %5 = tensor_program.slice %4 dim 2 start 1 end 3 step 2 : tensor<2x4x3xf32> -> tensor<2x4x1xf32>
  %6 = tensor_program.permute %5 [1, 2, 0] : tensor<2x4x1xf32> -> tensor<4x1x2xf32>
  %7 = tensor_program.permute %z [1, 0] : tensor<6x5xf32> -> tensor<5x6xf32>
  %8 = tensor_program.slice %7 dim 0 start 1 : tensor<5x6xf32> -> tensor<4x6xf32>
  %9 = tensor_program.permute %8 [1, 0] : tensor<4x6xf32> -> tensor<6x4xf32>
  return %3, %6, %9, %8 : tensor<512x256x3x3xf32>, tensor<4x1x2xf32>, tensor<6x4xf32>, tensor<4x6xf32>
}

// -----

// Tests that an elementwise op reads a static broadcast's input directly
// (it broadcasts its operands itself); a broadcast whose input would give
// the op another result type, or with dynamic sizes, stays.
// CHECK-LABEL: func.func @elementwise_of_broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<4x4x8x8xf32>, %[[M:.*]]: tensor<4x1x8x8xf32>, %[[B:.*]]: tensor<8xf32>, %[[N:.*]]: index, %[[C:.*]]: tensor<4x4x8x8xi1>)
// CHECK-NEXT: %[[A:.*]] = tensor_program.add %[[X]], %[[M]] : (tensor<4x4x8x8xf32>, tensor<4x1x8x8xf32>) -> tensor<4x4x8x8xf32>
// CHECK-NEXT: %[[W:.*]] = tensor_program.where %[[C]], %[[A]], %[[M]]
// CHECK-NEXT: %[[S:.*]] = tensor_program.broadcast %[[B]] : tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: %[[T:.*]] = tensor_program.mul %[[B]], %[[S]] : (tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %[[D:.*]] = tensor_program.broadcast %[[B]] [%[[N]]]
// CHECK-NEXT: tensor_program.mul %[[D]], %[[D]]
func.func @elementwise_of_broadcast(%x: tensor<4x4x8x8xf32>, %m: tensor<4x1x8x8xf32>, %b: tensor<8xf32>,
                                    %n: index, %c: tensor<4x4x8x8xi1>)
    -> (tensor<4x4x8x8xf32>, tensor<2x8xf32>, tensor<?x8xf32>) {
  %0 = tensor_program.broadcast %m : tensor<4x1x8x8xf32> -> tensor<4x4x8x8xf32>
  %1 = tensor_program.add %x, %0 : (tensor<4x4x8x8xf32>, tensor<4x4x8x8xf32>) -> tensor<4x4x8x8xf32>
  %2 = tensor_program.where %c, %1, %0 : (tensor<4x4x8x8xi1>, tensor<4x4x8x8xf32>, tensor<4x4x8x8xf32>) -> tensor<4x4x8x8xf32>
  // Both operands broadcast: the first must stay (the result is 2x8).
  %3 = tensor_program.broadcast %b : tensor<8xf32> -> tensor<2x8xf32>
  %4 = tensor_program.mul %3, %3 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %5 = tensor_program.broadcast %b [%n] : tensor<8xf32> -> tensor<?x8xf32>
  %6 = tensor_program.mul %5, %5 : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %2, %4, %6 : tensor<4x4x8x8xf32>, tensor<2x8xf32>, tensor<?x8xf32>
}
