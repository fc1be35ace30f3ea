/*===- Shim.c - the CPU kernels behind the extern shim ABI ----------------===*
 *
 * Part of the Wrapper project.
 *
 * Reference-quality CPU implementations of the registered extern kernels,
 * behind the entry points of WrapperShim.h. Every element goes through a
 * double (or an int64 for indices and integer sums), so any dtype of the
 * runtime works; the point is exact contracts and checked arguments, not
 * speed (the GEMM template is the fast matmul).
 *
 *===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 200809L

#include "RuntimeInternal.h"
#include "Wrapper/Runtime/WrapperShim.h"

#include <math.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*===------------------------------------------------------------------===*
 * Elements
 *===------------------------------------------------------------------===*/

static int isFloatDType(int32_t dtype) {
  return dtype == WRAPPER_DTYPE_F16 || dtype == WRAPPER_DTYPE_BF16 ||
         dtype == WRAPPER_DTYPE_F32 || dtype == WRAPPER_DTYPE_F64 ||
         dtype == WRAPPER_DTYPE_F8E4M3FN;
}

static int isIndexDType(int32_t dtype) {
  return dtype == WRAPPER_DTYPE_I32 || dtype == WRAPPER_DTYPE_I64;
}

static double load(const wrapper_tensor *t, int64_t at) {
  return wrapper_load_element(t->dtype, t->data, at);
}

static int64_t loadInt(const wrapper_tensor *t, int64_t at) {
  if (t->dtype == WRAPPER_DTYPE_I64)
    return ((const int64_t *)t->data)[at];
  if (t->dtype == WRAPPER_DTYPE_I32)
    return ((const int32_t *)t->data)[at];
  return (int64_t)load(t, at);
}

static void store(const wrapper_tensor *t, int64_t at, double v) {
  char *data = (char *)t->data;
  switch ((wrapper_dtype)t->dtype) {
  case WRAPPER_DTYPE_BOOL:
    ((uint8_t *)data)[at] = v != 0;
    return;
  case WRAPPER_DTYPE_U8:
    ((uint8_t *)data)[at] = (uint8_t)v;
    return;
  case WRAPPER_DTYPE_I8:
    ((int8_t *)data)[at] = (int8_t)v;
    return;
  case WRAPPER_DTYPE_I16:
    ((int16_t *)data)[at] = (int16_t)v;
    return;
  case WRAPPER_DTYPE_I32:
    ((int32_t *)data)[at] = (int32_t)v;
    return;
  case WRAPPER_DTYPE_I64:
    ((int64_t *)data)[at] = (int64_t)v;
    return;
  case WRAPPER_DTYPE_F16:
    ((uint16_t *)data)[at] = wrapper_f32_to_f16((float)v);
    return;
  case WRAPPER_DTYPE_BF16:
    ((uint16_t *)data)[at] = wrapper_f32_to_bf16((float)v);
    return;
  case WRAPPER_DTYPE_F32:
    ((float *)data)[at] = (float)v;
    return;
  case WRAPPER_DTYPE_F64:
    ((double *)data)[at] = v;
    return;
  case WRAPPER_DTYPE_F8E4M3FN:
    ((uint8_t *)data)[at] = wrapper_f32_to_f8e4m3fn((float)v);
    return;
  }
}

static void storeInt(const wrapper_tensor *t, int64_t at, int64_t v) {
  if (t->dtype == WRAPPER_DTYPE_I64)
    ((int64_t *)t->data)[at] = v;
  else
    store(t, at, (double)v);
}

/*===------------------------------------------------------------------===*
 * Shapes and argument checks
 *===------------------------------------------------------------------===*/

/* The element offset of the multi-index `index` in `t`. */
static int64_t offsetOf(const wrapper_tensor *t, const int64_t *index) {
  int64_t at = 0;
  for (int32_t d = 0; d < t->rank; ++d)
    at += index[d] * t->strides[d];
  return at;
}

/* The offset in `t` of `index` (of rank `rank` >= t->rank), broadcasting:
 * dims aligned at the right, size-1 dims read at 0. */
static int64_t broadcastOffsetOf(const wrapper_tensor *t, const int64_t *index,
                                 int32_t rank) {
  int64_t at = 0;
  for (int32_t d = 0; d < t->rank; ++d) {
    int64_t i = index[rank - t->rank + d];
    if (t->sizes[d] != 1)
      at += i * t->strides[d];
  }
  return at;
}

/* Advances the row-major multi-index `index` over `sizes`; 0 at the end. */
static int nextIndex(int64_t *index, const int64_t *sizes, int32_t rank) {
  for (int32_t d = rank - 1; d >= 0; --d) {
    if (++index[d] < sizes[d])
      return 1;
    index[d] = 0;
  }
  return 0;
}

static int64_t numel(const int64_t *sizes, int32_t rank) {
  int64_t n = 1;
  for (int32_t d = 0; d < rank; ++d)
    n *= sizes[d];
  return n;
}

/* Checks that `t` is a usable tensor: not NULL, a known dtype, a rank in
 * range (and `rank` if not -1), sizes >= 0, data unless empty. */
static wrapper_status checkTensor(const char *op, const char *name,
                                  const wrapper_tensor *t, int32_t rank) {
  if (!t)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: tensor '%s' is NULL", op, name);
  if (wrapper_dtype_size((wrapper_dtype)t->dtype) == 0)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: tensor '%s' has unknown dtype %d", op, name,
                             (int)t->dtype);
  if (t->rank < 0 || t->rank > WRAPPER_MAX_RANK)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: tensor '%s' has rank %d, outside [0, %d]", op,
                             name, (int)t->rank, WRAPPER_MAX_RANK);
  if (rank >= 0 && t->rank != rank)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: tensor '%s' has rank %d, expected %d", op,
                             name, (int)t->rank, (int)rank);
  if (t->rank > 0 && (!t->sizes || !t->strides))
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: tensor '%s' has NULL sizes or strides", op,
                             name);
  int64_t n = 1;
  for (int32_t d = 0; d < t->rank; ++d) {
    if (t->sizes[d] < 0)
      return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                               "%s: tensor '%s' has negative size %lld in "
                               "dimension %d",
                               op, name, (long long)t->sizes[d], (int)d);
    if (t->sizes[d] != 0 && n > INT64_MAX / t->sizes[d])
      return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                               "%s: the sizes of tensor '%s' overflow", op,
                               name);
    n *= t->sizes[d];
  }
  if (n > 0 && !t->data)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: tensor '%s' has NULL data", op, name);
  return WRAPPER_OK;
}

static wrapper_status checkFloat(const char *op, const char *name,
                                 const wrapper_tensor *t) {
  if (!isFloatDType(t->dtype))
    return wrapper_set_error(WRAPPER_ERROR_UNSUPPORTED,
                             "%s: tensor '%s' has dtype %s, expected a "
                             "floating-point dtype",
                             op, name, wrapper_dtype_name(t->dtype));
  return WRAPPER_OK;
}

static wrapper_status checkIndices(const char *op, const char *name,
                                   const wrapper_tensor *t) {
  if (!isIndexDType(t->dtype))
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: tensor '%s' has dtype %s, expected int64 "
                             "or int32",
                             op, name, wrapper_dtype_name(t->dtype));
  return WRAPPER_OK;
}

