/*===- Elementwise.c - elementwise kernels ---------------------------------===*
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
