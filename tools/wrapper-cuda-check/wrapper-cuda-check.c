/*===- wrapper-cuda-check.c - checks the CUDA runtime on this machine ----===*
 *
 * Part of the Wrapper project.
 *
 * Runs the CUDA runtime (libwrapper_cuda_runtime) through its C ABI and
 * through the mgpu* entry points of MLIR's gpu-to-llvm host code: a PTX
 * kernel loaded once, its function looked up once, launched on buffers from
 * the caching allocator, results compared with the same sum on the host;
 * then the allocator's reuse, the caches' counters, products through cuBLAS
 * (against a loop on the host) and the refusals. Exit
 * status 0 when all is right. With --expect-unavailable (a machine without
 * a GPU) it checks that every device call fails with a clear message.
 * test/Runtime/cuda-runtime*.test run it under FileCheck.
 *
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "Wrapper/Runtime/WrapperCuda.h"
#include "Wrapper/Runtime/WrapperModel.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* c[i] = a[i] + 2 * b[i] for i < n. */
static const char ptx[] =
    ".version 7.8\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry axpy(.param .u64 a, .param .u64 b, .param .u64 c,\n"
    "                     .param .u32 n)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<6>;\n"
    "  .reg .f32 %f<5>;\n"
    "  .reg .b64 %rd<11>;\n"
    "  ld.param.u64 %rd1, [a];\n"
    "  ld.param.u64 %rd2, [b];\n"
    "  ld.param.u64 %rd3, [c];\n"
    "  ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %ctaid.x;\n"
    "  mov.u32 %r3, %ntid.x;\n"
    "  mov.u32 %r4, %tid.x;\n"
    "  mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "  setp.ge.s32 %p1, %r5, %r1;\n"
    "  @%p1 bra DONE;\n"
    "  cvta.to.global.u64 %rd4, %rd1;\n"
    "  cvta.to.global.u64 %rd5, %rd2;\n"
    "  cvta.to.global.u64 %rd6, %rd3;\n"
    "  mul.wide.s32 %rd7, %r5, 4;\n"
    "  add.s64 %rd8, %rd4, %rd7;\n"
    "  add.s64 %rd9, %rd5, %rd7;\n"
    "  add.s64 %rd10, %rd6, %rd7;\n"
    "  ld.global.f32 %f1, [%rd8];\n"
    "  ld.global.f32 %f2, [%rd9];\n"
    "  fma.rn.f32 %f3, %f2, 0f40000000, %f1;\n"
    "  st.global.f32 [%rd10], %f3;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n";

#define CHECK(call)                                                            \
  do {                                                                         \
    wrapper_status s_ = (call);                                                \
    if (s_ != WRAPPER_OK) {                                                    \
      printf("FAILED %s: %s\n", #call, wrapper_last_error());                  \
      return 1;                                                                \
    }                                                                          \
  } while (0)

/* The mgpu* entry points, as gpu-to-llvm's host code declares them. */
void *mgpuModuleLoadJIT(void *data, int optLevel);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount);
void *mgpuStreamCreate(void);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamDestroy(void *stream);
void *mgpuMemAlloc(uint64_t bytes, void *stream, int8_t isHostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream);

static int compare(const float *a, const float *b, const float *c, int n,
                   const char *what) {
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    double e = fabs((double)c[i] - ((double)a[i] + 2.0 * b[i]));
    worst = e > worst ? e : worst;
  }
  printf("%s: max error %g\n", what, worst);
  return worst <= 1e-6 ? 0 : 1;
}

/* bf16 bits of `value` (exact for the small values used here). */
static uint16_t toBF16(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return (uint16_t)(bits >> 16);
}

/* One product through wrapper_cuda_gemm against a loop on the host:
 * c[i] (+)= op(a[i]) op(b[i]) for i < batch, b shared by all batches when
 * `shareB`; `bf16` stores a and b as bf16 (c stays f32). */
