// The micro-kernel's paths on small shapes: small-m-rows=4 (f32 products
// of 5 to 16 rows take the small-M path by default; ROWS checks that).
// RUN: wrapper-opt %s --split-input-file --wrapper-gemm-template="vector-width=16 report=true min-parallel-work=0 small-m-rows=4" --verify-diagnostics | FileCheck %s
// RUN: wrapper-opt %s --split-input-file --wrapper-gemm-template="vector-width=16 small-m-rows=4" 2>/dev/null | FileCheck %s --check-prefix=SMALL
// RUN: wrapper-opt %s --split-input-file --wrapper-gemm-template="vector-width=8 mr=6 nc=64 parallel=false small-m-rows=4" 2>/dev/null | FileCheck %s --check-prefix=AVX2
// RUN: wrapper-opt %s --split-input-file --wrapper-gemm-template="vector-width=16 min-parallel-work=0" 2>/dev/null | FileCheck %s --check-prefix=ROWS
// RUN: not wrapper-opt %s --split-input-file --wrapper-gemm-template="vector-width=16 nc=100" 2>&1 | FileCheck %s --check-prefix=BADNC
// RUN: not wrapper-opt %s --split-input-file --wrapper-gemm-template="vector-width=16 nr=24" 2>&1 | FileCheck %s --check-prefix=BADNR
// RUN: not wrapper-opt %s --split-input-file --wrapper-gemm-template="vector-width=16 mr=12 mc=100" 2>&1 | FileCheck %s --check-prefix=BADMC
// RUN: not wrapper-opt %s --split-input-file --wrapper-gemm-template="vector-width=12" 2>&1 | FileCheck %s --check-prefix=BADVL
// RUN: not wrapper-opt %s --split-input-file --wrapper-gemm-template="small-m-rows=-3" 2>&1 | FileCheck %s --check-prefix=BADROWS

// BADNC: error: wrapper-gemm-template: nc must be a positive multiple of nr (32), got 100
// BADNR: error: wrapper-gemm-template: nr must be 1 to 8 times the vector width (16), got 24
// BADMC: error: wrapper-gemm-template: mc must be a positive multiple of mr (12), got 100
// BADVL: error: wrapper-gemm-template: vector-width must be a power of two from 1 to 64, got 12
// BADROWS: error: wrapper-gemm-template: small-m-rows must not be negative, got -3

