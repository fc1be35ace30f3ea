// RUN: wrapper-opt %s | wrapper-opt | FileCheck %s
// RUN: wrapper-opt %s --mlir-print-op-generic | wrapper-opt | FileCheck %s

// Tests that every tensor_program op round-trips.

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%a: tensor<4x1xf32>, %b: tensor<8xf32>, %s: tensor<f32>, %i: tensor<4x8xi32>) {
  // CHECK: tensor_program.add %{{.*}}, %{{.*}} : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %0 = tensor_program.add %a, %b : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: tensor_program.sub %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = tensor_program.sub %0, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  // CHECK: tensor_program.mul
  %2 = tensor_program.mul %1, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: tensor_program.div
  %3 = tensor_program.div %2, %a : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  // CHECK: tensor_program.max
  %4 = tensor_program.max %3, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  // CHECK: tensor_program.min
  %5 = tensor_program.min %4, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  // CHECK: tensor_program.pow
  %6 = tensor_program.pow %5, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  // CHECK: tensor_program.neg %{{.*}} : tensor<4x8xf32>
  %7 = tensor_program.neg %6 : tensor<4x8xf32>
  // CHECK: tensor_program.abs %{{.*}} : tensor<4x8xi32>
  %8 = tensor_program.abs %i : tensor<4x8xi32>
  // CHECK: tensor_program.exp
  %9 = tensor_program.exp %7 : tensor<4x8xf32>
  // CHECK: tensor_program.log
  %10 = tensor_program.log %9 : tensor<4x8xf32>
  // CHECK: tensor_program.sqrt
  %11 = tensor_program.sqrt %10 : tensor<4x8xf32>
  // CHECK: tensor_program.rsqrt
  %12 = tensor_program.rsqrt %11 : tensor<4x8xf32>
  // CHECK: tensor_program.tanh
  %13 = tensor_program.tanh %12 : tensor<4x8xf32>
  // CHECK: tensor_program.erf
  %erf = tensor_program.erf %13 : tensor<4x8xf32>
  // CHECK: tensor_program.sigmoid
  %14 = tensor_program.sigmoid %erf : tensor<4x8xf32>
  // CHECK: tensor_program.relu %{{.*}} : tensor<4x8xi32>
  %15 = tensor_program.relu %8 : tensor<4x8xi32>
  // CHECK: tensor_program.silu
  %16 = tensor_program.silu %14 : tensor<4x8xf32>
  // CHECK: tensor_program.gelu %{{.*}} : tensor<4x8xf32>
  %17 = tensor_program.gelu %16 : tensor<4x8xf32>
  // CHECK: tensor_program.gelu %{{.*}} approximate tanh : tensor<4x8xf32>
  %18 = tensor_program.gelu %17 approximate tanh : tensor<4x8xf32>
  // CHECK: tensor_program.compare lt, %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  %19 = tensor_program.compare lt, %18, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  // CHECK: tensor_program.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %20 = tensor_program.where %19, %18, %s : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  // CHECK: tensor_program.cast %{{.*}} : tensor<4x8xf32> to tensor<4x8xbf16>
  %21 = tensor_program.cast %20 : tensor<4x8xf32> to tensor<4x8xbf16>
  // CHECK: tensor_program.cast %{{.*}} : tensor<4x8xi32> to tensor<4x8xf16>
  %22 = tensor_program.cast %15 : tensor<4x8xi32> to tensor<4x8xf16>
  return
}

