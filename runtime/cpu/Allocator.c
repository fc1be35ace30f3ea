/*===- Allocator.c - buffers of the runtime and of compiled code ----------===*
 *
 * Part of the Wrapper project.
 *
 * Two entry points share one block cache:
 *
 *  - wrapper_alloc/wrapper_free, for the runtime's callers (arrays, model
 *    outputs, extern results): a header before each allocation records its
 *    size, so that the live and peak counts, the limit and fault injection
 *    are exact;
 *  - _mlir_memref_to_llvm_alloc/_free, which compiled code calls for its
 *    buffers when lowered with the pipelines' runtime-allocator option.
 *
 * Fault injection (wrapper_fail_allocation_after) counts the blocks of
 * both, and of extern kernels' results. Blocks for compiled code and
 * extern kernels are recorded in the thread's call scope (CallScope.c), so
 * that a call that fails can free them.
 *
 * The cache. A compiled model allocates the same buffers on every call.
 * Through malloc alone, glibc maps blocks above its mmap threshold and
 * unmaps them on free (and trims its heap above the trim threshold), so
 * every call faults its buffers in again: a 1x1 convolution at 56x56 took
 * 5.8 ms per call from Python against 2.3 ms with the blocks kept. Freed
 * blocks are kept in lists per size class (four classes per power of two,
 * so at most a quarter of a block is unused) and handed out again, up to a
 * bound on the bytes kept.
 *
 * Every block is memory malloc (or posix_memalign) returned, and kept
 * blocks are classified by malloc_usable_size: a block may be freed with
 * free() or handed to the cache whichever allocated it, so code compiled
 * without the runtime allocator (which frees with free()) and code
 * compiled with it can both free what the other allocated.
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE

#include "RuntimeInternal.h"
#include "Wrapper/Runtime/WrapperRuntime.h"
#include "Wrapper/Runtime/WrapperShim.h"

#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*===------------------------------------------------------------------===*
 * The block cache
 *===------------------------------------------------------------------===*/

/* AddressSanitizer must see every free (a kept block would hide a use
 * after free), so the cache is off under it by default. */
#if defined(__SANITIZE_ADDRESS__)
#define WRAPPER_CACHE_DEFAULT 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WRAPPER_CACHE_DEFAULT 0
#endif
#endif
#ifndef WRAPPER_CACHE_DEFAULT
#define WRAPPER_CACHE_DEFAULT (1ull << 30)
#endif

enum { kMinClassBytes = 64, kClassCount = 4 * 64 };

static pthread_mutex_t cacheLock = PTHREAD_MUTEX_INITIALIZER;
/* A kept block's memory holds the next block of its list. */
static void *cacheLists[kClassCount];
static uint64_t cacheBytes; /* the class capacities of the blocks kept */
static uint64_t cacheLimit;
static uint64_t cacheHits, cacheMisses;
static int cacheConfigured;

/* The capacity of class `index`: 64, then 2^k * (1 + i/4), i = 1..4. */
static size_t classCapacity(size_t index) {
  if (index == 0)
    return kMinClassBytes;
  size_t octave = (index - 1) / 4 + 6, sub = (index - 1) % 4;
  return ((size_t)1 << octave) + (sub + 1) * ((size_t)1 << (octave - 2));
}

/* The smallest class holding `bytes`. */
static size_t classAbove(size_t bytes) {
  if (bytes <= kMinClassBytes)
    return 0;
  size_t b = bytes - 1;
  int octave = 63 - __builtin_clzll((unsigned long long)b); /* >= 6 */
  size_t sub = (b >> (octave - 2)) & 3;
  return (size_t)(octave - 6) * 4 + sub + 1;
}

/* The largest class a block of `usable` bytes can serve, or -1. */
static int classBelow(size_t usable) {
  if (usable < kMinClassBytes)
    return -1;
  size_t index = classAbove(usable);
  if (index >= kClassCount)
    return -1;
  return classCapacity(index) <= usable ? (int)index : (int)index - 1;
}

/* Reads WRAPPER_ALLOC_CACHE_BYTES once; called with cacheLock held. */
static void configureCache(void) {
  if (cacheConfigured)
    return;
  cacheConfigured = 1;
  cacheLimit = WRAPPER_CACHE_DEFAULT;
  const char *text = getenv("WRAPPER_ALLOC_CACHE_BYTES");
  if (text && *text) {
    char *end = NULL;
    unsigned long long value = strtoull(text, &end, 10);
    if (end && *end == '\0')
      cacheLimit = value;
  }
}

