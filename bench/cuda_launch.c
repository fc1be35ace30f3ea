/* The host cost of a bare cuLaunchKernel by the kernel's parameter count
 * (empty kernels of 0 to 200 u64 parameters, 20000 launches each on one
 * stream, after 1000 to warm up): the floor under a compiled program's
 * per-launch host time (bench/train_host.py's "library calls").
 * Needs only the driver (loaded with dlopen; no CUDA headers):
 *   gcc -O2 -o /tmp/cuda_launch bench/cuda_launch.c -ldl && /tmp/cuda_launch */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
typedef int CUresult;
#define L(name) static CUresult (*name)
L(cuInit)(unsigned); L(cuDeviceGet)(int *, int); L(cuDevicePrimaryCtxRetain)(void **, int);
L(cuCtxSetCurrent)(void *); L(cuModuleLoadData)(void **, const void *);
L(cuModuleGetFunction)(void **, void *, const char *); L(cuStreamCreate)(void **, unsigned);
L(cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **);
L(cuStreamSynchronize)(void *);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(void) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW);
  if (!h) { printf("no libcuda\n"); return 1; }
#define G(name) *(void **)&name = dlsym(h, #name)
  G(cuInit); G(cuDeviceGet); G(cuDevicePrimaryCtxRetain); G(cuCtxSetCurrent); G(cuModuleGetFunction);
  G(cuStreamCreate); G(cuLaunchKernel); G(cuStreamSynchronize); *(void **)&cuModuleLoadData = dlsym(h, "cuModuleLoadData");
  int counts[] = {0, 4, 16, 32, 64, 128, 200};
  int n = sizeof counts / sizeof *counts;
  static char ptx[200000];
  int o = sprintf(ptx, ".version 8.0\n.target sm_90\n.address_size 64\n");
  for (int k = 0; k < n; ++k) {
    o += sprintf(ptx + o, ".visible .entry k%d(", counts[k]);
    for (int p = 0; p < counts[k]; ++p) o += sprintf(ptx + o, "%s.param .u64 p%d", p ? ", " : "", p);
    o += sprintf(ptx + o, ") { ret; }\n");
  }
  int dev; void *ctx, *mod, *stream;
  cuInit(0); cuDeviceGet(&dev, 0); cuDevicePrimaryCtxRetain(&ctx, dev); cuCtxSetCurrent(ctx);
  CUresult r = cuModuleLoadData(&mod, ptx);
  if (r) { printf("load failed %d\n", r); return 1; }
  cuStreamCreate(&stream, 1);
  static unsigned long long values[256];
  void *params[256];
  for (int p = 0; p < 256; ++p) params[p] = &values[p];
  for (int round = 0; round < 2; ++round)
    for (int k = 0; k < n; ++k) {
      char name[16]; void *f; sprintf(name, "k%d", counts[k]);
      cuModuleGetFunction(&f, mod, name);
      int iters = 20000;
      for (int i = 0; i < 1000; ++i) cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, stream, params, 0);
      cuStreamSynchronize(stream);
      double t = now();
      for (int i = 0; i < iters; ++i) cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, stream, params, 0);
      double host = now() - t;
      cuStreamSynchronize(stream);
      double all = now() - t;
      if (round) printf("params %3d: host %.2f us/launch, with sync %.2f us/launch\n", counts[k], host / iters * 1e6, all / iters * 1e6);
    }
  return 0;
}
