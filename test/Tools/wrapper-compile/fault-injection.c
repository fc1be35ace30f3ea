/* clang-format off */
/* Faults at a model.so's boundary, from C: every allocation of a call
 * refused in turn (compiled code's buffers, the extern kernel's result, the
 * outputs), then threads cancelled (pthread_cancel) while they call the
 * model. Each failure is reported with a message; afterwards no block is
 * left allocated and the next call gives the first call's outputs, bit for
 * bit.
 *
 * KMP_BLOCKTIME=0 makes OpenMP's threads sleep in pthread_cond_wait, a
 * cancellation point, at the end of every parallel loop: without the
 * container disabling cancellation during a call, a thread is cancelled
 * inside a parallel region and the next call hangs (the alarm ends it).
 *
 * UNSUPPORTED: asan
 * RUN: rm -rf %t && mkdir -p %t
 * RUN: wrapper-compile %S/Inputs/faults.mlir --entry=main -o %t/model.so
 * RUN: clang -std=c11 -Wall -Wextra -Werror -I%wrapper_src_root/include %s %t/model.so -o %t/faults -L%wrapper_lib_dir -lwrapper_runtime -lpthread -Wl,-rpath,%wrapper_lib_dir -Wl,-rpath,%t
 * RUN: env KMP_BLOCKTIME=0 %t/faults | FileCheck %s
 *
 * CHECK: baseline: 2 outputs
 * CHECK: allocation failures: [[N:[1-9][0-9]*]] injected, [[N]] reported, 0 leaked, 0 wrong
 * CHECK: cancelled threads: 200, 0 leaked, 0 wrong
 * CHECK-NOT: FAILED
 */
/* clang-format on */
#define _GNU_SOURCE
#include "Wrapper/Runtime/WrapperModel.h"
#include "Wrapper/Runtime/WrapperRuntime.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { ROWS = 37, NUM_INPUTS = 4, NUM_OUTPUTS = 2 };

static wrapper_model *model;
static wrapper_array inputs[NUM_INPUTS];
static wrapper_array expected[NUM_OUTPUTS];
static int failures;

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("FAILED line %d: %s (last error: %s)\n", __LINE__, #cond,         \
             wrapper_last_error());                                            \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static void makeInput(int index, wrapper_dtype dtype, int32_t rank, int64_t d0,
                      int64_t d1) {
  int64_t shape[2] = {d0, d1};
  EXPECT(wrapper_array_create(dtype, rank, shape, &inputs[index]) ==
         WRAPPER_OK);
  int64_t n = wrapper_array_numel(&inputs[index]);
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == WRAPPER_DTYPE_I64)
      ((int64_t *)inputs[index].data)[i] = (i * 7) % 16;
    else
      ((float *)inputs[index].data)[i] =
          (float)((i * 37) % 101) / 101.0f - 0.5f;
  }
}

static void destroyAll(void *outputs) {
  for (int o = 0; o < NUM_OUTPUTS; ++o)
    wrapper_array_destroy(&((wrapper_array *)outputs)[o]);
}

/* Whether `outputs` equal the first call's, bit for bit. */
static int same(const wrapper_array *outputs) {
  for (int o = 0; o < NUM_OUTPUTS; ++o) {
    size_t bytes = (size_t)wrapper_array_numel(&outputs[o]) *
                   wrapper_dtype_size(outputs[o].dtype);
    if (wrapper_array_numel(&outputs[o]) != wrapper_array_numel(&expected[o]) ||
        memcmp(outputs[o].data, expected[o].data, bytes) != 0)
      return 0;
  }
  return 1;
}

static int runOnce(void) {
  wrapper_array outputs[NUM_OUTPUTS];
  memset(outputs, 0, sizeof outputs);
  int ok = wrapper_model_run(model, inputs, NUM_INPUTS, outputs, NUM_OUTPUTS) ==
               WRAPPER_OK &&
           same(outputs);
  destroyAll(outputs);
  return ok;
}

