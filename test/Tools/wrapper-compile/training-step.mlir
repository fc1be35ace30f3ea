// A training step compiled into a trainer (WrapperTraining.h) and trained by
// a C program with no Python: least squares fit of y = x * w (w broadcast
// over the rows) by SGD. The state (w, the learning rate) is read from and
// written to .npy files named after it.
//
// RUN: rm -rf %t && mkdir -p %t/state %t/out
// RUN: wrapper-compile %s --entry=step -o %t/train.so
// The data and the initial state: w = 0, lr = 0.5.
// RUN: wrapper-run %s --entry=data --print=false --save=%t/data_
// RUN: wrapper-run %s --entry=init --print=false --save=%t/init_
// RUN: mv %t/init_0.npy %t/state/w.npy && mv %t/init_1.npy %t/state/optimizer.lr.npy
// RUN: train_model %t/train.so %t/state %t/data_0.npy %t/data_1.npy --steps 30 --save %t/out --expect-decrease | FileCheck %s
// CHECK: step 0: loss 11.9531
// CHECK: step 29: loss
// CHECK: -> {{.*}}: decreased
//
// The trained w is close to the true [1, 2, 3, 4]; the learning rate is
// state the step does not update:
// RUN: wrapper-run %s --entry=check --input=%t/out/w.npy --input=%t/out/optimizer.lr.npy | FileCheck %s --check-prefix=TRAINED
// TRAINED-COUNT-2: i1 [] min 1 max 1
//
// The learning rate is state a C program may set: with 0 nothing moves.
// RUN: train_model %t/train.so %t/state %t/data_0.npy %t/data_1.npy --steps 3 --lr 0 | FileCheck %s --check-prefix=FROZEN
// FROZEN: step 0: loss 11.9531
// FROZEN-NEXT: step 1: loss 11.9531
// FROZEN-NEXT: step 2: loss 11.9531
//
// Refusals: a missing state file, a state of the wrong shape, wrong inputs.
// RUN: not train_model %t/train.so %t/missing %t/data_0.npy %t/data_1.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: train_model: cannot load the state: cannot open '{{.*}}missing/w.npy'
// RUN: mkdir -p %t/bad && cp %t/state/w.npy %t/bad/optimizer.lr.npy && cp %t/state/w.npy %t/bad/w.npy
// RUN: not train_model %t/train.so %t/bad %t/data_0.npy %t/data_1.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: cannot load the state: {{.*}}bad/optimizer.lr.npy: state 'optimizer.lr' is float32[], got float32[4]
// RUN: not train_model %t/train.so %t/state %t/data_0.npy 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: train_model: the step takes 2 inputs (x, t), got 1 files
// RUN: not train_model %t/train.so %t/state %t/data_0.npy %t/state/w.npy 2>&1 | FileCheck %s --check-prefix=INPUT
// INPUT: step 0 failed: wrapper_train_step: input 't' is float32[8, 4], got float32[4]
//
// The same step writing w back in place (tensor_program.copy_back, as
// compile_training writes steps) trains to the same w, bit for bit:
// RUN: mkdir -p %t/in_place
// RUN: wrapper-compile %s --entry=step_in_place -o %t/in_place.so
// RUN: train_model %t/in_place.so %t/state %t/data_0.npy %t/data_1.npy --steps 30 --save %t/in_place --expect-decrease | FileCheck %s
// RUN: cmp %t/out/w.npy %t/in_place/w.npy

func.func @step(%w: tensor<4xf32> {tensor_program.state = "w"},
                %lr: tensor<f32> {tensor_program.state = "optimizer.lr"},
                %x: tensor<8x4xf32> {tensor_program.name = "x"},
                %t: tensor<8x4xf32> {tensor_program.name = "t"})
    -> (tensor<f32> {tensor_program.loss}, tensor<4xf32> {tensor_program.state = "w"}) {
  %p = tensor_program.mul %x, %w : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  %e = tensor_program.sub %p, %t : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %e2 = tensor_program.mul %e, %e : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %loss = tensor_program.reduce_mean %e2 dims [0, 1] : tensor<8x4xf32> -> tensor<f32>
  // d loss / d w = 2/32 * sum over rows of e * x.
  %ex = tensor_program.mul %e, %x : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %s = tensor_program.reduce_sum %ex dims [0] : tensor<8x4xf32> -> tensor<4xf32>
  %k = tensor_program.constant dense<0.0625> : tensor<f32>
  %g = tensor_program.mul %s, %k : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %u = tensor_program.mul %g, %lr : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %w2 = tensor_program.sub %w, %u : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %loss, %w2 : tensor<f32>, tensor<4xf32>
}

func.func @step_in_place(%w: tensor<4xf32> {tensor_program.state = "w"},
                         %lr: tensor<f32> {tensor_program.state = "optimizer.lr"},
                         %x: tensor<8x4xf32> {tensor_program.name = "x"},
                         %t: tensor<8x4xf32> {tensor_program.name = "t"})
    -> (tensor<f32> {tensor_program.loss}) {
  %p = tensor_program.mul %x, %w : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  %e = tensor_program.sub %p, %t : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %e2 = tensor_program.mul %e, %e : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %loss = tensor_program.reduce_mean %e2 dims [0, 1] : tensor<8x4xf32> -> tensor<f32>
  %ex = tensor_program.mul %e, %x : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %s = tensor_program.reduce_sum %ex dims [0] : tensor<8x4xf32> -> tensor<4xf32>
  %k = tensor_program.constant dense<0.0625> : tensor<f32>
  %g = tensor_program.mul %s, %k : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %u = tensor_program.mul %g, %lr : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %w2 = tensor_program.sub %w, %u : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  tensor_program.copy_back %w2 to %w : tensor<4xf32>
  return %loss : tensor<f32>
}

// x: rows 0..7 of [1, 1, 1, 1] * (row + 1) / 4; t = x * [1, 2, 3, 4].
func.func @data() -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %rows = tensor_program.constant dense<[[0.25], [0.5], [0.75], [1.0], [1.25], [1.5], [1.75], [2.0]]> : tensor<8x1xf32>
  %ones = tensor_program.constant dense<1.0> : tensor<8x4xf32>
  %x = tensor_program.mul %ones, %rows : (tensor<8x4xf32>, tensor<8x1xf32>) -> tensor<8x4xf32>
  %wt = tensor_program.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %t = tensor_program.mul %x, %wt : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  return %x, %t : tensor<8x4xf32>, tensor<8x4xf32>
}

func.func @init() -> (tensor<4xf32>, tensor<f32>) {
  %w = tensor_program.constant dense<0.0> : tensor<4xf32>
  %lr = tensor_program.constant dense<0.5> : tensor<f32>
  return %w, %lr : tensor<4xf32>, tensor<f32>
}

// Whether |w - [1, 2, 3, 4]| < 0.05 everywhere and lr is still 0.5.
func.func @check(%w: tensor<4xf32>, %lr: tensor<f32>) -> (tensor<i1>, tensor<i1>) {
  %wt = tensor_program.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %d = tensor_program.sub %w, %wt : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %a = tensor_program.abs %d : tensor<4xf32>
  %m = tensor_program.reduce_max %a dims [0] : tensor<4xf32> -> tensor<f32>
  %tol = tensor_program.constant dense<0.05> : tensor<f32>
  %ok = tensor_program.compare lt, %m, %tol : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %lr0 = tensor_program.constant dense<0.5> : tensor<f32>
  %same = tensor_program.compare eq, %lr, %lr0 : (tensor<f32>, tensor<f32>) -> tensor<i1>
  return %ok, %same : tensor<i1>, tensor<i1>
}
