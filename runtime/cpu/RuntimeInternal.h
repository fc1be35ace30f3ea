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
 * from the block cache (Allocator.c), recorded in this thread's call scope,
 * or NULL when out of memory (or refused by fault injection): memory
 * malloc or posix_memalign returned, which free() or wrapper_block_free
 * may release. */
void *wrapper_block_alloc(size_t bytes, size_t alignment);
/* Keeps `block` (from wrapper_block_alloc, malloc or posix_memalign) for a
 * later wrapper_block_alloc, or frees it; NULL is allowed. */
void wrapper_block_free(void *block);
/* wrapper_block_free without looking the block up in the call scope. */
void wrapper_block_release(void *block);
/* " (a failure injected by ...)" when the last refused block of this
 * thread was refused by fault injection, "" otherwise: for messages. */
const char *wrapper_block_failure_note(void);

/* Fault injection's countdown: whether this event is the one to refuse
 * (*counter was 0; it then disarms to -1), counting down otherwise; a
 * negative counter refuses nothing. Thread safe. */
int wrapper_countdown_take(int64_t *counter);

/* A set of block addresses (BlockSet.c): open addressing, not thread
 * safe. Zero-initialized it is empty. */
typedef struct {
  void **slots; /* NULL or a block address; capacity mask + 1 */
  size_t mask;
  size_t count;
} WrapperBlockSet;
/* Adds `block` (NULL: nothing); 0 when out of memory, else 1. */
int wrapper_block_set_insert(WrapperBlockSet *set, void *block);
/* Removes `block`; whether it was there. */
int wrapper_block_set_erase(WrapperBlockSet *set, void *block);
/* Empties the set, releasing every block with `release`
 * (wrapper_block_release). */
void wrapper_block_set_clear(WrapperBlockSet *set, int release);
/* Frees the set's own memory (it is then empty). */
void wrapper_block_set_destroy(WrapperBlockSet *set);

/* The call scope of this thread (CallScope.c): wrapper_block_alloc records
 * a block in the innermost open scope, wrapper_block_free forgets it. */
void wrapper_scope_record(void *block);
void wrapper_scope_forget(void *block);
/* A failure that cannot be unwound where it happened (an injected
 * allocation failure inside an OpenMP parallel region, on any of its
 * threads), reported by the next wrapper_call_scope_end(WRAPPER_OK) of any
 * thread. */
void wrapper_scope_defer_failure(wrapper_status status, const char *message);

/* Element `index` (in elements from `data`) of `dtype` as a double (0 for
 * an unknown dtype). */
double wrapper_load_element(int32_t dtype, const void *data, int64_t index);

#endif /* WRAPPER_LIB_RUNTIME_RUNTIMEINTERNAL_H */