static void injectEachAllocation(void) {
  int64_t blocks = wrapper_live_blocks();
  uint64_t bytes = wrapper_allocated_bytes();
  int injected = 0, reported = 0, leaked = 0, wrong = 0;
  for (int k = 0; k < 1000; ++k) {
    wrapper_array outputs[NUM_OUTPUTS];
    memset(outputs, 0, sizeof outputs);
    wrapper_fail_allocation_after(k);
    wrapper_status status =
        wrapper_model_run(model, inputs, NUM_INPUTS, outputs, NUM_OUTPUTS);
    wrapper_fail_allocation_after(-1);
    if (status == WRAPPER_OK) {
      wrong += !same(outputs);
      destroyAll(outputs);
      break; /* the call made fewer than k + 1 allocations */
    }
    ++injected;
    if (status == WRAPPER_ERROR_OUT_OF_MEMORY &&
        strstr(wrapper_last_error(),
               "injected by wrapper_fail_allocation_after"))
      ++reported;
    else
      printf("allocation %d: status %d: %s\n", k, (int)status,
             wrapper_last_error());
    if (wrapper_live_blocks() != blocks || wrapper_allocated_bytes() != bytes) {
      printf("allocation %d: %lld blocks, %llu bytes left\n", k,
             (long long)(wrapper_live_blocks() - blocks),
             (unsigned long long)(wrapper_allocated_bytes() - bytes));
      ++leaked;
    }
    wrong += !runOnce();
  }
  printf("allocation failures: %d injected, %d reported, %d leaked, %d "
         "wrong\n",
         injected, reported, leaked, wrong);
  EXPECT(injected > 4 && reported == injected && leaked == 0 && wrong == 0);
}

static void *callForever(void *calls) {
  wrapper_array outputs[NUM_OUTPUTS];
  memset(outputs, 0, sizeof outputs);
  pthread_cleanup_push(destroyAll, outputs);
  for (;;) {
    /* The cancellation points inside a call (OpenMP's waits) are disabled:
     * a cancelled thread ends after its call. */
    wrapper_status status =
        wrapper_model_run(model, inputs, NUM_INPUTS, outputs, NUM_OUTPUTS);
    if (status != WRAPPER_OK || !same(outputs))
      __atomic_add_fetch((int *)calls + 1, 1, __ATOMIC_RELAXED);
    destroyAll(outputs);
    __atomic_add_fetch((int *)calls, 1, __ATOMIC_RELAXED);
    pthread_testcancel();
  }
  pthread_cleanup_pop(0);
  return NULL;
}

static void cancelThreads(void) {
  int64_t blocks = wrapper_live_blocks();
  uint64_t bytes = wrapper_allocated_bytes();
  int counts[2] = {0, 0}, leaked = 0, wrong = 0, cancelled = 0;
  for (int round = 0; round < 200; ++round) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, callForever, counts) != 0)
      break;
    usleep((useconds_t)(50 + (round * 97) % 900));
    pthread_cancel(thread);
    void *result = NULL;
    pthread_join(thread, &result);
    cancelled += result == PTHREAD_CANCELED;
    if (wrapper_live_blocks() != blocks || wrapper_allocated_bytes() != bytes)
      ++leaked;
    wrong += !runOnce();
  }
  wrong += counts[1];
  printf("cancelled threads: %d, %d leaked, %d wrong (%d calls)\n", cancelled,
         leaked, wrong, counts[0]);
  EXPECT(cancelled == 200 && leaked == 0 && wrong == 0 && counts[0] > 0);
}

int main(void) {
  alarm(120); /* a lock left held by a cancelled thread would hang */
  EXPECT(wrapper_model_create(&model) == WRAPPER_OK);
  makeInput(0, WRAPPER_DTYPE_F32, 2, ROWS, 64);
  makeInput(1, WRAPPER_DTYPE_F32, 2, 96, 64);
  makeInput(2, WRAPPER_DTYPE_F32, 2, 16, 96);
  makeInput(3, WRAPPER_DTYPE_I64, 1, ROWS, 0);
  memset(expected, 0, sizeof expected);
  EXPECT(wrapper_model_run(model, inputs, NUM_INPUTS, expected, NUM_OUTPUTS) ==
         WRAPPER_OK);
  printf("baseline: %d outputs\n", NUM_OUTPUTS);
  injectEachAllocation();
  cancelThreads();
  wrapper_model_destroy(model);
  return failures != 0;
}
