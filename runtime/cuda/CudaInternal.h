/*===- CudaInternal.h - private helpers of the CUDA runtime ----*- C -*-===*
 *
 * Part of the Wrapper project.
 *
 *===----------------------------------------------------------------------===*/

#ifndef WRAPPER_LIB_RUNTIME_CUDAINTERNAL_H
#define WRAPPER_LIB_RUNTIME_CUDAINTERNAL_H

#include "Wrapper/Runtime/WrapperCuda.h"

/* Records the first failure of a call that cannot return one (mgpu*,
 * wrapperCudaGemm) for the next wrapper_cuda_synchronize, and says it on
 * stderr. */
__attribute__((visibility("hidden"))) void
wrapper_cuda_sticky(wrapper_status status);

/* A function that a library loaded with dlopen must have, and where its
 * address goes. */
typedef struct wrapper_cuda_symbol {
  const char *name;
  void **slot;
} wrapper_cuda_symbol;

/* Fills every slot from `library`; returns the name of the first symbol it
 * lacks, or NULL when all were found. */
__attribute__((visibility("hidden"))) const char *
wrapper_cuda_resolve(void *library, const wrapper_cuda_symbol *symbols,
                     size_t count);

/* Counts a product handed to cuBLAS (wrapper_cuda_stats.gemms). */
__attribute__((visibility("hidden"))) void wrapper_cuda_count_gemm(void);

#endif /* WRAPPER_LIB_RUNTIME_CUDAINTERNAL_H */
