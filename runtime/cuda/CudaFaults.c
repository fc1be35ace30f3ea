/*===- CudaFaults.c - CUDA driver errors injected for tests ---------------===*
 *
 * Part of the Wrapper project.
 *
 * wrapper_cuda_fail_call_after(n) lets n more of the driver calls that do
 * a model call's work (allocations, launches, copies, memsets) through,
 * then makes the next one fail as the driver would, without calling it.
 * Cuda.c asks wrapper_cuda_fault() before each such call.
 *
 *===----------------------------------------------------------------------===*/

#include "../cpu/RuntimeInternal.h"
#include "CudaInternal.h"

static int64_t failAfter = -1;
static __thread int lastInjected;

void wrapper_cuda_fail_call_after(int64_t count) {
  __atomic_store_n(&failAfter, count < 0 ? -1 : count, __ATOMIC_SEQ_CST);
}

int wrapper_cuda_fault(void) {
  lastInjected = wrapper_countdown_take(&failAfter);
  return lastInjected;
}

const char *wrapper_cuda_fault_note(void) {
  return lastInjected ? " (a failure injected by wrapper_cuda_fail_call_after)"
                      : "";
}
