// RUN: wrapper-opt %s --wrapper-cuda-matmul-to-cublas --split-input-file | FileCheck %s
// RUN: wrapper-opt %s --wrapper-cuda-matmul-to-cublas=allow-tf32 --split-input-file | FileCheck %s --check-prefix=TF32
// RUN: wrapper-opt %s --wrapper-cuda-matmul-to-cublas=allow-tf32-convolutions --split-input-file | FileCheck %s --check-prefix=CONV

// A matmul after a zero fill of its output: one call, beta 0 (flags 0), the
// fill folded in; dtypes f32 | f32 << 8 | f32 << 16 = 460551. The runtime
// function is declared once, marked stream-ordered.
// CHECK: func.func private @wrapperCudaGemm(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, i32) attributes {wrapper.cuda_stream_ordered}
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: memref<64x128xf32>, %[[B:.*]]: memref<128x32xf32>, %[[C:.*]]: memref<64x32xf32>)
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[M:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 32 : i64
// CHECK-DAG: %[[K:.*]] = arith.constant 128 : i64
// CHECK-DAG: %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK-DAG: %[[PB:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
// CHECK-DAG: %[[PC:.*]] = memref.extract_aligned_pointer_as_index %[[C]]
// CHECK-DAG: %[[DT:.*]] = arith.constant 460551 : i32
// CHECK-DAG: %[[FL:.*]] = arith.constant 0 : i32
// CHECK: call @wrapperCudaGemm(%[[ONE]], %[[M]], %[[N]], %[[K]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[DT]], %[[FL]])
// CHECK-NOT: linalg.matmul
// TF32-LABEL: func.func @matmul
// TF32: %[[FL:.*]] = arith.constant 8 : i32
// TF32: call @wrapperCudaGemm({{.*}}, %[[FL]])
func.func @matmul(%a: memref<64x128xf32>, %b: memref<128x32xf32>, %c: memref<64x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x32xf32>)
  linalg.matmul ins(%a, %b : memref<64x128xf32>, memref<128x32xf32>) outs(%c : memref<64x32xf32>)
  return
}

// -----

// Without the fill, the product accumulates (flags 4); dynamic sizes come
// from memref.dim.
// CHECK-LABEL: func.func @accumulate
// CHECK: %[[M:.*]] = memref.dim %{{.*}}, %c0
// CHECK: arith.index_cast %[[M]] : index to i64
// CHECK: %[[FL:.*]] = arith.constant 4 : i32
// CHECK: call @wrapperCudaGemm({{.*}}, %[[FL]])
func.func @accumulate(%a: memref<?x16xf32>, %b: memref<16x8xf32>, %c: memref<?x8xf32>) {
  linalg.matmul ins(%a, %b : memref<?x16xf32>, memref<16x8xf32>) outs(%c : memref<?x8xf32>)
  return
}

// -----

// A batch_matmul: batch 3, strides m*k, k*n, m*n.
// CHECK-LABEL: func.func @batch
// CHECK-DAG: %[[BATCH:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[SA:.*]] = arith.constant 35 : i64
// CHECK-DAG: %[[SB:.*]] = arith.constant 28 : i64
// CHECK-DAG: %[[SC:.*]] = arith.constant 20 : i64
// CHECK: call @wrapperCudaGemm(%[[BATCH]], {{.*}}, %[[SA]], %{{.*}}, %[[SB]], %{{.*}}, %[[SC]],
func.func @batch(%a: memref<3x5x7xf32>, %b: memref<3x7x4xf32>, %c: memref<3x5x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<3x5x4xf32>)
  linalg.batch_matmul ins(%a, %b : memref<3x5x7xf32>, memref<3x7x4xf32>) outs(%c : memref<3x5x4xf32>)
  return
}

// -----

