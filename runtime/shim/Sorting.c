/*===- Sorting.c - sorting, selection, scans -------------------------------===*
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