static int checkGemm(int batch, int m, int n, int k, int transposeA,
                     int transposeB, int shareB, int accumulate, int bf16) {
  size_t sizeA = (size_t)m * k, sizeB = (size_t)k * n, sizeC = (size_t)m * n;
  size_t countB = shareB ? 1 : (size_t)batch;
  float *a = malloc(batch * sizeA * sizeof(float));
  float *b = malloc(countB * sizeB * sizeof(float));
  float *c = malloc(batch * sizeC * sizeof(float));
  float *ref = malloc(batch * sizeC * sizeof(float));
  uint16_t *a16 = malloc(batch * sizeA * 2), *b16 = malloc(countB * sizeB * 2);
  for (size_t i = 0; i < batch * sizeA; ++i) {
    a[i] = (float)((int)(i * 7 % 17) - 8) * 0.5f;
    a16[i] = toBF16(a[i]);
  }
  for (size_t i = 0; i < countB * sizeB; ++i) {
    b[i] = (float)((int)(i * 5 % 11) - 5) * 0.25f;
    b16[i] = toBF16(b[i]);
  }
  for (size_t i = 0; i < batch * sizeC; ++i)
    c[i] = accumulate ? (float)(i % 3) : 0.0f;
  for (int p = 0; p < batch; ++p)
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double sum = c[p * sizeC + (size_t)i * n + j];
        for (int l = 0; l < k; ++l) {
          float x = a[p * sizeA + (transposeA ? (size_t)l * m + i
                                              : (size_t)i * k + l)];
          float y = b[(shareB ? 0 : p * sizeB) +
                      (transposeB ? (size_t)j * k + l : (size_t)l * n + j)];
          sum += (double)x * y;
        }
        ref[p * sizeC + (size_t)i * n + j] = (float)sum;
      }
  size_t elem = bf16 ? 2 : 4;
  void *da, *db, *dc;
  CHECK(wrapper_cuda_alloc(batch * sizeA * elem, &da));
  CHECK(wrapper_cuda_alloc(countB * sizeB * elem, &db));
  CHECK(wrapper_cuda_alloc(batch * sizeC * sizeof(float), &dc));
  CHECK(wrapper_cuda_copy_to_device(da, bf16 ? (void *)a16 : (void *)a,
                                    batch * sizeA * elem));
  CHECK(wrapper_cuda_copy_to_device(db, bf16 ? (void *)b16 : (void *)b,
                                    countB * sizeB * elem));
  CHECK(wrapper_cuda_copy_to_device(dc, c, batch * sizeC * sizeof(float)));
  wrapper_dtype in = bf16 ? WRAPPER_DTYPE_BF16 : WRAPPER_DTYPE_F32;
  wrapper_cuda_gemm_args args = {
      .batch = batch,
      .m = m,
      .n = n,
      .k = k,
      .a = da,
      .b = db,
      .c = dc,
      .stride_a = (int64_t)sizeA,
      .stride_b = shareB ? 0 : (int64_t)sizeB,
      .stride_c = (int64_t)sizeC,
      .a_dtype = in,
      .b_dtype = in,
      .c_dtype = WRAPPER_DTYPE_F32,
      .transpose_a = transposeA,
      .transpose_b = transposeB,
      .accumulate = accumulate,
  };
  CHECK(wrapper_cuda_gemm(&args));
  CHECK(wrapper_cuda_copy_to_host(c, dc, batch * sizeC * sizeof(float)));
  double worst = 0;
  for (size_t i = 0; i < batch * sizeC; ++i) {
    double e = fabs((double)c[i] - ref[i]) / (1.0 + fabs(ref[i]));
    worst = e > worst ? e : worst;
  }
  printf("gemm %dx%dx%dx%d%s%s%s%s%s: max error %s\n", batch, m, n, k,
         transposeA ? " ta" : "", transposeB ? " tb" : "",
         shareB ? " shared-b" : "", accumulate ? " accumulate" : "",
         bf16 ? " bf16" : "", worst <= 1e-5 ? "ok" : "TOO LARGE");
  CHECK(wrapper_cuda_free(da));
  CHECK(wrapper_cuda_free(db));
  CHECK(wrapper_cuda_free(dc));
  free(a), free(b), free(c), free(ref), free(a16), free(b16);
  return worst <= 1e-5 ? 0 : 1;
}

/* Products refused before cuBLAS is needed. */
static void gemmRefusals(void) {
  wrapper_cuda_gemm_args args = {.batch = 1, .m = -1, .n = 1, .k = 1};
  wrapper_status s = wrapper_cuda_gemm(&args);
  printf("gemm negative size: %s: %s\n", wrapper_status_name(s),
         wrapper_last_error());
  wrapper_cuda_gemm_args ints = {.batch = 1,
                                 .m = 1,
                                 .n = 1,
                                 .k = 1,
                                 .a_dtype = WRAPPER_DTYPE_I32,
                                 .b_dtype = WRAPPER_DTYPE_I32,
                                 .c_dtype = WRAPPER_DTYPE_I32};
  s = wrapper_cuda_gemm(&ints);
  printf("gemm i32: %s: %s\n", wrapper_status_name(s), wrapper_last_error());
}

static int unavailable(void) {
  printf("abi %d\n", wrapper_cuda_abi_version());
  int available = wrapper_cuda_available();
  printf("available: %d (%s)\n", available, wrapper_last_error());
  void *ptr = (void *)1;
  wrapper_status s = wrapper_cuda_alloc(64, &ptr);
  printf("alloc: %s, ptr %p: %s\n", wrapper_status_name(s), ptr,
         wrapper_last_error());
  s = wrapper_cuda_synchronize();
  printf("synchronize: %s\n", wrapper_status_name(s));
  printf("free NULL: %s\n", wrapper_status_name(wrapper_cuda_free(NULL)));
  int blas = wrapper_cuda_blas_available();
  printf("cublas available: %d (%s)\n", blas, wrapper_last_error());
  gemmRefusals();
  return 0;
}

