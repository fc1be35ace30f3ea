// Malformed training steps are refused before anything is compiled, with a
// message naming the argument or result.
//
// RUN: not wrapper-compile %s --entry=no_loss -o %t.so 2>&1 | FileCheck %s --check-prefix=NOLOSS
// NOLOSS: error: @no_loss is not a valid training step: a training step (with tensor_program.state or .seed) needs one result marked tensor_program.loss
// RUN: not wrapper-compile %s --entry=orphan -o %t.so 2>&1 | FileCheck %s --check-prefix=ORPHAN
// ORPHAN: error: @orphan is not a valid training step: result #1 updates the state 'v', which no argument holds
// RUN: not wrapper-compile %s --entry=mismatch -o %t.so 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: result #1 updates the state 'w' with a 'tensor<4xf64>', the state is a 'tensor<4xf32>'
// RUN: not wrapper-compile %s --entry=dynamic -o %t.so 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: state 'w' (argument #0) must have a static shape, got 'tensor<?xf32>'
// RUN: not wrapper-compile %s --entry=vector_loss -o %t.so 2>&1 | FileCheck %s --check-prefix=VECTOR
// VECTOR: result #0: the loss is a unit attribute on a float scalar tensor, got 'tensor<4xf32>'
// RUN: not wrapper-compile %s --entry=twice -o %t.so 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: two arguments hold the state 'w'
// RUN: not wrapper-compile %s --entry=path -o %t.so 2>&1 | FileCheck %s --check-prefix=PATH
// PATH: argument #0: the state name '../w' holds a '/' or a control character (state names are file names)
// RUN: not wrapper-compile %s --entry=bad_seed -o %t.so 2>&1 | FileCheck %s --check-prefix=SEED
// SEED: argument #1: the seed is a unit attribute on a tensor<i64>
// RUN: not wrapper-compile %s --entry=writes_input -o %t.so 2>&1 | FileCheck %s --check-prefix=WRITES
// WRITES: argument #1 is written back (tensor_program.copy_back) but is not a state; a training step updates only its states
// RUN: not wrapper-compile %s --entry=both -o %t.so 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: result #1 updates the state 'w', which the step also writes back in place

func.func @no_loss(%w: tensor<4xf32> {tensor_program.state = "w"}) -> (tensor<4xf32> {tensor_program.state = "w"}) {
  return %w : tensor<4xf32>
}

func.func @orphan(%w: tensor<4xf32> {tensor_program.state = "w"}) -> (tensor<f32> {tensor_program.loss}, tensor<4xf32> {tensor_program.state = "v"}) {
  %l = tensor_program.reduce_sum %w dims [0] : tensor<4xf32> -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

func.func @mismatch(%w: tensor<4xf32> {tensor_program.state = "w"}) -> (tensor<f32> {tensor_program.loss}, tensor<4xf64> {tensor_program.state = "w"}) {
  %l = tensor_program.reduce_sum %w dims [0] : tensor<4xf32> -> tensor<f32>
  %d = tensor_program.cast %w : tensor<4xf32> to tensor<4xf64>
  return %l, %d : tensor<f32>, tensor<4xf64>
}

func.func @dynamic(%w: tensor<?xf32> {tensor_program.state = "w"}) -> (tensor<f32> {tensor_program.loss}) {
  %l = tensor_program.reduce_sum %w dims [0] : tensor<?xf32> -> tensor<f32>
  return %l : tensor<f32>
}

func.func @vector_loss(%w: tensor<4xf32> {tensor_program.state = "w"}) -> (tensor<4xf32> {tensor_program.loss}) {
  return %w : tensor<4xf32>
}

func.func @twice(%w: tensor<4xf32> {tensor_program.state = "w"}, %v: tensor<4xf32> {tensor_program.state = "w"}) -> (tensor<f32> {tensor_program.loss}) {
  %l = tensor_program.reduce_sum %w dims [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

func.func @path(%w: tensor<4xf32> {tensor_program.state = "../w"}) -> (tensor<f32> {tensor_program.loss}) {
  %l = tensor_program.reduce_sum %w dims [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

func.func @bad_seed(%w: tensor<4xf32> {tensor_program.state = "w"}, %s: tensor<i32> {tensor_program.seed}) -> (tensor<f32> {tensor_program.loss}) {
  %l = tensor_program.reduce_sum %w dims [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

func.func @writes_input(%w: tensor<4xf32> {tensor_program.state = "w"}, %x: tensor<4xf32>) -> (tensor<f32> {tensor_program.loss}) {
  %l = tensor_program.reduce_sum %w dims [0] : tensor<4xf32> -> tensor<f32>
  %n = tensor_program.add %w, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  tensor_program.copy_back %n to %x : tensor<4xf32>
  return %l : tensor<f32>
}

func.func @both(%w: tensor<4xf32> {tensor_program.state = "w"}, %x: tensor<4xf32>) -> (tensor<f32> {tensor_program.loss}, tensor<4xf32> {tensor_program.state = "w"}) {
  %l = tensor_program.reduce_sum %w dims [0] : tensor<4xf32> -> tensor<f32>
  %n = tensor_program.add %w, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  tensor_program.copy_back %n to %w : tensor<4xf32>
  return %l, %n : tensor<f32>, tensor<4xf32>
}
