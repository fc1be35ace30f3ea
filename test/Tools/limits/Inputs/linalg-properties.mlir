// A linalg op whose properties are not a dictionary: MLIR 22 casts them
// unchecked (undefined behaviour); the tools refuse it before parsing.
func.func @f(%x: memref<4xf32>, %v: f32) {
  linalg.fill<f32> ins(%v : f32) outs(%x : memref<4xf32>)
  return
}