// A bf16 contraction generic accumulating in f32 (as tensor_program's
// bf16 matmul lowers), with the rhs shared by all batches (stride 0) and
// transposed ([n, k]: flags 2): dtypes bf16 | bf16 << 8 | f32 << 16 =
// 461065.
#lhs = affine_map<(b, m, n, k) -> (b, m, k)>
#rhs = affine_map<(b, m, n, k) -> (n, k)>
#out = affine_map<(b, m, n, k) -> (b, m, n)>
// CHECK-LABEL: func.func @bf16_shared_transposed
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[DT:.*]] = arith.constant 461065 : i32
// CHECK-DAG: %[[FL:.*]] = arith.constant 2 : i32
// CHECK: call @wrapperCudaGemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]], %{{.*}}, %{{.*}}, %[[DT]], %[[FL]])
// CHECK-NOT: linalg.generic
func.func @bf16_shared_transposed(%a: memref<2x5x7xbf16>, %b: memref<4x7xbf16>, %c: memref<2x5x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<2x5x4xf32>)
  linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<2x5x7xbf16>, memref<4x7xbf16>) outs(%c : memref<2x5x4xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left alone: integer products, strided views, a body that is not a
// product's, a fill of another value (the product accumulates onto it),
// and batch dimensions broadcast differently in the operands.
// CHECK-LABEL: func.func @left_alone
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x4xi32>, memref<4x4xi32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x4xf32, strided<[8, 1]>>, memref<4x4xf32>)
// CHECK: linalg.generic
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[OUT:.*]] : memref<4x4xf32>)
// CHECK: %[[FL:.*]] = arith.constant 4 : i32
// CHECK: call @wrapperCudaGemm({{.*}}, %[[FL]])
// CHECK: linalg.generic
#bl = affine_map<(b0, b1, m, n, k) -> (b0, 0, m, k)>
#br = affine_map<(b0, b1, m, n, k) -> (b1, k, n)>
#bo = affine_map<(b0, b1, m, n, k) -> (b0, b1, m, n)>
#l2 = affine_map<(m, n, k) -> (m, k)>
#r2 = affine_map<(m, n, k) -> (k, n)>
#o2 = affine_map<(m, n, k) -> (m, n)>
func.func @left_alone(%i: memref<4x4xi32>, %s: memref<4x4xf32, strided<[8, 1]>>, %f: memref<4x4xf32>, %o: memref<4x4xf32>,
                      %q: memref<2x1x5x7xf32>, %r: memref<3x7x4xf32>, %t: memref<2x3x5x4xf32>) {
  linalg.matmul ins(%i, %i : memref<4x4xi32>, memref<4x4xi32>) outs(%i : memref<4x4xi32>)
  linalg.matmul ins(%s, %f : memref<4x4xf32, strided<[8, 1]>>, memref<4x4xf32>) outs(%o : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#l2, #r2, #o2], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%f, %f : memref<4x4xf32>, memref<4x4xf32>) outs(%o : memref<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s2 = arith.maximumf %acc, %p : f32
    linalg.yield %s2 : f32
  }
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%o : memref<4x4xf32>)
  linalg.matmul ins(%f, %f : memref<4x4xf32>, memref<4x4xf32>) outs(%o : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#bl, #br, #bo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %r : memref<2x1x5x7xf32>, memref<3x7x4xf32>) outs(%t : memref<2x3x5x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s3 = arith.addf %acc, %p : f32
    linalg.yield %s3 : f32
  }
  return
}

// -----