// CHECK-LABEL: func.func @constants
func.func @constants(%n: index) {
  // CHECK: tensor_program.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = tensor_program.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: tensor_program.constant dense<0> : tensor<4x4xi64>
  %1 = tensor_program.constant dense<0> : tensor<4x4xi64>
  // CHECK: tensor_program.full 5.000000e-01 : tensor<4x8xf32>
  %2 = tensor_program.full 0.5 : tensor<4x8xf32>
  // CHECK: tensor_program.full 1.000000e+00 [%{{.*}}] : tensor<?x8xf16>
  %3 = tensor_program.full 1.0 [%n] : tensor<?x8xf16>
  // CHECK: tensor_program.full 7.000000e+00 : tensor<3xi32>
  %4 = tensor_program.full 7.0 : tensor<3xi32>
  return
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<4x8xf32>, %d: tensor<?x8xf32>) {
  // CHECK: tensor_program.reduce_sum %{{.*}} dims [1] : tensor<4x8xf32> -> tensor<4xf32>
  %0 = tensor_program.reduce_sum %x dims [1] : tensor<4x8xf32> -> tensor<4xf32>
  // CHECK: tensor_program.reduce_mean %{{.*}} dims [0, 1] keepdim : tensor<4x8xf32> -> tensor<1x1xf32>
  %1 = tensor_program.reduce_mean %x dims [0, 1] keepdim : tensor<4x8xf32> -> tensor<1x1xf32>
  // CHECK: tensor_program.reduce_max %{{.*}} dims [0] : tensor<4x8xf32> -> tensor<8xf32>
  %2 = tensor_program.reduce_max %x dims [0] : tensor<4x8xf32> -> tensor<8xf32>
  // CHECK: tensor_program.reduce_min %{{.*}} dims [1] keepdim : tensor<?x8xf32> -> tensor<?x1xf32>
  %3 = tensor_program.reduce_min %d dims [1] keepdim : tensor<?x8xf32> -> tensor<?x1xf32>
  // CHECK: tensor_program.reduce_prod %{{.*}} dims [0] : tensor<?x8xf32> -> tensor<8xf32>
  %4 = tensor_program.reduce_prod %d dims [0] : tensor<?x8xf32> -> tensor<8xf32>
  // CHECK: tensor_program.argmax %{{.*}} dim 1 : tensor<4x8xf32> -> tensor<4xi64>
  %5 = tensor_program.argmax %x dim 1 : tensor<4x8xf32> -> tensor<4xi64>
  // CHECK: tensor_program.argmax %{{.*}} dim 1 keepdim : tensor<4x8xf32> -> tensor<4x1xi64>
  %6 = tensor_program.argmax %x dim 1 keepdim : tensor<4x8xf32> -> tensor<4x1xi64>
  return
}

