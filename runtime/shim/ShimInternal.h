/*===- ShimInternal.h - helpers of the shim kernels ----------------*- C -*-===*
 *
 * Part of the Wrapper project.
 *
 * Private to runtime/shim: element access in any dtype, index arithmetic,
 * argument checks and output preparation, shared by the kernel files.
 * Static inline: nothing here is exported from the runtime library.
 *
 *===----------------------------------------------------------------------===*/

#ifndef WRAPPER_RUNTIME_SHIM_SHIMINTERNAL_H
#define WRAPPER_RUNTIME_SHIM_SHIMINTERNAL_H

#include "RuntimeInternal.h"
#include "Wrapper/Runtime/WrapperShim.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*===------------------------------------------------------------------===*
 * Elements
 *===------------------------------------------------------------------===*/

static inline int isFloatDType(int32_t dtype) {
  return dtype == WRAPPER_DTYPE_F16 || dtype == WRAPPER_DTYPE_BF16 ||
         dtype == WRAPPER_DTYPE_F32 || dtype == WRAPPER_DTYPE_F64 ||
         dtype == WRAPPER_DTYPE_F8E4M3FN;
}

static inline int isIndexDType(int32_t dtype) {
  return dtype == WRAPPER_DTYPE_I32 || dtype == WRAPPER_DTYPE_I64;
}

static inline double load(const wrapper_tensor *t, int64_t at) {
  return wrapper_load_element(t->dtype, t->data, at);
}

static inline int64_t loadInt(const wrapper_tensor *t, int64_t at) {
  if (t->dtype == WRAPPER_DTYPE_I64)
    return ((const int64_t *)t->data)[at];
  if (t->dtype == WRAPPER_DTYPE_I32)
    return ((const int32_t *)t->data)[at];
  return (int64_t)load(t, at);
}

static inline void store(const wrapper_tensor *t, int64_t at, double v) {
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

static inline void storeInt(const wrapper_tensor *t, int64_t at, int64_t v) {
  if (t->dtype == WRAPPER_DTYPE_I64)
    ((int64_t *)t->data)[at] = v;
  else
    store(t, at, (double)v);
}

/*===------------------------------------------------------------------===*
 * Shapes and argument checks
 *===------------------------------------------------------------------===*/

/* The element offset of the multi-index `index` in `t`. */
static inline int64_t offsetOf(const wrapper_tensor *t, const int64_t *index) {
  int64_t at = 0;
  for (int32_t d = 0; d < t->rank; ++d)
    at += index[d] * t->strides[d];
  return at;
}

/* The offset in `t` of `index` (of rank `rank` >= t->rank), broadcasting:
 * dims aligned at the right, size-1 dims read at 0. */
static inline int64_t broadcastOffsetOf(const wrapper_tensor *t,
                                        const int64_t *index, int32_t rank) {
  int64_t at = 0;
  for (int32_t d = 0; d < t->rank; ++d) {
    int64_t i = index[rank - t->rank + d];
    if (t->sizes[d] != 1)
      at += i * t->strides[d];
  }
  return at;
}

/* Advances the row-major multi-index `index` over `sizes`; 0 at the end. */
static inline int nextIndex(int64_t *index, const int64_t *sizes,
                            int32_t rank) {
  for (int32_t d = rank - 1; d >= 0; --d) {
    if (++index[d] < sizes[d])
      return 1;
    index[d] = 0;
  }
  return 0;
}

static inline int64_t numel(const int64_t *sizes, int32_t rank) {
  int64_t n = 1;
  for (int32_t d = 0; d < rank; ++d)
    n *= sizes[d];
  return n;
}

/* Checks that `t` is a usable tensor: not NULL, a known dtype, a rank in
 * range (and `rank` if not -1), sizes >= 0, data unless empty. */
static inline wrapper_status checkTensor(const char *op, const char *name,
                                         const wrapper_tensor *t,
                                         int32_t rank) {
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

static inline wrapper_status checkFloat(const char *op, const char *name,
                                        const wrapper_tensor *t) {
  if (!isFloatDType(t->dtype))
    return wrapper_set_error(WRAPPER_ERROR_UNSUPPORTED,
                             "%s: tensor '%s' has dtype %s, expected a "
                             "floating-point dtype",
                             op, name, wrapper_dtype_name(t->dtype));
  return WRAPPER_OK;
}

static inline wrapper_status checkIndices(const char *op, const char *name,
                                          const wrapper_tensor *t) {
  if (!isIndexDType(t->dtype))
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "%s: tensor '%s' has dtype %s, expected int64 "
                             "or int32",
                             op, name, wrapper_dtype_name(t->dtype));
  return WRAPPER_OK;
}

static inline wrapper_status checkSameDType(const char *op, const char *name,
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
static inline wrapper_status normalizeDim(const char *op, int64_t *dim,
                                          int32_t rank) {
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
static inline wrapper_status prepareOutput(const char *op, const char *name,
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
  void *data = wrapper_block_alloc(bytes ? bytes : 64, 64);
  if (!data)
    return wrapper_set_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                             "%s: out of memory allocating %zu bytes for "
                             "'%s'%s",
                             op, bytes, name, wrapper_block_failure_note());
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
static inline void releaseOutput(wrapper_tensor *t, OutputKind kind) {
  if (kind == ALLOCATE && t) {
    wrapper_block_free(t->data);
    t->data = NULL;
  }
}

#define CHECK(expr)                                                            \
  do {                                                                         \
    wrapper_status status_ = (expr);                                           \
    if (status_ != WRAPPER_OK)                                                 \
      return status_;                                                          \
  } while (0)

#endif /* WRAPPER_RUNTIME_SHIM_SHIMINTERNAL_H */
