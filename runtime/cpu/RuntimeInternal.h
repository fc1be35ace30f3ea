/*===- RuntimeInternal.h - private helpers of the runtime ------*- C -*-===*
 *
 * Part of the Wrapper project.
 *
 *===----------------------------------------------------------------------===*/

#ifndef WRAPPER_LIB_RUNTIME_RUNTIMEINTERNAL_H
#define WRAPPER_LIB_RUNTIME_RUNTIMEINTERNAL_H

#include "Wrapper/Runtime/WrapperRuntime.h"

/* Records the message of an error on the calling thread; returns status. */
wrapper_status wrapper_set_error(wrapper_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* A block of at least `bytes` bytes aligned to `alignment` (a power of two)
 * from the block cache (Allocator.c), or NULL when out of memory: memory
 * malloc or posix_memalign returned, which free() or wrapper_block_free
 * may release. */
void *wrapper_block_alloc(size_t bytes, size_t alignment);
/* Keeps `block` (from wrapper_block_alloc, malloc or posix_memalign) for a
 * later wrapper_block_alloc, or frees it; NULL is allowed. */
void wrapper_block_free(void *block);

/* Element `index` (in elements from `data`) of `dtype` as a double (0 for
 * an unknown dtype). */
double wrapper_load_element(int32_t dtype, const void *data, int64_t index);

#endif /* WRAPPER_LIB_RUNTIME_RUNTIMEINTERNAL_H */