static wrapper_status checkSameDType(const char *op, const char *name,
                                     const wrapper_tensor *t,
                                     const char *otherName,
                                     const wrapper_tensor *other) {
  if (t->dtype != other->dtype)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: tensor '%s' has dtype %s but '%s' has %s", op,
                             name, wrapper_dtype_name(t->dtype), otherName,
                             wrapper_dtype_name(other->dtype));
  return WRAPPER_OK;
}

/* Normalizes a dimension argument (negative counts from the end). */
static wrapper_status normalizeDim(const char *op, int64_t *dim, int32_t rank) {
  int32_t span = rank > 0 ? rank : 1;
  if (*dim < -span || *dim >= span)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: dim %lld is out of range for rank %d", op,
                             (long long)*dim, (int)rank);
  if (*dim < 0)
    *dim += span;
  return WRAPPER_OK;
}

/* How an output is provided. */
typedef enum OutputKind {
  ALLOCATE, /* a functional result: allocate the data */
  PROVIDED  /* an out= output or self: check it */
} OutputKind;

/* Prepares output `name` of the kernel: dtype `dtype`, shape `sizes`. */
static wrapper_status prepareOutput(const char *op, const char *name,
                                    wrapper_tensor *t, OutputKind kind,
                                    int32_t dtype, const int64_t *sizes,
                                    int32_t rank) {
  if (!t)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: output '%s' is NULL", op, name);
  if (t->rank != rank)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: output '%s' has rank %d, the result has "
                             "rank %d",
                             op, name, (int)t->rank, (int)rank);
  if (t->dtype != dtype)
    return wrapper_set_error(
        WRAPPER_ERROR_INVALID_ARGUMENT,
        "%s: output '%s' has dtype %s, the result has dtype %s", op, name,
        wrapper_dtype_name((wrapper_dtype)t->dtype), wrapper_dtype_name(dtype));
  if (rank > 0 && (!t->sizes || !t->strides))
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: output '%s' has NULL sizes or strides", op,
                             name);
  for (int32_t d = 0; d < rank; ++d) {
    int64_t expected = t->sizes[d];
    if ((kind == PROVIDED || expected >= 0) && expected != sizes[d])
      return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                               "%s: output '%s' has size %lld in dimension "
                               "%d, the result has %lld",
                               op, name, (long long)expected, (int)d,
                               (long long)sizes[d]);
  }
  if (kind == PROVIDED) {
    if (numel(sizes, rank) > 0 && !t->data)
      return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                               "%s: output '%s' has NULL data", op, name);
    return WRAPPER_OK;
  }
  size_t bytes = wrapper_dtype_size(dtype);
  for (int32_t d = 0; d < rank; ++d) {
    if (sizes[d] != 0 && bytes > SIZE_MAX / (size_t)sizes[d])
      return wrapper_set_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                               "%s: output '%s' is too large", op, name);
    bytes *= (size_t)sizes[d];
  }
  void *data = NULL;
  if (posix_memalign(&data, 64, bytes ? bytes : 64) != 0)
    return wrapper_set_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                             "%s: out of memory allocating %zu bytes for '%s'",
                             op, bytes, name);
  t->data = data;
  int64_t stride = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    t->sizes[d] = sizes[d];
    t->strides[d] = stride;
    stride *= sizes[d];
  }
  return WRAPPER_OK;
}

/* Frees what prepareOutput allocated for `t` (after a later failure). */
static void releaseOutput(wrapper_tensor *t, OutputKind kind) {
  if (kind == ALLOCATE && t) {
    free(t->data);
    t->data = NULL;
  }
}

void wrapper_shim_free(void *data) { free(data); }

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

#define CHECK(expr)                                                            \
  do {                                                                         \
    wrapper_status status_ = (expr);                                           \
    if (status_ != WRAPPER_OK)                                                 \
      return status_;                                                          \
  } while (0)

/*===------------------------------------------------------------------===*
 * Matrix products
 *===------------------------------------------------------------------===*/

/* out[b] = alpha * (a[b] @ m[b]) (+ beta * c broadcast when c is set),
 * with a:[B,M,K] m:[B,K,N] viewed through `batched` (0: rank 2). */
static void matmul(const wrapper_tensor *a, const wrapper_tensor *m,
                   const wrapper_tensor *out, int batched, double alpha,
                   double beta, const wrapper_tensor *c) {
  int64_t batch = batched ? a->sizes[0] : 1;
  int32_t base = batched ? 1 : 0;
  int64_t rows = a->sizes[base], depth = a->sizes[base + 1],
          cols = m->sizes[base + 1];
  for (int64_t b = 0; b < batch; ++b) {
    int64_t aBatch = batched ? b * a->strides[0] : 0;
    int64_t mBatch = batched ? b * m->strides[0] : 0;
    int64_t oBatch = batched ? b * out->strides[0] : 0;
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        double sum = 0;
        for (int64_t k = 0; k < depth; ++k)
          sum +=
              load(a,
                   aBatch + i * a->strides[base] + k * a->strides[base + 1]) *
              load(m, mBatch + k * m->strides[base] + j * m->strides[base + 1]);
        double value = alpha * sum;
        if (c && beta != 0) {
          int64_t index[2] = {i, j};
          value += beta * load(c, broadcastOffsetOf(c, index, 2));
        }
        store(out, oBatch + i * out->strides[base] + j * out->strides[base + 1],
              value);
      }
    }
  }
}

static wrapper_status mmImpl(const char *op, const wrapper_tensor *self,
                             const wrapper_tensor *mat2, wrapper_tensor *out,
                             OutputKind kind, int batched) {
  int32_t rank = batched ? 3 : 2;
  CHECK(checkTensor(op, "self", self, rank));
  CHECK(checkTensor(op, "mat2", mat2, rank));
  CHECK(checkFloat(op, "self", self));
  CHECK(checkSameDType(op, "self", self, "mat2", mat2));
  int32_t base = batched ? 1 : 0;
  if ((batched && self->sizes[0] != mat2->sizes[0]) ||
      self->sizes[base + 1] != mat2->sizes[base])
    return wrapper_set_error(
        WRAPPER_ERROR_INVALID_ARGUMENT,
        "%s: shapes do not fit: self is %lldx%lld, mat2 is %lldx%lld%s", op,
        (long long)self->sizes[base], (long long)self->sizes[base + 1],
        (long long)mat2->sizes[base], (long long)mat2->sizes[base + 1],
        batched ? " (or the batch sizes differ)" : "");
  int64_t sizes[3];
  if (batched)
    sizes[0] = self->sizes[0];
  sizes[base] = self->sizes[base];
  sizes[base + 1] = mat2->sizes[base + 1];
  CHECK(prepareOutput(op, "out", out, kind, self->dtype, sizes, rank));
  matmul(self, mat2, out, batched, 1.0, 0.0, NULL);
  return WRAPPER_OK;
}

wrapper_status wrapper_shim_mm(const wrapper_tensor *self,
                               const wrapper_tensor *mat2,
                               wrapper_tensor *result) {
  return mmImpl("aten::mm", self, mat2, result, ALLOCATE, 0);
}
wrapper_status wrapper_shim_mm_out(const wrapper_tensor *self,
                                   const wrapper_tensor *mat2,
                                   wrapper_tensor *out) {
  return mmImpl("aten::mm.out", self, mat2, out, PROVIDED, 0);
}
wrapper_status wrapper_shim_bmm(const wrapper_tensor *self,
                                const wrapper_tensor *mat2,
                                wrapper_tensor *result) {
  return mmImpl("aten::bmm", self, mat2, result, ALLOCATE, 1);
}
wrapper_status wrapper_shim_bmm_out(const wrapper_tensor *self,
                                    const wrapper_tensor *mat2,
                                    wrapper_tensor *out) {
  return mmImpl("aten::bmm.out", self, mat2, out, PROVIDED, 1);
}