/* A DLPack tensor as dlpack.h lays it out (the fields checked below). */
typedef struct {
  void *data;
  int32_t device_type, device_id, ndim;
  uint8_t code, bits;
  uint16_t lanes;
  int64_t *shape, *strides;
  uint64_t byte_offset;
  void *manager_ctx;
  void (*deleter)(void *self);
} DLManaged;

/* wrapper_cuda_dlpack_arrays: a model's outputs as DLPack tensors in one
 * call, each owning its block; on a failure (an fp8 output in the middle)
 * nothing is left and every block is back. */
static int checkDLPackArrays(void) {
  wrapper_strided_array arrays[3];
  memset(arrays, 0, sizeof arrays);
  wrapper_dtype dtypes[3] = {WRAPPER_DTYPE_F32, WRAPPER_DTYPE_I64,
                             WRAPPER_DTYPE_BF16};
  wrapper_cuda_stats before, after;
  wrapper_cuda_get_stats(&before);
  for (int i = 0; i < 3; ++i) {
    arrays[i].dtype = dtypes[i];
    arrays[i].rank = i;
    for (int d = 0; d < i; ++d) {
      arrays[i].shape[d] = d + 2;
      arrays[i].strides[d] = i == 2 && d == 0 ? 3 : 1;
    }
    CHECK(wrapper_cuda_alloc(64, &arrays[i].allocated));
    arrays[i].data = arrays[i].allocated;
  }
  void *managed[3] = {NULL, NULL, NULL};
  CHECK(wrapper_cuda_dlpack_arrays(arrays, 3, 1, managed));
  int right = 1;
  for (int i = 0; i < 3; ++i) {
    DLManaged *tensor = managed[i];
    right &= tensor && tensor->data == arrays[i].data && tensor->ndim == i &&
             (i < 2 || (tensor->shape[1] == 3 && tensor->strides[0] == 3));
  }
  for (int i = 0; i < 3; ++i)
    ((DLManaged *)managed[i])->deleter(managed[i]);
  wrapper_cuda_get_stats(&after);
  printf("dlpack arrays: made right %d, deleters free the blocks %d\n", right,
         after.bytes_in_use == before.bytes_in_use);
  arrays[1].dtype = WRAPPER_DTYPE_F8E4M3FN;
  for (int i = 0; i < 3; ++i) {
    CHECK(wrapper_cuda_alloc(64, &arrays[i].allocated));
    arrays[i].data = arrays[i].allocated;
  }
  wrapper_status s = wrapper_cuda_dlpack_arrays(arrays, 3, 1, managed);
  printf("dlpack arrays fp8: %s: %s\n", wrapper_status_name(s),
         wrapper_last_error());
  wrapper_cuda_get_stats(&after);
  printf("dlpack arrays fp8: nothing left %d, every block back %d\n",
         !managed[0] && !managed[1] && !managed[2],
         after.bytes_in_use == before.bytes_in_use);
  return 0;
}

/* Donation: a DLPack tensor's block given up for a call is freed at the
 * release (and reused at once), its deleter then frees nothing; blocks not
 * donated, taken back, or of another stream are not freed. */
