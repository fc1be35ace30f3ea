// RUN: wrapper-opt %s --wrapper-specialize-contractions --cse --split-input-file | FileCheck %s
// RUN: wrapper-opt %s --wrapper-specialize-contractions="min-parallel-work=1" --split-input-file | FileCheck %s --check-prefix=RUNTIME
// RUN: wrapper-opt %s --wrapper-specialize-contractions="min-parallel-work=1 parallel=false" --split-input-file | FileCheck %s --check-prefix=SEQ

// A tile of a batched product (unit batch loops) and its elementwise
// consumer: the product becomes a 2-D linalg.matmul on rank-reducing views,
// the consumer a 2-D generic reading the same view of the product (its
// epilogue for the GEMM template).
// CHECK-LABEL: func.func @tile(
// CHECK-SAME: %[[A:.*]]: memref<1x1x32x32xf32, {{.*}}>, %[[B:.*]]: memref<1x1x32x128xf32, {{.*}}>, %[[BIAS:.*]]: memref<1x32x128xf32, {{.*}}>, %[[OUT:.*]]: memref<1x1x32x128xf32, {{.*}}>)
// CHECK: %[[ACC:.*]] = memref.alloca() {{.*}} : memref<1x1x32x128xf32>
// CHECK: linalg.fill {{.*}} outs(%[[ACC]] :
// CHECK-DAG: %[[A2:.*]] = memref.subview %[[A]][0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] {{.*}} to memref<32x32xf32
// CHECK-DAG: %[[B2:.*]] = memref.subview %[[B]][0, 0, 0, 0] [1, 1, 32, 128] [1, 1, 1, 1] {{.*}} to memref<32x128xf32
// CHECK-DAG: %[[C2:.*]] = memref.subview %[[ACC]][0, 0, 0, 0] [1, 1, 32, 128] [1, 1, 1, 1] {{.*}} to memref<32x128xf32
// CHECK: linalg.matmul ins(%[[A2]], %[[B2]] : {{.*}}) outs(%[[C2]] :
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[C2]], %{{.*}} : memref<32x128xf32
// CHECK-NOT: linalg.generic
func.func @tile(%a: memref<1x1x32x32xf32, strided<[16384, 4096, 32, 1], offset: ?>>, %b: memref<1x1x32x128xf32, strided<[16384, 4096, 128, 1], offset: ?>>, %bias: memref<1x32x128xf32, strided<[16384, 128, 1], offset: ?>>, %out: memref<1x1x32x128xf32, strided<[65536, 16384, 128, 1], offset: ?>>) {
  %scale = arith.constant 0.125 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %acc = memref.alloca() {alignment = 64 : i64} : memref<1x1x32x128xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x1x32x128xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : memref<1x1x32x32xf32, strided<[16384, 4096, 32, 1], offset: ?>>, memref<1x1x32x128xf32, strided<[16384, 4096, 128, 1], offset: ?>>) outs(%acc : memref<1x1x32x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc, %bias : memref<1x1x32x128xf32>, memref<1x32x128xf32, strided<[16384, 128, 1], offset: ?>>) outs(%out : memref<1x1x32x128xf32, strided<[65536, 16384, 128, 1], offset: ?>>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %scale : f32
    %s = arith.addf %m, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A product batched over two dimensions: a parallel loop over the batch
// (each 16x8x16 product is below min-parallel-work) of 2-D matmuls. With
// min-parallel-work=1, chosen at run time: the parallel loop when the 6
// products keep the threads busy (6 * 4 >= ceil(6 / t) * t * 3, more than
// one thread), else a sequential nest (the template parallelizes inside);
// with parallel=false, always the nest.
// CHECK-LABEL: func.func @batched(
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%c0, %c0) to (%c2, %c3) step (%c1, %c1)
// CHECK: memref.subview %arg0[%[[I]], %[[J]], 0, 0] [1, 1, 16, 8] [1, 1, 1, 1] : memref<2x3x16x8xf32> to memref<16x8xf32, strided<[8, 1], offset: ?>>
// CHECK: linalg.matmul
// CHECK-NOT: linalg.generic
// RUNTIME-LABEL: func.func @batched(
// RUNTIME: %[[T32:.*]] = call @omp_get_max_threads() : () -> i32
// RUNTIME: %[[T:.*]] = arith.index_cast %[[T32]] : i32 to index
// RUNTIME: %[[TH:.*]] = arith.maxsi %[[T]], %c1 : index
// RUNTIME: %[[N:.*]] = arith.muli %{{.*}}, %c3 : index
// RUNTIME: %[[ROUNDS:.*]] = arith.ceildivui %[[N]], %[[TH]] : index
// RUNTIME: %[[SLOTS:.*]] = arith.muli %[[ROUNDS]], %[[TH]] : index
// RUNTIME: %[[BUSY4:.*]] = arith.muli %[[N]], %c4 : index
// RUNTIME: %[[SLOTS3:.*]] = arith.muli %[[SLOTS]], %c3{{.*}} : index
// RUNTIME: %[[BUSY:.*]] = arith.cmpi uge, %[[BUSY4]], %[[SLOTS3]] : index
// RUNTIME: %[[SEVERAL:.*]] = arith.cmpi ugt, %[[TH]], %c1 : index
// RUNTIME: %[[COND:.*]] = arith.andi %[[BUSY]], %[[SEVERAL]] : i1
// RUNTIME: scf.if %[[COND]] {
// RUNTIME:   scf.parallel
// RUNTIME:     linalg.matmul
// RUNTIME: } else {
// RUNTIME:   scf.for
// RUNTIME:     scf.for
// RUNTIME:       linalg.matmul
// RUNTIME: func.func private @omp_get_max_threads() -> i32
// SEQ-LABEL: func.func @batched(
// SEQ-NOT: omp_get_max_threads
// SEQ-NOT: scf.parallel
// SEQ: scf.for
// SEQ: scf.for
// SEQ: linalg.matmul
// SEQ-NOT: omp_get_max_threads
func.func @batched(%a: memref<2x3x16x8xf32>, %b: memref<2x3x8x16xf32>, %c: memref<2x3x16x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : memref<2x3x16x8xf32>, memref<2x3x8x16xf32>) outs(%c : memref<2x3x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A batched product whose left operand is the same matrix for every batch
// element (a weight, as convolutions produce): each 2-D matmul reads the
// whole matrix and the batch element's slice of the other operand; with
// both operands shared it is not a batched product (left alone).
// CHECK-LABEL: func.func @shared_operand(
// CHECK: scf.parallel (%[[I:.*]]) = (%c0) to (%c3) step (%c1)
// CHECK: %[[B:.*]] = memref.subview %arg1[%[[I]], 0, 0] [1, 8, 16] [1, 1, 1] : memref<3x8x16xf32> to memref<8x16xf32, strided<[16, 1], offset: ?>>
// CHECK: %[[C:.*]] = memref.subview %arg2[%[[I]], 0, 0] [1, 4, 16] [1, 1, 1]
// CHECK: linalg.matmul ins(%arg0, %[[B]] : memref<4x8xf32>, memref<8x16xf32, strided<[16, 1], offset: ?>>) outs(%[[C]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg0, %arg3
func.func @shared_operand(%a: memref<4x8xf32>, %b: memref<3x8x16xf32>, %c: memref<3x4x16xf32>, %b2: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : memref<4x8xf32>, memref<3x8x16xf32>) outs(%c : memref<3x4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b2 : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<3x4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The named batch_matmul, with a dynamic batch.
// CHECK-LABEL: func.func @named(
// CHECK: %[[N:.*]] = memref.dim %arg2, %c0
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%[[N]])
// CHECK: linalg.matmul
// CHECK-NOT: linalg.batch_matmul
func.func @named(%a: memref<?x4x8xf32>, %b: memref<?x8x4xf32>, %c: memref<?x4x4xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<?x4x8xf32>, memref<?x8x4xf32>) outs(%c : memref<?x4x4xf32>)
  return
}