/* Whether `t` broadcasts to `sizes` (numpy rules). */
static int broadcastsTo(const wrapper_tensor *t, const int64_t *sizes,
                        int32_t rank) {
  if (t->rank > rank)
    return 0;
  for (int32_t d = 0; d < t->rank; ++d) {
    int64_t s = t->sizes[d], target = sizes[rank - t->rank + d];
    if (s != 1 && s != target)
      return 0;
  }
  return 1;
}

static wrapper_status addmmImpl(const char *op, const wrapper_tensor *self,
                                const wrapper_tensor *mat1,
                                const wrapper_tensor *mat2, double beta,
                                double alpha, wrapper_tensor *out,
                                OutputKind kind) {
  CHECK(checkTensor(op, "self", self, -1));
  CHECK(checkTensor(op, "mat1", mat1, 2));
  CHECK(checkTensor(op, "mat2", mat2, 2));
  CHECK(checkFloat(op, "mat1", mat1));
  CHECK(checkSameDType(op, "mat1", mat1, "mat2", mat2));
  CHECK(checkSameDType(op, "mat1", mat1, "self", self));
  if (mat1->sizes[1] != mat2->sizes[0])
    return wrapper_set_error(
        WRAPPER_ERROR_INVALID_ARGUMENT,
        "%s: shapes do not fit: mat1 is %lldx%lld, mat2 is %lldx%lld", op,
        (long long)mat1->sizes[0], (long long)mat1->sizes[1],
        (long long)mat2->sizes[0], (long long)mat2->sizes[1]);
  int64_t sizes[2] = {mat1->sizes[0], mat2->sizes[1]};
  if (!broadcastsTo(self, sizes, 2))
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: self (rank %d) does not broadcast to "
                             "%lldx%lld",
                             op, (int)self->rank, (long long)sizes[0],
                             (long long)sizes[1]);
  CHECK(prepareOutput(op, "out", out, kind, mat1->dtype, sizes, 2));
  matmul(mat1, mat2, out, 0, alpha, beta, self);
  return WRAPPER_OK;
}

wrapper_status wrapper_shim_addmm(const wrapper_tensor *self,
                                  const wrapper_tensor *mat1,
                                  const wrapper_tensor *mat2, double beta,
                                  double alpha, wrapper_tensor *result) {
  return addmmImpl("aten::addmm", self, mat1, mat2, beta, alpha, result,
                   ALLOCATE);
}
wrapper_status wrapper_shim_addmm_out(const wrapper_tensor *self,
                                      const wrapper_tensor *mat1,
                                      const wrapper_tensor *mat2, double beta,
                                      double alpha, wrapper_tensor *out) {
  return addmmImpl("aten::addmm.out", self, mat1, mat2, beta, alpha, out,
                   PROVIDED);
}

static wrapper_status checkScale(const char *op, const char *name,
                                 const wrapper_tensor *t) {
  CHECK(checkTensor(op, name, t, -1));
  CHECK(checkFloat(op, name, t));
  if (numel(t->sizes, t->rank) != 1)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: scale '%s' must have one element "
                             "(per-tensor scaling)",
                             op, name);
  return WRAPPER_OK;
}

static wrapper_status
scaledMmImpl(const char *op, const wrapper_tensor *self,
             const wrapper_tensor *mat2, const wrapper_tensor *scaleA,
             const wrapper_tensor *scaleB, const wrapper_tensor *bias,
             const wrapper_tensor *scaleResult, const int32_t *outDType,
             wrapper_tensor *out, OutputKind kind) {
  CHECK(checkTensor(op, "self", self, 2));
  CHECK(checkTensor(op, "mat2", mat2, 2));
  CHECK(checkFloat(op, "self", self));
  CHECK(checkFloat(op, "mat2", mat2));
  CHECK(checkScale(op, "scale_a", scaleA));
  CHECK(checkScale(op, "scale_b", scaleB));
  if (scaleResult)
    CHECK(checkScale(op, "scale_result", scaleResult));
  if (self->sizes[1] != mat2->sizes[0])
    return wrapper_set_error(
        WRAPPER_ERROR_INVALID_ARGUMENT,
        "%s: shapes do not fit: self is %lldx%lld, mat2 is %lldx%lld", op,
        (long long)self->sizes[0], (long long)self->sizes[1],
        (long long)mat2->sizes[0], (long long)mat2->sizes[1]);
  int32_t dtype = outDType ? *outDType : self->dtype;
  if (!isFloatDType(dtype))
    return wrapper_set_error(WRAPPER_ERROR_UNSUPPORTED,
                             "%s: out_dtype %d is not a floating-point dtype",
                             op, (int)dtype);
  int64_t sizes[2] = {self->sizes[0], mat2->sizes[1]};
  if (bias) {
    CHECK(checkTensor(op, "bias", bias, 1));
    CHECK(checkFloat(op, "bias", bias));
    if (bias->sizes[0] != sizes[1])
      return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                               "%s: bias has %lld elements, expected %lld", op,
                               (long long)bias->sizes[0], (long long)sizes[1]);
  }
  CHECK(prepareOutput(op, "out", out, kind, dtype, sizes, 2));
  double scale = load(scaleA, 0) * load(scaleB, 0);
  double outScale = scaleResult ? load(scaleResult, 0) : 1.0;
  for (int64_t i = 0; i < sizes[0]; ++i)
    for (int64_t j = 0; j < sizes[1]; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < self->sizes[1]; ++k)
        sum += load(self, i * self->strides[0] + k * self->strides[1]) *
               load(mat2, k * mat2->strides[0] + j * mat2->strides[1]);
      double value = scale * sum;
      if (bias)
        value += load(bias, j * bias->strides[0]);
      store(out, i * out->strides[0] + j * out->strides[1], value * outScale);
    }
  return WRAPPER_OK;
}

wrapper_status wrapper_shim__scaled_mm(
    const wrapper_tensor *self, const wrapper_tensor *mat2,
    const wrapper_tensor *scale_a, const wrapper_tensor *scale_b,
    const wrapper_tensor *bias, const wrapper_tensor *scale_result,
    const int32_t *out_dtype, int32_t use_fast_accum, wrapper_tensor *result) {
  (void)use_fast_accum;
  return scaledMmImpl("aten::_scaled_mm", self, mat2, scale_a, scale_b, bias,
                      scale_result, out_dtype, result, ALLOCATE);
}
wrapper_status wrapper_shim__scaled_mm_out(
    const wrapper_tensor *self, const wrapper_tensor *mat2,
    const wrapper_tensor *scale_a, const wrapper_tensor *scale_b,
    const wrapper_tensor *bias, const wrapper_tensor *scale_result,
    const int32_t *out_dtype, int32_t use_fast_accum, wrapper_tensor *out) {
  (void)use_fast_accum;
  return scaledMmImpl("aten::_scaled_mm.out", self, mat2, scale_a, scale_b,
                      bias, scale_result, out_dtype, out, PROVIDED);
}