/* Frees kept blocks, largest classes first, until at most `keep` bytes
 * are kept; called with cacheLock held. Returns the bytes released. */
static uint64_t evictLocked(uint64_t keep) {
  uint64_t released = 0;
  for (int c = kClassCount - 1; c >= 0 && cacheBytes > keep; --c) {
    while (cacheLists[c] && cacheBytes > keep) {
      void *block = cacheLists[c];
      cacheLists[c] = *(void **)block;
      cacheBytes -= classCapacity((size_t)c);
      released += classCapacity((size_t)c);
      free(block);
    }
  }
  return released;
}

/* Blocks handed out and not yet taken back (wrapper_live_blocks). */
static int64_t liveBlocks;
/* Allocations to let through before one is refused (fault injection); -1:
 * none is refused. */
static int64_t failAfter = -1;
/* Whether the last refused allocation of this thread was injected. */
static _Thread_local int lastFailureInjected;

void wrapper_fail_allocation_after(int64_t count) {
  __atomic_store_n(&failAfter, count < 0 ? -1 : count, __ATOMIC_SEQ_CST);
}

int wrapper_countdown_take(int64_t *counter) {
  int64_t left = __atomic_load_n(counter, __ATOMIC_SEQ_CST);
  while (left >= 0) {
    int64_t next = left == 0 ? -1 : left - 1;
    if (__atomic_compare_exchange_n(counter, &left, next, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST))
      return left == 0;
  }
  return 0;
}

const char *wrapper_block_failure_note(void) {
  return lastFailureInjected
             ? " (a failure injected by wrapper_fail_allocation_after)"
             : "";
}

int64_t wrapper_live_blocks(void) {
  return __atomic_load_n(&liveBlocks, __ATOMIC_RELAXED);
}

/* A block from the cache or malloc, not recorded in the call scope. */
static void *allocateBlock(size_t bytes, size_t alignment) {
  lastFailureInjected = wrapper_countdown_take(&failAfter);
  if (lastFailureInjected)
    return NULL;
  size_t index = classAbove(bytes);
  if (index >= kClassCount)
    return NULL;
  size_t capacity = classCapacity(index);
  pthread_mutex_lock(&cacheLock);
  configureCache();
  void **link = &cacheLists[index];
  while (*link && ((uintptr_t)*link & (alignment - 1)) != 0)
    link = (void **)*link;
  void *block = *link;
  if (block) {
    *link = *(void **)block;
    cacheBytes -= capacity;
    ++cacheHits;
  } else {
    ++cacheMisses;
    /* The new block will be kept when freed: make room for it now, so that
     * a program whose sizes change does not keep stale classes forever. */
    if (cacheLimit)
      evictLocked(cacheLimit > capacity ? cacheLimit - capacity : 0);
  }
  pthread_mutex_unlock(&cacheLock);
  for (int attempt = 0; !block && attempt < 2; ++attempt) {
    if (alignment <= 16)
      block = malloc(capacity);
    else if (posix_memalign(&block, alignment, capacity) != 0)
      block = NULL;
    /* Kept blocks may be what stands in the way. */
    if (!block)
      wrapper_release_cached_memory();
  }
  if (block)
    __atomic_add_fetch(&liveBlocks, 1, __ATOMIC_RELAXED);
  return block;
}

void *wrapper_block_alloc(size_t bytes, size_t alignment) {
  void *block = allocateBlock(bytes, alignment);
  wrapper_scope_record(block);
  return block;
}

void wrapper_block_free(void *block) {
  wrapper_scope_forget(block);
  wrapper_block_release(block);
}

void wrapper_block_release(void *block) {
  if (!block)
    return;
  __atomic_sub_fetch(&liveBlocks, 1, __ATOMIC_RELAXED);
  int index = classBelow(malloc_usable_size(block));
  int kept = 0;
  if (index >= 0) {
    uint64_t capacity = classCapacity((size_t)index);
    pthread_mutex_lock(&cacheLock);
    configureCache();
    kept = cacheBytes + capacity <= cacheLimit;
    if (kept) {
      *(void **)block = cacheLists[index];
      cacheLists[index] = block;
      cacheBytes += capacity;
    }
    pthread_mutex_unlock(&cacheLock);
  }
  if (!kept)
    free(block);
}

