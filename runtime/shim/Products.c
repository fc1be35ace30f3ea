/*===- Products.c - matrix products ----------------------------------------===*
 *
 * Part of the Wrapper project.
 *
 * Extern kernels of the C shim (WrapperShim.h); see Shim.c.
 *
 *===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 200809L

#include "ShimInternal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