// A matmul with a zero fill and a bias + relu epilogue: all three ops
// become the template; the epilogue runs on vectors under a mask after the
// last K slice.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bias_relu
// CHECK-NOT: linalg.
// CHECK: scf.parallel
// CHECK: memref.store
// The thread grid: for each divisor d of the threads, the panels the
// busiest thread computes with d threads per row chunk; the blocks take
// even shares of the row and column panels.
// CHECK: %[[T32:.*]] = call @omp_get_max_threads
// CHECK: %[[T:.*]] = arith.index_cast %[[T32]]
// CHECK: %[[TH:.*]] = arith.maxsi %[[T]], %c1
// CHECK: %[[GRID:.*]]:3 = scf.for %[[D:.*]] = %c1{{.*}} to %{{.*}} step %c1{{.*}} iter_args(%[[COST:.*]] = %c9223372036854775807, %{{.*}} = %c1{{.*}}, %{{.*}} = %{{.*}})
// CHECK:   arith.remui %[[TH]], %[[D]]
// CHECK:   arith.cmpi ule, %{{.*}}, %[[COST]]
// CHECK:   scf.yield
// CHECK: %[[UNITS:.*]] = arith.muli %[[GRID]]#1, %[[GRID]]#2
// CHECK: scf.parallel (%[[U:.*]]) = (%c0{{.*}}) to (%[[UNITS]])
// CHECK:   arith.divui %[[U]], %[[GRID]]#2
// CHECK:   arith.remui %[[U]], %[[GRID]]#2
// One K slice (50) and a product only the epilogue reads: every tile is
// computed in the local tile and the epilogue reads it there; C is never
// written (no view of it for the micro-kernel).
// CHECK: %[[LOCAL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<12x32xf32>
// CHECK: %[[TILE:.*]] = memref.cast %[[LOCAL]]
// CHECK: vector.transfer_read
// CHECK-NOT: memref.subview
// CHECK: func.call @__wrapper_gemm_ukernel_f32_12x32_v16({{.*}}, %[[TILE]], %{{.*}})
// A whole 12 x 32 tile: rows to a constant bound, the two vectors of a row
// unrolled, no masks.
// CHECK: scf.if %{{.*}} {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c12{{.*}} step
// CHECK-NOT: vector.create_mask
// CHECK-COUNT-2: vector.load %[[LOCAL]]
// CHECK-NOT: vector.create_mask
// CHECK: } else {
// An edge tile under masks.
// CHECK: vector.create_mask
// CHECK: vector.maskedload %[[LOCAL]]
// CHECK: vector.maskedload
// CHECK: arith.addf {{.*}} : vector<16xf32>
// CHECK: arith.maximumf {{.*}} : vector<16xf32>
// CHECK: vector.maskedstore
// CHECK-NOT: linalg.
// CHECK: return
// The micro-kernel: 12 x 32 accumulators in 24 vectors, one FMA each per k.
// CHECK-LABEL: func.func private @__wrapper_gemm_ukernel_f32_12x32_v16
// CHECK-SAME: wrapper.gemm_micro_kernel
// CHECK: scf.for {{.*}} iter_args
// CHECK-COUNT-24: vector.fma
// CHECK-NOT: vector.fma
// CHECK: scf.yield
// With the default min-parallel-work, 37x70x50 (129500 multiply-adds) is
// too small for threads.
// SMALL-LABEL: func.func @bias_relu
// SMALL-NOT: scf.parallel
// SMALL-NOT: omp_get_max_threads
// SMALL: func.call @__wrapper_gemm_ukernel_f32_12x32_v16
// SMALL-LABEL: func.func private @__wrapper_gemm_ukernel_f32_12x32_v16
// AVX2-LABEL: func.func @bias_relu
// AVX2-NOT: scf.parallel
// AVX2-NOT: omp_get_max_threads
// AVX2: func.call @__wrapper_gemm_ukernel_f32_6x16_v8
// AVX2-LABEL: func.func private @__wrapper_gemm_ukernel_f32_6x16_v8
// AVX2-COUNT-12: vector.fma {{.*}} : vector<8xf32>
// AVX2-NEXT: scf.yield
func.func @bias_relu(%a: memref<37x50xf32>, %b: memref<50x70xf32>, %bias: memref<70xf32>, %out: memref<37x70xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<37x70xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<37x70xf32>)
  // expected-remark @below {{GEMM template: micro-kernel 12x32 (16 lanes), kc 512, mc 144, nc 256; B packed at run time (the kernel function is not defined by a wrapper.kernel); epilogue fused (2 payload ops)}}
  linalg.matmul ins(%a, %b : memref<37x50xf32>, memref<50x70xf32>) outs(%c : memref<37x70xf32>)
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<37x70xf32>, memref<70xf32>) outs(%out : memref<37x70xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %c : memref<37x70xf32>
  return
}

// -----

