// Every registered extern kernel compiled through the CPU pipeline
// (tensor_program.extern -> wrapper.extern_alloc -> the C shim) and run on
// inputs from reference.py, which checks the outputs against its own NumPy
// implementation of each kernel. Optional arguments are exercised absent
// (defaults, None) and given.
//
// REQUIRES: python-numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/reference.py %s %t | FileCheck %s

// CHECK: mm: ok
func.func @mm(%a: tensor<5x7xf32>, %b: tensor<7x3xf32>) -> tensor<5x3xf32> {
  %0 = tensor_program.extern "aten::mm"(%a, %b) : (tensor<5x7xf32>, tensor<7x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// CHECK: bmm: ok
func.func @bmm(%a: tensor<2x5x7xf32>, %b: tensor<2x7x3xf32>) -> tensor<2x5x3xf32> {
  %0 = tensor_program.extern "aten::bmm"(%a, %b) : (tensor<2x5x7xf32>, tensor<2x7x3xf32>) -> tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// CHECK: addmm_default: ok
func.func @addmm_default(%c: tensor<3xf32>, %a: tensor<5x7xf32>, %b: tensor<7x3xf32>) -> tensor<5x3xf32> {
  %0 = tensor_program.extern "aten::addmm"(%c, %a, %b) : (tensor<3xf32>, tensor<5x7xf32>, tensor<7x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// CHECK: addmm_scaled: ok
func.func @addmm_scaled(%c: tensor<5x3xf32>, %a: tensor<5x7xf32>, %b: tensor<7x3xf32>) -> tensor<5x3xf32> {
  %0 = tensor_program.extern "aten::addmm"(%c, %a, %b) args {beta = 0.5 : f64, alpha = 2 : i64} : (tensor<5x3xf32>, tensor<5x7xf32>, tensor<7x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// CHECK: conv2d_plain: ok
func.func @conv2d_plain(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = tensor_program.extern "aten::conv2d"(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// CHECK: conv2d_full: ok
func.func @conv2d_full(%x: tensor<2x4x9x9xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x4x11xf32> {
  %0 = tensor_program.extern "aten::conv2d"(%x, %w, %b) args {stride = [2, 1], padding = [1, 2], dilation = [2, 1], groups = 2 : i64} : (tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<2x6x4x11xf32>
  return %0 : tensor<2x6x4x11xf32>
}

// CHECK: conv2d_column_stride: ok
func.func @conv2d_column_stride(%x: tensor<1x3x9x9xf32>, %w: tensor<5x3x3x3xf32>) -> tensor<1x5x7x3xf32> {
  %0 = tensor_program.extern "aten::conv2d"(%x, %w) args {stride = [1, 3], padding = [0, 2], dilation = [1, 2]} : (tensor<1x3x9x9xf32>, tensor<5x3x3x3xf32>) -> tensor<1x5x7x3xf32>
  return %0 : tensor<1x5x7x3xf32>
}

// CHECK: topk_largest: ok
func.func @topk_largest(%x: tensor<4x9xf32>) -> (tensor<4x3xf32>, tensor<4x3xi64>) {
  %v, %i = tensor_program.extern "aten::topk"(%x) args {k = 3 : i64} : (tensor<4x9xf32>) -> (tensor<4x3xf32>, tensor<4x3xi64>)
  return %v, %i : tensor<4x3xf32>, tensor<4x3xi64>
}

// CHECK: topk_smallest: ok
func.func @topk_smallest(%x: tensor<4x9xf32>) -> (tensor<2x9xf32>, tensor<2x9xi64>) {
  %v, %i = tensor_program.extern "aten::topk"(%x) args {k = 2 : i64, dim = 0 : i64, largest = false, sorted = true} : (tensor<4x9xf32>) -> (tensor<2x9xf32>, tensor<2x9xi64>)
  return %v, %i : tensor<2x9xf32>, tensor<2x9xi64>
}

// CHECK: sort_default: ok
func.func @sort_default(%x: tensor<4x9xf32>) -> (tensor<4x9xf32>, tensor<4x9xi64>) {
  %v, %i = tensor_program.extern "aten::sort"(%x) : (tensor<4x9xf32>) -> (tensor<4x9xf32>, tensor<4x9xi64>)
  return %v, %i : tensor<4x9xf32>, tensor<4x9xi64>
}

// CHECK: sort_descending: ok
func.func @sort_descending(%x: tensor<4x9xf32>) -> (tensor<4x9xf32>, tensor<4x9xi64>) {
  %v, %i = tensor_program.extern "aten::sort"(%x) args {dim = 0 : i64, descending = true} : (tensor<4x9xf32>) -> (tensor<4x9xf32>, tensor<4x9xi64>)
  return %v, %i : tensor<4x9xf32>, tensor<4x9xi64>
}

// CHECK: argmax_all: ok
func.func @argmax_all(%x: tensor<4x9xf32>) -> tensor<i64> {
  %0 = tensor_program.extern "aten::argmax"(%x) : (tensor<4x9xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// CHECK: argmax_dim: ok
func.func @argmax_dim(%x: tensor<4x9xf32>) -> tensor<4x1xi64> {
  %0 = tensor_program.extern "aten::argmax"(%x) args {dim = 1 : i64, keepdim = true} : (tensor<4x9xf32>) -> tensor<4x1xi64>
  return %0 : tensor<4x1xi64>
}

// CHECK: cumsum_default: ok
func.func @cumsum_default(%x: tensor<4x9xf32>) -> tensor<4x9xf32> {
  %0 = tensor_program.extern "aten::cumsum"(%x) args {dim = 1 : i64} : (tensor<4x9xf32>) -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}

// CHECK: cumsum_dtype: ok
func.func @cumsum_dtype(%x: tensor<4x9xf32>) -> tensor<4x9xf64> {
  %0 = tensor_program.extern "aten::cumsum"(%x) args {dim = 0 : i64, dtype = f64} : (tensor<4x9xf32>) -> tensor<4x9xf64>
  return %0 : tensor<4x9xf64>
}

// CHECK: cumsum_int: ok
func.func @cumsum_int(%x: tensor<4x9xi32>) -> tensor<4x9xi64> {
  %0 = tensor_program.extern "aten::cumsum"(%x) args {dim = -1 : i64} : (tensor<4x9xi32>) -> tensor<4x9xi64>
  return %0 : tensor<4x9xi64>
}

// CHECK: index_select: ok
func.func @index_select(%x: tensor<6x5xf32>, %i: tensor<4xi64>) -> tensor<4x5xf32> {
  %0 = tensor_program.extern "aten::index_select"(%x, %i) args {dim = 0 : i64} : (tensor<6x5xf32>, tensor<4xi64>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// CHECK: gather: ok
func.func @gather(%x: tensor<4x5xf32>, %i: tensor<4x3xi64>) -> tensor<4x3xf32> {
  %0 = tensor_program.extern "aten::gather"(%x, %i) args {dim = 1 : i64} : (tensor<4x5xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// CHECK: scatter_add: ok
func.func @scatter_add(%x: tensor<4x5xf32>, %i: tensor<3x5xi64>, %s: tensor<3x5xf32>) -> tensor<4x5xf32> {
  %0 = tensor_program.extern "aten::scatter_add"(%x, %i, %s) args {dim = 0 : i64} : (tensor<4x5xf32>, tensor<3x5xi64>, tensor<3x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// CHECK: embedding: ok
func.func @embedding(%w: tensor<10x4xf32>, %i: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %0 = tensor_program.extern "aten::embedding"(%w, %i) : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// CHECK: scaled_mm_plain: ok
func.func @scaled_mm_plain(%a: tensor<4x8xf8E4M3FN>, %b: tensor<8x6xf8E4M3FN>, %sa: tensor<f32>, %sb: tensor<f32>) -> tensor<4x6xf8E4M3FN> {
  %0 = tensor_program.extern "aten::_scaled_mm"(%a, %b, %sa, %sb) : (tensor<4x8xf8E4M3FN>, tensor<8x6xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<4x6xf8E4M3FN>
  return %0 : tensor<4x6xf8E4M3FN>
}

// CHECK: scaled_mm_full: ok
func.func @scaled_mm_full(%a: tensor<4x8xf8E4M3FN>, %b: tensor<8x6xf8E4M3FN>, %sa: tensor<f32>, %sb: tensor<f32>, %bias: tensor<6xf32>, %sr: tensor<f32>) -> tensor<4x6xf32> {
  %0 = tensor_program.extern "aten::_scaled_mm"(%a, %b, %sa, %sb, %bias, %sr) args {out_dtype = f32, use_fast_accum = true} : (tensor<4x8xf8E4M3FN>, tensor<8x6xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<6xf32>, tensor<f32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// CHECK: relu: ok
func.func @relu(%x: tensor<4x9xf32>) -> tensor<4x9xf32> {
  %0 = tensor_program.extern "aten::relu"(%x) : (tensor<4x9xf32>) -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}

// CHECK: add_alpha: ok
func.func @add_alpha(%x: tensor<4x9xf32>, %y: tensor<9xf32>) -> tensor<4x9xf32> {
  %0 = tensor_program.extern "aten::add"(%x, %y) args {alpha = 2.5 : f64} : (tensor<4x9xf32>, tensor<9xf32>) -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}

// CHECK: mul: ok
func.func @mul(%x: tensor<4x9xf32>, %y: tensor<4x1xf32>) -> tensor<4x9xf32> {
  %0 = tensor_program.extern "aten::mul"(%x, %y) : (tensor<4x9xf32>, tensor<4x1xf32>) -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}

// CHECK: unbind: ok
func.func @unbind(%x: tensor<3x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a, %b, %c = tensor_program.extern "aten::unbind"(%x) : (tensor<3x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %a, %b, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// An extern between fused kernels: its input is a kernel's output and its
// output feeds the next kernel.
// CHECK: mixed: ok
func.func @mixed(%x: tensor<5x7xf32>, %w: tensor<7x3xf32>) -> tensor<5x3xf32> {
  %r = tensor_program.relu %x : tensor<5x7xf32>
  %m = tensor_program.extern "aten::mm"(%r, %w) : (tensor<5x7xf32>, tensor<7x3xf32>) -> tensor<5x3xf32>
  %e = tensor_program.exp %m : tensor<5x3xf32>
  return %e : tensor<5x3xf32>
}