/*===------------------------------------------------------------------===*
 * Convolution
 *===------------------------------------------------------------------===*/

/* Reads an int[2] argument (one value repeats). */
static wrapper_status pairArgument(const char *op, const char *name,
                                   const int64_t *values, int64_t length,
                                   int64_t minimum, int64_t pair[2]) {
  if ((length != 1 && length != 2) || !values)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: '%s' needs 1 or 2 values, got %lld%s", op,
                             name, (long long)length, values ? "" : " (NULL)");
  pair[0] = values[0];
  pair[1] = values[length - 1];
  const int64_t maximum = (int64_t)1 << 31;
  if (pair[0] < minimum || pair[1] < minimum || pair[0] > maximum ||
      pair[1] > maximum)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: '%s' must be in [%lld, %lld]", op, name,
                             (long long)minimum, (long long)maximum);
  return WRAPPER_OK;
}

/* Whether `t` is f32 and row-major contiguous. */
static int isContiguousF32(const wrapper_tensor *t) {
  if (t->dtype != WRAPPER_DTYPE_F32)
    return 0;
  int64_t expected = 1;
  for (int32_t d = t->rank - 1; d >= 0; --d) {
    if (t->sizes[d] != 1 && t->strides[d] != expected)
      return 0;
    expected *= t->sizes[d];
  }
  return 1;
}

/* conv2d of contiguous f32 tensors: a direct convolution whose inner loop
 * runs along an output row (unit stride in the output, and in the input
 * when the stride is 1, so that it vectorizes), accumulating in f32 as
 * PyTorch's CPU kernels do. */
static void conv2dContiguousF32(const float *in, const float *wt,
                                const float *bias, float *out, int64_t n,
                                int64_t c, int64_t h, int64_t w, int64_t o,
                                int64_t cg, int64_t kh, int64_t kw,
                                int64_t groups, const int64_t s[2],
                                const int64_t p[2], const int64_t d[2],
                                int64_t oh, int64_t ow) {
  int64_t perGroup = o / groups;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t oc = 0; oc < o; ++oc) {
      float *plane = out + (b * o + oc) * oh * ow;
      float init = bias ? bias[oc] : 0.0f;
      for (int64_t i = 0; i < oh * ow; ++i)
        plane[i] = init;
      int64_t g = oc / perGroup;
      for (int64_t ic = 0; ic < cg; ++ic) {
        const float *src = in + (b * c + g * cg + ic) * h * w;
        for (int64_t ky = 0; ky < kh; ++ky)
          for (int64_t kx = 0; kx < kw; ++kx) {
            float k = wt[((oc * cg + ic) * kh + ky) * kw + kx];
            /* Output columns whose input column is inside the row. */
            int64_t offset = kx * d[1] - p[1];
            int64_t x0 = offset < 0 ? (-offset + s[1] - 1) / s[1] : 0;
            int64_t x1 = (w - offset + s[1] - 1) / s[1];
            if (x1 > ow)
              x1 = ow;
            for (int64_t y = 0; y < oh; ++y) {
              int64_t iy = y * s[0] - p[0] + ky * d[0];
              if (iy < 0 || iy >= h)
                continue;
              const float *row = src + iy * w;
              float *dst = plane + y * ow;
              if (s[1] == 1)
                for (int64_t x = x0; x < x1; ++x)
                  dst[x] += k * row[x + offset];
              else
                for (int64_t x = x0; x < x1; ++x)
                  dst[x] += k * row[x * s[1] + offset];
            }
          }
      }
    }
}

wrapper_status wrapper_shim_conv2d(
    const wrapper_tensor *input, const wrapper_tensor *weight,
    const wrapper_tensor *bias, const int64_t *stride, int64_t stride_length,
    const int64_t *padding, int64_t padding_length, const int64_t *dilation,
    int64_t dilation_length, int64_t groups, wrapper_tensor *result) {
  const char *op = "aten::conv2d";
  CHECK(checkTensor(op, "input", input, 4));
  CHECK(checkTensor(op, "weight", weight, 4));
  CHECK(checkFloat(op, "input", input));
  CHECK(checkSameDType(op, "input", input, "weight", weight));
  int64_t s[2], p[2], d[2];
  CHECK(pairArgument(op, "stride", stride, stride_length, 1, s));
  CHECK(pairArgument(op, "padding", padding, padding_length, 0, p));
  CHECK(pairArgument(op, "dilation", dilation, dilation_length, 1, d));
  int64_t n = input->sizes[0], c = input->sizes[1], h = input->sizes[2],
          w = input->sizes[3];
  int64_t o = weight->sizes[0], cg = weight->sizes[1], kh = weight->sizes[2],
          kw = weight->sizes[3];
  if (groups < 1 || c % groups != 0 || o % groups != 0 || cg * groups != c)
    return wrapper_set_error(
        WRAPPER_ERROR_INVALID_ARGUMENT,
        "%s: groups=%lld does not fit %lld input channels, %lld output "
        "channels and %lld weight input channels",
        op, (long long)groups, (long long)c, (long long)o, (long long)cg);
  if (bias) {
    CHECK(checkTensor(op, "bias", bias, 1));
    CHECK(checkSameDType(op, "bias", bias, "input", input));
    if (bias->sizes[0] != o)
      return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                               "%s: bias has %lld elements, expected %lld", op,
                               (long long)bias->sizes[0], (long long)o);
  }
  int64_t oh = (h + 2 * p[0] - d[0] * (kh - 1) - 1);
  int64_t ow = (w + 2 * p[1] - d[1] * (kw - 1) - 1);
  if (oh < 0 || ow < 0)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: the kernel (%lldx%lld, dilated) is larger "
                             "than the padded input (%lldx%lld)",
                             op, (long long)kh, (long long)kw,
                             (long long)(h + 2 * p[0]),
                             (long long)(w + 2 * p[1]));
  int64_t sizes[4] = {n, o, oh / s[0] + 1, ow / s[1] + 1};
  CHECK(prepareOutput(op, "result", result, ALLOCATE, input->dtype, sizes, 4));
  int64_t perGroup = o / groups;
  int64_t at[4] = {0, 0, 0, 0};
  if (numel(sizes, 4) == 0)
    return WRAPPER_OK;
  if (isContiguousF32(input) && isContiguousF32(weight) &&
      isContiguousF32(result) && (!bias || isContiguousF32(bias))) {
    conv2dContiguousF32((const float *)input->data, (const float *)weight->data,
                        bias ? (const float *)bias->data : NULL,
                        (float *)result->data, n, c, h, w, o, cg, kh, kw,
                        groups, s, p, d, sizes[2], sizes[3]);
    return WRAPPER_OK;
  }
  do {
    int64_t b = at[0], oc = at[1], y = at[2], x = at[3];
    int64_t g = oc / perGroup;
    double sum = bias ? load(bias, oc * bias->strides[0]) : 0.0;
    for (int64_t ic = 0; ic < cg; ++ic)
      for (int64_t ky = 0; ky < kh; ++ky) {
        int64_t iy = y * s[0] - p[0] + ky * d[0];
        if (iy < 0 || iy >= h)
          continue;
        for (int64_t kx = 0; kx < kw; ++kx) {
          int64_t ix = x * s[1] - p[1] + kx * d[1];
          if (ix < 0 || ix >= w)
            continue;
          int64_t in[4] = {b, g * cg + ic, iy, ix};
          int64_t wt[4] = {oc, ic, ky, kx};
          sum += load(input, offsetOf(input, in)) *
                 load(weight, offsetOf(weight, wt));
        }
      }
    store(result, offsetOf(result, at), sum);
  } while (nextIndex(at, sizes, 4));
  return WRAPPER_OK;
}

