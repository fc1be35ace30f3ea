// RUN: wrapper-opt %s --split-input-file --allow-unregistered-dialect --wrapper-fuse-horizontal | FileCheck %s
// RUN: wrapper-opt %s --split-input-file --allow-unregistered-dialect --wrapper-fuse-horizontal="max-operands=4" | FileCheck %s --check-prefix=LIMIT

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// Two independent elementwise ops over the same loops: one generic with
// both bodies and both results (the merged op where the later one was).
// CHECK-LABEL: func.func @siblings
// CHECK: %[[R:.+]]:2 = linalg.generic
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<8x64xf32>)
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f32, f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]#0, %[[R]]#1
// LIMIT-LABEL: func.func @siblings
// LIMIT-COUNT-2: linalg.generic
func.func @siblings(%x: tensor<8x64xf32>, %m: tensor<64xf32>, %s: tensor<64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %e0 = tensor.empty() : tensor<8x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<8x64xf32>, tensor<64xf32>) outs(%e0 : tensor<8x64xf32>) {
  ^bb0(%in: f32, %mm: f32, %out: f32):
    %d = arith.subf %in, %mm : f32
    linalg.yield %d : f32
  } -> tensor<8x64xf32>
  %e1 = tensor.empty() : tensor<8x64xf32>
  %b = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<8x64xf32>, tensor<64xf32>) outs(%e1 : tensor<8x64xf32>) {
  ^bb0(%in: f32, %ss: f32, %out: f32):
    %d = arith.mulf %in, %ss : f32
    linalg.yield %d : f32
  } -> tensor<8x64xf32>
  return %a, %b : tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// The earlier op's result is used before the later op: the merged op takes
// the earlier one's place, and the later one's empty output moves up.
// CHECK-LABEL: func.func @earlier_place
// CHECK: %[[R:.+]]:2 = linalg.generic
// CHECK: %[[U:.+]] = "test.use"(%[[R]]#0)
// CHECK: return %[[U]], %[[R]]#1
func.func @earlier_place(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %e0 = tensor.empty() : tensor<4x4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e0 : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.negf %in : f32
    linalg.yield %d : f32
  } -> tensor<4x4xf32>
  %u = "test.use"(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %e1 = tensor.empty() : tensor<4x4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<4x4xf32>) outs(%e1 : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = math.absf %in : f32
    linalg.yield %d : f32
  } -> tensor<4x4xf32>
  return %u, %b : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Left apart: the second op reads the first's result (through another op),
// and neither place works when the earlier op's result is used before the
// later op and the later op reads a value computed after the earlier op.
// CHECK-LABEL: func.func @dependent
// CHECK-COUNT-2: linalg.generic
// CHECK-LABEL: func.func @no_place
// CHECK-COUNT-2: linalg.generic
func.func @dependent(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e0 = tensor.empty() : tensor<4x4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e0 : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.negf %in : f32
    linalg.yield %d : f32
  } -> tensor<4x4xf32>
  %u = "test.use"(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %e1 = tensor.empty() : tensor<4x4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%u : tensor<4x4xf32>) outs(%e1 : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = math.absf %in : f32
    linalg.yield %d : f32
  } -> tensor<4x4xf32>
  return %b : tensor<4x4xf32>
}
func.func @no_place(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %e0 = tensor.empty() : tensor<4x4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e0 : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.negf %in : f32
    linalg.yield %d : f32
  } -> tensor<4x4xf32>
  %u = "test.use"(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %v = "test.other"(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %e1 = tensor.empty() : tensor<4x4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v : tensor<4x4xf32>) outs(%e1 : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = math.absf %in : f32
    linalg.yield %d : f32
  } -> tensor<4x4xf32>
  return %u, %b : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>

// Left apart: other loop ranges, a reduction, an output the body reads.
// CHECK-LABEL: func.func @not_siblings
// CHECK-COUNT-4: linalg.generic
func.func @not_siblings(%x: tensor<4x4xf32>, %y: tensor<4x8xf32>, %acc: tensor<4xf32>, %o: tensor<4x4xf32>)
    -> (tensor<4x4xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4x4xf32>) {
  %e0 = tensor.empty() : tensor<4x4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e0 : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.negf %in : f32
    linalg.yield %d : f32
  } -> tensor<4x4xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.negf %in : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  %c = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x4xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.addf %in, %out : f32
    linalg.yield %d : f32
  } -> tensor<4xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%o : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %a, %b, %c, %d : tensor<4x4xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4x4xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>

