/*===- CallScope.c - blocks a failed or abandoned call still holds --------===*
 *
 * Part of the Wrapper project.
 *
 * A model's container calls compiled code under an error jump: a failing
 * extern kernel, proxy call or allocation longjmps out of the compiled
 * code, past the frees of the buffers it held. A call scope records, per
 * thread, every block the runtime hands out between its begin and its end
 * and has not taken back, so that the container can free what the failed
 * call held (wrapper_call_scope_end with the failure).
 *
 * The record is an open-addressing hash set of block addresses (linear
 * probing, deletion by backward shift), one per nesting level of a thread,
 * kept between calls: recording a block costs a hash insert, freeing one a
 * lookup. A thread that exits inside a scope (pthread_exit from a proxy
 * callback) frees the blocks of its open scopes from a thread-exit
 * destructor.
 *
 * A scope is also a call's share of the cores: each calling thread runs its
 * parallel loops on its own OpenMP team, so 8 calls at once on 2 cores ran
 * 16 threads. While several scopes are open in the process, the outermost
 * scope of a thread sets that thread's OpenMP thread count (a per-thread
 * setting) to the cores divided by the calls in flight, at least 1 and at
 * most what it was, and puts it back at the end.
 *
 *===----------------------------------------------------------------------===*/

#include "RuntimeInternal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxDepth = 8 };

typedef struct {
  WrapperBlockSet sets[kMaxDepth];
  int depth; /* open scopes, including those deeper than kMaxDepth */
  int registered;
  int savedThreads; /* the OpenMP thread count to restore; 0: unchanged */
} ThreadScopes;

static _Thread_local ThreadScopes scopes;
/* Outermost scopes open in the process: the calls in flight. */
static int callsInFlight;

/* Frees every block `set` records and empties it. */
static void releaseAll(WrapperBlockSet *set) {
  wrapper_block_set_clear(set, /*release=*/1);
}

static void forgetAll(WrapperBlockSet *set) {
  wrapper_block_set_clear(set, /*release=*/0);
}

/* The thread-exit destructor: frees what open scopes still hold. */
static void threadExit(void *value) {
  ThreadScopes *state = (ThreadScopes *)value;
  int open = state->depth < kMaxDepth ? state->depth : kMaxDepth;
  if (state->depth > 0)
    __atomic_sub_fetch(&callsInFlight, 1, __ATOMIC_RELAXED);
  for (int d = 0; d < kMaxDepth; ++d) {
    if (d < open)
      releaseAll(&state->sets[d]);
    wrapper_block_set_destroy(&state->sets[d]);
  }
  state->depth = 0;
}

static pthread_key_t exitKey;
static pthread_once_t exitKeyOnce = PTHREAD_ONCE_INIT;
static int exitKeyMade;
static void makeExitKey(void) {
  exitKeyMade = pthread_key_create(&exitKey, threadExit) == 0;
}

/* OpenMP, where a runtime is in the process (libomp, or PyTorch's libgomp
 * under KmpcOverGomp): resolved weakly, so the runtime links none. */
int omp_get_max_threads(void) __attribute__((weak));
int omp_get_num_procs(void) __attribute__((weak));
void omp_set_num_threads(int) __attribute__((weak));

static int sharingConfigured, sharingOn = 1;

void wrapper_set_thread_sharing(int on) {
  __atomic_store_n(&sharingOn, on != 0, __ATOMIC_RELAXED);
  __atomic_store_n(&sharingConfigured, 1, __ATOMIC_RELEASE);
}

static int sharing(void) {
  if (!__atomic_load_n(&sharingConfigured, __ATOMIC_ACQUIRE)) {
    const char *text = getenv("WRAPPER_SHARE_THREADS");
    __atomic_store_n(&sharingOn, !(text && strcmp(text, "0") == 0),
                     __ATOMIC_RELAXED);
    __atomic_store_n(&sharingConfigured, 1, __ATOMIC_RELEASE);
  }
  return __atomic_load_n(&sharingOn, __ATOMIC_RELAXED);
}

