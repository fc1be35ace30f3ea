/* clang-format off */
/* Calls at once share the cores: while N model calls are in flight, a call
 * that starts runs its parallel loops on (cores / N) OpenMP threads, at
 * least 1 and at most the thread's own setting, and the setting is back
 * when the call ends; one call alone keeps every thread; sharing can be
 * turned off. Eight threads call the model.so of fault-injection.c at once,
 * each between two barriers, and report the threads their calls got.
 *
 * UNSUPPORTED: asan
 * RUN: rm -rf %t && mkdir -p %t
 * RUN: wrapper-compile %S/Inputs/faults.mlir --entry=main -o %t/model.so
 * RUN: clang -std=c11 -Wall -Wextra -Werror -I%wrapper_src_root/include %s %t/model.so -o %t/sharing -L%wrapper_lib_dir -lwrapper_runtime -lpthread -ldl -Wl,-rpath,%wrapper_lib_dir -Wl,-rpath,%t
 * RUN: env OMP_NUM_THREADS=4 %t/sharing | FileCheck %s
 * RUN: env OMP_NUM_THREADS=4 WRAPPER_SHARE_THREADS=0 %t/sharing | FileCheck %s --check-prefix=OFF
 *
 * CHECK: alone: 4 threads
 * CHECK: eight at once: fewest = max(1, cores / 8), most 4, restored 8 of 8
 * CHECK: after: 4 threads
 * CHECK-NOT: FAILED
 * OFF: alone: 4 threads
 * OFF: eight at once: fewest 4, most 4, restored 8 of 8
 */
/* clang-format on */
#define _GNU_SOURCE
#include "Wrapper/Runtime/WrapperModel.h"
#include "Wrapper/Runtime/WrapperRuntime.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 8 };

/* libomp's, which the model.so links. */
static int numProcs(void) {
  int (*procs)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_num_procs");
  return procs ? procs() : 1;
}

static pthread_barrier_t inside, done;
static int during[THREADS], after[THREADS];

/* What a model call does around its compiled entry (ContainerSource.cpp's
 * call_entry): the scope is the call. */
static void *call(void *arg) {
  int index = (int)(long)arg;
  int before = wrapper_call_threads();
  wrapper_call_scope_begin();
  pthread_barrier_wait(&inside); /* all eight in flight */
  during[index] = wrapper_call_threads();
  pthread_barrier_wait(&done);
  wrapper_call_scope_end(WRAPPER_OK);
  after[index] = wrapper_call_threads() == before;
  return NULL;
}

int main(void) {
  /* The model.so brings OpenMP; create the model so it is loaded. */
  wrapper_model *model = NULL;
  if (wrapper_model_create(&model) != WRAPPER_OK)
    return 1;
  wrapper_call_scope_begin();
  printf("alone: %d threads\n", wrapper_call_threads());
  wrapper_call_scope_end(WRAPPER_OK);

  pthread_barrier_init(&inside, NULL, THREADS);
  pthread_barrier_init(&done, NULL, THREADS);
  pthread_t threads[THREADS];
  for (long t = 0; t < THREADS; ++t)
    pthread_create(&threads[t], NULL, call, (void *)t);
  int fewest = 1 << 30, most = 0, restored = 0;
  for (int t = 0; t < THREADS; ++t) {
    pthread_join(threads[t], NULL);
    fewest = during[t] < fewest ? during[t] : fewest;
    most = during[t] > most ? during[t] : most;
    restored += after[t];
  }
  /* The last of the eight to start saw eight in flight. */
  int expected = numProcs() / THREADS;
  expected = expected < 1 ? 1 : expected > 4 ? 4 : expected;
  if (fewest == expected && fewest != 4)
    printf("eight at once: fewest = max(1, cores / 8), most %d, restored %d "
           "of %d\n",
           most, restored, THREADS);
  else
    printf("eight at once: fewest %d, most %d, restored %d of %d\n", fewest,
           most, restored, THREADS);
  printf("after: %d threads\n", wrapper_call_threads());
  wrapper_model_destroy(model);
  return 0;
}