// No zero fill: the first K slice accumulates onto what C holds. A
// reduction after the matmul is not an epilogue.
// CHECK-LABEL: func.func @accumulate_no_epilogue
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: arith.ori {{.*}}, %[[TRUE]]
// CHECK: func.call @__wrapper_gemm_ukernel
// CHECK: linalg.generic
// CHECK-SAME: "reduction"
func.func @accumulate_no_epilogue(%a: memref<?x8xf32>, %b: memref<8x16xf32>, %c: memref<?x16xf32>, %sum: memref<?xf32>) {
  // expected-remark @below {{epilogue none (the next op is not a 2-d elementwise linalg.generic on buffers)}}
  linalg.matmul ins(%a, %b : memref<?x8xf32>, memref<8x16xf32>) outs(%c : memref<?x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%c : memref<?x16xf32>) outs(%sum : memref<?xf32>) {
  ^bb0(%x: f32, %s: f32):
    %r = arith.addf %x, %s : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Refusals: other element types, tensors, a C with a non-unit inner stride.
// CHECK-LABEL: func.func @refused
// CHECK-COUNT-3: linalg.matmul
// CHECK-NOT: func.call
func.func @refused(%a: memref<4x4xf16>, %b: memref<4x4xf16>, %c: memref<4x4xf16>,
                   %i: memref<4x4xi32>, %t: tensor<4x4xf32>,
                   %f: memref<4x4xf32>, %s: memref<4x4xf32, strided<[1, 4]>>) -> tensor<4x4xf32> {
  // expected-remark @below {{GEMM template not used: operands are not f32, or f16/bf16 into f32}}
  linalg.matmul ins(%a, %b : memref<4x4xf16>, memref<4x4xf16>) outs(%c : memref<4x4xf16>)
  // expected-remark @below {{GEMM template not used: operands are not f32, or f16/bf16 into f32}}
  linalg.matmul ins(%i, %i : memref<4x4xi32>, memref<4x4xi32>) outs(%i : memref<4x4xi32>)
  // expected-remark @below {{GEMM template not used: the matmul is on tensors (run bufferization first)}}
  %r = linalg.matmul ins(%t, %t : tensor<4x4xf32>, tensor<4x4xf32>) outs(%t : tensor<4x4xf32>) -> tensor<4x4xf32>
  // expected-remark @below {{GEMM template not used: C does not have a unit inner stride}}
  linalg.matmul ins(%f, %f : memref<4x4xf32>, memref<4x4xf32>) outs(%s : memref<4x4xf32, strided<[1, 4]>>)
  return %r : tensor<4x4xf32>
}

// -----

// Operands read transposed through the matmul's indexing maps (A as (k, m),
// B as (n, k), as a product of a transpose lowers): packed from transposed
// views of them, no copy. The view of B has no unit inner stride: its whole
// 16 x 16 blocks are 16 rows of B^T (unit stride) transposed with shuffles,
// the rest (K past the last whole block, the edge panel past N) filled lane
// by lane. Maps that broadcast an operand are refused.
// CHECK-LABEL: func.func @transposed_operands
// CHECK-SAME: (%[[A:.*]]: memref<50x37xf32>, %[[B:.*]]: memref<70x50xf32>
// CHECK: %[[AT:.*]] = memref.transpose %[[A]] (d0, d1) -> (d1, d0) : memref<50x37xf32> to memref<37x50xf32, strided<[1, 37]>>
// CHECK: %[[BT:.*]] = memref.transpose %[[B]] (d0, d1) -> (d1, d0) : memref<70x50xf32> to memref<50x70xf32, strided<[1, 50]>>
// CHECK-NOT: linalg.fill
// CHECK: memref.load %[[AT]]
// CHECK: %[[BTR:.*]] = memref.transpose %[[BT]] (d0, d1) -> (d1, d0) : memref<50x70xf32, strided<[1, 50]>> to memref<70x50xf32, strided<[50, 1]>>
// CHECK-COUNT-16: vector.load %[[BTR]]
// CHECK-NOT: vector.transpose
// CHECK-COUNT-64: vector.shuffle
// CHECK: memref.load %[[BT]]
// CHECK: vector.insert
// CHECK: call @__wrapper_gemm_ukernel_f32_12x32_v16
// CHECK: linalg.matmul indexing_maps
// CHECK-NOT: linalg.matmul
func.func @transposed_operands(%a: memref<50x37xf32>, %b: memref<70x50xf32>, %out: memref<37x70xf32>,
                               %v: memref<50xf32>, %w: memref<50x70xf32>, %o2: memref<37x70xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<37x70xf32>)
  // expected-remark @below {{GEMM template: micro-kernel 12x32 (16 lanes), kc 512, mc 144, nc 256; B packed at run time (B is read transposed (a view)); epilogue none}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<50x37xf32>, memref<70x50xf32>) outs(%out : memref<37x70xf32>)
  // expected-remark @below {{GEMM template not used: operands are not f32, or f16/bf16 into f32 (or the matmul's indexing maps broadcast an operand)}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%v, %w : memref<50xf32>, memref<50x70xf32>) outs(%o2 : memref<37x70xf32>)
  return
}

// -----

// Frozen weights: the constant that the kernel's only call passes as B is
// packed at compile time (zero padded); the kernel takes the packed constant
// and packs no B at run time. M = 5 is below mr, so the tile is 5 rows of
// 4 vectors and the panels are 64 wide: [ceil(34/64)][3][64].
// CHECK-LABEL: wrapper.graph @frozen
// CHECK: %[[P:.*]] = wrapper.get_constant @w_packed64 : memref<1x3x64xf32>
// CHECK: wrapper.call @k(%{{.*}}, %[[P]], %{{.*}}) : memref<5x3xf32>, memref<1x3x64xf32>, memref<5x34xf32>
// CHECK-NOT: wrapper.constant @w :
// The panel in hex: row 0 is 1, 2, zeros, 3, 4 (columns 32 and 33), zeros;
// row 2 holds 5 at column 33.
// CHECK: wrapper.constant @w_packed64 : memref<1x3x64xf32> = dense<"0x0000803F00000040{{(00000000)+}}0000404000008040{{(00000000)+}}0000A040{{(00000000)+}}">
// CHECK-LABEL: func.func private @k_impl
// CHECK-SAME: %{{.*}}: memref<1x3x64xf32>
// CHECK: memref.collapse_shape
// CHECK-NOT: vector.transfer_read
// CHECK: func.call @__wrapper_gemm_ukernel
wrapper.graph @frozen(%x: memref<5x3xf32>) -> memref<5x34xf32> {
  %w = wrapper.get_constant @w : memref<3x34xf32>
  %buf = wrapper.alloc() : memref<5x34xf32>
  wrapper.call @k(%x, %w, %buf) : memref<5x3xf32>, memref<3x34xf32>, memref<5x34xf32>
  wrapper.return %buf : memref<5x34xf32>
}
wrapper.constant @w : memref<3x34xf32> = dense<[[1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 4.0],
  [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
  [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0]]>
func.func private @k_impl(%a: memref<5x3xf32>, %b: memref<3x34xf32>, %out: memref<5x34xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<5x34xf32>)
  // expected-remark @below {{micro-kernel 5x64 (16 lanes), kc 512, mc 140, nc 256; B prepacked at compile time; epilogue none (the next op is not a linalg.generic)}}
  linalg.matmul ins(%a, %b : memref<5x3xf32>, memref<3x34xf32>) outs(%out : memref<5x34xf32>)
  return
}
wrapper.kernel @k = @k_impl metadata {kind = "matmul", source_ops = ["matmul"]}

// -----

// One kernel function behind two kernels (--wrapper-dedupe-kernels merges
// the same code of two layers), each called with its own frozen weights:
// both constants are packed, each call passes its own panels.
// CHECK-LABEL: wrapper.graph @layers
// CHECK: wrapper.get_constant @w1_packed64 : memref<1x2x64xf32>
// CHECK: wrapper.call @l1
// CHECK: wrapper.get_constant @w2_packed64 : memref<1x2x64xf32>
// CHECK: wrapper.call @l2
// CHECK-NOT: wrapper.constant @w1 :
// CHECK-NOT: wrapper.constant @w2 :
// CHECK-DAG: wrapper.constant @w1_packed64 : memref<1x2x64xf32> = dense<"0x0000803F{{.*}}">
// CHECK-DAG: wrapper.constant @w2_packed64 : memref<1x2x64xf32> = dense<"0x00000041{{.*}}">
// CHECK-LABEL: func.func private @layer_impl
// CHECK-SAME: memref<1x2x64xf32>
wrapper.graph @layers(%x: memref<3x2xf32>) -> memref<3x4xf32> {
  %w1 = wrapper.get_constant @w1 : memref<2x4xf32>
  %b1 = wrapper.alloc() : memref<3x4xf32>
  wrapper.call @l1(%x, %w1, %b1) : memref<3x2xf32>, memref<2x4xf32>, memref<3x4xf32>
  %w2 = wrapper.get_constant @w2 : memref<2x4xf32>
  %b2 = wrapper.alloc() : memref<3x4xf32>
  wrapper.call @l2(%x, %w2, %b2) : memref<3x2xf32>, memref<2x4xf32>, memref<3x4xf32>
  wrapper.free %b1 : memref<3x4xf32>
  wrapper.return %b2 : memref<3x4xf32>
}
wrapper.constant @w1 : memref<2x4xf32> = dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]>
wrapper.constant @w2 : memref<2x4xf32> = dense<[[8.0, 7.0, 6.0, 5.0], [4.0, 3.0, 2.0, 1.0]]>
func.func private @layer_impl(%a: memref<3x2xf32>, %b: memref<2x4xf32>, %out: memref<3x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<3x4xf32>)
  // expected-remark @below {{B prepacked at compile time}}
  linalg.matmul ins(%a, %b : memref<3x2xf32>, memref<2x4xf32>) outs(%out : memref<3x4xf32>)
  return
}
wrapper.kernel @l1 = @layer_impl metadata {kind = "matmul", source_ops = ["matmul"]}
wrapper.kernel @l2 = @layer_impl metadata {kind = "matmul", source_ops = ["matmul"]}