void wrapper_set_alloc_cache_limit(uint64_t bytes) {
  pthread_mutex_lock(&cacheLock);
  configureCache();
  cacheLimit = bytes;
  evictLocked(bytes);
  pthread_mutex_unlock(&cacheLock);
}

uint64_t wrapper_release_cached_memory(void) {
  pthread_mutex_lock(&cacheLock);
  uint64_t released = evictLocked(0);
  pthread_mutex_unlock(&cacheLock);
  return released;
}

void wrapper_alloc_cache_stats(uint64_t *kept_bytes, uint64_t *hits,
                               uint64_t *misses) {
  pthread_mutex_lock(&cacheLock);
  if (kept_bytes)
    *kept_bytes = cacheBytes;
  if (hits)
    *hits = cacheHits;
  if (misses)
    *misses = cacheMisses;
  pthread_mutex_unlock(&cacheLock);
}

/*===------------------------------------------------------------------===*
 * wrapper_alloc: counted allocations
 *===------------------------------------------------------------------===*/

/* Each allocation is preceded by a header recording its size, so that the
 * live byte count stays exact. */
typedef struct {
  size_t bytes;
  size_t offset; /* from the block to the user pointer */
} AllocHeader;

static uint64_t allocLimit;
static uint64_t allocated;
static uint64_t peakAllocated;
void wrapper_set_alloc_limit(uint64_t bytes) {
  __atomic_store_n(&allocLimit, bytes, __ATOMIC_RELAXED);
}
uint64_t wrapper_allocated_bytes(void) {
  return __atomic_load_n(&allocated, __ATOMIC_RELAXED);
}
uint64_t wrapper_peak_allocated_bytes(void) {
  return __atomic_load_n(&peakAllocated, __ATOMIC_RELAXED);
}

wrapper_status wrapper_alloc(size_t bytes, size_t alignment, void **out) {
  if (!out)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "wrapper_alloc: out is NULL");
  *out = NULL;
  if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0)
    return wrapper_set_error(
        WRAPPER_ERROR_INVALID_ARGUMENT,
        "wrapper_alloc: alignment %zu is not a power of two >= %zu", alignment,
        sizeof(void *));
  size_t extra = alignment + sizeof(AllocHeader);
  if (bytes > (SIZE_MAX >> 2) - extra)
    return wrapper_set_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                             "wrapper_alloc: %zu bytes overflow the address "
                             "space",
                             bytes);
  uint64_t limit = __atomic_load_n(&allocLimit, __ATOMIC_RELAXED);
  uint64_t now = __atomic_add_fetch(&allocated, bytes, __ATOMIC_RELAXED);
  if (limit && now > limit) {
    __atomic_sub_fetch(&allocated, bytes, __ATOMIC_RELAXED);
    return wrapper_set_error(
        WRAPPER_ERROR_LIMIT,
        "allocation of %zu bytes would bring the live total to %llu bytes, "
        "above the limit of %llu bytes",
        bytes, (unsigned long long)now, (unsigned long long)limit);
  }
  /* The caller owns the block whatever happens to a call it is made in:
   * it is not recorded in the call scope. */
  char *raw = (char *)allocateBlock(bytes + extra, 16);
  if (!raw) {
    __atomic_sub_fetch(&allocated, bytes, __ATOMIC_RELAXED);
    return wrapper_set_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                             "out of memory allocating %zu bytes%s", bytes,
                             wrapper_block_failure_note());
  }
  uintptr_t base = (uintptr_t)(raw + sizeof(AllocHeader));
  uintptr_t aligned = (base + alignment - 1) & ~(uintptr_t)(alignment - 1);
  AllocHeader *header = (AllocHeader *)(aligned - sizeof(AllocHeader));
  header->bytes = bytes;
  header->offset = aligned - (uintptr_t)raw;
  uint64_t peak = __atomic_load_n(&peakAllocated, __ATOMIC_RELAXED);
  while (now > peak &&
         !__atomic_compare_exchange_n(&peakAllocated, &peak, now, 1,
                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    ;
  *out = (void *)aligned;
  return WRAPPER_OK;
}

/* Blocks of compiled code handed to a caller as an array's data
 * (wrapper_array_adopt_block): wrapper_free gives them back to the cache,
 * not through an AllocHeader they do not have. */
static pthread_mutex_t adoptedLock = PTHREAD_MUTEX_INITIALIZER;
static WrapperBlockSet adopted;
/* adopted.count, readable without the lock (written under it). */
static size_t adoptedCount;

wrapper_status wrapper_array_adopt_block(wrapper_dtype dtype, int32_t rank,
                                         const int64_t *shape, void *block,
                                         wrapper_array *out) {
  if (!out || !block || (rank > 0 && !shape))
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "wrapper_array_adopt_block: NULL argument");
  if (rank < 0 || rank > WRAPPER_MAX_RANK || wrapper_dtype_size(dtype) == 0)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "wrapper_array_adopt_block: rank %d or dtype %d "
                             "out of range",
                             (int)rank, (int)dtype);
  pthread_mutex_lock(&adoptedLock);
  int recorded = wrapper_block_set_insert(&adopted, block);
  __atomic_store_n(&adoptedCount, adopted.count, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&adoptedLock);
  if (!recorded)
    return wrapper_set_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                             "out of memory recording an output block");
  memset(out, 0, sizeof(*out));
  out->dtype = dtype;
  out->rank = rank;
  for (int32_t d = 0; d < rank; ++d)
    out->shape[d] = shape[d];
  out->data = block;
  return WRAPPER_OK;
}

