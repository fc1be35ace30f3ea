/*===- CudaBlas.c - matrix products through cuBLAS -----------------------===*
 *
 * Part of the Wrapper project.
 *
 * wrapper_cuda_gemm and wrapperCudaGemm (include/Wrapper/Runtime/
 * WrapperCuda.h): libcublas loaded with dlopen the first time a product is
 * asked for, one handle on the runtime's stream, row-major products mapped
 * onto cuBLAS's column-major cublasGemmStridedBatchedEx.
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include "CudaInternal.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*===------------------------------------------------------------------===*
 * cuBLAS, declared by hand (stable ABI; no CUDA headers needed)
 *===------------------------------------------------------------------===*/

typedef int cublasStatus_t;
typedef struct cublasContext *cublasHandle_t;

enum {
  CUBLAS_OP_N = 0,
  CUBLAS_OP_T = 1,
  CUDA_R_32F = 0,
  CUDA_R_16F = 2,
  CUDA_R_16BF = 14,
  CUBLAS_COMPUTE_32F = 68,
  CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
  CUBLAS_GEMM_DEFAULT = -1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
};

static struct {
  cublasStatus_t (*create)(cublasHandle_t *);
  cublasStatus_t (*setStream)(cublasHandle_t, void *);
  cublasStatus_t (*gemm)(cublasHandle_t, int, int, int, int, int,
                         const void *, const void *, int, int, long long,
                         const void *, int, int, long long, const void *,
                         void *, int, int, long long, int, int, int);
  const char *(*statusString)(cublasStatus_t);
} blas;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int loaded;            /* 1: ready; -1: failed (message below) */
static char loadError[1024];
/* One handle per stream (a handle's workspace must not be shared by two
 * streams' products), created on first use; a handle's stream is set once. */
enum { MAX_HANDLES = 64 };
static struct {
  void *stream;
  cublasHandle_t handle;
} handles[MAX_HANDLES];
static size_t handleCount;

/* A handle on `stream`, recorded in `handles`; the lock is held. */
static cublasStatus_t addHandle(void *stream, cublasHandle_t *out) {
  cublasHandle_t handle = NULL;
  cublasStatus_t result = handleCount < MAX_HANDLES
                              ? blas.create(&handle)
                              : CUBLAS_STATUS_ALLOC_FAILED;
  if (result == 0)
    result = blas.setStream(handle, stream);
  if (result != 0)
    return result;
  handles[handleCount].stream = stream;
  handles[handleCount++].handle = handle;
  *out = handle;
  return 0;
}

static wrapper_status loadLocked(void) {
  if (loaded == 1)
    return WRAPPER_OK;
  if (loaded == -1)
    return wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED, "%s", loadError);
  loaded = -1;
  if (wrapper_cuda_device() < 0) { /* initializes CUDA */
    snprintf(loadError, sizeof loadError, "%s", wrapper_last_error());
    return wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED, "%s", loadError);
  }
  /* The calling thread's stream: NULL (the legacy default stream) too. */
  void *stream = wrapper_cuda_stream();
  /* An explicit path first, then the sonames of CUDA 13 and 12. */
  const char *candidates[] = {getenv("WRAPPER_CUBLAS_LIBRARY"),
                              "libcublas.so.13", "libcublas.so.12",
                              "libcublas.so"};
  void *library = NULL;
  char tried[768] = "";
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; ++i) {
    if (!candidates[i] || !*candidates[i])
      continue;
    library = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
    if (library)
      break;
    size_t used = strlen(tried);
    snprintf(tried + used, sizeof tried - used, "%s%s", used ? "; " : "",
             dlerror());
  }
  if (!library) {
    snprintf(loadError, sizeof loadError,
             "cuBLAS is not available (%s); set WRAPPER_CUBLAS_LIBRARY to "
             "the path of libcublas.so",
             tried);
    return wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED, "%s", loadError);
  }
  const wrapper_cuda_symbol symbols[] = {
      {"cublasCreate_v2", (void **)&blas.create},
      {"cublasSetStream_v2", (void **)&blas.setStream},
      {"cublasGemmStridedBatchedEx", (void **)&blas.gemm},
      {"cublasGetStatusString", (void **)&blas.statusString},
  };
  const char *missing =
      wrapper_cuda_resolve(library, symbols, sizeof symbols / sizeof *symbols);
  if (missing) {
    snprintf(loadError, sizeof loadError,
             "cuBLAS is not available: the library has no %s", missing);
    return wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED, "%s", loadError);
  }
  cublasHandle_t handle;
  cublasStatus_t result = addHandle(stream, &handle);
  if (result != 0) {
    snprintf(loadError, sizeof loadError,
             "cuBLAS is not available: cublasCreate fails with %d (%s)",
             (int)result, blas.statusString(result));
    return wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED, "%s", loadError);
  }
  loaded = 1;
  return WRAPPER_OK;
}

/* The handle of the calling thread's current stream (loading cuBLAS when
 * needed). */
static wrapper_status handleOfStream(cublasHandle_t *out) {
  pthread_mutex_lock(&lock);
  wrapper_status status = loadLocked();
  void *stream = status == WRAPPER_OK ? wrapper_cuda_stream() : NULL;
  *out = NULL;
  for (size_t i = 0; status == WRAPPER_OK && i < handleCount; ++i)
    if (handles[i].stream == stream)
      *out = handles[i].handle;
  cublasStatus_t result =
      status == WRAPPER_OK && !*out ? addHandle(stream, out) : 0;
  if (result != 0)
    status = wrapper_report_error(
        WRAPPER_ERROR_UNSUPPORTED,
        "cuBLAS: no handle for stream %p (%d streams have one): %d (%s)",
        stream, (int)handleCount, (int)result, blas.statusString(result));
  pthread_mutex_unlock(&lock);
  return status;
}