// A convolution's product (tensor_program.convolution) takes TF32 under
// allow-tf32-convolutions (flags 8); the unmarked product beside it only
// under allow-tf32.
// CHECK-LABEL: func.func @convolution_product
// CHECK: call @wrapperCudaGemm({{.*}}, %c0_i32{{[_0-9]*}})
// CHECK: call @wrapperCudaGemm({{.*}}, %c0_i32{{[_0-9]*}})
// TF32-LABEL: func.func @convolution_product
// TF32: call @wrapperCudaGemm({{.*}}, %c8_i32{{[_0-9]*}})
// TF32: call @wrapperCudaGemm({{.*}}, %c8_i32{{[_0-9]*}})
// CONV-LABEL: func.func @convolution_product
// CONV: call @wrapperCudaGemm({{.*}}, %c8_i32{{[_0-9]*}})
// CONV: call @wrapperCudaGemm({{.*}}, %c0_i32{{[_0-9]*}})
func.func @convolution_product(%w: memref<8x27xf32>, %cols: memref<27x50xf32>, %out: memref<8x50xf32>,
                               %a: memref<8x27xf32>, %b: memref<27x50xf32>, %c: memref<8x50xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<8x50xf32>)
  linalg.matmul {tensor_program.convolution} ins(%w, %cols : memref<8x27xf32>, memref<27x50xf32>) outs(%out : memref<8x50xf32>)
  linalg.fill ins(%zero : f32) outs(%c : memref<8x50xf32>)
  linalg.matmul ins(%a, %b : memref<8x27xf32>, memref<27x50xf32>) outs(%c : memref<8x50xf32>)
  return
}

// -----

// bf16 operands into a zero-filled f32 scratch buffer that is only rounded
// back to bf16 by its readers: cuBLAS writes bf16 (dtypes 9 | 9 << 8 |
// 9 << 16 = 592137; f32 accumulation, one rounding) into a bf16 buffer that
// replaces the scratch one, and the reader takes it without its truncf.
// CHECK-LABEL: func.func @narrow_accumulator
// CHECK-SAME: %[[OUT:[a-z0-9]+]]: memref<8x16xbf16>)
// CHECK-NOT: linalg.fill
// CHECK: %[[NARROW:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x16xbf16>
// CHECK-NOT: memref<8x16xf32>
// CHECK: %[[PC:.*]] = memref.extract_aligned_pointer_as_index %[[NARROW]]
// CHECK: call @wrapperCudaGemm({{.*}}, %c592137_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}})
// CHECK: linalg.generic {{.*}} ins(%[[NARROW]], %{{.*}} : memref<8x16xbf16>, memref<16xbf16>) outs(%[[OUT]]
// CHECK-NEXT: ^bb0(%[[IN:.*]]: bf16, %[[BIAS:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: arith.extf %[[IN]]
// CHECK: memref.dealloc %[[NARROW]] : memref<8x16xbf16>
#id2 = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
func.func @narrow_accumulator(%a: memref<8x32xbf16>, %b: memref<32x16xbf16>, %bias: memref<16xbf16>, %out: memref<8x16xbf16>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() {alignment = 64 : i64} : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<8x16xf32>)
  linalg.matmul ins(%a, %b : memref<8x32xbf16>, memref<32x16xbf16>) outs(%acc : memref<8x16xf32>)
  linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias : memref<8x16xf32>, memref<16xbf16>) outs(%out : memref<8x16xbf16>) {
  ^bb0(%x: f32, %y: bf16, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    %e = arith.extf %r : bf16 to f32
    %f = arith.extf %y : bf16 to f32
    %s = arith.addf %e, %f : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %acc : memref<8x16xf32>
  return
}

// -----

// When the only reader just copies the rounded product into a buffer
// defined before the product, cuBLAS writes that buffer: no scratch, no
// copy kernel. f16: dtypes 6 | 6 << 8 | 6 << 16 = 394758.
// CHECK-LABEL: func.func @narrow_into_result
// CHECK-NOT: memref.alloc
// CHECK: %[[RESULT:.*]] = gpu.alloc () : memref<8x16xf16>
// CHECK-NOT: memref.alloc
// CHECK: memref.extract_aligned_pointer_as_index %[[RESULT]]
// CHECK: call @wrapperCudaGemm({{.*}}, %c394758_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}})
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.dealloc
// CHECK: return %[[RESULT]]
#id2 = affine_map<(i, j) -> (i, j)>
func.func @narrow_into_result(%a: memref<8x32xf16>, %b: memref<32x16xf16>) -> memref<8x16xf16> {
  %zero = arith.constant 0.0 : f32
  %result = gpu.alloc () : memref<8x16xf16>
  %acc = memref.alloc() {alignment = 64 : i64} : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<8x16xf32>)
  linalg.matmul ins(%a, %b : memref<8x32xf16>, memref<32x16xf16>) outs(%acc : memref<8x16xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<8x16xf32>) outs(%result : memref<8x16xf16>) {
  ^bb0(%x: f32, %o: f16):
    %r = arith.truncf %x : f32 to f16
    linalg.yield %r : f16
  }
  memref.dealloc %acc : memref<8x16xf32>
  return %result : memref<8x16xf16>
}