// CHECK-LABEL: func.func @layout
func.func @layout(%x: tensor<4x8xf32>, %d: tensor<?x8xf32>, %n: index, %col: tensor<4x1xf32>) {
  // CHECK: tensor_program.reshape %{{.*}} : tensor<4x8xf32> -> tensor<2x16xf32>
  %0 = tensor_program.reshape %x : tensor<4x8xf32> -> tensor<2x16xf32>
  // CHECK: tensor_program.reshape %{{.*}} [%{{.*}}] : tensor<?x8xf32> -> tensor<?x2x4xf32>
  %1 = tensor_program.reshape %d [%n] : tensor<?x8xf32> -> tensor<?x2x4xf32>
  // CHECK: tensor_program.permute %{{.*}} [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %2 = tensor_program.permute %x [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  // CHECK: tensor_program.flip %{{.*}} [1, 0] : tensor<4x8xf32>
  %flipped = tensor_program.flip %x [1, 0] : tensor<4x8xf32>
  // CHECK: tensor_program.broadcast %{{.*}} : tensor<4x1xf32> -> tensor<2x4x8xf32>
  %3 = tensor_program.broadcast %col : tensor<4x1xf32> -> tensor<2x4x8xf32>
  // CHECK: tensor_program.broadcast %{{.*}} [%{{.*}}] : tensor<4x1xf32> -> tensor<?x4x8xf32>
  %4 = tensor_program.broadcast %col [%n] : tensor<4x1xf32> -> tensor<?x4x8xf32>
  // CHECK: tensor_program.slice %{{.*}} dim 1 start 2 end 6 step 2 : tensor<4x8xf32> -> tensor<4x2xf32>
  %5 = tensor_program.slice %x dim 1 start 2 end 6 step 2 : tensor<4x8xf32> -> tensor<4x2xf32>
  // CHECK: tensor_program.slice %{{.*}} dim 0 start 1 : tensor<?x8xf32> -> tensor<?x8xf32>
  %6 = tensor_program.slice %d dim 0 start 1 : tensor<?x8xf32> -> tensor<?x8xf32>
  // CHECK: tensor_program.slice %{{.*}} dim 1 start 3 end 100 : tensor<4x8xf32> -> tensor<4x5xf32>
  %7 = tensor_program.slice %x dim 1 start 3 end 100 : tensor<4x8xf32> -> tensor<4x5xf32>
  // CHECK: tensor_program.concat %{{.*}}, %{{.*}} dim 0 : (tensor<4x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %8 = tensor_program.concat %x, %d dim 0 : (tensor<4x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  // A concatenated size known although the inputs' are not.
  // CHECK: tensor_program.concat %{{.*}}, %{{.*}} dim 0 : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<12x8xf32>
  %known = tensor_program.concat %d, %d dim 0 : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<12x8xf32>
  // CHECK: tensor_program.concat %{{.*}}, %{{.*}} dim 1 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x9xf32>
  %9 = tensor_program.concat %x, %col dim 1 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x9xf32>
  // CHECK: tensor_program.pad %{{.*}} low [0, 1] high [0, 2] value 0.000000e+00 : tensor<4x8xf32> -> tensor<4x11xf32>
  %10 = tensor_program.pad %x low [0, 1] high [0, 2] value 0.0 : tensor<4x8xf32> -> tensor<4x11xf32>
  // CHECK: tensor_program.as_strided %{{.*}} sizes [2, 2] strides [1, 2] offset 1 : tensor<4x8xf32> -> tensor<2x2xf32>
  %11 = tensor_program.as_strided %x sizes [2, 2] strides [1, 2] offset 1 : tensor<4x8xf32> -> tensor<2x2xf32>
  return
}

// CHECK-LABEL: func.func @contractions
func.func @contractions(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %q: tensor<2x4x16x8xf32>, %k: tensor<4x8x16xf32>,
                        %x: tensor<?x8xf32>, %w: tensor<16x8xf32>, %bias: tensor<16xf32>,
                        %ba: tensor<2x4x8xf32>, %bb: tensor<2x8x3xf32>) {
  // CHECK: tensor_program.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %0 = tensor_program.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  // CHECK: tensor_program.matmul %{{.*}}, %{{.*}} : (tensor<2x4x16x8xf32>, tensor<4x8x16xf32>) -> tensor<2x4x16x16xf32>
  %1 = tensor_program.matmul %q, %k : (tensor<2x4x16x8xf32>, tensor<4x8x16xf32>) -> tensor<2x4x16x16xf32>
  // CHECK: tensor_program.batch_matmul %{{.*}}, %{{.*}} : (tensor<2x4x8xf32>, tensor<2x8x3xf32>) -> tensor<2x4x3xf32>
  %2 = tensor_program.batch_matmul %ba, %bb : (tensor<2x4x8xf32>, tensor<2x8x3xf32>) -> tensor<2x4x3xf32>
  // CHECK: tensor_program.linear %{{.*}}, %{{.*}} bias %{{.*}} : (tensor<?x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  %3 = tensor_program.linear %x, %w bias %bias : (tensor<?x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  // CHECK: tensor_program.linear %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %4 = tensor_program.linear %a, %w : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return
}