/*===------------------------------------------------------------------===*
 * Sorting and selection
 *===------------------------------------------------------------------===*/

typedef struct Keyed {
  double value;
  int64_t index;
} Keyed;

/* NaN is larger than every number, as in PyTorch; ties keep index order. */
static int compareAscending(const void *lhs, const void *rhs) {
  const Keyed *a = (const Keyed *)lhs, *b = (const Keyed *)rhs;
  int aNan = isnan(a->value), bNan = isnan(b->value);
  if (aNan != bNan)
    return aNan ? 1 : -1;
  if (!aNan && a->value != b->value)
    return a->value < b->value ? -1 : 1;
  return a->index < b->index ? -1 : (a->index > b->index);
}

static int compareDescending(const void *lhs, const void *rhs) {
  const Keyed *a = (const Keyed *)lhs, *b = (const Keyed *)rhs;
  int aNan = isnan(a->value), bNan = isnan(b->value);
  if (aNan != bNan)
    return aNan ? -1 : 1;
  if (!aNan && a->value != b->value)
    return a->value > b->value ? -1 : 1;
  return a->index < b->index ? -1 : (a->index > b->index);
}

/* Sorts every slice of `self` along `dim` and writes the first `k` values
 * and indices. */
static wrapper_status selectImpl(const char *op, const wrapper_tensor *self,
                                 int64_t k, int64_t dim, int descending,
                                 wrapper_tensor *values,
                                 wrapper_tensor *indices, OutputKind kind) {
  CHECK(checkTensor(op, "self", self, -1));
  CHECK(normalizeDim(op, &dim, self->rank));
  int64_t length = self->rank ? self->sizes[dim] : 1;
  if (k < 0 || k > length)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: k=%lld is out of range for a dimension of "
                             "size %lld",
                             op, (long long)k, (long long)length);
  int64_t sizes[WRAPPER_MAX_RANK];
  for (int32_t d = 0; d < self->rank; ++d)
    sizes[d] = d == dim ? k : self->sizes[d];
  CHECK(prepareOutput(op, "values", values, kind, self->dtype, sizes,
                      self->rank));
  wrapper_status status = prepareOutput(op, "indices", indices, kind,
                                        WRAPPER_DTYPE_I64, sizes, self->rank);
  if (status != WRAPPER_OK) {
    releaseOutput(values, kind);
    return status;
  }
  Keyed *keyed = (Keyed *)malloc(sizeof(Keyed) * (size_t)(length ? length : 1));
  if (!keyed) {
    releaseOutput(values, kind);
    releaseOutput(indices, kind);
    return wrapper_set_error(WRAPPER_ERROR_OUT_OF_MEMORY, "%s: out of memory",
                             op);
  }
  /* Iterate over the slices: every index with dim fixed at 0. */
  int64_t outer[WRAPPER_MAX_RANK];
  int64_t sliceSizes[WRAPPER_MAX_RANK];
  for (int32_t d = 0; d < self->rank; ++d) {
    outer[d] = 0;
    sliceSizes[d] = d == dim ? 1 : self->sizes[d];
  }
  if (numel(self->sizes, self->rank) > 0 || self->rank == 0) {
    do {
      int64_t base = offsetOf(self, outer);
      int64_t step = self->rank ? self->strides[dim] : 0;
      for (int64_t i = 0; i < length; ++i) {
        keyed[i].value = load(self, base + i * step);
        keyed[i].index = i;
      }
      qsort(keyed, (size_t)length, sizeof(Keyed),
            descending ? compareDescending : compareAscending);
      int64_t vBase = offsetOf(values, outer), iBase = offsetOf(indices, outer);
      int64_t vStep = self->rank ? values->strides[dim] : 0;
      int64_t iStep = self->rank ? indices->strides[dim] : 0;
      for (int64_t i = 0; i < k; ++i) {
        store(values, vBase + i * vStep, keyed[i].value);
        storeInt(indices, iBase + i * iStep, keyed[i].index);
      }
    } while (nextIndex(outer, sliceSizes, self->rank));
  }
  free(keyed);
  return WRAPPER_OK;
}

wrapper_status wrapper_shim_topk(const wrapper_tensor *self, int64_t k,
                                 int64_t dim, int32_t largest, int32_t sorted,
                                 wrapper_tensor *values,
                                 wrapper_tensor *indices) {
  (void)sorted; /* results are always sorted, which sorted=False allows */
  return selectImpl("aten::topk", self, k, dim, largest != 0, values, indices,
                    ALLOCATE);
}
wrapper_status wrapper_shim_topk_out(const wrapper_tensor *self, int64_t k,
                                     int64_t dim, int32_t largest,
                                     int32_t sorted, wrapper_tensor *values,
                                     wrapper_tensor *indices) {
  (void)sorted;
  return selectImpl("aten::topk.out", self, k, dim, largest != 0, values,
                    indices, PROVIDED);
}
wrapper_status wrapper_shim_sort(const wrapper_tensor *self, int64_t dim,
                                 int32_t descending, wrapper_tensor *values,
                                 wrapper_tensor *indices) {
  CHECK(checkTensor("aten::sort", "self", self, -1));
  int64_t normalized = dim;
  CHECK(normalizeDim("aten::sort", &normalized, self->rank));
  int64_t length = self->rank ? self->sizes[normalized] : 1;
  return selectImpl("aten::sort", self, length, dim, descending != 0, values,
                    indices, ALLOCATE);
}

static wrapper_status argmaxImpl(const char *op, const wrapper_tensor *self,
                                 const int64_t *dimArg, int32_t keepdim,
                                 wrapper_tensor *out, OutputKind kind) {
  CHECK(checkTensor(op, "self", self, -1));
  int64_t n = numel(self->sizes, self->rank);
  int64_t sizes[WRAPPER_MAX_RANK];
  int32_t rank;
  int64_t dim = -1;
  if (dimArg) {
    dim = *dimArg;
    CHECK(normalizeDim(op, &dim, self->rank));
    if (self->rank && self->sizes[dim] == 0)
      return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                               "%s: dimension %lld is empty", op,
                               (long long)dim);
    rank = 0;
    for (int32_t d = 0; d < self->rank; ++d)
      if (d != dim)
        sizes[rank++] = self->sizes[d];
      else if (keepdim)
        sizes[rank++] = 1;
  } else {
    if (n == 0)
      return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                               "%s: the input is empty", op);
    rank = keepdim ? self->rank : 0;
    for (int32_t d = 0; d < rank; ++d)
      sizes[d] = 1;
  }
  CHECK(prepareOutput(op, "out", out, kind, WRAPPER_DTYPE_I64, sizes, rank));
  /* Walk every element; group by the output position. */
  int64_t resultCount = numel(sizes, rank);
  double *best = (double *)malloc(sizeof(double) * (size_t)(resultCount + 1));
  int64_t *where =
      (int64_t *)malloc(sizeof(int64_t) * (size_t)(resultCount + 1));
  if (!best || !where) {
    free(best);
    free(where);
    releaseOutput(out, kind);
    return wrapper_set_error(WRAPPER_ERROR_OUT_OF_MEMORY, "%s: out of memory",
                             op);
  }
  for (int64_t r = 0; r < resultCount; ++r)
    where[r] = -1;
  int64_t at[WRAPPER_MAX_RANK] = {0};
  int64_t flat = 0;
  if (n > 0) {
    do {
      int64_t slot = 0, position = flat;
      if (dimArg) {
        slot = 0;
        for (int32_t d = 0; d < self->rank; ++d)
          if (d != dim)
            slot = slot * self->sizes[d] + at[d];
        position = self->rank ? at[dim] : 0;
      }
      double v = load(self, offsetOf(self, at));
      if (where[slot] < 0 || (isnan(v) && !isnan(best[slot])) ||
          (!isnan(best[slot]) && v > best[slot])) {
        best[slot] = v;
        where[slot] = position;
      }
      ++flat;
    } while (nextIndex(at, self->sizes, self->rank));
  }
  int64_t index[WRAPPER_MAX_RANK] = {0};
  int64_t r = 0;
  if (resultCount > 0) {
    do {
      storeInt(out, offsetOf(out, index), where[r++]);
    } while (nextIndex(index, sizes, rank));
  }
  free(best);
  free(where);
  return WRAPPER_OK;
}