// -----

// The same, but one of the calls passes a graph argument: nothing is
// packed (the kernel function has one type for all its calls).
// CHECK-LABEL: wrapper.graph @layers_one_argument
// CHECK: wrapper.get_constant @v1 : memref<2x4xf32>
wrapper.graph @layers_one_argument(%x: memref<6x2xf32>, %w: memref<2x4xf32>) -> memref<6x4xf32> {
  %w1 = wrapper.get_constant @v1 : memref<2x4xf32>
  %b1 = wrapper.alloc() : memref<6x4xf32>
  wrapper.call @m1(%x, %w1, %b1) : memref<6x2xf32>, memref<2x4xf32>, memref<6x4xf32>
  %b2 = wrapper.alloc() : memref<6x4xf32>
  wrapper.call @m2(%x, %w, %b2) : memref<6x2xf32>, memref<2x4xf32>, memref<6x4xf32>
  wrapper.free %b1 : memref<6x4xf32>
  wrapper.return %b2 : memref<6x4xf32>
}
wrapper.constant @v1 : memref<2x4xf32> = dense<1.0>
func.func private @shared_impl(%a: memref<6x2xf32>, %b: memref<2x4xf32>, %out: memref<6x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<6x4xf32>)
  // expected-remark @below {{B packed at run time (B is not a wrapper.constant in every call)}}
  linalg.matmul ins(%a, %b : memref<6x2xf32>, memref<2x4xf32>) outs(%out : memref<6x4xf32>)
  return
}
wrapper.kernel @m1 = @shared_impl metadata {kind = "matmul", source_ops = ["matmul"]}
wrapper.kernel @m2 = @shared_impl metadata {kind = "matmul", source_ops = ["matmul"]}