static int checkDonation(void) {
  wrapper_cuda_stats before, after;
  uint64_t released0, released1, bytes0, bytes1;
  wrapper_cuda_release_stats(&released0, &bytes0);
  void *owned, *plain, *bogus = (void *)(uintptr_t)0x10;
  CHECK(wrapper_cuda_alloc(4096, &owned));
  CHECK(wrapper_cuda_alloc(4096, &plain));
  int64_t shape[1] = {1024}, strides[1] = {1};
  void *managed = NULL;
  CHECK(wrapper_cuda_dlpack(owned, owned, WRAPPER_DTYPE_F32, 1, shape, strides,
                            &managed));
  void *ptrs[3] = {owned, plain, bogus};
  int32_t donated = -1;
  CHECK(wrapper_cuda_donate(ptrs, 3, 1, &donated));
  wrapper_cuda_get_stats(&before);
  wrapperCudaReleaseArgument((uintptr_t)plain);
  wrapper_cuda_get_stats(&after);
  int plainKept = after.bytes_in_use == before.bytes_in_use;
  wrapperCudaReleaseArgument((uintptr_t)owned);
  wrapper_cuda_get_stats(&after);
  wrapper_cuda_release_stats(&released1, &bytes1);
  printf("donate: donated %d, not-owned kept %d, released %d, counted %d\n",
         (int)donated, plainKept,
         before.bytes_in_use - after.bytes_in_use == 4096,
         released1 - released0 == 1 && bytes1 - bytes0 == 4096);
  /* The block is reused at once; the tensor's deleter leaves the new
   * owner's block alone. */
  void *again;
  CHECK(wrapper_cuda_alloc(4096, &again));
  wrapper_cuda_get_stats(&before);
  ((DLManaged *)managed)->deleter(managed);
  wrapper_cuda_get_stats(&after);
  printf("donate: block reused %d, deleter frees nothing %d\n", again == owned,
         after.bytes_in_use == before.bytes_in_use);
  CHECK(wrapper_cuda_free(again));
  /* Taken back: not freed. */
  CHECK(wrapper_cuda_dlpack(plain, plain, WRAPPER_DTYPE_F32, 1, shape, strides,
                            &managed));
  CHECK(wrapper_cuda_donate(&plain, 1, 1, NULL));
  CHECK(wrapper_cuda_donate(&plain, 1, 0, &donated));
  wrapper_cuda_get_stats(&before);
  wrapperCudaReleaseArgument((uintptr_t)plain);
  wrapper_cuda_get_stats(&after);
  int takenBackKept = after.bytes_in_use == before.bytes_in_use;
  /* Donated, but released from another stream: not freed. */
  typedef int (*StreamCreate)(void **, unsigned);
  typedef int (*StreamDestroy)(void *);
  StreamCreate create = (StreamCreate)dlsym(RTLD_DEFAULT, "cuStreamCreate");
  StreamDestroy destroy =
      (StreamDestroy)dlsym(RTLD_DEFAULT, "cuStreamDestroy_v2");
  void *side = NULL, *previous = NULL;
  if (!create || create(&side, 1) != 0) {
    printf("FAILED: cuStreamCreate\n");
    return 1;
  }
  CHECK(wrapper_cuda_donate(&plain, 1, 1, NULL));
  CHECK(wrapper_cuda_set_stream(side, &previous));
  wrapperCudaReleaseArgument((uintptr_t)plain);
  CHECK(wrapper_cuda_set_stream(previous, NULL));
  wrapper_cuda_get_stats(&after);
  printf("donate: taken back kept %d, other stream kept %d\n", takenBackKept,
         after.bytes_in_use == before.bytes_in_use);
  ((DLManaged *)managed)->deleter(managed);
  wrapper_cuda_get_stats(&after);
  printf("donate: deleter frees a block not released %d\n",
         before.bytes_in_use - after.bytes_in_use == 4096);
  if (destroy)
    destroy(side);
  wrapper_status s = wrapper_cuda_donate(NULL, 2, 1, NULL);
  printf("donate NULL: %s: %s\n", wrapper_status_name(s), wrapper_last_error());
  return 0;
}

/* Streams: work on the thread's current stream (another stream, the legacy
 * default one), the allocator's pools per stream, the copy counters,
 * errors taken without waiting, DLPack tensors, one device per process. */
