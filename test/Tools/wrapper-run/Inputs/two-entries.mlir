func.func @f(%a: memref<4x8xf32>) { return }
wrapper.graph @g(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %b = wrapper.alloc() : memref<4x8xf32>
  memref.copy %x, %b : memref<4x8xf32> to memref<4x8xf32>
  wrapper.return %b : memref<4x8xf32>
}
