func.func private @__wrapper_gemm_ukernel_f32_12by32(memref<?xf32>)
// -----
func.func private @__wrapper_gemm_ukernel_f32_12x24_v16(memref<?xf32>, index, memref<?xf32>, index, index, memref<12x24xf32, strided<[?, 1], offset: ?>>, i1)
// -----
func.func private @__wrapper_gemm_ukernel_f32_4x16_v16(memref<?xf32>)