// -----

// Left in f32: a reader that uses the f32 sum itself (here, added before
// rounding), and a product that accumulates into its buffer (no zero fill).
// dtypes 9 | 9 << 8 | 7 << 16 = 461065.
// CHECK-LABEL: func.func @accumulator_kept
// CHECK: call @wrapperCudaGemm({{.*}}, %c461065_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}})
// CHECK: call @wrapperCudaGemm({{.*}}, %c461065_i32{{[_0-9]*}}, %c4_i32{{[_0-9]*}})
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: bf16):
#id2 = affine_map<(i, j) -> (i, j)>
func.func @accumulator_kept(%a: memref<8x32xbf16>, %b: memref<32x16xbf16>, %out: memref<8x16xbf16>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() {alignment = 64 : i64} : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<8x16xf32>)
  linalg.matmul ins(%a, %b : memref<8x32xbf16>, memref<32x16xbf16>) outs(%acc : memref<8x16xf32>)
  %acc2 = memref.alloc() {alignment = 64 : i64} : memref<8x16xf32>
  linalg.matmul ins(%a, %b : memref<8x32xbf16>, memref<32x16xbf16>) outs(%acc2 : memref<8x16xf32>)
  linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %acc2 : memref<8x16xf32>, memref<8x16xf32>) outs(%out : memref<8x16xbf16>) {
  ^bb0(%x: f32, %y: f32, %o: bf16):
    %s = arith.addf %x, %y : f32
    %r = arith.truncf %s : f32 to bf16
    linalg.yield %r : bf16
  }
  memref.dealloc %acc : memref<8x16xf32>
  memref.dealloc %acc2 : memref<8x16xf32>
  return
}


// -----

// The result buffer has a view written between the product and the copy:
// cuBLAS writing the result early would lose that write under the copy, so
// the product is narrowed but the copy stays.
// CHECK-LABEL: func.func @narrow_result_with_view
// CHECK: %[[NARROW:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x16xf16>
// CHECK: memref.extract_aligned_pointer_as_index %[[NARROW]]
// CHECK: call @wrapperCudaGemm({{.*}}, %c394758_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}})
// CHECK: memref.copy
// CHECK: linalg.generic {{.*}} ins(%[[NARROW]] : memref<8x16xf16>)
#id2 = affine_map<(i, j) -> (i, j)>
func.func @narrow_result_with_view(%a: memref<8x32xf16>, %b: memref<32x16xf16>, %row: memref<16xf16>) -> memref<8x16xf16> {
  %zero = arith.constant 0.0 : f32
  %result = gpu.alloc () : memref<8x16xf16>
  %first = memref.subview %result[0, 0] [1, 16] [1, 1] : memref<8x16xf16> to memref<16xf16, strided<[1]>>
  %acc = memref.alloc() {alignment = 64 : i64} : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<8x16xf32>)
  linalg.matmul ins(%a, %b : memref<8x32xf16>, memref<32x16xf16>) outs(%acc : memref<8x16xf32>)
  memref.copy %row, %first : memref<16xf16> to memref<16xf16, strided<[1]>>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<8x16xf32>) outs(%result : memref<8x16xf16>) {
  ^bb0(%x: f32, %o: f16):
    %r = arith.truncf %x : f32 to f16
    linalg.yield %r : f16
  }
  memref.dealloc %acc : memref<8x16xf32>
  return %result : memref<8x16xf16>
}
