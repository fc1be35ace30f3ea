// RUN: wrapper-opt %s --wrapper-lower-linalg-to-loops="vector-width=8 min-parallel-iterations=0" --canonicalize --cse --split-input-file | FileCheck %s
// RUN: wrapper-opt %s --wrapper-lower-linalg-to-loops="vector-width=16 min-parallel-iterations=0" --canonicalize --cse --split-input-file | FileCheck %s --check-prefix=AVX512
// RUN: wrapper-opt %s --wrapper-lower-linalg-to-loops="vectorize=false" --split-input-file | FileCheck %s --check-prefix=SCALAR

// The innermost loop of each kernel kind steps a vector at a time (16 f32
// lanes with vector-width=8: two AVX2 registers per step; 32, four
// registers, when the innermost loop is a reduction), full steps as
// vector ops; a remainder of static size is one shorter vector step, one of
// dynamic size a scalar loop.

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// Tests an elementwise kernel with a broadcast operand and a NaN-propagating
// max: 40 columns are two full steps of 16 and a remainder step of 8.
// CHECK-LABEL: func.func @bias_relu
// CHECK: scf.parallel
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK: vector.transfer_read {{.*}} : memref<1x16xf32, {{.*}}>, vector<1x16xf32>
// CHECK: vector.transfer_read {{.*}}permutation_map = {{.*}} : memref<16xf32, {{.*}}>, vector<1x16xf32>
// CHECK: arith.addf {{.*}} : vector<1x16xf32>
// CHECK: arith.maximumf {{.*}} : vector<1x16xf32>
// CHECK: vector.transfer_write {{.*}} : vector<1x16xf32>
// CHECK: }
// CHECK: arith.maximumf {{.*}} : vector<1x8xf32>
// CHECK-NOT: memref.load
// With AVX-512, one full step of 32 (no loop left) and the remainder.
// AVX512-LABEL: func.func @bias_relu
// AVX512: arith.maximumf {{.*}} : vector<1x32xf32>
// AVX512: arith.maximumf {{.*}} : vector<1x8xf32>
// SCALAR-LABEL: func.func @bias_relu
// SCALAR-NOT: vector.
// SCALAR: return
func.func @bias_relu(%x: memref<6x40xf32>, %b: memref<40xf32>, %y: memref<6x40xf32>) {
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<6x40xf32>, memref<40xf32>) outs(%y : memref<6x40xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %a = arith.addf %in, %bb : f32
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Tests a row sum of dynamic sizes: the accumulator is read once per row,
// carried through the vector loop as a whole vector started at -0.0 (the
// exact identity of a float sum), reduced horizontally once after the loop
// and written before the scalar remainder adds the last columns.
// CHECK-LABEL: func.func @row_sum
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<-0.000000e+00> : vector<1x32xf32>
// CHECK: scf.parallel
// CHECK: %[[ACC:.*]] = vector.transfer_read {{.*}} : memref<1xf32, {{.*}}>, vector<1xf32>
// CHECK: %[[SUMS:.*]] = scf.for {{.*}} step %c32 iter_args(%[[V:.*]] = %[[ZERO]]) -> (vector<1x32xf32>)
// CHECK: %[[X:.*]] = vector.transfer_read
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[V]] : vector<1x32xf32>
// CHECK: scf.yield %[[S]]
// CHECK: %[[R:.*]] = vector.multi_reduction <add>, %[[SUMS]], %[[ACC]] [1] : vector<1x32xf32> to vector<1xf32>
// CHECK: vector.transfer_write %[[R]]
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.addf {{.*}} : f32
func.func @row_sum(%x: memref<?x?xf32>, %s: memref<?xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xf32>) outs(%s : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  return
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#first = affine_map<(d0, d1, d2) -> (d0)>

// Tests a NaN-propagating max over two dimensions: the vector accumulator
// starts at -inf and combines with maximumf lane by lane.
// CHECK-LABEL: func.func @max_two_dims
// CHECK-DAG: %[[NEG:.*]] = arith.constant dense<0xFF800000> : vector<1x1x32xf32>
// CHECK: scf.for {{.*}} iter_args(%[[V:.*]] = %[[NEG]]) -> (vector<1x1x32xf32>)
// CHECK: arith.maximumf {{.*}}, %[[V]] : vector<1x1x32xf32>
// CHECK: vector.multi_reduction <maximumf>, {{.*}} [1, 2] : vector<1x1x32xf32> to vector<1xf32>
func.func @max_two_dims(%x: memref<4x?x?xf32>, %s: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id3, #first], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : memref<4x?x?xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.maximumf %out, %in : f32
    linalg.yield %a : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// Tests a column sum (reduction over dimension 0, kept sequential): each
// row adds a vector of columns into the accumulators lane by lane.
// CHECK-LABEL: func.func @column_sum
// CHECK-NOT: scf.parallel
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK: %[[X:.*]] = vector.transfer_read {{.*}} vector<1x16xf32>
// CHECK: %[[ACC:.*]] = vector.transfer_read {{.*}} vector<16xf32>
// CHECK: %[[XS:.*]] = vector.shape_cast %[[X]]
// CHECK: arith.addf %[[ACC]], %[[XS]] : vector<16xf32>
func.func @column_sum(%x: memref<64x40xf32>, %s: memref<40xf32>) {
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<64x40xf32>) outs(%s : memref<40xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// Tests a transpose: square tiles of one register's lanes along both
// loops (8 x 8, AVX512 16 x 16), the input read by one transposing
// transfer (contiguous rows of the input, transposed in registers) and
// written as contiguous rows; sizes that leave partial tiles (40 x 20)
// take the row loops there.
// CHECK-LABEL: func.func @transpose
// CHECK: scf.parallel {{.*}} step (%c8)
// CHECK: scf.for {{.*}} step %c8
// CHECK: vector.transfer_read {{.*}}permutation_map = {{.*}} : memref<8x8xf32, {{.*}}>, vector<8x8xf32>
// CHECK: vector.transfer_write {{.*}} : vector<8x8xf32>, memref<8x8xf32
// AVX512-LABEL: func.func @transpose
// AVX512: vector.transfer_read {{.*}}permutation_map = {{.*}} : memref<16x16xf32, {{.*}}>, vector<16x16xf32>
// AVX512: vector.transfer_write {{.*}} : vector<16x16xf32>, memref<16x16xf32
// CHECK-LABEL: func.func @transpose_partial
// CHECK: scf.for {{.*}} = %c0 to %c16 step %c8
// CHECK: vector.transfer_read {{.*}} : memref<8x8xf32, {{.*}}>, vector<8x8xf32>
// CHECK: scf.for {{.*}} = %c0 to %c8 step %c1
// CHECK: memref.load {{.*}} : memref<4x1xf32
func.func @transpose(%x: memref<32x64xf32>, %y: memref<64x32xf32>) {
  linalg.transpose ins(%x : memref<32x64xf32>) outs(%y : memref<64x32xf32>) permutation = [1, 0]
  return
}
func.func @transpose_partial(%x: memref<20x40xf32>, %y: memref<40x20xf32>) {
  linalg.transpose ins(%x : memref<20x40xf32>) outs(%y : memref<40x20xf32>) permutation = [1, 0]
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Tests casts: bf16 computed in f32 registers (16 lanes, as for f32).
// CHECK-LABEL: func.func @casts
// CHECK: arith.extf {{.*}} : vector<1x16xbf16> to vector<1x16xf32>
// CHECK: arith.mulf {{.*}} : vector<1x16xf32>
// CHECK: arith.truncf {{.*}} : vector<1x16xf32> to vector<1x16xbf16>
func.func @casts(%x: memref<?x48xbf16>, %y: memref<?x48xf32>, %z: memref<?x48xbf16>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x48xbf16>) outs(%y, %z : memref<?x48xf32>, memref<?x48xbf16>) {
  ^bb0(%in: bf16, %o: f32, %p: bf16):
    %e = arith.extf %in : bf16 to f32
    %m = arith.mulf %e, %e : f32
    %t = arith.truncf %m : f32 to bf16
    linalg.yield %m, %t : f32, bf16
  }
  return
}

// -----

// Tests f64: half the f32 lanes; a one-dimensional kernel's vector loop is
// the one spread over threads.
// CHECK-LABEL: func.func @f64
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c96) step (%c8)
// CHECK: math.exp {{.*}} : vector<8xf64>
// CHECK: math.exp {{.*}} : vector<4xf64>
func.func @f64(%x: memref<100xf64>, %y: memref<100xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : memref<100xf64>) outs(%y : memref<100xf64>) {
  ^bb0(%in: f64, %o: f64):
    %n = math.exp %in : f64
    linalg.yield %n : f64
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Tests what stays scalar: a contraction (the GEMM template's kind), an
// innermost dimension shorter than the fewest lanes (4), a buffer of i1 (a
// byte per element in memory, a bit per element in a vector).
// CHECK-LABEL: func.func @scalar
// CHECK-NOT: vector.
// CHECK: return
func.func @scalar(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %c: memref<16x16xf32>, %s: memref<8x3xf32>, %m: memref<64xi1>, %x: memref<64xf32>) {
  linalg.matmul ins(%a, %b : memref<16x16xf32>, memref<16x16xf32>) outs(%c : memref<16x16xf32>)
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%s : memref<8x3xf32>) {
  ^bb0(%o: f32):
    %n = arith.negf %o : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%m : memref<64xi1>) {
  ^bb0(%in: f32, %o: i1):
    %z = arith.constant 0.0 : f32
    %gt = arith.cmpf ogt, %in, %z : f32
    linalg.yield %gt : i1
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Rows shorter than the op's usual two registers step with fewer lanes (a
// power of two, at least 4): 16 lanes for rows of 16 and 4 for rows of 4.
// CHECK-LABEL: func.func @short_rows
// CHECK: arith.negf {{.*}} : vector<1x16xf32>
// CHECK: arith.negf {{.*}} : vector<1x4xf32>
// AVX512-LABEL: func.func @short_rows
// AVX512: arith.negf {{.*}} : vector<1x16xf32>
// AVX512: arith.negf {{.*}} : vector<1x4xf32>
func.func @short_rows(%a: memref<8x16xf32>, %b: memref<8x4xf32>) {
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%a : memref<8x16xf32>) {
  ^bb0(%o: f32):
    %n = arith.negf %o : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%b : memref<8x4xf32>) {
  ^bb0(%o: f32):
    %n = arith.negf %o : f32
    linalg.yield %n : f32
  }
  return
}
