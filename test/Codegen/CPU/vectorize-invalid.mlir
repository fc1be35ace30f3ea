// RUN: wrapper-opt %s --wrapper-lower-linalg-to-loops="vector-width=-1" --verify-diagnostics

// Tests that a negative vector width is refused with a message naming it.
// expected-error @below {{wrapper-lower-linalg-to-loops: vector-width must not be negative, got -1}}
func.func @negative_width(%x: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%x : memref<64xf32>) {
  ^bb0(%o: f32):
    %n = arith.negf %o : f32
    linalg.yield %n : f32
  }
  return
}
