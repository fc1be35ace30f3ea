// Inputs of the refusals of --wrapper-to-cpp (checked by ../cpp.mlir).
// BAD: error: 'wrapper.extern_alloc' op is not supported by the C++ emitter
wrapper.graph @extern(%x: memref<4xf32>) -> memref<4xf32> {
  %b = wrapper.extern_alloc "aten::relu" ins(%x : memref<4xf32>) -> memref<4xf32>
  wrapper.return %b : memref<4xf32>
}

// -----

// BAD: error: 'wrapper.constant' op is external; the C++ emitter embeds constant values
wrapper.constant @w : memref<4xf32> external
wrapper.graph @external() -> memref<4xf32> {
  %w = wrapper.get_constant @w : memref<4xf32>
  wrapper.return %w : memref<4xf32>
}

// -----

// BAD: error: the C++ emitter has no element type for 'memref<4xcomplex<f32>>'
wrapper.graph @complex(%x: memref<4xcomplex<f32>>) {
  wrapper.return
}

// -----

// A tensor_program module, before the front end made its host graph.
// BAD: error: the module has no wrapper.graph to translate; a tensor_program module gets its host graph from `wrapper-opt --wrapper-cpu-frontend` first
func.func @scale(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor_program.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