static wrapper_status load(void) {
  pthread_mutex_lock(&lock);
  wrapper_status status = loadLocked();
  pthread_mutex_unlock(&lock);
  return status;
}

int32_t wrapper_cuda_blas_available(void) { return load() == WRAPPER_OK; }

/* The cudaDataType of a dtype, -1 for one cuBLAS products do not take. */
static int dataType(wrapper_dtype dtype) {
  switch (dtype) {
  case WRAPPER_DTYPE_F32:
    return CUDA_R_32F;
  case WRAPPER_DTYPE_F16:
    return CUDA_R_16F;
  case WRAPPER_DTYPE_BF16:
    return CUDA_R_16BF;
  default:
    return -1;
  }
}

static int fitsInt(int64_t value) { return value >= 0 && value <= INT_MAX; }

wrapper_status wrapper_cuda_gemm(const wrapper_cuda_gemm_args *args) {
  if (!args)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_cuda_gemm: NULL arguments");
  if (!fitsInt(args->batch) || !fitsInt(args->m) || !fitsInt(args->n) ||
      !fitsInt(args->k))
    return wrapper_report_error(
        WRAPPER_ERROR_INVALID_ARGUMENT,
        "wrapper_cuda_gemm: sizes batch=%lld m=%lld n=%lld k=%lld must be in "
        "[0, %d]",
        (long long)args->batch, (long long)args->m, (long long)args->n,
        (long long)args->k, INT_MAX);
  if (args->stride_a < 0 || args->stride_b < 0 || args->stride_c < 0)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_cuda_gemm: negative batch stride");
  int aType = dataType(args->a_dtype), bType = dataType(args->b_dtype);
  int cType = dataType(args->c_dtype);
  if (aType < 0 || aType != bType || cType < 0 ||
      (cType != aType && cType != CUDA_R_32F))
    return wrapper_report_error(
        WRAPPER_ERROR_UNSUPPORTED,
        "wrapper_cuda_gemm: no cuBLAS product of %s x %s -> %s (a and b "
        "f32, f16 or bf16 alike; c the same or f32)",
        wrapper_dtype_name(args->a_dtype), wrapper_dtype_name(args->b_dtype),
        wrapper_dtype_name(args->c_dtype));
  if (args->batch == 0 || args->m == 0 || args->n == 0)
    return WRAPPER_OK;
  if (!args->a || !args->b || !args->c)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_cuda_gemm: NULL matrix");
  cublasHandle_t handle;
  wrapper_status status = handleOfStream(&handle);
  if (status != WRAPPER_OK)
    return status;

  /* Row-major c = a b is column-major c^T = b^T a^T: cuBLAS's first
   * operand is b, its second a, and its m and n are ours swapped. A
   * row-major [r, s] matrix is a column-major [s, r] one with leading
   * dimension s. */
  int m = (int)args->m, n = (int)args->n, k = (int)args->k;
  int opB = args->transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  int opA = args->transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  int ldb = args->transpose_b ? k : n;
  int lda = args->transpose_a ? m : k;
  float one = 1.0f, beta = args->accumulate ? 1.0f : 0.0f;
  int compute = args->allow_tf32 && aType == CUDA_R_32F
                    ? CUBLAS_COMPUTE_32F_FAST_TF32
                    : CUBLAS_COMPUTE_32F;
  cublasStatus_t result = blas.gemm(
      handle, opB, opA, n, m, k, &one, args->b, bType, ldb, args->stride_b,
      args->a, aType, lda, args->stride_a, &beta, args->c, cType, n,
      args->stride_c, (int)args->batch, compute, CUBLAS_GEMM_DEFAULT);
  if (result != 0)
    return wrapper_report_error(
        WRAPPER_ERROR_UNSUPPORTED,
        "cublasGemmStridedBatchedEx (batch=%d m=%d n=%d k=%d) fails with %d "
        "(%s)",
        (int)args->batch, m, n, k, (int)result, blas.statusString(result));
  wrapper_cuda_count_gemm();
  return WRAPPER_OK;
}

void wrapperCudaGemm(int64_t batch, int64_t m, int64_t n, int64_t k,
                     uintptr_t a, int64_t stride_a, uintptr_t b,
                     int64_t stride_b, uintptr_t c, int64_t stride_c,
                     int32_t dtypes, int32_t flags) {
  wrapper_cuda_gemm_args args = {
      .batch = batch,
      .m = m,
      .n = n,
      .k = k,
      .a = (const void *)a,
      .b = (const void *)b,
      .c = (void *)c,
      .stride_a = stride_a,
      .stride_b = stride_b,
      .stride_c = stride_c,
      .a_dtype = (wrapper_dtype)(dtypes & 0xff),
      .b_dtype = (wrapper_dtype)((dtypes >> 8) & 0xff),
      .c_dtype = (wrapper_dtype)((dtypes >> 16) & 0xff),
      .transpose_a = (flags & WRAPPER_CUDA_GEMM_TRANSPOSE_A) != 0,
      .transpose_b = (flags & WRAPPER_CUDA_GEMM_TRANSPOSE_B) != 0,
      .accumulate = (flags & WRAPPER_CUDA_GEMM_ACCUMULATE) != 0,
      .allow_tf32 = (flags & WRAPPER_CUDA_GEMM_ALLOW_TF32) != 0,
  };
  if (!wrapper_cuda_failed())
    wrapper_cuda_sticky(wrapper_cuda_gemm(&args));
}