// -----

// Two kernels multiply by the same frozen weights with the same blocking:
// one packed constant serves both, and the unpacked one goes.
// CHECK-LABEL: wrapper.graph @shared
// CHECK-COUNT-2: wrapper.get_constant @w_packed64 : memref<1x2x64xf32>
// CHECK-NOT: wrapper.constant @w :
// CHECK: wrapper.constant @w_packed64 : memref<1x2x64xf32>
// CHECK-NOT: wrapper.constant
wrapper.graph @shared(%x: memref<3x2xf32>) -> (memref<3x4xf32>, memref<3x4xf32>) {
  %w = wrapper.get_constant @w : memref<2x4xf32>
  %b1 = wrapper.alloc() : memref<3x4xf32>
  wrapper.call @k1(%x, %w, %b1) : memref<3x2xf32>, memref<2x4xf32>, memref<3x4xf32>
  %b2 = wrapper.alloc() : memref<3x4xf32>
  wrapper.call @k2(%x, %w, %b2) : memref<3x2xf32>, memref<2x4xf32>, memref<3x4xf32>
  wrapper.return %b1, %b2 : memref<3x4xf32>, memref<3x4xf32>
}
wrapper.constant @w : memref<2x4xf32> = dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]>
func.func private @k1_impl(%a: memref<3x2xf32>, %b: memref<2x4xf32>, %out: memref<3x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<3x4xf32>)
  // expected-remark @below {{B prepacked at compile time}}
  linalg.matmul ins(%a, %b : memref<3x2xf32>, memref<2x4xf32>) outs(%out : memref<3x4xf32>)
  return
}
func.func private @k2_impl(%a: memref<3x2xf32>, %b: memref<2x4xf32>, %out: memref<3x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<3x4xf32>)
  // expected-remark @below {{B prepacked at compile time}}
  linalg.matmul ins(%a, %b : memref<3x2xf32>, memref<2x4xf32>) outs(%out : memref<3x4xf32>)
  return
}
wrapper.kernel @k1 = @k1_impl metadata {kind = "matmul", source_ops = ["matmul"]}
wrapper.kernel @k2 = @k2_impl metadata {kind = "matmul", source_ops = ["matmul"]}

// -----

