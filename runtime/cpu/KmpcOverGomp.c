/*===- KmpcOverGomp.c - compiled kernels on GNU OpenMP's threads ----------===*
 *
 * Part of the Wrapper project.
 *
 * MLIR's OpenMP lowering calls LLVM OpenMP's entry points (__kmpc_*), which
 * libomp implements. In a PyTorch process the ATen ops run on GNU OpenMP
 * (libgomp) instead, whose worker threads keep spinning after each op: two
 * thread pools then fight for the cores, and a compiled call right after an
 * eager op runs several times slower (docs/Benchmarks.md). This library
 * implements the entry points the compiled kernels use on top of libgomp,
 * so that both share one pool. It does not link libgomp: its GOMP_* and
 * omp_* references bind, when it is loaded, to the libgomp already in the
 * process (the Python package makes PyTorch's global first, then loads this
 * library globally before a model, so the model's __kmpc_* calls bind
 * here). Only what the lowering emits is implemented: fork, static
 * worksharing (any chunk), barrier, thread numbers.
 *
 *===----------------------------------------------------------------------===*/

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* libgomp, resolved in the process at load time. */
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                   unsigned flags);
void GOMP_barrier(void);
int omp_get_thread_num(void);
int omp_get_num_threads(void);

typedef void (*kmpc_micro)(int32_t *, int32_t *, ...);

enum { kMaxArgs = 16 };

struct Task {
  kmpc_micro fn;
  int32_t argc;
  void *args[kMaxArgs];
};

static _Atomic(long long) forks;

/* The number of parallel regions run through this adapter (tests use it to
 * see that a model runs on libgomp). */
long long wrapper_kmpc_over_gomp_forks(void) { return forks; }

static void invoke(void *data) {
  struct Task *t = data;
  int32_t gtid = omp_get_thread_num(), btid = gtid;
  void **a = t->args;
  switch (t->argc) {
  case 0: t->fn(&gtid, &btid); break;
  case 1: t->fn(&gtid, &btid, a[0]); break;
  case 2: t->fn(&gtid, &btid, a[0], a[1]); break;
  case 3: t->fn(&gtid, &btid, a[0], a[1], a[2]); break;
  case 4: t->fn(&gtid, &btid, a[0], a[1], a[2], a[3]); break;
  case 5: t->fn(&gtid, &btid, a[0], a[1], a[2], a[3], a[4]); break;
  case 6: t->fn(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5]); break;
  case 7: t->fn(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6]); break;
  case 8:
    t->fn(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    break;
  case 9:
    t->fn(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
    break;
  case 10:
    t->fn(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
          a[9]);
    break;
  case 11:
    t->fn(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
          a[9], a[10]);
    break;
  case 12:
    t->fn(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
          a[9], a[10], a[11]);
    break;
  case 13:
    t->fn(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
          a[9], a[10], a[11], a[12]);
    break;
  case 14:
    t->fn(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
          a[9], a[10], a[11], a[12], a[13]);
    break;
  case 15:
    t->fn(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
          a[9], a[10], a[11], a[12], a[13], a[14]);
    break;
  default:
    t->fn(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
          a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
    break;
  }
}

int32_t __kmpc_global_thread_num(void *loc) {
  (void)loc;
  return omp_get_thread_num();
}

void __kmpc_fork_call(void *loc, int32_t argc, kmpc_micro fn, ...) {
  (void)loc;
  struct Task task;
  task.fn = fn;
  task.argc = argc;
  if (argc > kMaxArgs) {
    /* The lowering passes one pointer per captured value (kernels capture
     * a few); more cannot be forwarded. */
    fprintf(stderr,
            "wrapper kmpc-over-gomp: a parallel region captures %d values, "
            "more than the %d this adapter forwards\n",
            (int)argc, (int)kMaxArgs);
    abort();
  }
  va_list ap;
  va_start(ap, fn);
  for (int32_t i = 0; i < task.argc; ++i)
    task.args[i] = va_arg(ap, void *);
  va_end(ap);
  ++forks;
  GOMP_parallel(invoke, &task, 0, 0);
}

void __kmpc_barrier(void *loc, int32_t gtid) {
  (void)loc;
  (void)gtid;
  GOMP_barrier();
}

/* Static worksharing over the inclusive range [*plower, *pupper] with step
 * `incr`: without a chunk (schedtype 34) each thread gets one balanced
 * block; with one, chunks go round-robin and *pstride says how far the
 * caller steps to its next chunk. A thread without iterations gets an
 * empty range (lower = upper + incr), as libomp gives it. */
#define STATIC_INIT(NAME, T, ST)                                               \
  void NAME(void *loc, int32_t gtid, int32_t schedtype, int32_t *plastiter,    \
            T *plower, T *pupper, ST *pstride, ST incr, ST chunk) {            \
    (void)loc;                                                                 \
    (void)gtid;                                                                \
    T lower = *plower, upper = *pupper;                                        \
    uint64_t nth = (uint64_t)omp_get_num_threads();                            \
    uint64_t tid = (uint64_t)omp_get_thread_num();                             \
    uint64_t trips;                                                            \
    if (incr > 0)                                                              \
      trips = upper < lower ? 0 : (uint64_t)(upper - lower) / incr + 1;        \
    else                                                                       \
      trips = lower < upper ? 0 : (uint64_t)(lower - upper) / -incr + 1;       \
    if (plastiter)                                                             \
      *plastiter = 0;                                                          \
    if (trips == 0) {                                                          \
      *pstride = incr;                                                         \
      return;                                                                  \
    }                                                                          \
    if (schedtype == 34 || chunk < 1) {                                        \
      uint64_t small = trips / nth, extra = trips % nth;                       \
      uint64_t start = tid * small + (tid < extra ? tid : extra);              \
      uint64_t count = small + (tid < extra ? 1 : 0);                          \
      if (count == 0) {                                                        \
        *plower = upper + incr;                                                \
        *pupper = upper;                                                       \
      } else {                                                                 \
        *plower = lower + (T)(start * incr);                                   \
        *pupper = *plower + (T)((count - 1) * incr);                           \
        if (plastiter)                                                         \
          *plastiter = start + count == trips;                                 \
      }                                                                        \
      *pstride = (ST)(trips * incr);                                           \
      return;                                                                  \
    }                                                                          \
    uint64_t first = tid * (uint64_t)chunk;                                    \
    *pstride = (ST)(nth * (uint64_t)chunk * incr);                             \
    if (first >= trips) {                                                      \
      *plower = upper + incr;                                                  \
      *pupper = upper;                                                         \
      return;                                                                  \
    }                                                                          \
    *plower = lower + (T)(first * incr);                                       \
    *pupper = *plower + (T)(((uint64_t)chunk - 1) * incr);                     \
    if (plastiter)                                                             \
      *plastiter = ((trips - 1) / (uint64_t)chunk) % nth == tid;               \
  }

STATIC_INIT(__kmpc_for_static_init_4, int32_t, int32_t)
STATIC_INIT(__kmpc_for_static_init_4u, uint32_t, int32_t)
STATIC_INIT(__kmpc_for_static_init_8, int64_t, int64_t)
STATIC_INIT(__kmpc_for_static_init_8u, uint64_t, int64_t)

void __kmpc_for_static_fini(void *loc, int32_t gtid) {
  (void)loc;
  (void)gtid;
}
