/*===- Convolution.c - direct convolution ----------------------------------===*
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