/* The outermost scope of a thread takes its share of the cores. */
static void takeShare(void) {
  int inFlight = __atomic_add_fetch(&callsInFlight, 1, __ATOMIC_RELAXED);
  scopes.savedThreads = 0;
  if (inFlight < 2 || !sharing() || !omp_get_max_threads ||
      !omp_get_num_procs || !omp_set_num_threads)
    return;
  int current = omp_get_max_threads();
  int share = omp_get_num_procs() / inFlight;
  if (share < 1)
    share = 1;
  if (share < current) {
    omp_set_num_threads(share);
    scopes.savedThreads = current;
  }
}

static void giveShareBack(void) {
  __atomic_sub_fetch(&callsInFlight, 1, __ATOMIC_RELAXED);
  if (scopes.savedThreads && omp_set_num_threads)
    omp_set_num_threads(scopes.savedThreads);
  scopes.savedThreads = 0;
}

int wrapper_call_threads(void) {
  return omp_get_max_threads ? omp_get_max_threads() : 1;
}

void wrapper_call_scope_begin(void) {
  if (!scopes.registered) {
    pthread_once(&exitKeyOnce, makeExitKey);
    if (exitKeyMade)
      pthread_setspecific(exitKey, &scopes);
    scopes.registered = 1;
  }
  if (scopes.depth == 0)
    takeShare();
  if (scopes.depth < kMaxDepth)
    forgetAll(&scopes.sets[scopes.depth]);
  ++scopes.depth;
}

/* The failure deferred by wrapper_scope_defer_failure, under its lock. */
static pthread_mutex_t deferredLock = PTHREAD_MUTEX_INITIALIZER;
static wrapper_status deferredStatus = WRAPPER_OK;
static char deferredMessage[512];

void wrapper_scope_defer_failure(wrapper_status status, const char *message) {
  pthread_mutex_lock(&deferredLock);
  if (deferredStatus == WRAPPER_OK) {
    deferredStatus = status;
    snprintf(deferredMessage, sizeof deferredMessage, "%s",
             message ? message : "");
  }
  pthread_mutex_unlock(&deferredLock);
}

/* The deferred failure, cleared, with its message set on this thread. */
static wrapper_status takeDeferred(void) {
  if (__atomic_load_n(&deferredStatus, __ATOMIC_RELAXED) == WRAPPER_OK)
    return WRAPPER_OK;
  pthread_mutex_lock(&deferredLock);
  wrapper_status status = deferredStatus;
  if (status != WRAPPER_OK)
    wrapper_set_error(status, "%s", deferredMessage);
  deferredStatus = WRAPPER_OK;
  pthread_mutex_unlock(&deferredLock);
  return status;
}

wrapper_status wrapper_call_scope_end(wrapper_status status) {
  if (status == WRAPPER_OK)
    status = takeDeferred();
  if (scopes.depth <= 0)
    return status;
  --scopes.depth;
  if (scopes.depth == 0)
    giveShareBack();
  if (scopes.depth >= kMaxDepth)
    return status;
  WrapperBlockSet *set = &scopes.sets[scopes.depth];
  if (status != WRAPPER_OK)
    releaseAll(set);
  else
    forgetAll(set);
  return status;
}

void wrapper_scope_record(void *block) {
  if (!block || scopes.depth <= 0 || scopes.depth > kMaxDepth)
    return;
  /* Without room the block goes unrecorded: a failure of this call may
   * then leave it allocated, nothing worse. */
  (void)wrapper_block_set_insert(&scopes.sets[scopes.depth - 1], block);
}

void wrapper_scope_forget(void *block) {
  if (!block || scopes.depth <= 0 || scopes.depth > kMaxDepth)
    return;
  (void)wrapper_block_set_erase(&scopes.sets[scopes.depth - 1], block);
}
