/* The adapter of LLVM OpenMP's entry points over GNU OpenMP
 * (libwrapper_kmpc_over_gomp): forked regions run on libgomp's team with
 * their arguments, and static worksharing covers every iteration exactly
 * once, for any trip count, thread count and chunk, as the compiled kernels
 * use it (inclusive bounds, step 1, unsigned 64-bit).
 *
 * UNSUPPORTED: asan
 * RUN: clang -std=c11 -Wall -Wextra -Werror %s -o %t -L%wrapper_lib_dir -lwrapper_kmpc_over_gomp -Wl,-rpath,%wrapper_lib_dir -lgomp
 * RUN: %t | FileCheck %s
 * CHECK: forked regions: 
 * CHECK-NOT: FAILED
 * CHECK: done
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef void (*kmpc_micro)(int32_t *, int32_t *, ...);
void __kmpc_fork_call(void *loc, int32_t argc, kmpc_micro fn, ...);
void __kmpc_for_static_init_8u(void *loc, int32_t gtid, int32_t schedtype,
                               int32_t *plastiter, uint64_t *plower,
                               uint64_t *pupper, int64_t *pstride, int64_t incr,
                               int64_t chunk);
void __kmpc_for_static_fini(void *loc, int32_t gtid);
void __kmpc_barrier(void *loc, int32_t gtid);
int32_t __kmpc_global_thread_num(void *loc);
long long wrapper_kmpc_over_gomp_forks(void);
void omp_set_num_threads(int);

enum { kMax = 1000 };
static int failures;

/* Each thread marks the iterations it gets; `lasts` counts the threads told
 * they ran the last iteration. */
static void body(int32_t *gtid, int32_t *btid, uint64_t *trips,
                 int64_t *chunk, _Atomic int *hits, _Atomic int *lasts) {
  (void)btid;
  if (*trips == 0)
    return;
  uint64_t lower = 0, upper = *trips - 1, end = *trips - 1;
  int64_t stride = 0;
  int32_t last = 0;
  __kmpc_for_static_init_8u(NULL, *gtid, *chunk ? 33 : 34, &last, &lower,
                            &upper, &stride, 1, *chunk);
  if (!*chunk) {
    for (uint64_t i = lower; i <= upper && lower <= upper; ++i)
      hits[i]++;
  } else {
    for (uint64_t lb = lower; lb <= end; lb += (uint64_t)stride) {
      uint64_t ub = lb + (uint64_t)*chunk - 1;
      for (uint64_t i = lb; i <= (ub < end ? ub : end); ++i)
        hits[i]++;
    }
  }
  if (last)
    (*lasts)++;
  __kmpc_for_static_fini(NULL, *gtid);
  __kmpc_barrier(NULL, *gtid);
}

int main(void) {
  static _Atomic int hits[kMax];
  _Atomic int lasts;
  uint64_t tripCounts[] = {0, 1, 2, 3, 7, 64, 999};
  int64_t chunks[] = {0, 1, 3, 16};
  for (int threads = 1; threads <= 4; ++threads) {
    omp_set_num_threads(threads);
    for (size_t t = 0; t < sizeof tripCounts / sizeof *tripCounts; ++t) {
      for (size_t c = 0; c < sizeof chunks / sizeof *chunks; ++c) {
        uint64_t trips = tripCounts[t];
        int64_t chunk = chunks[c];
        memset((void *)hits, 0, sizeof hits);
        lasts = 0;
        __kmpc_fork_call(NULL, 4, (kmpc_micro)body, &trips, &chunk, hits,
                         &lasts);
        for (uint64_t i = 0; i < trips; ++i)
          if (hits[i] != 1) {
            printf("FAILED: %d threads, %llu trips, chunk %lld: iteration "
                   "%llu ran %d times\n",
                   threads, (unsigned long long)trips, (long long)chunk,
                   (unsigned long long)i, (int)hits[i]);
            ++failures;
            break;
          }
        if (trips > 0 && lasts != 1) {
          printf("FAILED: %d threads, %llu trips, chunk %lld: %d threads "
                 "ran the last iteration\n",
                 threads, (unsigned long long)trips, (long long)chunk,
                 (int)lasts);
          ++failures;
        }
      }
    }
  }
  printf("forked regions: %lld\n", wrapper_kmpc_over_gomp_forks());
  printf("done\n");
  return failures != 0;
}
