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

/* Fault injection (CudaFaults.c): whether the driver call about to be made
 * is to fail instead, and, for its message, " (a failure injected by ...)"
 * when the last driver call this thread asked about was refused. */
__attribute__((visibility("hidden"))) int wrapper_cuda_fault(void);
__attribute__((visibility("hidden"))) const char *wrapper_cuda_fault_note(void);

/* Whether this thread has an error of an mgpu* call not yet reported: the
 * rest of a failed call's device work (launches, copies, products) is
 * skipped, so that a kernel never runs on a buffer whose allocation
 * failed. */
__attribute__((visibility("hidden"))) int wrapper_cuda_failed(void);

/* The pool of the capture under way (CudaGraphPool.c), called with the
 * allocator's lock held: the smallest free block of at least `size` bytes,
 * taken (NULL: none); a new block added, taken (0: no host memory); a
 * block given back (0: not the pool's); every block free again. */
__attribute__((visibility("hidden"))) void *
wrapper_cuda_pool_take(wrapper_cuda_graph_pool *pool, size_t size);
__attribute__((visibility("hidden"))) int
wrapper_cuda_pool_add(wrapper_cuda_graph_pool *pool, void *block, size_t size);
__attribute__((visibility("hidden"))) int
wrapper_cuda_pool_give(wrapper_cuda_graph_pool *pool, void *block);
__attribute__((visibility("hidden"))) void
wrapper_cuda_pool_release_all(wrapper_cuda_graph_pool *pool);

/* The DLPack tensors that own blocks (CudaDLPack.c): records `owner` as
 * the owner of the live block `block` (0 when it is not one, or has one
 * already); frees `block` when `owner` still owns it (a block given up at
 * its last use in a call is not its owner's any more). */
__attribute__((visibility("hidden"))) int
wrapper_cuda_set_owner(void *block, const void *owner);
__attribute__((visibility("hidden"))) void
wrapper_cuda_free_owned(void *block, const void *owner);

#endif /* WRAPPER_LIB_RUNTIME_CUDAINTERNAL_H */