// CHECK-LABEL: func.func @composites
func.func @composites(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) {
  // CHECK: tensor_program.softmax %{{.*}} dim 1 : tensor<4x8xf32>
  %0 = tensor_program.softmax %x dim 1 : tensor<4x8xf32>
  // CHECK: tensor_program.log_softmax %{{.*}} dim 0 : tensor<4x8xf32>
  %1 = tensor_program.log_softmax %x dim 0 : tensor<4x8xf32>
  // CHECK: tensor_program.layer_norm %{{.*}} weight %{{.*}} bias %{{.*}} normalized_rank 1 eps 1.000000e-05 : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = tensor_program.layer_norm %x weight %w bias %b normalized_rank 1 eps 1.0e-05 : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: tensor_program.layer_norm %{{.*}} normalized_rank 2 eps 1.000000e-05 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = tensor_program.layer_norm %x normalized_rank 2 eps 1.0e-05 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: tensor_program.layer_norm %{{.*}} bias %{{.*}} normalized_rank 1 eps 1.000000e-05 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %4 = tensor_program.layer_norm %x bias %b normalized_rank 1 eps 1.0e-05 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: tensor_program.rms_norm %{{.*}} weight %{{.*}} eps 9.9999999999999995E-7 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %5 = tensor_program.rms_norm %x weight %w eps 1.0e-06 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: tensor_program.rms_norm %{{.*}} eps 9.9999999999999995E-7 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = tensor_program.rms_norm %x eps 1.0e-06 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// CHECK-LABEL: func.func @externs
func.func @externs(%x: tensor<4x8xf32>, %k: i64) -> (tensor<4x2xf32>, tensor<4x2xi64>) {
  // CHECK: %{{.*}}:2 = tensor_program.extern "aten::topk"(%{{.*}}) args {k = 2 : i64} schema "topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)" : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  %v, %i = tensor_program.extern "aten::topk"(%x) args {k = 2 : i64} schema "topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)" : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  // CHECK: tensor_program.extern "aten::mul"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, i64) -> tensor<4x8xf32>
  %m = tensor_program.extern "aten::mul"(%x, %k) : (tensor<4x8xf32>, i64) -> tensor<4x8xf32>
  return %v, %i : tensor<4x2xf32>, tensor<4x2xi64>
}

// CHECK-LABEL: func.func @mutation
func.func @mutation(%state: tensor<4xf32>, %delta: tensor<4xf32>) {
  %0 = tensor_program.add %state, %delta : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: tensor_program.copy_back %{{.*}} to %{{.*}} : tensor<4xf32>
  tensor_program.copy_back %0 to %state : tensor<4xf32>
  return
}

// CHECK-LABEL: func.func @fused
func.func @fused(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %w: tensor<8x2xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4x2xf32>) {
  // CHECK: tensor_program.fused pointwise(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8xf32>):
  // CHECK: tensor_program.yield %{{.*}} : tensor<4x8xf32>
  %0 = tensor_program.fused pointwise (%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8xf32>):
    %s = tensor_program.add %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %r = tensor_program.relu %s : tensor<4x8xf32>
    tensor_program.yield %r : tensor<4x8xf32>
  }
  // CHECK: tensor_program.fused reduction(%{{.*}})
  %1 = tensor_program.fused reduction (%0) : (tensor<4x8xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4x8xf32>):
    %e = tensor_program.exp %x : tensor<4x8xf32>
    %s = tensor_program.reduce_sum %e dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    tensor_program.yield %s : tensor<4xf32>
  }
  // CHECK: tensor_program.fused matmul(%{{.*}}, %{{.*}})
  %2 = tensor_program.fused matmul (%0, %w) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x2xf32>):
    %m = tensor_program.matmul %x, %y : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
    %c = tensor_program.constant dense<1.0> : tensor<2xf32>
    %e = tensor_program.add %m, %c : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
    tensor_program.yield %e : tensor<4x2xf32>
  }
  return %0, %1, %2 : tensor<4x8xf32>, tensor<4xf32>, tensor<4x2xf32>
}

