/*===- Indexing.c - gathers, scatters, embedding ---------------------------===*
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
