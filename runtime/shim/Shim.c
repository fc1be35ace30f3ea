/*===- Shim.c - the extern shim ABI: errors, proxy calls ------------------===*
 *
 * Part of the Wrapper project.
 *
 * Reference-quality CPU implementations of the registered extern kernels,
 * behind the entry points of WrapperShim.h. Every element goes through a
 * double (or an int64 for indices and integer sums), so any dtype of the
 * runtime works; the point is exact contracts and checked arguments, not
 * speed (the GEMM template is the fast matmul). This file holds what every
 * kernel shares (error reporting, proxy calls into PyTorch); the kernels
 * are in one file per family (Products.c, Convolution.c, Sorting.c,
 * Indexing.c, Elementwise.c), their helpers in ShimInternal.h.
 *
 *===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 200809L

#include "ShimInternal.h"

#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

void wrapper_shim_free(void *data) { wrapper_block_free(data); }

static _Thread_local jmp_buf *errorJump;

void *wrapper_set_error_jump(void *jump) {
  jmp_buf *previous = errorJump;
  errorJump = (jmp_buf *)jump;
  return previous;
}

void wrapper_shim_check(int32_t status, const char *callee) {
  if (status == WRAPPER_OK)
    return;
  if (errorJump) {
    jmp_buf *target = errorJump;
    errorJump = NULL;
    longjmp(*target, status);
  }
  fprintf(stderr, "error: extern kernel %s failed: %s\n", callee ? callee : "?",
          wrapper_last_error());
  fflush(stderr);
  exit(1);
}

/*===------------------------------------------------------------------===*
 * Proxy calls
 *===------------------------------------------------------------------===*/

static _Atomic(wrapper_proxy_handler) proxyHandler;

void wrapper_set_proxy_handler(wrapper_proxy_handler handler) {
  atomic_store(&proxyHandler, handler);
}

wrapper_status wrapper_proxy_call(int64_t key, const char *name,
                                  int32_t num_inputs,
                                  const wrapper_tensor *const *inputs,
                                  int32_t num_outputs,
                                  wrapper_tensor *outputs) {
  wrapper_proxy_handler handler = atomic_load(&proxyHandler);
  if (!handler)
    return wrapper_set_error(
        WRAPPER_ERROR_UNSUPPORTED,
        "%s runs in PyTorch (a proxy call), but no handler is registered in "
        "this process: run the model from the wrapper_mlir Python package",
        name ? name : "an op");
  wrapper_status status =
      handler(key, num_inputs, inputs, num_outputs, outputs);
  const char *last = wrapper_last_error();
  if (status != WRAPPER_OK && (!last || last[0] == '\0'))
    return wrapper_set_error(status, "%s failed in PyTorch", name ? name : "?");
  return status;
}

wrapper_status wrapper_proxy_output(wrapper_tensor *t, int32_t dtype,
                                    int32_t rank, const int64_t *sizes) {
  if (!t || (rank > 0 && !sizes))
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "wrapper_proxy_output: NULL argument");
  return prepareOutput("proxy call", "result", t, ALLOCATE, dtype, sizes, rank);
}

/*===------------------------------------------------------------------===*
 * Collectives
 *===------------------------------------------------------------------===*/

static _Atomic(wrapper_collective_start_handler) collectiveStart;
static _Atomic(wrapper_collective_wait_handler) collectiveWait;
static _Atomic int64_t collectivesStarted, collectivesWaited;

void wrapper_set_collective_handlers(wrapper_collective_start_handler start,
                                     wrapper_collective_wait_handler wait) {
  atomic_store(&collectiveStart, start);
  atomic_store(&collectiveWait, wait);
}

static const char *collectiveName(int32_t collective) {
  switch (collective) {
  case WRAPPER_ALL_REDUCE:
    return "all_reduce";
  case WRAPPER_ALL_GATHER_INTO_TENSOR:
    return "all_gather_into_tensor";
  case WRAPPER_REDUCE_SCATTER_TENSOR:
    return "reduce_scatter_tensor";
  default:
    return NULL;
  }
}

wrapper_status wrapper_collective_start(int32_t collective, const char *group,
                                        int32_t reduce_op, int64_t group_size,
                                        int32_t device, int32_t num_inputs,
                                        const wrapper_tensor *const *inputs,
                                        int32_t num_outputs,
                                        const wrapper_tensor *const *outputs,
                                        int64_t *work) {
  const char *name = collectiveName(collective);
  if (!name || !group || !work || num_inputs < 0 || num_outputs < 1 ||
      (num_inputs > 0 && !inputs) || !outputs)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "wrapper_collective_start: invalid arguments "
                             "(collective %d)",
                             (int)collective);
  wrapper_collective_start_handler handler = atomic_load(&collectiveStart);
  if (!handler || !atomic_load(&collectiveWait))
    return wrapper_set_error(
        WRAPPER_ERROR_UNSUPPORTED,
        "the graph runs %s on process group '%s', but no collective handler "
        "is registered in this process: run the model from the wrapper_mlir "
        "Python package with torch.distributed initialized",
        name, group);
  *work = -1;
  wrapper_status status =
      handler(collective, group, reduce_op, group_size, device, num_inputs,
              inputs, num_outputs, outputs, work);
  const char *last = wrapper_last_error();
  if (status != WRAPPER_OK && (!last || last[0] == '\0'))
    return wrapper_set_error(status, "%s on process group '%s' failed", name,
                             group);
  if (status == WRAPPER_OK)
    atomic_fetch_add(&collectivesStarted, 1);
  return status;
}

wrapper_status wrapper_collective_wait(int64_t work) {
  wrapper_collective_wait_handler handler = atomic_load(&collectiveWait);
  if (!handler)
    return wrapper_set_error(WRAPPER_ERROR_UNSUPPORTED,
                             "wrapper_collective_wait: no collective handler "
                             "is registered in this process");
  wrapper_status status = handler(work);
  const char *last = wrapper_last_error();
  if (status != WRAPPER_OK && (!last || last[0] == '\0'))
    return wrapper_set_error(status, "waiting for collective %lld failed",
                             (long long)work);
  if (status == WRAPPER_OK)
    atomic_fetch_add(&collectivesWaited, 1);
  return status;
}

int64_t wrapper_collectives_started(void) {
  return atomic_load(&collectivesStarted);
}

int64_t wrapper_collectives_waited(void) {
  return atomic_load(&collectivesWaited);
}