// CHECK-LABEL: func.func @math_and_logic
func.func @math_and_logic(%x: tensor<4xf32>, %i: tensor<4xi64>, %b: tensor<4xi1>) {
  // CHECK: tensor_program.sin
  %0 = tensor_program.sin %x : tensor<4xf32>
  // CHECK: tensor_program.cos
  %1 = tensor_program.cos %0 : tensor<4xf32>
  // CHECK: tensor_program.tan
  %2 = tensor_program.tan %1 : tensor<4xf32>
  // CHECK: tensor_program.asin
  %3 = tensor_program.asin %2 : tensor<4xf32>
  // CHECK: tensor_program.acos
  %4 = tensor_program.acos %3 : tensor<4xf32>
  // CHECK: tensor_program.atan
  %5 = tensor_program.atan %4 : tensor<4xf32>
  // CHECK: tensor_program.sinh
  %6 = tensor_program.sinh %5 : tensor<4xf32>
  // CHECK: tensor_program.cosh
  %7 = tensor_program.cosh %6 : tensor<4xf32>
  // CHECK: tensor_program.asinh
  %8 = tensor_program.asinh %7 : tensor<4xf32>
  // CHECK: tensor_program.acosh
  %9 = tensor_program.acosh %8 : tensor<4xf32>
  // CHECK: tensor_program.atanh
  %10 = tensor_program.atanh %9 : tensor<4xf32>
  // CHECK: tensor_program.log1p
  %11 = tensor_program.log1p %10 : tensor<4xf32>
  // CHECK: tensor_program.expm1
  %12 = tensor_program.expm1 %11 : tensor<4xf32>
  // CHECK: tensor_program.log2
  %13 = tensor_program.log2 %12 : tensor<4xf32>
  // CHECK: tensor_program.log10
  %14 = tensor_program.log10 %13 : tensor<4xf32>
  // CHECK: tensor_program.exp2
  %15 = tensor_program.exp2 %14 : tensor<4xf32>
  // CHECK: tensor_program.floor
  %16 = tensor_program.floor %15 : tensor<4xf32>
  // CHECK: tensor_program.ceil
  %17 = tensor_program.ceil %16 : tensor<4xf32>
  // CHECK: tensor_program.round
  %18 = tensor_program.round %17 : tensor<4xf32>
  // CHECK: tensor_program.trunc
  %19 = tensor_program.trunc %18 : tensor<4xf32>
  // CHECK: tensor_program.sign %{{.*}} : tensor<4xi64>
  %20 = tensor_program.sign %i : tensor<4xi64>
  // CHECK: tensor_program.not %{{.*}} : tensor<4xi1>
  %21 = tensor_program.not %b : tensor<4xi1>
  // CHECK: tensor_program.and %{{.*}}, %{{.*}} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %22 = tensor_program.and %21, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: tensor_program.or
  %23 = tensor_program.or %i, %20 : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  // CHECK: tensor_program.xor
  %24 = tensor_program.xor %22, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: tensor_program.floor_div
  %25 = tensor_program.floor_div %23, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  // CHECK: tensor_program.fmod
  %26 = tensor_program.fmod %x, %19 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: tensor_program.remainder
  %27 = tensor_program.remainder %25, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  // CHECK: tensor_program.atan2
  %28 = tensor_program.atan2 %26, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// CHECK-LABEL: func.func @indexing
func.func @indexing(%x: tensor<?x8xf32>, %ids: tensor<2x3xi64>, %w: tensor<10x4xf32>, %n: index, %s: tensor<4x2xf32>) {
  // CHECK: tensor_program.iota dim 1 [%{{.*}}] : tensor<?x8xi64>
  %0 = tensor_program.iota dim 1 [%n] : tensor<?x8xi64>
  // CHECK: tensor_program.from_index %{{.*}} : tensor<f32>
  %1 = tensor_program.from_index %n : tensor<f32>
  // CHECK: tensor_program.uniform %{{.*}} stream 2 [%{{.*}}] : tensor<i64> -> tensor<?x8xf32>
  %seed = tensor_program.full 7.0 : tensor<i64>
  %u = tensor_program.uniform %seed stream 2 [%n] : tensor<i64> -> tensor<?x8xf32>
  // CHECK: tensor_program.take %{{.*}}, %{{.*}} dim 0 : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %2 = tensor_program.take %w, %ids dim 0 : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  // CHECK: tensor_program.gather %{{.*}}, %{{.*}} dim 1 : (tensor<?x8xf32>, tensor<?x8xi64>) -> tensor<?x8xf32>
  %3 = tensor_program.gather %x, %0 dim 1 : (tensor<?x8xf32>, tensor<?x8xi64>) -> tensor<?x8xf32>
  // CHECK: tensor_program.dynamic_slice %{{.*}} dim 0 [%{{.*}}, %{{.*}}] step 2 : tensor<?x8xf32> -> tensor<?x8xf32>
  %4 = tensor_program.dynamic_slice %x dim 0 [%n, %n] step 2 : tensor<?x8xf32> -> tensor<?x8xf32>
  // CHECK: tensor_program.slice_scatter %{{.*}}, %{{.*}} dim 0 start 2 end 10 step 2 : (tensor<10x4xf32>, tensor<4x4xf32>) -> tensor<10x4xf32>
  %5 = tensor_program.take %w, %ids dim 0 : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %6 = tensor_program.reshape %w : tensor<10x4xf32> -> tensor<40xf32>
  %7 = tensor_program.slice %w dim 0 start 0 end 4 : tensor<10x4xf32> -> tensor<4x4xf32>
  %8 = tensor_program.slice_scatter %w, %7 dim 0 start 2 end 10 step 2 : (tensor<10x4xf32>, tensor<4x4xf32>) -> tensor<10x4xf32>
  // CHECK: tensor_program.cumsum %{{.*}} dim 1 : tensor<?x8xf32>
  %9 = tensor_program.cumsum %x dim 1 : tensor<?x8xf32>
  return
}

// CHECK-LABEL: func.func @convolution_and_pooling
func.func @convolution_and_pooling(%x: tensor<?x4x9x9xf32>, %w: tensor<8x2x3x3xf32>, %b: tensor<8xf32>) {
  // CHECK: tensor_program.convolution %{{.*}}, %{{.*}} bias %{{.*}} stride [2, 2] dilation [1, 1] groups 2 : (tensor<?x4x9x9xf32>, tensor<8x2x3x3xf32>, tensor<8xf32>) -> tensor<?x8x4x4xf32>
  %0 = tensor_program.convolution %x, %w bias %b stride [2, 2] dilation [1, 1] groups 2 : (tensor<?x4x9x9xf32>, tensor<8x2x3x3xf32>, tensor<8xf32>) -> tensor<?x8x4x4xf32>
  // CHECK: tensor_program.max_pool %{{.*}} window [3, 3] stride [2, 2] dilation [1, 1] padding_low [1, 1] padding_high [1, 1] : tensor<?x4x9x9xf32> -> tensor<?x4x5x5xf32>
  %1 = tensor_program.max_pool %x window [3, 3] stride [2, 2] dilation [1, 1] padding_low [1, 1] padding_high [1, 1] : tensor<?x4x9x9xf32> -> tensor<?x4x5x5xf32>
  // CHECK: tensor_program.avg_pool %{{.*}} window [3, 3] stride [2, 2] padding_low [1, 1] padding_high [1, 1] count_padding [1, 1] divisor 9 : tensor<?x4x9x9xf32> -> tensor<?x4x5x5xf32>
  %2 = tensor_program.avg_pool %x window [3, 3] stride [2, 2] padding_low [1, 1] padding_high [1, 1] count_padding [1, 1] divisor 9 : tensor<?x4x9x9xf32> -> tensor<?x4x5x5xf32>
  return
}

// CHECK-LABEL: func.func @scatter
func.func @scatter(%x: tensor<4x8xf32>, %i: tensor<4x2xi64>, %v: tensor<4x2xf32>) {
  // CHECK: tensor_program.scatter %{{.*}}, %{{.*}}, %{{.*}} dim 1 : (tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x8xf32>
  %0 = tensor_program.scatter %x, %i, %v dim 1 : (tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x8xf32>
  // CHECK: tensor_program.scatter %{{.*}}, %{{.*}}, %{{.*}} dim 1 reduce add
  %1 = tensor_program.scatter %x, %i, %v dim 1 reduce add : (tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x8xf32>
  return
}
