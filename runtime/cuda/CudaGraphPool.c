/*===- CudaGraphPool.c - one memory pool for several CUDA graphs ----------===*
 *
 * Part of the Wrapper project.
 *
 * A model called with CUDA graphs captures one graph per input signature.
 * Each graph keeps the blocks its captured run allocated, so N signatures
 * held N times a run's memory. Graphs whose replays never overlap (replays
 * ordered on the GPU, each graph's outputs copied out before the next
 * replay) can share their blocks: a capture begun with
 * wrapper_cuda_graph_begin_in(pool) takes its allocations from the pool's
 * blocks first (the smallest free one that is large enough), frees back
 * into the pool (so the capture reuses its own blocks too), and adds a new
 * block to the pool only when none fits. After the capture every block is
 * free for the next one. Memory is then that of the largest run when the
 * larger signatures are captured first, and at most the sum otherwise.
 *
 * Cuda.c calls the hidden helpers below, under its lock, while a capture
 * in a pool is under way.
 *
 *===----------------------------------------------------------------------===*/

#include "CudaInternal.h"

#include <stdint.h>
#include <stdlib.h>

struct wrapper_cuda_graph_pool {
  void **blocks; /* from wrapper_cuda_alloc */
  size_t *sizes;
  unsigned char *taken; /* by the capture under way */
  size_t count, capacity;
};

wrapper_status wrapper_cuda_graph_pool_create(wrapper_cuda_graph_pool **out) {
  if (!out)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_cuda_graph_pool_create: NULL result "
                                "pointer");
  *out = calloc(1, sizeof **out);
  return *out ? WRAPPER_OK
              : wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                     "wrapper_cuda_graph_pool_create: no host "
                                     "memory");
}

wrapper_status wrapper_cuda_graph_pool_destroy(wrapper_cuda_graph_pool *pool) {
  if (!pool)
    return WRAPPER_OK;
  /* Replays still queued may use the blocks. */
  wrapper_status status = wrapper_cuda_synchronize();
  for (size_t i = 0; i < pool->count; ++i) {
    wrapper_status freed = wrapper_cuda_free(pool->blocks[i]);
    if (status == WRAPPER_OK)
      status = freed;
  }
  free(pool->blocks);
  free(pool->sizes);
  free(pool->taken);
  free(pool);
  return status;
}

void wrapper_cuda_graph_pool_stats(const wrapper_cuda_graph_pool *pool,
                                   uint64_t *bytes, uint64_t *blocks) {
  uint64_t total = 0;
  for (size_t i = 0; pool && i < pool->count; ++i)
    total += pool->sizes[i];
  if (bytes)
    *bytes = total;
  if (blocks)
    *blocks = pool ? pool->count : 0;
}

void *wrapper_cuda_pool_take(wrapper_cuda_graph_pool *pool, size_t size) {
  size_t best = pool->count;
  for (size_t i = 0; i < pool->count; ++i)
    if (!pool->taken[i] && pool->sizes[i] >= size &&
        (best == pool->count || pool->sizes[i] < pool->sizes[best]))
      best = i;
  if (best == pool->count)
    return NULL;
  pool->taken[best] = 1;
  return pool->blocks[best];
}

int wrapper_cuda_pool_add(wrapper_cuda_graph_pool *pool, void *block,
                          size_t size) {
  if (pool->count == pool->capacity) {
    size_t grown = pool->capacity ? pool->capacity * 2 : 16;
    void **blocks = realloc(pool->blocks, grown * sizeof *blocks);
    if (blocks)
      pool->blocks = blocks;
    size_t *sizes = realloc(pool->sizes, grown * sizeof *sizes);
    if (sizes)
      pool->sizes = sizes;
    unsigned char *taken = realloc(pool->taken, grown);
    if (taken)
      pool->taken = taken;
    if (!blocks || !sizes || !taken)
      return 0;
    pool->capacity = grown;
  }
  pool->blocks[pool->count] = block;
  pool->sizes[pool->count] = size;
  pool->taken[pool->count] = 1;
  ++pool->count;
  return 1;
}

int wrapper_cuda_pool_give(wrapper_cuda_graph_pool *pool, void *block) {
  for (size_t i = 0; i < pool->count; ++i)
    if (pool->blocks[i] == block) {
      pool->taken[i] = 0;
      return 1;
    }
  return 0;
}

void wrapper_cuda_pool_release_all(wrapper_cuda_graph_pool *pool) {
  for (size_t i = 0; i < pool->count; ++i)
    pool->taken[i] = 0;
}