// A transpose of a generic's result, through an expand_shape that only
// adds a unit dimension, becomes a result of the generic written through
// the permutation, then expanded; the generic's own result is kept for its
// other user.
// CHECK-DAG: #[[PERM:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>
// CHECK-LABEL: func.func @transpose_through_unit_dims
// CHECK: %[[R:.+]]:2 = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}, #[[PERM]]]
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<8x4x2x2xf32>, tensor<4x8x2x2xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[E:.+]] = tensor.expand_shape %[[R]]#1 {{\[}}[0, 1], [2], [3], [4]] output_shape [1, 4, 8, 2, 2]
// CHECK: return %[[R]]#0, %[[E]]
func.func @transpose_through_unit_dims(%x: tensor<8x4x2x2xf32>, %m: tensor<4xf32>) -> (tensor<8x4x2x2xf32>, tensor<1x4x8x2x2xf32>) {
  %e0 = tensor.empty() : tensor<8x4x2x2xf32>
  %a = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %m : tensor<8x4x2x2xf32>, tensor<4xf32>) outs(%e0 : tensor<8x4x2x2xf32>) {
  ^bb0(%in: f32, %mm: f32, %out: f32):
    %d = arith.subf %in, %mm : f32
    linalg.yield %d : f32
  } -> tensor<8x4x2x2xf32>
  %ex = tensor.expand_shape %a [[0], [1, 2], [3], [4]] output_shape [8, 1, 4, 2, 2] : tensor<8x4x2x2xf32> into tensor<8x1x4x2x2xf32>
  %e1 = tensor.empty() : tensor<1x4x8x2x2xf32>
  %t = linalg.transpose ins(%ex : tensor<8x1x4x2x2xf32>) outs(%e1 : tensor<1x4x8x2x2xf32>) permutation = [1, 2, 0, 3, 4]
  return %a, %t : tensor<8x4x2x2xf32>, tensor<1x4x8x2x2xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Left alone: a transpose of an expansion that splits a dimension, and a
// transpose of a function argument.
// CHECK-LABEL: func.func @transposes_left
// CHECK-COUNT-2: linalg.transpose
func.func @transposes_left(%x: tensor<4x6xf32>) -> (tensor<3x2x4xf32>, tensor<6x4xf32>) {
  %e0 = tensor.empty() : tensor<4x6xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x6xf32>) outs(%e0 : tensor<4x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.negf %in : f32
    linalg.yield %d : f32
  } -> tensor<4x6xf32>
  %ex = tensor.expand_shape %a [[0], [1, 2]] output_shape [4, 2, 3] : tensor<4x6xf32> into tensor<4x2x3xf32>
  %e1 = tensor.empty() : tensor<3x2x4xf32>
  %t = linalg.transpose ins(%ex : tensor<4x2x3xf32>) outs(%e1 : tensor<3x2x4xf32>) permutation = [2, 1, 0]
  %e2 = tensor.empty() : tensor<6x4xf32>
  %u = linalg.transpose ins(%x : tensor<4x6xf32>) outs(%e2 : tensor<6x4xf32>) permutation = [1, 0]
  return %t, %u : tensor<3x2x4xf32>, tensor<6x4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>

// A filled (or empty) tensor that CSE made two ops' init: one per user, so
// that bufferization copies neither.
// CHECK-LABEL: func.func @unshared_inits
// CHECK: %[[E0:.+]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[F0:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] : tensor<4xf32>)
// CHECK: %[[E1:.+]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[F1:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[F1]] : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[F0]] : tensor<4xf32>)
func.func @unshared_inits(%x: tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x4xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.addf %in, %out : f32
    linalg.yield %d : f32
  } -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x4xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.maximumf %in, %out : f32
    linalg.yield %d : f32
  } -> tensor<4xf32>
  return %s, %m : tensor<4xf32>, tensor<4xf32>
}