wrapper_status wrapper_shim_argmax(const wrapper_tensor *self,
                                   const int64_t *dim, int32_t keepdim,
                                   wrapper_tensor *result) {
  return argmaxImpl("aten::argmax", self, dim, keepdim, result, ALLOCATE);
}
wrapper_status wrapper_shim_argmax_out(const wrapper_tensor *self,
                                       const int64_t *dim, int32_t keepdim,
                                       wrapper_tensor *out) {
  return argmaxImpl("aten::argmax.out", self, dim, keepdim, out, PROVIDED);
}

/*===------------------------------------------------------------------===*
 * Scans
 *===------------------------------------------------------------------===*/

static wrapper_status cumsumImpl(const char *op, const wrapper_tensor *self,
                                 int64_t dim, const int32_t *dtype,
                                 wrapper_tensor *out, OutputKind kind) {
  CHECK(checkTensor(op, "self", self, -1));
  CHECK(normalizeDim(op, &dim, self->rank));
  /* Integers (and bool) accumulate in int64 unless a dtype is given. */
  int32_t resultType = dtype                       ? *dtype
                       : isFloatDType(self->dtype) ? self->dtype
                                                   : WRAPPER_DTYPE_I64;
  if (wrapper_dtype_size((wrapper_dtype)resultType) == 0)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: unknown dtype %d", op, (int)resultType);
  CHECK(
      prepareOutput(op, "out", out, kind, resultType, self->sizes, self->rank));
  int64_t length = self->rank ? self->sizes[dim] : 1;
  int64_t outer[WRAPPER_MAX_RANK], sliceSizes[WRAPPER_MAX_RANK];
  for (int32_t d = 0; d < self->rank; ++d) {
    outer[d] = 0;
    sliceSizes[d] = d == dim ? 1 : self->sizes[d];
  }
  if (numel(self->sizes, self->rank) == 0)
    return WRAPPER_OK;
  int integral = !isFloatDType(resultType);
  do {
    int64_t in = offsetOf(self, outer), to = offsetOf(out, outer);
    int64_t inStep = self->rank ? self->strides[dim] : 0;
    int64_t toStep = self->rank ? out->strides[dim] : 0;
    double sum = 0;
    int64_t isum = 0;
    for (int64_t i = 0; i < length; ++i) {
      if (integral) {
        isum += loadInt(self, in + i * inStep);
        storeInt(out, to + i * toStep, isum);
      } else {
        sum += load(self, in + i * inStep);
        store(out, to + i * toStep, sum);
      }
    }
  } while (nextIndex(outer, sliceSizes, self->rank));
  return WRAPPER_OK;
}

wrapper_status wrapper_shim_cumsum_v2(const wrapper_tensor *self, int64_t dim,
                                      const int32_t *dtype,
                                      wrapper_tensor *result) {
  return cumsumImpl("aten::cumsum", self, dim, dtype, result, ALLOCATE);
}
wrapper_status wrapper_shim_cumsum_out_v2(const wrapper_tensor *self,
                                          int64_t dim, const int32_t *dtype,
                                          wrapper_tensor *out) {
  return cumsumImpl("aten::cumsum.out", self, dim, dtype, out, PROVIDED);
}
wrapper_status wrapper_shim_cumsum_inplace_v2(wrapper_tensor *self, int64_t dim,
                                              const int32_t *dtype) {
  CHECK(checkTensor("aten::cumsum_", "self", self, -1));
  if (dtype && *dtype != self->dtype)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "aten::cumsum_: dtype %s differs from self's %s",
                             wrapper_dtype_name((wrapper_dtype)*dtype),
                             wrapper_dtype_name((wrapper_dtype)self->dtype));
  int32_t own = self->dtype;
  return cumsumImpl("aten::cumsum_", self, dim, &own, self, PROVIDED);
}
/* Version 1 (no dtype argument): kept for artifacts compiled against it. */
wrapper_status wrapper_shim_cumsum(const wrapper_tensor *self, int64_t dim,
                                   wrapper_tensor *result) {
  return wrapper_shim_cumsum_v2(self, dim, NULL, result);
}
wrapper_status wrapper_shim_cumsum_out(const wrapper_tensor *self, int64_t dim,
                                       wrapper_tensor *out) {
  return wrapper_shim_cumsum_out_v2(self, dim, NULL, out);
}
wrapper_status wrapper_shim_cumsum_inplace(wrapper_tensor *self, int64_t dim) {
  return wrapper_shim_cumsum_inplace_v2(self, dim, NULL);
}

/*===------------------------------------------------------------------===*
 * Indexing
 *===------------------------------------------------------------------===*/

static wrapper_status checkIndex(const char *op, int64_t value, int64_t size,
                                 int64_t dim) {
  if (value < 0 || value >= size)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: index %lld is out of range for dimension "
                             "%lld of size %lld",
                             op, (long long)value, (long long)dim,
                             (long long)size);
  return WRAPPER_OK;
}

/* Checks every element of `index` against `size` before anything is
 * written (no partial results). */
static wrapper_status checkAllIndices(const char *op, const wrapper_tensor *t,
                                      int64_t size, int64_t dim) {
  if (numel(t->sizes, t->rank) == 0)
    return WRAPPER_OK;
  int64_t at[WRAPPER_MAX_RANK] = {0};
  do {
    CHECK(checkIndex(op, loadInt(t, offsetOf(t, at)), size, dim));
  } while (nextIndex(at, t->sizes, t->rank));
  return WRAPPER_OK;
}

