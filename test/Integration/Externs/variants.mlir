// The out= and in-place forms of extern kernels at the wrapper level: the
// ones the library implements are called directly, the others are built by
// --wrapper-synthesize-extern-variants from the functional kernel. The
// graph runs through the CPU pipeline and reference.py checks its outputs.
//
// RUN: wrapper-opt %s --wrapper-synthesize-extern-variants | FileCheck %s --check-prefix=SYNTH
// REQUIRES: python-numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/reference.py %s %t variants | FileCheck %s --check-prefix=EXEC

// EXEC: variants: ok

// Implemented variants stay extern calls.
// SYNTH-LABEL: wrapper.graph @variants
// SYNTH: wrapper.extern_out "aten::index_select.out"
// SYNTH: wrapper.extern_out "aten::relu_"
// SYNTH: wrapper.extern_out "aten::cumsum_"
// Missing ones become calls of synthesized functions.
// SYNTH: call @__wrapper_synth_addmm_inplace(%{{.*}}, %{{.*}}, %[[ACC:.*]]) : (memref<4x7xf32>, memref<7x3xf32>, memref<4x3xf32>) -> ()
// SYNTH: call @__wrapper_synth_conv2d_out(
// SYNTH: call @__wrapper_synth_sort_out(
// SYNTH: call @__wrapper_synth_conv2d_out(

// One function per kernel, variant, types and arguments: the second
// conv2d reuses the first's.
// SYNTH-LABEL: func.func private @__wrapper_synth_addmm_inplace
// SYNTH-SAME: (%[[A:.*]]: memref<4x7xf32>, %[[B:.*]]: memref<7x3xf32>, %[[SELF:.*]]: memref<4x3xf32>)
// SYNTH-SAME: wrapper.synthesized_from = "aten::addmm"
// SYNTH: %[[R:.*]] = wrapper.extern_alloc "aten::addmm" ins(%[[SELF]], %[[A]], %[[B]] : {{.*}}) args {beta = 5.000000e-01 : f64} -> memref<4x3xf32>
// SYNTH: memref.copy %[[R]], %[[SELF]]
// SYNTH: wrapper.free %[[R]]
// SYNTH-LABEL: func.func private @__wrapper_synth_conv2d_out
// SYNTH: wrapper.extern_alloc "aten::conv2d"
// SYNTH-LABEL: func.func private @__wrapper_synth_sort_out
// SYNTH: %[[V0:.*]], %[[V1:.*]] = wrapper.extern_alloc "aten::sort" {{.*}} -> memref<4x5xf32>, memref<4x5xi64>
// SYNTH: memref.copy %[[V0]]
// SYNTH: memref.copy %[[V1]]
// SYNTH-NOT: func.func private @__wrapper_synth

wrapper.graph @variants(%x: memref<6x5xf32>, %i: memref<4xi64>, %c: memref<4x3xf32>,
                        %a: memref<4x7xf32>, %b: memref<7x3xf32>,
                        %img: memref<1x2x5x5xf32>, %w: memref<3x2x3x3xf32>)
    -> (memref<4x5xf32>, memref<4x3xf32>, memref<1x3x3x3xf32>, memref<4x5xf32>, memref<4x5xi64>, memref<1x3x3x3xf32>) {
  %s = wrapper.alloc() : memref<4x5xf32>
  wrapper.extern_out "aten::index_select.out" ins(%x, %i : memref<6x5xf32>, memref<4xi64>) outs(%s : memref<4x5xf32>) args {dim = 0 : i64}
  wrapper.extern_out "aten::relu_" outs(%s : memref<4x5xf32>)
  wrapper.extern_out "aten::cumsum_" outs(%s : memref<4x5xf32>) args {dim = 1 : i64}
  %acc = wrapper.alloc() : memref<4x3xf32>
  memref.copy %c, %acc : memref<4x3xf32> to memref<4x3xf32>
  wrapper.extern_out "aten::addmm_" ins(%a, %b : memref<4x7xf32>, memref<7x3xf32>) outs(%acc : memref<4x3xf32>) args {beta = 0.5 : f64}
  %conv = wrapper.alloc() : memref<1x3x3x3xf32>
  wrapper.extern_out "aten::conv2d" ins(%img, %w : memref<1x2x5x5xf32>, memref<3x2x3x3xf32>) outs(%conv : memref<1x3x3x3xf32>)
  %sv = wrapper.alloc() : memref<4x5xf32>
  %si = wrapper.alloc() : memref<4x5xi64>
  wrapper.extern_out "aten::sort" ins(%s : memref<4x5xf32>) outs(%sv, %si : memref<4x5xf32>, memref<4x5xi64>) args {descending = true}
  %conv2 = wrapper.alloc() : memref<1x3x3x3xf32>
  wrapper.extern_out "aten::conv2d" ins(%img, %w : memref<1x2x5x5xf32>, memref<3x2x3x3xf32>) outs(%conv2 : memref<1x3x3x3xf32>)
  wrapper.return %s, %acc, %conv, %sv, %si, %conv2 : memref<4x5xf32>, memref<4x3xf32>, memref<1x3x3x3xf32>, memref<4x5xf32>, memref<4x5xi64>, memref<1x3x3x3xf32>
}