// -----

// Left alone: an f64 product, a product on tensors. A batched product that
// reads an operand transposed is split like the others, its matrices
// subviews of a transposed view of the operand.
// CHECK-LABEL: func.func @refused(
// CHECK: linalg.batch_matmul ins(%arg0, %arg1 : memref<2x4x8xf64>
// CHECK: %[[T:.*]] = memref.transpose %arg3 (d0, d1, d2) -> (d0, d2, d1) : memref<2x8x4xf32> to memref<2x4x8xf32, strided<[32, 1, 4]>>
// CHECK: scf.parallel
// CHECK: %[[A:.*]] = memref.subview %[[T]][%{{.*}}, 0, 0] [1, 4, 8] [1, 1, 1] : memref<2x4x8xf32, strided<[32, 1, 4]>> to memref<4x8xf32, strided<[1, 4], offset: ?>>
// CHECK: linalg.matmul ins(%[[A]], %{{.*}} : memref<4x8xf32, strided<[1, 4], offset: ?>>, memref<8x4xf32, strided<[4, 1], offset: ?>>)
// CHECK-NOT: linalg.generic
// CHECK: linalg.batch_matmul ins(%arg4, %arg5 : tensor<2x4x8xf32>
func.func @refused(%a: memref<2x4x8xf64>, %b: memref<2x8x4xf64>, %c: memref<2x4x4xf64>,
                   %t: memref<2x8x4xf32>, %ta: tensor<2x4x8xf32>, %tb: tensor<2x8x4xf32>,
                   %tc: tensor<2x4x4xf32>, %tt: memref<2x4x4xf32>) -> tensor<2x4x4xf32> {
  linalg.batch_matmul ins(%a, %b : memref<2x4x8xf64>, memref<2x8x4xf64>) outs(%c : memref<2x4x4xf64>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%t, %t : memref<2x8x4xf32>, memref<2x8x4xf32>) outs(%tt : memref<2x4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  %r = linalg.batch_matmul ins(%ta, %tb : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%tc : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %r : tensor<2x4x4xf32>
}

// -----

// A 2-D matmul that reads B transposed through its maps reads a transposed
// view of B instead (with the default maps, for the GEMM template), keeping
// its recorded blocking; one on tensors keeps its maps.
// CHECK-LABEL: func.func @transposed_b(
// CHECK-SAME: %[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<6x8xf32>, %[[C:.*]]: memref<4x6xf32>
// CHECK: %[[BT:.*]] = memref.transpose %[[B]] (d0, d1) -> (d1, d0) : memref<6x8xf32> to memref<8x6xf32, strided<[1, 8]>>
// CHECK: linalg.matmul {wrapper.gemm_blocking = {kc = 8 : i64, mc = 4 : i64, mr = 4 : i64, nc = 32 : i64, nr = 32 : i64, vl = 16 : i64}} ins(%[[A]], %[[BT]] : memref<4x8xf32>, memref<8x6xf32, strided<[1, 8]>>) outs(%[[C]] : memref<4x6xf32>)
// CHECK: linalg.matmul indexing_maps = {{.*}} -> tensor<4x6xf32>
func.func @transposed_b(%a: memref<4x8xf32>, %b: memref<6x8xf32>, %c: memref<4x6xf32>,
                        %ta: tensor<4x8xf32>, %tb: tensor<6x8xf32>, %tc: tensor<4x6xf32>) -> tensor<4x6xf32> {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<4x8xf32>, memref<6x8xf32>) outs(%c : memref<4x6xf32>) {wrapper.gemm_blocking = {kc = 8 : i64, mc = 4 : i64, mr = 4 : i64, nc = 32 : i64, nr = 32 : i64, vl = 16 : i64}}
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%ta, %tb : tensor<4x8xf32>, tensor<6x8xf32>) outs(%tc : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// A product of one batch element that reads B transposed loses its batch
// loop and reads a transposed view of B (upstream's specialization alone
// would take its maps for a plain matmul's).
// CHECK-LABEL: func.func @unit_batch_transposed_b(
// CHECK-SAME: %[[A:.*]]: memref<1x4x8xf32>, %[[B:.*]]: memref<1x6x8xf32>, %[[C:.*]]: memref<1x4x6xf32>
// CHECK: %[[BS:.*]] = memref.subview %[[B]][0, 0, 0] [1, 6, 8] [1, 1, 1] : memref<1x6x8xf32> to memref<6x8xf32
// CHECK: %[[BT:.*]] = memref.transpose %[[BS]] (d0, d1) -> (d1, d0)
// CHECK: linalg.matmul ins(%{{.*}}, %[[BT]] : memref<4x8xf32{{.*}}>, memref<8x6xf32, strided<[1, 8]>>)
// CHECK-NOT: linalg.generic
func.func @unit_batch_transposed_b(%a: memref<1x4x8xf32>, %b: memref<1x6x8xf32>, %c: memref<1x4x6xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : memref<1x4x8xf32>, memref<1x6x8xf32>) outs(%c : memref<1x4x6xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A batched product with a shared A (a 1x1 convolution, one product per
// image), the zero fill of its buffer before it and an elementwise
// consumer after it (a bias broadcast over the batch and n): the fill and
// the consumer's slice for each image go into the loop with that image's
// product (the GEMM template then drops the fill and fuses the slice as
// its epilogue), instead of a fill and a pass over the whole batch.
// CHECK-LABEL: func.func @batch_fill_and_consumer(
// CHECK-SAME: %[[A:.*]]: memref<6x4xf32>, %[[B:.*]]: memref<3x4x32xf32>, %[[BIAS:.*]]: memref<6x1xf32>, %[[OUT:.*]]: memref<3x6x32xf32>)
// CHECK: %[[C:.*]] = memref.alloc() : memref<3x6x32xf32>
// CHECK-NOT: linalg.fill
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: %[[CI:.*]] = memref.subview %[[C]][%[[I]], 0, 0] [1, 6, 32] [1, 1, 1] : memref<3x6x32xf32> to memref<6x32xf32
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[CI]] :
// CHECK: linalg.matmul ins(%[[A]], %{{.*}} : memref<6x4xf32>, memref<4x32xf32, {{.*}}>) outs(%[[CI]] :
// CHECK: %[[OI:.*]] = memref.subview %[[OUT]][%[[I]], 0, 0] [1, 6, 32] [1, 1, 1] : memref<3x6x32xf32> to memref<6x32xf32
// CHECK: linalg.generic {indexing_maps = [#[[ID:.*]], #[[ROW:.*]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[CI]], %[[BIAS]] : {{.*}}, memref<6x1xf32>) outs(%[[OI]] :
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: memref.dealloc %[[C]]
// CHECK-NOT: linalg.generic
func.func @batch_fill_and_consumer(%a: memref<6x4xf32>, %b: memref<3x4x32xf32>, %bias: memref<6x1xf32>, %out: memref<3x6x32xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %c = memref.alloc() : memref<3x6x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<3x6x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : memref<6x4xf32>, memref<3x4x32xf32>) outs(%c : memref<3x6x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c, %bias : memref<3x6x32xf32>, memref<6x1xf32>) outs(%out : memref<3x6x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %c : memref<3x6x32xf32>
  return
}

// -----

// The consumer written in place (into the product's buffer, read later by
// a copy): its slices write the same subviews they read.
// CHECK-LABEL: func.func @batch_consumer_in_place(
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: %[[CI:.*]] = memref.subview %{{.*}}[%[[I]], 0, 0] [1, 6, 32]
// CHECK: linalg.matmul {{.*}} outs(%[[CI]] :
// CHECK: linalg.generic {{.*}} ins(%[[CI]] : {{.*}}) outs(%[[CI]] :
// CHECK: memref.copy
func.func @batch_consumer_in_place(%a: memref<6x4xf32>, %b: memref<3x4x32xf32>, %out: memref<3x6x32xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %c = memref.alloc() : memref<3x6x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<3x6x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : memref<6x4xf32>, memref<3x4x32xf32>) outs(%c : memref<3x6x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c : memref<3x6x32xf32>) outs(%c : memref<3x6x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  memref.copy %c, %out : memref<3x6x32xf32> to memref<3x6x32xf32>
  memref.dealloc %c : memref<3x6x32xf32>
  return
}

// -----

// Consumers that stay after the loop: one reading the product other than
// element for element (transposed; the template's epilogue reads it at
// (m, n)), and one writing an operand of the product (a later matrix of
// the batch would read what an earlier one's slice wrote). The fill still
// goes along.
// CHECK-LABEL: func.func @batch_consumer_kept(
// CHECK: scf.parallel
// CHECK:   linalg.fill
// CHECK:   linalg.matmul
// CHECK-NOT: linalg.generic
// CHECK: scf.reduce
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]
// CHECK: scf.parallel
// CHECK:   linalg.matmul
// CHECK-NOT: linalg.generic
// CHECK: scf.reduce
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]
func.func @batch_consumer_kept(%a: memref<6x4xf32>, %b: memref<3x4x6xf32>, %a6: memref<6x6xf32>, %out: memref<3x6x6xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %c = memref.alloc() : memref<3x6x6xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<3x6x6xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : memref<6x4xf32>, memref<3x4x6xf32>) outs(%c : memref<3x6x6xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c : memref<3x6x6xf32>) outs(%out : memref<3x6x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  %c2 = memref.alloc() : memref<3x6x6xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a6, %out : memref<6x6xf32>, memref<3x6x6xf32>) outs(%c2 : memref<3x6x6xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c2 : memref<3x6x6xf32>) outs(%out : memref<3x6x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  memref.dealloc %c : memref<3x6x6xf32>
  memref.dealloc %c2 : memref<3x6x6xf32>
  return
}