static wrapper_status indexSelectImpl(const char *op,
                                      const wrapper_tensor *self, int64_t dim,
                                      const wrapper_tensor *index,
                                      wrapper_tensor *out, OutputKind kind) {
  CHECK(checkTensor(op, "self", self, -1));
  CHECK(checkTensor(op, "index", index, -1));
  CHECK(checkIndices(op, "index", index));
  if (index->rank > 1)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: index has rank %d, expected 0 or 1", op,
                             (int)index->rank);
  CHECK(normalizeDim(op, &dim, self->rank));
  int64_t length = self->rank ? self->sizes[dim] : 1;
  CHECK(checkAllIndices(op, index, length, dim));
  int64_t count = index->rank ? index->sizes[0] : 1;
  int64_t sizes[WRAPPER_MAX_RANK];
  for (int32_t d = 0; d < self->rank; ++d)
    sizes[d] = d == dim ? count : self->sizes[d];
  CHECK(prepareOutput(op, "out", out, kind, self->dtype, sizes, self->rank));
  if (numel(sizes, self->rank) == 0)
    return WRAPPER_OK;
  int64_t at[WRAPPER_MAX_RANK] = {0}, from[WRAPPER_MAX_RANK];
  do {
    for (int32_t d = 0; d < self->rank; ++d)
      from[d] = at[d];
    if (self->rank)
      from[dim] = loadInt(index, index->rank ? at[dim] * index->strides[0] : 0);
    store(out, offsetOf(out, at), load(self, offsetOf(self, from)));
  } while (nextIndex(at, sizes, self->rank));
  return WRAPPER_OK;
}

wrapper_status wrapper_shim_index_select(const wrapper_tensor *self,
                                         int64_t dim,
                                         const wrapper_tensor *index,
                                         wrapper_tensor *result) {
  return indexSelectImpl("aten::index_select", self, dim, index, result,
                         ALLOCATE);
}
wrapper_status wrapper_shim_index_select_out(const wrapper_tensor *self,
                                             int64_t dim,
                                             const wrapper_tensor *index,
                                             wrapper_tensor *out) {
  return indexSelectImpl("aten::index_select.out", self, dim, index, out,
                         PROVIDED);
}

/* Checks that `index` fits `self` for gather/scatter: the same rank, and
 * no larger than `self` (and `src`, if set) outside `dim`. */
static wrapper_status
checkScatterShapes(const char *op, const wrapper_tensor *self, int64_t dim,
                   const wrapper_tensor *index, const wrapper_tensor *src) {
  if (index->rank != self->rank || (src && src->rank != self->rank))
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: index (rank %d)%s must have the rank of "
                             "self (%d)",
                             op, (int)index->rank, src ? " and src" : "",
                             (int)self->rank);
  for (int32_t d = 0; d < self->rank; ++d) {
    if ((d != dim && index->sizes[d] > self->sizes[d]) ||
        (src && index->sizes[d] > src->sizes[d]))
      return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                               "%s: index has size %lld in dimension %d, "
                               "larger than %s",
                               op, (long long)index->sizes[d], (int)d,
                               src ? "self or src" : "self");
  }
  return checkAllIndices(op, index, self->rank ? self->sizes[dim] : 1, dim);
}

static wrapper_status gatherImpl(const char *op, const wrapper_tensor *self,
                                 int64_t dim, const wrapper_tensor *index,
                                 wrapper_tensor *out, OutputKind kind) {
  CHECK(checkTensor(op, "self", self, -1));
  CHECK(checkTensor(op, "index", index, -1));
  CHECK(checkIndices(op, "index", index));
  CHECK(normalizeDim(op, &dim, self->rank));
  CHECK(checkScatterShapes(op, self, dim, index, NULL));
  CHECK(prepareOutput(op, "out", out, kind, self->dtype, index->sizes,
                      index->rank));
  if (numel(index->sizes, index->rank) == 0)
    return WRAPPER_OK;
  int64_t at[WRAPPER_MAX_RANK] = {0}, from[WRAPPER_MAX_RANK];
  do {
    for (int32_t d = 0; d < self->rank; ++d)
      from[d] = at[d];
    if (self->rank)
      from[dim] = loadInt(index, offsetOf(index, at));
    store(out, offsetOf(out, at), load(self, offsetOf(self, from)));
  } while (nextIndex(at, index->sizes, index->rank));
  return WRAPPER_OK;
}

wrapper_status wrapper_shim_gather(const wrapper_tensor *self, int64_t dim,
                                   const wrapper_tensor *index,
                                   int32_t sparse_grad,
                                   wrapper_tensor *result) {
  (void)sparse_grad;
  return gatherImpl("aten::gather", self, dim, index, result, ALLOCATE);
}
wrapper_status wrapper_shim_gather_out(const wrapper_tensor *self, int64_t dim,
                                       const wrapper_tensor *index,
                                       int32_t sparse_grad,
                                       wrapper_tensor *out) {
  (void)sparse_grad;
  return gatherImpl("aten::gather.out", self, dim, index, out, PROVIDED);
}

/* Copies `from` into `to` (same shape, any strides). */
static void copyTensor(const wrapper_tensor *from, const wrapper_tensor *to) {
  if (numel(from->sizes, from->rank) == 0)
    return;
  int64_t at[WRAPPER_MAX_RANK] = {0};
  do {
    store(to, offsetOf(to, at), load(from, offsetOf(from, at)));
  } while (nextIndex(at, from->sizes, from->rank));
}

static wrapper_status scatterAddImpl(const char *op, const wrapper_tensor *self,
                                     int64_t dim, const wrapper_tensor *index,
                                     const wrapper_tensor *src,
                                     wrapper_tensor *out, OutputKind kind) {
  CHECK(checkTensor(op, "self", self, -1));
  CHECK(checkTensor(op, "index", index, -1));
  CHECK(checkTensor(op, "src", src, -1));
  CHECK(checkIndices(op, "index", index));
  CHECK(checkSameDType(op, "src", src, "self", self));
  CHECK(normalizeDim(op, &dim, self->rank));
  CHECK(checkScatterShapes(op, self, dim, index, src));
  CHECK(prepareOutput(op, "out", out, kind, self->dtype, self->sizes,
                      self->rank));
  if (out != self)
    copyTensor(self, out);
  if (numel(index->sizes, index->rank) == 0)
    return WRAPPER_OK;
  int64_t at[WRAPPER_MAX_RANK] = {0}, to[WRAPPER_MAX_RANK];
  do {
    for (int32_t d = 0; d < self->rank; ++d)
      to[d] = at[d];
    if (self->rank)
      to[dim] = loadInt(index, offsetOf(index, at));
    int64_t target = offsetOf(out, to);
    store(out, target, load(out, target) + load(src, offsetOf(src, at)));
  } while (nextIndex(at, index->sizes, index->rank));
  return WRAPPER_OK;
}

wrapper_status wrapper_shim_scatter_add(const wrapper_tensor *self, int64_t dim,
                                        const wrapper_tensor *index,
                                        const wrapper_tensor *src,
                                        wrapper_tensor *result) {
  return scatterAddImpl("aten::scatter_add", self, dim, index, src, result,
                        ALLOCATE);
}
wrapper_status wrapper_shim_scatter_add_inplace(wrapper_tensor *self,
                                                int64_t dim,
                                                const wrapper_tensor *index,
                                                const wrapper_tensor *src) {
  return scatterAddImpl("aten::scatter_add_", self, dim, index, src, self,
                        PROVIDED);
}