void wrapper_free(void *ptr) {
  if (!ptr)
    return;
  /* The lock only while some block is adopted (a block is adopted before
   * its owner can free it, so an empty set cannot hold `ptr`). */
  int wasAdopted = 0;
  if (__atomic_load_n(&adoptedCount, __ATOMIC_RELAXED) != 0) {
    pthread_mutex_lock(&adoptedLock);
    wasAdopted = wrapper_block_set_erase(&adopted, ptr);
    __atomic_store_n(&adoptedCount, adopted.count, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&adoptedLock);
  }
  if (wasAdopted) {
    wrapper_block_release(ptr);
    return;
  }
  AllocHeader *header = (AllocHeader *)((char *)ptr - sizeof(AllocHeader));
  __atomic_sub_fetch(&allocated, header->bytes, __ATOMIC_RELAXED);
  wrapper_block_release((char *)ptr - header->offset);
}

/*===------------------------------------------------------------------===*
 * The allocator of compiled code
 *===------------------------------------------------------------------===*/

/* Outside the live count and the limit, which count what the runtime's
 * callers allocate; inside fault injection and the call scope. Compiled
 * code does not check the pointer, so out of memory is reported through
 * wrapper_shim_check (the caller's error jump, or a message and exit). */
/* OpenMP's nesting level, where an OpenMP runtime is in the process. */
int omp_get_level(void) __attribute__((weak));

static void *allocateForCompiledCode(size_t alignment, size_t bytes) {
  size_t power = 16;
  while (power < alignment && power < ((size_t)1 << 30))
    power <<= 1;
  void *block = wrapper_block_alloc(bytes ? bytes : 1, power);
  if (block)
    return block;
  wrapper_status status = wrapper_set_error(
      WRAPPER_ERROR_OUT_OF_MEMORY,
      "out of memory allocating %zu bytes for a buffer of the compiled "
      "program%s",
      bytes, wrapper_block_failure_note());
  if (omp_get_level && omp_get_level() > 0) {
    /* Inside a parallel region, a jump out would leave the region's team
     * waiting (and a worker thread has no jump): an injected failure is
     * deferred to the end of the call, with the block allocated after all;
     * a real one ends the process. */
    if (lastFailureInjected) {
      wrapper_scope_defer_failure(status, wrapper_last_error());
      block = wrapper_block_alloc(bytes ? bytes : 1, power);
    }
    if (block)
      return block;
    fprintf(stderr,
            "error: %s, inside a parallel loop (it cannot be "
            "unwound)\n",
            wrapper_last_error());
    abort();
  }
  wrapper_shim_check(status, "buffer allocation");
  return NULL;
}

void *_mlir_memref_to_llvm_alloc(size_t bytes) {
  return allocateForCompiledCode(16, bytes);
}

void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t bytes) {
  return allocateForCompiledCode(alignment, bytes);
}

void _mlir_memref_to_llvm_free(void *ptr) { wrapper_block_free(ptr); }
