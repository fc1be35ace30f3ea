// Each fusion strategy's grouping of the same programs (docs/Fusion.md).
// RUN: wrapper-opt %s --split-input-file --tensor-program-fuse="strategy=none" | FileCheck %s --check-prefix=NONE
// RUN: wrapper-opt %s --split-input-file --tensor-program-fuse="strategy=greedy" | FileCheck %s --check-prefix=GREEDY
// RUN: wrapper-opt %s --split-input-file --tensor-program-fuse="strategy=cost" | FileCheck %s --check-prefix=COST
// RUN: wrapper-opt %s --split-input-file --tensor-program-fuse="strategy=horizontal" | FileCheck %s --check-prefix=HORIZONTAL
// RUN: not wrapper-opt %s --split-input-file --tensor-program-fuse="strategy=nope" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: --tensor-program-fuse: unknown strategy 'nope'; the registered strategies are cost, greedy, horizontal, none

// A broadcast bias read by two reductions over different dimensions.
// none: one kernel per op.
// NONE-LABEL: func.func @bias
// NONE-COUNT-5: tensor_program.fused
// NONE-NOT: tensor_program.fused
// greedy: the broadcast, mul, row sum and add in one kernel, which writes
// the add's [64, 256] result for the column max's kernel.
// GREEDY-LABEL: func.func @bias
// GREEDY: %[[A:.*]]:2 = tensor_program.fused reduction(%arg1, %arg0) : (tensor<256xf32>, tensor<64x256xf32>) -> (tensor<64xf32>, tensor<64x256xf32>)
// GREEDY: tensor_program.fused reduction(%[[A]]#1) : (tensor<64x256xf32>) -> tensor<256xf32>
// GREEDY-NOT: tensor_program.fused
// cost: each reduction with its own chain, the broadcast recomputed in both:
// no [64, 256] value between kernels.
// COST-LABEL: func.func @bias
// COST: tensor_program.fused reduction(%arg1, %arg0) : (tensor<256xf32>, tensor<64x256xf32>) -> tensor<64xf32>
// COST: tensor_program.broadcast
// COST: tensor_program.mul
// COST: tensor_program.reduce_sum
// COST: tensor_program.fused reduction(%arg1, %arg0) : (tensor<256xf32>, tensor<64x256xf32>) -> tensor<256xf32>
// COST: tensor_program.broadcast
// COST: tensor_program.add
// COST: tensor_program.reduce_max
// COST-NOT: tensor_program.fused
// HORIZONTAL-LABEL: func.func @bias
// HORIZONTAL-COUNT-2: tensor_program.fused reduction
// HORIZONTAL-NOT: tensor_program.fused
func.func @bias(%x: tensor<64x256xf32>, %b: tensor<256xf32>) -> (tensor<64xf32>, tensor<256xf32>) {
  %bb = tensor_program.broadcast %b : tensor<256xf32> -> tensor<64x256xf32>
  %y = tensor_program.mul %x, %bb : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32>
  %rows = tensor_program.reduce_sum %y dims [1] : tensor<64x256xf32> -> tensor<64xf32>
  %z = tensor_program.add %x, %bb : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32>
  %cols = tensor_program.reduce_max %z dims [0] : tensor<64x256xf32> -> tensor<256xf32>
  return %rows, %cols : tensor<64xf32>, tensor<256xf32>
}

// -----

// Two independent chains reading %x: greedy and cost keep them apart (no
// producer links them); horizontal merges them so that %x is read once.
// NONE-LABEL: func.func @siblings
// GREEDY-LABEL: func.func @siblings
// GREEDY-COUNT-2: tensor_program.fused pointwise(%arg0)
// COST-LABEL: func.func @siblings
// COST-COUNT-2: tensor_program.fused pointwise(%arg0)
// HORIZONTAL-LABEL: func.func @siblings
// HORIZONTAL: %[[F:.*]]:2 = tensor_program.fused pointwise(%arg0) : (tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x256xf32>)
// HORIZONTAL: tensor_program.exp
// HORIZONTAL: tensor_program.neg
// HORIZONTAL: tensor_program.relu
// HORIZONTAL-NOT: tensor_program.fused
func.func @siblings(%x: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %a = tensor_program.exp %x : tensor<64x256xf32>
  %b = tensor_program.neg %x : tensor<64x256xf32>
  %c = tensor_program.relu %b : tensor<64x256xf32>
  return %a, %c : tensor<64x256xf32>, tensor<64x256xf32>
}

// -----

// A product: its epilogue joins it under every fusing strategy; cost does
// not pull the producer of its input in (products take epilogues only).
// HORIZONTAL-LABEL: func.func @product
// COST-LABEL: func.func @product
// COST: tensor_program.fused pointwise(%arg0)
// COST-NEXT: ^bb0
// COST-NEXT: tensor_program.relu
// COST: tensor_program.fused matmul
// COST: tensor_program.matmul
// COST: tensor_program.add
// COST-NOT: tensor_program.fused
func.func @product(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %r = tensor_program.relu %x : tensor<8x16xf32>
  %m = tensor_program.matmul %r, %w : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %o = tensor_program.add %m, %b : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  return %o : tensor<8x32xf32>
}

// -----

// cost weighs recomputation: a negation read by a row sum and a column max
// is recomputed in both kernels (one operation per element against the
// [64, 256] value's write and read saved); a tanh in the same place costs
// more arithmetic than the traffic it would save, so it stays in one
// kernel, which writes it for the other.
// COST-LABEL: func.func @recompute_cheap
// COST: tensor_program.fused reduction(%arg0) : (tensor<64x256xf32>) -> tensor<64xf32>
// COST: tensor_program.neg
// COST: tensor_program.reduce_sum
// COST: tensor_program.fused reduction(%arg0) : (tensor<64x256xf32>) -> tensor<256xf32>
// COST: tensor_program.neg
// COST: tensor_program.reduce_max
// COST-LABEL: func.func @keep_costly
// COST: %[[T:.*]]:2 = tensor_program.fused reduction(%arg0) : (tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64xf32>)
// COST: tensor_program.fused reduction(%[[T]]#0) : (tensor<64x256xf32>) -> tensor<256xf32>
// COST-NOT: tensor_program.tanh
// COST: return
func.func @recompute_cheap(%x: tensor<64x256xf32>) -> (tensor<64xf32>, tensor<256xf32>) {
  %n = tensor_program.neg %x : tensor<64x256xf32>
  %rows = tensor_program.reduce_sum %n dims [1] : tensor<64x256xf32> -> tensor<64xf32>
  %cols = tensor_program.reduce_max %n dims [0] : tensor<64x256xf32> -> tensor<256xf32>
  return %rows, %cols : tensor<64xf32>, tensor<256xf32>
}
func.func @keep_costly(%x: tensor<64x256xf32>) -> (tensor<64xf32>, tensor<256xf32>) {
  %t = tensor_program.tanh %x : tensor<64x256xf32>
  %rows = tensor_program.reduce_sum %t dims [1] : tensor<64x256xf32> -> tensor<64xf32>
  %cols = tensor_program.reduce_max %t dims [0] : tensor<64x256xf32> -> tensor<256xf32>
  return %rows, %cols : tensor<64xf32>, tensor<256xf32>
}