// Frozen weights as A (on the left, as convolutions put them): packed into
// [ceil(M/mr)][K][mr] row panels at compile time, the layout the template
// packs A into at run time, and no A packing is emitted.
// CHECK-LABEL: wrapper.graph @frozen_a
// CHECK: %[[P:.*]] = wrapper.get_constant @wa_packedA3 : memref<1x2x3xf32>
// CHECK: wrapper.call @ka(%[[P]], %{{.*}}, %{{.*}}) : memref<1x2x3xf32>, memref<2x8xf32>, memref<3x8xf32>
// CHECK-NOT: wrapper.constant @wa :
// CHECK: wrapper.constant @wa_packedA3 : memref<1x2x3xf32> = dense<{{\[\[\[}}1.000000e+00, 3.000000e+00, 5.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]]>
// CHECK-LABEL: func.func private @ka_impl
// CHECK-SAME: %{{.*}}: memref<1x2x3xf32>
// CHECK-NOT: memref<6xf32>
// CHECK: memref.collapse_shape
// CHECK: func.call @__wrapper_gemm_ukernel
wrapper.graph @frozen_a(%x: memref<2x8xf32>) -> memref<3x8xf32> {
  %w = wrapper.get_constant @wa : memref<3x2xf32>
  %buf = wrapper.alloc() : memref<3x8xf32>
  wrapper.call @ka(%w, %x, %buf) : memref<3x2xf32>, memref<2x8xf32>, memref<3x8xf32>
  wrapper.return %buf : memref<3x8xf32>
}
wrapper.constant @wa : memref<3x2xf32> = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]>
func.func private @ka_impl(%a: memref<3x2xf32>, %b: memref<2x8xf32>, %out: memref<3x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<3x8xf32>)
  // expected-remark @below {{micro-kernel 3x64 (16 lanes), kc 512, mc 144, nc 256; B packed at run time (B is not a wrapper.constant); A prepacked at compile time; epilogue none}}
  linalg.matmul ins(%a, %b : memref<3x2xf32>, memref<2x8xf32>) outs(%out : memref<3x8xf32>)
  return
}
wrapper.kernel @ka = @ka_impl metadata {kind = "matmul", source_ops = ["matmul"]}

// -----

// The epilogue's output buffer allocated between the product and the
// epilogue (as bufferization places it) does not keep the epilogue out.
// CHECK-LABEL: func.func @epilogue_after_an_alloc
// CHECK-NOT: linalg.generic
// CHECK: vector.fma
// CHECK: arith.maximumf
func.func @epilogue_after_an_alloc(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %out: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<4x16xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<4x16xf32>)
  // expected-remark @below {{epilogue fused (1 payload ops)}}
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%p : memref<4x16xf32>)
  %r = memref.alloc() : memref<4x16xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p : memref<4x16xf32>) outs(%r : memref<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  }
  memref.copy %r, %out : memref<4x16xf32> to memref<4x16xf32>
  return
}

// -----

// Four rows or fewer (static): no packing and no micro-kernel; each block
// of columns keeps every row's accumulators in registers across K and
// reads B in place, masked past N (here one block of 3 vectors, 48
// columns, 40 valid; 2 rows x 3 vectors of accumulators).
// CHECK-LABEL: func.func @small_m
// CHECK-NOT: __wrapper_gemm_ukernel
// CHECK: scf.parallel
// CHECK: scf.for {{.*}} iter_args
// CHECK: vector.maskedload %arg1
// CHECK-COUNT-6: vector.fma
// CHECK-NOT: vector.fma
// CHECK: vector.maskedstore %arg2
// CHECK-NOT: __wrapper_gemm_ukernel
// CHECK: return
func.func @small_m(%a: memref<2x24xf32>, %b: memref<24x40xf32>, %out: memref<2x40xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<2x40xf32>)
  // expected-remark @below {{GEMM template: small M (2 rows, 4 or fewer): 48-column blocks of 3 x 16 lanes; B read in place; epilogue none}}
  linalg.matmul ins(%a, %b : memref<2x24xf32>, memref<24x40xf32>) outs(%out : memref<2x40xf32>)
  return
}

// -----

// f32 products of up to 16 rows (small-m-rows) take the small-M path too,
// their rows in groups of at most 16 accumulator vectors: with 2 vectors
// per row (nr = 32), 13 rows in groups of 8 and 5, each its own K loop.
// ROWS-LABEL: func.func @thirteen_rows
// ROWS-NOT: __wrapper_gemm_ukernel
// ROWS: scf.for {{.*}} iter_args
// ROWS-COUNT-16: vector.fma
// ROWS-NEXT: scf.yield
// ROWS-COUNT-16: vector.maskedstore %arg2
// ROWS: scf.for {{.*}} iter_args
// ROWS-COUNT-10: vector.fma
// ROWS-NEXT: scf.yield
// ROWS-COUNT-10: vector.maskedstore %arg2
// ROWS-NOT: vector.fma
// ROWS-NOT: __wrapper_gemm_ukernel
// ROWS: return
func.func @thirteen_rows(%a: memref<13x24xf32>, %b: memref<24x40xf32>, %out: memref<13x40xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<13x40xf32>)
  // expected-remark @below {{GEMM template: micro-kernel}}
  linalg.matmul ins(%a, %b : memref<13x24xf32>, memref<24x40xf32>) outs(%out : memref<13x40xf32>)
  return
}

