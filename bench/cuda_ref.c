/* References for bench/run.sh cuda, measured through the project's CUDA
 * runtime (libwrapper_cuda_runtime) and, for the launch loop, the driver
 * itself:
 *
 *   cuda_ref copy BYTES REPS    device-to-device copy of BYTES on the
 *                               runtime's stream, REPS back to back; prints
 *                               "ms gbps" (bytes read + written per second)
 *   cuda_ref launch N REPS      a bare cuLaunchKernel loop: REPS launches of
 *                               a kernel adding two N-element f32 vectors
 *                               (N threads per launch), back to back, one
 *                               wait at the end; prints "us" per launch
 */
#include "Wrapper/Runtime/WrapperCuda.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int check(wrapper_status status, const char *what) {
  if (status == WRAPPER_OK)
    return 0;
  fprintf(stderr, "cuda_ref: %s: %s\n", what, wrapper_last_error());
  return 1;
}

static int copy(size_t bytes, int reps) {
  void *a = NULL, *b = NULL;
  if (check(wrapper_cuda_alloc(bytes, &a), "alloc") ||
      check(wrapper_cuda_alloc(bytes, &b), "alloc") ||
      check(wrapper_cuda_copy_device(b, a, bytes), "copy") ||
      check(wrapper_cuda_synchronize(), "synchronize"))
    return 1;
  double t0 = now();
  for (int i = 0; i < reps; ++i)
    if (check(wrapper_cuda_copy_device(i % 2 ? a : b, i % 2 ? b : a, bytes),
              "copy"))
      return 1;
  if (check(wrapper_cuda_synchronize(), "synchronize"))
    return 1;
  double ms = (now() - t0) * 1e3 / reps;
  printf("%.4f %.2f\n", ms, 2.0 * bytes / (ms * 1e6));
  return 0;
}

/* c[i] = a[i] + b[i] for i < n, one thread per element. */
static const char *kAddPtx =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry add(.param .u64 a, .param .u64 b, .param .u64 c,\n"
    "                    .param .u32 n) {\n"
    "  .reg .b32 %r<6>;\n"
    "  .reg .b64 %rd<10>;\n"
    "  .reg .f32 %f<4>;\n"
    "  .reg .pred %p;\n"
    "  ld.param.u64 %rd1, [a];\n"
    "  ld.param.u64 %rd2, [b];\n"
    "  ld.param.u64 %rd3, [c];\n"
    "  ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %ctaid.x;\n"
    "  mov.u32 %r3, %ntid.x;\n"
    "  mov.u32 %r4, %tid.x;\n"
    "  mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "  setp.ge.s32 %p, %r5, %r1;\n"
    "  @%p bra done;\n"
    "  mul.wide.s32 %rd4, %r5, 4;\n"
    "  add.s64 %rd5, %rd1, %rd4;\n"
    "  add.s64 %rd6, %rd2, %rd4;\n"
    "  add.s64 %rd7, %rd3, %rd4;\n"
    "  ld.global.f32 %f1, [%rd5];\n"
    "  ld.global.f32 %f2, [%rd6];\n"
    "  add.f32 %f3, %f1, %f2;\n"
    "  st.global.f32 [%rd7], %f3;\n"
    "done:\n"
    "  ret;\n"
    "}\n";

typedef int (*LaunchFn)(void *f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned smem,
                        void *stream, void **params, void **extra);
typedef int (*SyncFn)(void);

static int launch(int n, int reps) {
  void *module = NULL, *function = NULL, *a = NULL, *b = NULL, *c = NULL;
  size_t bytes = (size_t)n * 4;
  if (check(wrapper_cuda_module(kAddPtx, &module), "module") ||
      check(wrapper_cuda_function(module, "add", &function), "function") ||
      check(wrapper_cuda_alloc(bytes, &a), "alloc") ||
      check(wrapper_cuda_alloc(bytes, &b), "alloc") ||
      check(wrapper_cuda_alloc(bytes, &c), "alloc"))
    return 1;
  /* The driver the runtime loaded (same handle) and its current context. */
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  LaunchFn cuLaunchKernel =
      driver ? (LaunchFn)dlsym(driver, "cuLaunchKernel") : NULL;
  SyncFn cuCtxSynchronize =
      driver ? (SyncFn)dlsym(driver, "cuCtxSynchronize") : NULL;
  if (!cuLaunchKernel || !cuCtxSynchronize) {
    fprintf(stderr, "cuda_ref: libcuda.so.1 is not loaded\n");
    return 1;
  }
  unsigned block = n < 256 ? (unsigned)n : 256;
  unsigned grid = (unsigned)((n + block - 1) / block);
  void *params[] = {&a, &b, &c, &n};
  for (int i = 0; i < 10; ++i)
    cuLaunchKernel(function, grid, 1, 1, block, 1, 1, 0, NULL, params, NULL);
  if (cuCtxSynchronize() != 0)
    return fprintf(stderr, "cuda_ref: launch failed\n"), 1;
  double t0 = now();
  for (int i = 0; i < reps; ++i)
    if (cuLaunchKernel(function, grid, 1, 1, block, 1, 1, 0, NULL, params,
                       NULL) != 0)
      return fprintf(stderr, "cuda_ref: cuLaunchKernel failed\n"), 1;
  if (cuCtxSynchronize() != 0)
    return fprintf(stderr, "cuda_ref: launch failed\n"), 1;
  printf("%.3f\n", (now() - t0) * 1e6 / reps);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 4 || (strcmp(argv[1], "copy") && strcmp(argv[1], "launch"))) {
    fprintf(stderr, "usage: cuda_ref copy BYTES REPS | launch N REPS\n");
    return 2;
  }
  if (!wrapper_cuda_available()) {
    fprintf(stderr, "cuda_ref: %s\n", wrapper_last_error());
    return 1;
  }
  long long size = atoll(argv[2]);
  int reps = atoi(argv[3]);
  if (size <= 0 || reps <= 0) {
    fprintf(stderr, "cuda_ref: sizes and repetitions must be positive\n");
    return 2;
  }
  return strcmp(argv[1], "copy") == 0 ? copy((size_t)size, reps)
                                      : launch((int)size, reps);
}