wrapper_status wrapper_shim_embedding(const wrapper_tensor *weight,
                                      const wrapper_tensor *indices,
                                      int64_t padding_idx,
                                      int32_t scale_grad_by_freq,
                                      int32_t sparse, wrapper_tensor *result) {
  /* padding_idx, scale_grad_by_freq and sparse only affect gradients. */
  (void)padding_idx;
  (void)scale_grad_by_freq;
  (void)sparse;
  const char *op = "aten::embedding";
  CHECK(checkTensor(op, "weight", weight, 2));
  CHECK(checkTensor(op, "indices", indices, -1));
  CHECK(checkIndices(op, "indices", indices));
  if (indices->rank >= WRAPPER_MAX_RANK)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: indices have rank %d; the result would "
                             "exceed rank %d",
                             op, (int)indices->rank, WRAPPER_MAX_RANK);
  CHECK(checkAllIndices(op, indices, weight->sizes[0], 0));
  int64_t sizes[WRAPPER_MAX_RANK];
  for (int32_t d = 0; d < indices->rank; ++d)
    sizes[d] = indices->sizes[d];
  sizes[indices->rank] = weight->sizes[1];
  int32_t rank = indices->rank + 1;
  CHECK(prepareOutput(op, "result", result, ALLOCATE, weight->dtype, sizes,
                      rank));
  if (numel(sizes, rank) == 0)
    return WRAPPER_OK;
  int64_t at[WRAPPER_MAX_RANK] = {0};
  do {
    int64_t row = loadInt(indices, offsetOf(indices, at));
    int64_t column = at[indices->rank];
    store(result, offsetOf(result, at),
          load(weight, row * weight->strides[0] + column * weight->strides[1]));
  } while (nextIndex(at, sizes, rank));
  return WRAPPER_OK;
}

wrapper_status wrapper_shim_unbind(const wrapper_tensor *self, int64_t dim,
                                   wrapper_tensor *results, int64_t count) {
  const char *op = "aten::unbind";
  CHECK(checkTensor(op, "self", self, -1));
  if (self->rank == 0)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: self has rank 0", op);
  CHECK(normalizeDim(op, &dim, self->rank));
  if (count != self->sizes[dim] || (count > 0 && !results))
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: %lld results for a dimension of size %lld",
                             op, (long long)count, (long long)self->sizes[dim]);
  int64_t sizes[WRAPPER_MAX_RANK], strides[WRAPPER_MAX_RANK];
  int32_t rank = 0;
  for (int32_t d = 0; d < self->rank; ++d)
    if (d != dim) {
      sizes[rank] = self->sizes[d];
      strides[rank++] = self->strides[d];
    }
  for (int64_t i = 0; i < count; ++i) {
    wrapper_status status = prepareOutput(op, "results", &results[i], ALLOCATE,
                                          self->dtype, sizes, rank);
    if (status != WRAPPER_OK) {
      for (int64_t j = 0; j < i; ++j)
        releaseOutput(&results[j], ALLOCATE);
      return status;
    }
    wrapper_tensor slice = *self;
    slice.data =
        (char *)self->data +
        i * self->strides[dim] * (int64_t)wrapper_dtype_size(self->dtype);
    slice.rank = rank;
    slice.sizes = sizes;
    slice.strides = strides;
    copyTensor(&slice, &results[i]);
  }
  return WRAPPER_OK;
}

/*===------------------------------------------------------------------===*
 * Elementwise
 *===------------------------------------------------------------------===*/

typedef enum Elementwise { RELU, ADD, MUL } Elementwise;

static wrapper_status elementwiseImpl(const char *op, Elementwise kind,
                                      const wrapper_tensor *self,
                                      const wrapper_tensor *other, double alpha,
                                      wrapper_tensor *out, OutputKind outKind) {
  CHECK(checkTensor(op, "self", self, -1));
  int64_t sizes[WRAPPER_MAX_RANK];
  int32_t rank = self->rank;
  for (int32_t d = 0; d < rank; ++d)
    sizes[d] = self->sizes[d];
  if (kind != RELU) {
    CHECK(checkTensor(op, "other", other, -1));
    CHECK(checkSameDType(op, "other", other, "self", self));
    /* The broadcast shape (in place: it must be self's). */
    int32_t full = other->rank > rank ? other->rank : rank;
    int64_t merged[WRAPPER_MAX_RANK];
    for (int32_t d = 0; d < full; ++d) {
      int32_t ds = d - (full - rank), dother = d - (full - other->rank);
      int64_t a = ds >= 0 ? self->sizes[ds] : 1;
      int64_t b = dother >= 0 ? other->sizes[dother] : 1;
      if (a != b && a != 1 && b != 1)
        return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                 "%s: shapes do not broadcast (%lld vs %lld "
                                 "in dimension %d of the result)",
                                 op, (long long)a, (long long)b, (int)d);
      merged[d] = a == 1 ? b : a;
    }
    for (int32_t d = 0; d < full; ++d)
      sizes[d] = merged[d];
    rank = full;
  }
  CHECK(prepareOutput(op, "out", out, outKind, self->dtype, sizes, rank));
  if (numel(sizes, rank) == 0)
    return WRAPPER_OK;
  int64_t at[WRAPPER_MAX_RANK] = {0};
  do {
    double a = load(self, broadcastOffsetOf(self, at, rank));
    double value;
    if (kind == RELU) {
      value = a > 0 || isnan(a) ? a : 0.0;
    } else {
      double b = load(other, broadcastOffsetOf(other, at, rank));
      value = kind == ADD ? a + alpha * b : a * b;
    }
    store(out, offsetOf(out, at), value);
  } while (nextIndex(at, sizes, rank));
  return WRAPPER_OK;
}

wrapper_status wrapper_shim_relu(const wrapper_tensor *self,
                                 wrapper_tensor *result) {
  return elementwiseImpl("aten::relu", RELU, self, NULL, 0, result, ALLOCATE);
}
wrapper_status wrapper_shim_relu_inplace(wrapper_tensor *self) {
  return elementwiseImpl("aten::relu_", RELU, self, NULL, 0, self, PROVIDED);
}
wrapper_status wrapper_shim_add(const wrapper_tensor *self,
                                const wrapper_tensor *other, double alpha,
                                wrapper_tensor *result) {
  return elementwiseImpl("aten::add", ADD, self, other, alpha, result,
                         ALLOCATE);
}
wrapper_status wrapper_shim_add_out(const wrapper_tensor *self,
                                    const wrapper_tensor *other, double alpha,
                                    wrapper_tensor *out) {
  return elementwiseImpl("aten::add.out", ADD, self, other, alpha, out,
                         PROVIDED);
}
wrapper_status wrapper_shim_add_inplace(wrapper_tensor *self,
                                        const wrapper_tensor *other,
                                        double alpha) {
  return elementwiseImpl("aten::add_", ADD, self, other, alpha, self, PROVIDED);
}
wrapper_status wrapper_shim_mul(const wrapper_tensor *self,
                                const wrapper_tensor *other,
                                wrapper_tensor *result) {
  return elementwiseImpl("aten::mul", MUL, self, other, 0, result, ALLOCATE);
}
wrapper_status wrapper_shim_mul_out(const wrapper_tensor *self,
                                    const wrapper_tensor *other,
                                    wrapper_tensor *out) {
  return elementwiseImpl("aten::mul.out", MUL, self, other, 0, out, PROVIDED);
}
wrapper_status wrapper_shim_mul_inplace(wrapper_tensor *self,
                                        const wrapper_tensor *other) {
  return elementwiseImpl("aten::mul_", MUL, self, other, 0, self, PROVIDED);
}