static int checkStreams(void *function, void *da, void *db, int n) {
  typedef int (*StreamCreate)(void **, unsigned);
  StreamCreate create = (StreamCreate)dlsym(RTLD_DEFAULT, "cuStreamCreate");
  void *side = NULL;
  if (!create || create(&side, 1) != 0) {
    printf("FAILED: cuStreamCreate\n");
    return 1;
  }
  void *own = wrapper_cuda_stream(), *previous = NULL;
  CHECK(wrapper_cuda_set_stream(side, &previous));
  printf("previous is the runtime's stream: %d, current is the side "
         "stream: %d\n",
         previous == own, wrapper_cuda_stream() == side);
  size_t bytes = (size_t)n * sizeof(float);
  void *onSide, *onOwn, *back;
  CHECK(wrapper_cuda_alloc(bytes, &onSide));
  void *params[] = {&da, &db, &onSide, &n};
  uint32_t grid[3] = {(n + 255) / 256, 1, 1}, block[3] = {256, 1, 1};
  CHECK(wrapper_cuda_launch(function, grid, block, 0, params));
  float *host = malloc(bytes), *a = malloc(bytes), *b = malloc(bytes);
  CHECK(wrapper_cuda_copy_to_host(host, onSide, bytes));
  CHECK(wrapper_cuda_copy_to_host(a, da, bytes));
  CHECK(wrapper_cuda_copy_to_host(b, db, bytes));
  if (compare(a, b, host, n, "side stream launch"))
    return 1;
  CHECK(wrapper_cuda_free(onSide));
  CHECK(wrapper_cuda_set_stream(previous, NULL));
  CHECK(wrapper_cuda_alloc(bytes, &onOwn));
  CHECK(wrapper_cuda_set_stream(side, NULL));
  CHECK(wrapper_cuda_alloc(bytes, &back));
  printf("pools per stream: other stream gets another block %d, same stream "
         "gets it back %d\n",
         onOwn != onSide, back == onSide);
  CHECK(wrapper_cuda_free(back));
  CHECK(wrapper_cuda_free(onOwn));

  /* The legacy default stream (NULL). */
  CHECK(wrapper_cuda_set_stream(NULL, NULL));
  CHECK(wrapper_cuda_alloc(bytes, &onSide));
  void *params2[] = {&da, &db, &onSide, &n};
  CHECK(wrapper_cuda_launch(function, grid, block, 0, params2));
  CHECK(wrapper_cuda_copy_to_host(host, onSide, bytes));
  if (compare(a, b, host, n, "legacy stream launch"))
    return 1;
  CHECK(wrapper_cuda_free(onSide));
  CHECK(wrapper_cuda_set_stream(previous, NULL));

  /* Copies between host and device are counted, device copies are not. */
  wrapper_cuda_stats before, after;
  wrapper_cuda_get_stats(&before);
  CHECK(wrapper_cuda_copy_to_device(da, a, bytes));
  CHECK(wrapper_cuda_copy_to_host(host, da, bytes));
  CHECK(wrapper_cuda_copy_device(db, da, bytes));
  mgpuMemcpy(host, da, 8, own);
  mgpuMemcpy(db, da, 8, own);
  CHECK(wrapper_cuda_synchronize());
  wrapper_cuda_get_stats(&after);
  printf("copies to device +%llu (%llu bytes), to host +%llu (%llu bytes)\n",
         (unsigned long long)(after.copies_to_device - before.copies_to_device),
         (unsigned long long)(after.bytes_to_device - before.bytes_to_device),
         (unsigned long long)(after.copies_to_host - before.copies_to_host),
         (unsigned long long)(after.bytes_to_host - before.bytes_to_host));

  /* An mgpu* failure is taken without waiting, once. */
  mgpuMemFree((void *)0x40, own);
  wrapper_status s = wrapper_cuda_take_error();
  printf("taken error: %s: %s\n", wrapper_status_name(s), wrapper_last_error());
  printf("taken again: %s\n", wrapper_status_name(wrapper_cuda_take_error()));

  /* DLPack: the tensor owns its block until its deleter runs. */
  void *tensor = NULL, *data;
  CHECK(wrapper_cuda_alloc(6 * sizeof(float), &data));
  int64_t shape[2] = {2, 3}, strides[2] = {1, 2};
  wrapper_cuda_get_stats(&before);
  CHECK(wrapper_cuda_dlpack(data, (char *)data + 4, WRAPPER_DTYPE_F32, 2, shape,
                            strides, &tensor));
  DLManaged *managed = tensor;
  printf("dlpack: cuda %d, device %d, rank %d, float%d, shape %lldx%lld, "
         "strides %lld,%lld, offset data %d\n",
         managed->device_type == 2, managed->device_id, managed->ndim,
         managed->bits, (long long)managed->shape[0],
         (long long)managed->shape[1], (long long)managed->strides[0],
         (long long)managed->strides[1], managed->data == (char *)data + 4);
  managed->deleter(managed);
  wrapper_cuda_get_stats(&after);
  printf("dlpack deleter frees the block: %d\n",
         before.bytes_in_use - after.bytes_in_use == 512);
  /* The peak of the bytes in use, since the last reset. */
  wrapper_cuda_reset_peak_bytes_in_use();
  uint64_t base = wrapper_cuda_peak_bytes_in_use();
  void *big = NULL;
  CHECK(wrapper_cuda_alloc(3 << 20, &big));
  CHECK(wrapper_cuda_free(big));
  uint64_t peak = wrapper_cuda_peak_bytes_in_use();
  wrapper_cuda_get_stats(&after);
  wrapper_cuda_reset_peak_bytes_in_use();
  printf("peak: reset to in use %d, +%llu MiB at the peak, reset again to in "
         "use %d\n",
         base == before.bytes_in_use - 512,
         (unsigned long long)((peak - base) >> 20),
         wrapper_cuda_peak_bytes_in_use() == after.bytes_in_use);
  s = wrapper_cuda_dlpack(NULL, NULL, WRAPPER_DTYPE_F8E4M3FN, 0, NULL, NULL,
                          &tensor);
  printf("dlpack fp8: %s: %s\n", wrapper_status_name(s), wrapper_last_error());
  if (checkDLPackArrays())
    return 1;
  if (checkDonation())
    return 1;

  /* The runtime is bound to its device. */
  s = wrapper_cuda_init(wrapper_cuda_device() + 1);
  printf("another device: %s: %s\n", wrapper_status_name(s),
         wrapper_last_error());
  free(host);
  free(a);
  free(b);
  return 0;
}

/* The caching allocator's index under load: thousands of live blocks of
 * a few sizes, freed in a scrambled order and taken again, every pointer
 * distinct among the live ones, the bytes in use back where they were;
 * then the function cache found by another pointer to the same name. */