// -----

// A batch split over a loop by --wrapper-specialize-contractions, twice
// (its parallel and sequential forms): each matrix's product is computed
// in the local tile only, its views of C never written, although the
// other loop's products use other views of the same buffer. One
// micro-kernel call per product (no call on a view of C for whole tiles).
// CHECK-LABEL: func.func @split_batch_scratch(
// CHECK-COUNT-2: func.call @__wrapper_gemm_ukernel_f32_6x64_v16
// CHECK-NOT: func.call @__wrapper_gemm_ukernel_f32_6x64_v16
// CHECK: return
func.func @split_batch_scratch(%a: memref<6x4xf32>, %b: memref<3x4x32xf32>, %bias: memref<6x1xf32>, %out: memref<3x6x32xf32>, %parallel: i1) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c = memref.alloc() : memref<3x6x32xf32>
  scf.if %parallel {
    scf.for %i = %c0 to %c3 step %c1 {
      %bi = memref.subview %b[%i, 0, 0] [1, 4, 32] [1, 1, 1] : memref<3x4x32xf32> to memref<4x32xf32, strided<[32, 1], offset: ?>>
      %ci = memref.subview %c[%i, 0, 0] [1, 6, 32] [1, 1, 1] : memref<3x6x32xf32> to memref<6x32xf32, strided<[32, 1], offset: ?>>
      %oi = memref.subview %out[%i, 0, 0] [1, 6, 32] [1, 1, 1] : memref<3x6x32xf32> to memref<6x32xf32, strided<[32, 1], offset: ?>>
      linalg.fill ins(%zero : f32) outs(%ci : memref<6x32xf32, strided<[32, 1], offset: ?>>)
      // expected-remark @below {{B packed at run time (B is not an argument of the kernel); epilogue fused (1 payload ops)}}
      linalg.matmul ins(%a, %bi : memref<6x4xf32>, memref<4x32xf32, strided<[32, 1], offset: ?>>) outs(%ci : memref<6x32xf32, strided<[32, 1], offset: ?>>)
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ci, %bias : memref<6x32xf32, strided<[32, 1], offset: ?>>, memref<6x1xf32>) outs(%oi : memref<6x32xf32, strided<[32, 1], offset: ?>>) {
      ^bb0(%x: f32, %y: f32, %o: f32):
        %s = arith.addf %x, %y : f32
        linalg.yield %s : f32
      }
    }
  } else {
    scf.for %i = %c0 to %c3 step %c1 {
      %bi = memref.subview %b[%i, 0, 0] [1, 4, 32] [1, 1, 1] : memref<3x4x32xf32> to memref<4x32xf32, strided<[32, 1], offset: ?>>
      %ci = memref.subview %c[%i, 0, 0] [1, 6, 32] [1, 1, 1] : memref<3x6x32xf32> to memref<6x32xf32, strided<[32, 1], offset: ?>>
      %oi = memref.subview %out[%i, 0, 0] [1, 6, 32] [1, 1, 1] : memref<3x6x32xf32> to memref<6x32xf32, strided<[32, 1], offset: ?>>
      linalg.fill ins(%zero : f32) outs(%ci : memref<6x32xf32, strided<[32, 1], offset: ?>>)
      // expected-remark @below {{B packed at run time (B is not an argument of the kernel); epilogue fused (1 payload ops)}}
      linalg.matmul ins(%a, %bi : memref<6x4xf32>, memref<4x32xf32, strided<[32, 1], offset: ?>>) outs(%ci : memref<6x32xf32, strided<[32, 1], offset: ?>>)
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ci, %bias : memref<6x32xf32, strided<[32, 1], offset: ?>>, memref<6x1xf32>) outs(%oi : memref<6x32xf32, strided<[32, 1], offset: ?>>) {
      ^bb0(%x: f32, %y: f32, %o: f32):
        %s = arith.addf %x, %y : f32
        linalg.yield %s : f32
      }
    }
  }
  memref.dealloc %c : memref<3x6x32xf32>
  return
}