static int checkManyBlocks(void *module, void *function) {
  enum { COUNT = 3000 };
  static void *live[COUNT];
  wrapper_cuda_stats before, after;
  wrapper_cuda_get_stats(&before);
  for (int i = 0; i < COUNT; ++i)
    CHECK(wrapper_cuda_alloc((size_t)(1 + i % 7) * 1000, &live[i]));
  int distinct = 1;
  for (int round = 0; round < 3; ++round) {
    /* Free every other block in a scrambled order (i * 7 mod COUNT visits
     * each index once: 7 is prime to COUNT), then take them again. */
    for (int j = 0; j < COUNT; ++j) {
      int i = (j * 7) % COUNT;
      if ((i + round) % 2 == 0)
        CHECK(wrapper_cuda_free(live[i]));
    }
    for (int j = 0; j < COUNT; ++j) {
      int i = (j * 7) % COUNT;
      if ((i + round) % 2 == 0)
        CHECK(wrapper_cuda_alloc((size_t)(1 + i % 7) * 1000, &live[i]));
    }
  }
  /* Distinct live pointers: sorted, no two equal. */
  static uintptr_t sorted[COUNT];
  for (int i = 0; i < COUNT; ++i)
    sorted[i] = (uintptr_t)live[i];
  for (int i = 1; i < COUNT; ++i)
    for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; --j) {
      uintptr_t t = sorted[j];
      sorted[j] = sorted[j - 1];
      sorted[j - 1] = t;
    }
  for (int i = 1; i < COUNT; ++i)
    distinct &= sorted[i] != sorted[i - 1];
  wrapper_cuda_get_stats(&after);
  /* Every block taken again came from the cache (blocks freed before this
   * check may serve some of the first allocations too). */
  unsigned long long hits = after.cache_hits - before.cache_hits;
  unsigned long long made = after.allocations - before.allocations - hits;
  printf("many blocks: live pointers distinct %d, all taken again from the "
         "cache %d, new blocks at most %d: %d\n",
         distinct, hits >= 3 * COUNT / 2, COUNT, made <= COUNT);
  wrapper_status s = wrapper_cuda_free(live[0]);
  CHECK(s);
  s = wrapper_cuda_free(live[0]);
  printf("many blocks: double free: %s\n", wrapper_status_name(s));
  for (int i = 1; i < COUNT; ++i)
    CHECK(wrapper_cuda_free(live[i]));
  wrapper_cuda_get_stats(&after);
  printf("many blocks: in use back to before: %d\n",
         after.bytes_in_use == before.bytes_in_use);
  /* The function by a copy of its name (another pointer). */
  char name[] = "axpy";
  void *found = NULL;
  CHECK(wrapper_cuda_function(module, name, &found));
  wrapper_cuda_stats lookups;
  wrapper_cuda_get_stats(&lookups);
  printf(
      "function by another name pointer: %d, lookups +%llu\n",
      found == function,
      (unsigned long long)(lookups.function_lookups - after.function_lookups));
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--expect-unavailable") == 0)
    return unavailable();
  if (argc != 1) {
    fprintf(stderr, "usage: wrapper-cuda-check [--expect-unavailable]\n");
    return 2;
  }
  enum { N = 100003 };
  printf("abi %d\n", wrapper_cuda_abi_version());
  CHECK(wrapper_cuda_init(0));
  char name[256];
  int32_t capability = 0;
  CHECK(wrapper_cuda_device_info(name, sizeof name, &capability));
  printf("device capability >= 80: %d\n", capability >= 80);

  float *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float)),
        *c = malloc(N * sizeof(float));
  for (int i = 0; i < N; ++i) {
    a[i] = (float)(i % 97) * 0.25f;
    b[i] = (float)(i % 13) - 6.0f;
  }
  void *da, *db, *dc;
  CHECK(wrapper_cuda_alloc(N * sizeof(float), &da));
  CHECK(wrapper_cuda_alloc(N * sizeof(float), &db));
  CHECK(wrapper_cuda_alloc(N * sizeof(float), &dc));
  CHECK(wrapper_cuda_copy_to_device(da, a, N * sizeof(float)));
  CHECK(wrapper_cuda_copy_to_device(db, b, N * sizeof(float)));

  void *module, *function;
  CHECK(wrapper_cuda_module(ptx, &module));
  CHECK(wrapper_cuda_function(module, "axpy", &function));
  int n = N;
  void *params[] = {&da, &db, &dc, &n};
  uint32_t grid[3] = {(N + 255) / 256, 1, 1}, block[3] = {256, 1, 1};
  for (int i = 0; i < 3; ++i)
    CHECK(wrapper_cuda_launch(function, grid, block, 0, params));
  CHECK(wrapper_cuda_copy_to_host(c, dc, N * sizeof(float)));
  if (compare(a, b, c, N, "launch"))
    return 1;

  /* Again through the mgpu* entry points: the same module and function
   * come from the caches, the stream is the runtime's. */
  void *stream = mgpuStreamCreate();
  void *module2 = mgpuModuleLoadJIT((void *)(uintptr_t)ptx, 2);
  void *function2 = mgpuModuleGetFunction(module2, "axpy");
  printf("cached module: %d, cached function: %d\n", module2 == module,
         function2 == function);
  void *dd = mgpuMemAlloc(N * sizeof(float), stream, 0);
  void *params2[] = {&da, &db, &dd, &n};
  mgpuLaunchKernel(function2, grid[0], 1, 1, 256, 1, 1, 0, stream, params2,
                   NULL, 4);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  CHECK(wrapper_cuda_copy_to_host(c, dd, N * sizeof(float)));
  if (compare(a, b, c, N, "mgpu launch"))
    return 1;
  mgpuMemFree(dd, stream);

  /* The caching allocator: a freed block of the same rounded size comes
   * back without a driver call. */
  wrapper_cuda_stats before, after;
  CHECK(wrapper_cuda_free(dc));
  wrapper_cuda_get_stats(&before);
  void *again;
  CHECK(wrapper_cuda_alloc(N * sizeof(float) - 100, &again));
  wrapper_cuda_get_stats(&after);
  printf("reused: %d, hits +%llu, reserved +%llu\n", again == dc,
         (unsigned long long)(after.cache_hits - before.cache_hits),
         (unsigned long long)(after.bytes_reserved - before.bytes_reserved));
  printf("modules loaded %llu, function lookups %llu, launches %llu\n",
         (unsigned long long)after.modules_loaded,
         (unsigned long long)after.function_lookups,
         (unsigned long long)after.launches);

  if (checkManyBlocks(module, function))
    return 1;

  /* Products through cuBLAS. */
  int blas = wrapper_cuda_blas_available();
  printf("cublas available: %d\n", blas);
  if (!blas) {
    printf("FAILED: %s\n", wrapper_last_error());
    return 1;
  }
  wrapper_cuda_get_stats(&before);
  int bad = checkGemm(1, 67, 45, 33, 0, 0, 0, 0, 0);
  bad |= checkGemm(1, 67, 45, 33, 1, 1, 0, 1, 0);
  bad |= checkGemm(3, 16, 24, 40, 0, 1, 1, 0, 0);
  bad |= checkGemm(2, 64, 32, 128, 0, 0, 0, 0, 1);
  wrapper_cuda_get_stats(&after);
  printf("gemms +%llu\n", (unsigned long long)(after.gemms - before.gemms));
  if (bad)
    return 1;
  gemmRefusals();

  /* Constants: one device copy per slot and host pointer. */
  static const float weights[5] = {1, 2, 3, 4, 5};
  static const float others[5] = {-1, -2, -3, -4, -5};
  void *slot[2] = {NULL, NULL};
  float back[5];
  wrapper_cuda_get_stats(&before);
  void *first = wrapperCudaConstant(slot, (uintptr_t)weights, sizeof weights);
  void *second = wrapperCudaConstant(slot, (uintptr_t)weights, sizeof weights);
  CHECK(wrapper_cuda_copy_to_host(back, second, sizeof back));
  wrapper_cuda_get_stats(&after);
  printf("constant: one copy %d, uploads +%llu, contents %s\n",
         first && first == second,
         (unsigned long long)(after.constant_uploads -
                              before.constant_uploads),
         memcmp(back, weights, sizeof back) == 0 ? "ok" : "WRONG");
  void *third = wrapperCudaConstant(slot, (uintptr_t)others, sizeof others);
  CHECK(wrapper_cuda_copy_to_host(back, third, sizeof back));
  printf("constant of another host pointer: new copy %d, contents %s\n",
         third && third != first,
         memcmp(back, others, sizeof back) == 0 ? "ok" : "WRONG");
  void *none = wrapperCudaConstant(NULL, (uintptr_t)weights, 4);
  wrapper_status s = wrapper_cuda_synchronize();
  printf("constant without slot: %p, %s: %s\n", none,
         wrapper_status_name(s), wrapper_last_error());

  /* CUDA graphs: captured work runs only when replayed; a block freed
   * during the capture is the graph's until it is destroyed. */
  float *zeros = calloc(N, sizeof(float));
  CHECK(wrapper_cuda_copy_to_device(again, zeros, N * sizeof(float)));
  wrapper_cuda_graph *graph = NULL;
  void *scratch, *other;
  CHECK(wrapper_cuda_graph_begin());
  CHECK(wrapper_cuda_alloc(N * sizeof(float), &scratch));
  void *graphParams[] = {&da, &db, &scratch, &n};
  CHECK(wrapper_cuda_launch(function, grid, block, 0, graphParams));
  CHECK(wrapper_cuda_copy_device(again, scratch, N * sizeof(float)));
  CHECK(wrapper_cuda_free(scratch));
  s = wrapper_cuda_synchronize();
  printf("wait inside a capture: %s\n", wrapper_status_name(s));
  CHECK(wrapper_cuda_graph_end(&graph));
  CHECK(wrapper_cuda_copy_to_host(c, again, N * sizeof(float)));
  printf("graph: nothing ran before the replay: %d\n",
         memcmp(c, zeros, N * sizeof(float)) == 0);
  wrapper_cuda_get_stats(&before);
  CHECK(wrapper_cuda_graph_launch(graph));
  CHECK(wrapper_cuda_graph_launch(graph));
  CHECK(wrapper_cuda_copy_to_host(c, again, N * sizeof(float)));
  wrapper_cuda_get_stats(&after);
  if (compare(a, b, c, N, "graph replay"))
    return 1;
  printf("graph launches +%llu, kernel launches +%llu\n",
         (unsigned long long)(after.graph_launches - before.graph_launches),
         (unsigned long long)(after.launches - before.launches));
  CHECK(wrapper_cuda_alloc(N * sizeof(float), &other));
  printf("freed block held by the graph: %d\n", other != scratch);
  CHECK(wrapper_cuda_free(other));
  CHECK(wrapper_cuda_graph_destroy(graph));
  CHECK(wrapper_cuda_alloc(N * sizeof(float), &other));
  printf("released by destroy: %d\n", other == scratch);
  CHECK(wrapper_cuda_free(other));
  s = wrapper_cuda_graph_end(&graph);
  printf("end without begin: %s: %s\n", wrapper_status_name(s),
         wrapper_last_error());
  free(zeros);

  /* A pool shared by two graphs: the second capture takes the first's
   * block (the smallest that fits), a capture reuses what it freed, and
   * the pool owns its blocks until destroyed. */
  wrapper_cuda_graph_pool *pool = NULL;
  CHECK(wrapper_cuda_graph_pool_create(&pool));
  wrapper_cuda_graph *big = NULL, *small = NULL;
  void *taken[3];
  CHECK(wrapper_cuda_graph_begin_in(pool));
  CHECK(wrapper_cuda_alloc(2 * N * sizeof(float), &taken[0]));
  CHECK(wrapper_cuda_launch(function, grid, block, 0,
                            (void *[]){&da, &db, &taken[0], &n}));
  CHECK(wrapper_cuda_free(taken[0]));
  CHECK(wrapper_cuda_alloc(2 * N * sizeof(float), &taken[1]));
  CHECK(wrapper_cuda_graph_end(&big));
  uint64_t poolBytes = 0, poolBlocks = 0;
  wrapper_cuda_graph_pool_stats(pool, &poolBytes, &poolBlocks);
  printf("pool: a capture reuses its freed block: %d, %llu block\n",
         taken[1] == taken[0], (unsigned long long)poolBlocks);
  CHECK(wrapper_cuda_graph_begin_in(pool));
  CHECK(wrapper_cuda_alloc(N * sizeof(float), &taken[2]));
  CHECK(wrapper_cuda_launch(function, grid, block, 0,
                            (void *[]){&da, &db, &taken[2], &n}));
  CHECK(wrapper_cuda_copy_device(again, taken[2], N * sizeof(float)));
  CHECK(wrapper_cuda_graph_end(&small));
  uint64_t grown = 0;
  wrapper_cuda_graph_pool_stats(pool, &grown, &poolBlocks);
  printf("pool: the next capture takes the same block: %d, bytes unchanged: "
         "%d\n",
         taken[2] == taken[0], grown == poolBytes);
  CHECK(wrapper_cuda_copy_to_device(again, zeros, N * sizeof(float)));
  CHECK(wrapper_cuda_graph_launch(small));
  CHECK(wrapper_cuda_copy_to_host(c, again, N * sizeof(float)));
  if (compare(a, b, c, N, "pooled graph replay"))
    return 1;
  CHECK(wrapper_cuda_graph_destroy(big));
  CHECK(wrapper_cuda_graph_destroy(small));
  wrapper_cuda_get_stats(&before);
  CHECK(wrapper_cuda_graph_pool_destroy(pool));
  wrapper_cuda_get_stats(&after);
  printf("pool destroyed: %llu bytes back to the cache\n",
         (unsigned long long)(before.bytes_in_use - after.bytes_in_use));

  if (checkStreams(function, da, db, N))
    return 1;

  /* Refusals. */
  s = wrapper_cuda_free((void *)0x1234);
  printf("bad free: %s: %s\n", wrapper_status_name(s), wrapper_last_error());
  s = wrapper_cuda_function(module, "missing", &function);
  printf("missing kernel: %s: %s\n", wrapper_status_name(s),
         wrapper_last_error());
  CHECK(wrapper_cuda_free(again));
  CHECK(wrapper_cuda_free(da));
  CHECK(wrapper_cuda_free(db));
  CHECK(wrapper_cuda_empty_cache());
  wrapper_cuda_get_stats(&after);
  printf("after empty_cache: in use %llu, reserved %llu\n",
         (unsigned long long)after.bytes_in_use,
         (unsigned long long)after.bytes_reserved);
  free(a);
  free(b);
  free(c);
  return 0;
}
