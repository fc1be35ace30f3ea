/* The shim ABI called directly from C99: absent optionals as NULL, bad
 * arguments answered with error codes and messages, version-1 entry points
 * still working.
 *
 * UNSUPPORTED: asan
 * RUN: clang -std=c99 -Wall -Wextra -Werror -pedantic -I%wrapper_src_root/include %s -o %t -L%wrapper_lib_dir -lwrapper_runtime -Wl,-rpath,%wrapper_lib_dir
 * RUN: %t | FileCheck %s
 */
#include "Wrapper/Runtime/WrapperShim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("FAILED line %d: %s (last error: %s)\n", __LINE__, #cond,         \
             wrapper_last_error());                                            \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* A descriptor of a dense row-major array. */
typedef struct Dense {
  wrapper_tensor t;
  int64_t sizes[4];
  int64_t strides[4];
} Dense;

static void dense(Dense *d, void *data, int32_t dtype, int32_t rank,
                  const int64_t *sizes) {
  int64_t stride = 1;
  int32_t i;
  d->t.data = data;
  d->t.dtype = dtype;
  d->t.rank = rank;
  d->t.sizes = d->sizes;
  d->t.strides = d->strides;
  for (i = rank - 1; i >= 0; --i) {
    d->sizes[i] = sizes[i];
    d->strides[i] = stride;
    stride *= sizes[i];
  }
}

/* An empty result descriptor of `rank` (sizes unknown). */
static void result(Dense *d, int32_t dtype, int32_t rank) {
  int32_t i;
  d->t.data = NULL;
  d->t.dtype = dtype;
  d->t.rank = rank;
  d->t.sizes = d->sizes;
  d->t.strides = d->strides;
  for (i = 0; i < rank; ++i)
    d->sizes[i] = -1;
}

static void report(const char *what, wrapper_status status) {
  printf("%s: %s: %s\n", what, wrapper_status_name(status),
         wrapper_last_error());
}

int main(void) {
  float a[6] = {1, 2, 3, 4, 5, 6}; /* 2x3 */
  float b[6] = {1, 0, 0, 1, 1, 1}; /* 3x2 */
  int64_t s23[2] = {2, 3}, s32[2] = {3, 2}, s22[2] = {2, 2};
  Dense da, db, dr, dout, dbad;
  float out[4];
  wrapper_status status;

  /* mm, functional and out=. */
  dense(&da, a, WRAPPER_DTYPE_F32, 2, s23);
  dense(&db, b, WRAPPER_DTYPE_F32, 2, s32);
  result(&dr, WRAPPER_DTYPE_F32, 2);
  EXPECT(wrapper_shim_mm(&da.t, &db.t, &dr.t) == WRAPPER_OK);
  EXPECT(dr.sizes[0] == 2 && dr.sizes[1] == 2 && dr.strides[0] == 2);
  {
    const float *r = (const float *)dr.t.data;
    EXPECT(r[0] == 4 && r[1] == 5 && r[2] == 10 && r[3] == 11);
  }
  wrapper_shim_free(dr.t.data);
  dense(&dout, out, WRAPPER_DTYPE_F32, 2, s22);
  EXPECT(wrapper_shim_mm_out(&da.t, &db.t, &dout.t) == WRAPPER_OK);
  EXPECT(out[0] == 4 && out[3] == 11);

  /* Bad arguments. */
  status = wrapper_shim_mm(NULL, &db.t, &dr.t);
  EXPECT(status == WRAPPER_ERROR_INVALID_ARGUMENT);
  report("null tensor", status);
  // CHECK: null tensor: WRAPPER_ERROR_INVALID_ARGUMENT: aten::mm: tensor 'self' is NULL
  dense(&dbad, a, WRAPPER_DTYPE_F32, 1, s23);
  status = wrapper_shim_mm(&dbad.t, &db.t, &dr.t);
  EXPECT(status == WRAPPER_ERROR_INVALID_ARGUMENT);
  report("wrong rank", status);
  // CHECK: wrong rank: WRAPPER_ERROR_INVALID_ARGUMENT: aten::mm: tensor 'self' has rank 1, expected 2
  dense(&dbad, b, WRAPPER_DTYPE_I32, 2, s32);
  status = wrapper_shim_mm(&da.t, &dbad.t, &dr.t);
  EXPECT(status == WRAPPER_ERROR_INVALID_ARGUMENT);
  report("mismatched dtypes", status);
  // CHECK: mismatched dtypes: WRAPPER_ERROR_INVALID_ARGUMENT: aten::mm: tensor 'self' has dtype float32 but 'mat2' has int32
  status = wrapper_shim_mm(&da.t, &da.t, &dr.t);
  EXPECT(status == WRAPPER_ERROR_INVALID_ARGUMENT);
  report("mismatched shapes", status);
  // CHECK: mismatched shapes: WRAPPER_ERROR_INVALID_ARGUMENT: aten::mm: shapes do not fit: self is 2x3, mat2 is 2x3
  dense(&dbad, out, WRAPPER_DTYPE_F32, 2, s23);
  status = wrapper_shim_mm_out(&da.t, &db.t, &dbad.t);
  EXPECT(status == WRAPPER_ERROR_INVALID_ARGUMENT);
  report("wrong out shape", status);
  // CHECK: wrong out shape: WRAPPER_ERROR_INVALID_ARGUMENT: aten::mm.out: output 'out' has size 3 in dimension 1, the result has 2
  result(&dr, WRAPPER_DTYPE_F32, 2);
  dr.sizes[0] = 7; /* the caller expects 7 rows */
  status = wrapper_shim_mm(&da.t, &db.t, &dr.t);
  EXPECT(status == WRAPPER_ERROR_INVALID_ARGUMENT && dr.t.data == NULL);
  report("unexpected result shape", status);
  // CHECK: unexpected result shape: {{.*}}output 'out' has size 7 in dimension 0, the result has 2
  dense(&dbad, NULL, WRAPPER_DTYPE_F32, 2, s23);
  status = wrapper_shim_mm(&dbad.t, &db.t, &dr.t);
  EXPECT(status == WRAPPER_ERROR_INVALID_ARGUMENT);
  dense(&dbad, a, 99, 2, s23);
  status = wrapper_shim_mm(&dbad.t, &db.t, &dr.t);
  EXPECT(status == WRAPPER_ERROR_INVALID_ARGUMENT);
  report("unknown dtype", status);
  // CHECK: unknown dtype: WRAPPER_ERROR_INVALID_ARGUMENT: aten::mm: tensor 'self' has unknown dtype 99
  dense(&dbad, a, WRAPPER_DTYPE_F32, 2, s23);
  dbad.t.rank = 1000;
  EXPECT(wrapper_shim_relu(&dbad.t, &dr.t) == WRAPPER_ERROR_INVALID_ARGUMENT);
  dbad.t.rank = 2;
  dbad.sizes[1] = -3;
  EXPECT(wrapper_shim_relu(&dbad.t, &dr.t) == WRAPPER_ERROR_INVALID_ARGUMENT);
  EXPECT(wrapper_shim_relu(&da.t, NULL) == WRAPPER_ERROR_INVALID_ARGUMENT);

  /* conv2d without bias (NULL) and with it; lists of one value repeat. */
  {
    float x[16], w[4] = {1, 1, 1, 1}, bias[1] = {0.5f};
    int64_t sx[4] = {1, 1, 4, 4}, sw[4] = {1, 1, 2, 2};
    int64_t one = 1, zero = 0, two[2] = {2, 2};
    Dense dx, dw, dbias;
    int i;
    for (i = 0; i < 16; ++i)
      x[i] = (float)i;
    dense(&dx, x, WRAPPER_DTYPE_F32, 4, sx);
    dense(&dw, w, WRAPPER_DTYPE_F32, 4, sw);
    dense(&dbias, bias, WRAPPER_DTYPE_F32, 1, sw);
    result(&dr, WRAPPER_DTYPE_F32, 4);
    EXPECT(wrapper_shim_conv2d(&dx.t, &dw.t, NULL, two, 2, &zero, 1, &one, 1, 1,
                               &dr.t) == WRAPPER_OK);
    EXPECT(dr.sizes[2] == 2 && dr.sizes[3] == 2);
    EXPECT(((float *)dr.t.data)[0] == 0 + 1 + 4 + 5);
    wrapper_shim_free(dr.t.data);
    result(&dr, WRAPPER_DTYPE_F32, 4);
    EXPECT(wrapper_shim_conv2d(&dx.t, &dw.t, &dbias.t, two, 2, &zero, 1, &one,
                               1, 1, &dr.t) == WRAPPER_OK);
    EXPECT(((float *)dr.t.data)[0] == 10.5f);
    wrapper_shim_free(dr.t.data);
    status = wrapper_shim_conv2d(&dx.t, &dw.t, NULL, NULL, 0, &zero, 1, &one, 1,
                                 1, &dr.t);
    EXPECT(status == WRAPPER_ERROR_INVALID_ARGUMENT);
    report("conv2d stride", status);
    // CHECK: conv2d stride: {{.*}}aten::conv2d: 'stride' needs 1 or 2 values, got 0 (NULL)
    status = wrapper_shim_conv2d(&dx.t, &dw.t, NULL, two, 2, &zero, 1, &one, 1,
                                 3, &dr.t);
    EXPECT(status == WRAPPER_ERROR_INVALID_ARGUMENT);
  }

  /* argmax with dim = None (NULL) and with a dim. */
  {
    float x[6] = {3, 9, 1, 7, 2, 8};
    int64_t dim = 1;
    dense(&da, x, WRAPPER_DTYPE_F32, 2, s23);
    result(&dr, WRAPPER_DTYPE_I64, 0);
    EXPECT(wrapper_shim_argmax(&da.t, NULL, 0, &dr.t) == WRAPPER_OK);
    EXPECT(*(int64_t *)dr.t.data == 1);
    wrapper_shim_free(dr.t.data);
    result(&dr, WRAPPER_DTYPE_I64, 1);
    EXPECT(wrapper_shim_argmax(&da.t, &dim, 0, &dr.t) == WRAPPER_OK);
    EXPECT(((int64_t *)dr.t.data)[0] == 1 && ((int64_t *)dr.t.data)[1] == 2);
    wrapper_shim_free(dr.t.data);
    dim = 5;
    status = wrapper_shim_argmax(&da.t, &dim, 0, &dr.t);
    EXPECT(status == WRAPPER_ERROR_INVALID_ARGUMENT);
    report("argmax dim", status);
    // CHECK: argmax dim: {{.*}}aten::argmax: dim 5 is out of range for rank 2
  }

  /* cumsum: version 1 and version 2 with dtype = None and a dtype. */
  {
    int32_t x[3] = {1, 2, 3};
    int64_t s3[1] = {3};
    int32_t f64 = WRAPPER_DTYPE_F64;
    dense(&da, x, WRAPPER_DTYPE_I32, 1, s3);
    result(&dr, WRAPPER_DTYPE_I64, 1);
    EXPECT(wrapper_shim_cumsum(&da.t, 0, &dr.t) == WRAPPER_OK);
    EXPECT(((int64_t *)dr.t.data)[2] == 6);
    wrapper_shim_free(dr.t.data);
    result(&dr, WRAPPER_DTYPE_I64, 1);
    EXPECT(wrapper_shim_cumsum_v2(&da.t, 0, NULL, &dr.t) == WRAPPER_OK);
    EXPECT(((int64_t *)dr.t.data)[1] == 3);
    wrapper_shim_free(dr.t.data);
    result(&dr, WRAPPER_DTYPE_F64, 1);
    EXPECT(wrapper_shim_cumsum_v2(&da.t, 0, &f64, &dr.t) == WRAPPER_OK);
    EXPECT(((double *)dr.t.data)[2] == 6.0);
    wrapper_shim_free(dr.t.data);
    EXPECT(wrapper_shim_cumsum_inplace(&da.t, -1) == WRAPPER_OK);
    EXPECT(x[0] == 1 && x[1] == 3 && x[2] == 6);
    status = wrapper_shim_cumsum_inplace_v2(&da.t, 0, &f64);
    EXPECT(status == WRAPPER_ERROR_INVALID_ARGUMENT);
  }

  /* _scaled_mm: fp8 inputs, no bias, no output scale, default dtype. */
  {
    uint8_t x[4], y[4];
    float sa = 0.5f, sb = 4.0f;
    int64_t s1[1] = {1};
    int32_t f32 = WRAPPER_DTYPE_F32;
    Dense dx, dy, dsa, dsb;
    int i;
    for (i = 0; i < 4; ++i) {
      x[i] = wrapper_f32_to_f8e4m3fn((float)(i + 1));
      y[i] = wrapper_f32_to_f8e4m3fn(i == 0 || i == 3 ? 1.0f : 0.0f);
    }
    EXPECT(wrapper_f8e4m3fn_to_f32(wrapper_f32_to_f8e4m3fn(448.0f)) == 448.0f);
    EXPECT(wrapper_f8e4m3fn_to_f32(wrapper_f32_to_f8e4m3fn(1000.0f)) ==
           448.0f);
    EXPECT(wrapper_f8e4m3fn_to_f32(wrapper_f32_to_f8e4m3fn(0.3f)) == 0.3125f);
    EXPECT(isnan(wrapper_f8e4m3fn_to_f32(0x7f)));
    dense(&dx, x, WRAPPER_DTYPE_F8E4M3FN, 2, s22);
    dense(&dy, y, WRAPPER_DTYPE_F8E4M3FN, 2, s22);
    dense(&dsa, &sa, WRAPPER_DTYPE_F32, 1, s1);
    dense(&dsb, &sb, WRAPPER_DTYPE_F32, 1, s1);
    result(&dr, WRAPPER_DTYPE_F32, 2);
    EXPECT(wrapper_shim__scaled_mm(&dx.t, &dy.t, &dsa.t, &dsb.t, NULL, NULL,
                                   &f32, 0, &dr.t) == WRAPPER_OK);
    EXPECT(((float *)dr.t.data)[3] == 8.0f); /* 4 * 0.5 * 4 */
    wrapper_shim_free(dr.t.data);
    result(&dr, WRAPPER_DTYPE_F8E4M3FN, 2);
    EXPECT(wrapper_shim__scaled_mm(&dx.t, &dy.t, &dsa.t, &dsb.t, NULL, NULL,
                                   NULL, 0, &dr.t) == WRAPPER_OK);
    EXPECT(wrapper_f8e4m3fn_to_f32(((uint8_t *)dr.t.data)[1]) == 4.0f);
    wrapper_shim_free(dr.t.data);
    status = wrapper_shim__scaled_mm(&dx.t, &dy.t, &dx.t, &dsb.t, NULL, NULL,
                                     NULL, 0, &dr.t);
    EXPECT(status == WRAPPER_ERROR_INVALID_ARGUMENT);
    report("scale", status);
    // CHECK: scale: {{.*}}aten::_scaled_mm: scale 'scale_a' must have one element (per-tensor scaling)
  }

  /* Indices out of range are refused before anything is written. */
  {
    float table[6] = {1, 2, 3, 4, 5, 6};
    int64_t idx[2] = {0, 3}, s2[1] = {2};
    Dense dt, di;
    dense(&dt, table, WRAPPER_DTYPE_F32, 2, s32);
    dense(&di, idx, WRAPPER_DTYPE_I64, 1, s2);
    result(&dr, WRAPPER_DTYPE_F32, 2);
    status = wrapper_shim_embedding(&dt.t, &di.t, -1, 0, 0, &dr.t);
    EXPECT(status == WRAPPER_ERROR_INVALID_ARGUMENT && dr.t.data == NULL);
    report("embedding", status);
    // CHECK: embedding: {{.*}}aten::embedding: index 3 is out of range for dimension 0 of size 3
    dense(&di, idx, WRAPPER_DTYPE_F32, 1, s2);
    status = wrapper_shim_index_select(&dt.t, 0, &di.t, &dr.t);
    EXPECT(status == WRAPPER_ERROR_INVALID_ARGUMENT);
  }

  /* unbind: a list result through a pointer and a count. */
  {
    Dense parts[2];
    wrapper_tensor list[2];
    dense(&da, a, WRAPPER_DTYPE_F32, 2, s23);
    result(&parts[0], WRAPPER_DTYPE_F32, 1);
    result(&parts[1], WRAPPER_DTYPE_F32, 1);
    list[0] = parts[0].t;
    list[1] = parts[1].t;
    EXPECT(wrapper_shim_unbind(&da.t, 0, list, 2) == WRAPPER_OK);
    EXPECT(((float *)list[1].data)[2] == 6.0f);
    wrapper_shim_free(list[0].data);
    wrapper_shim_free(list[1].data);
    EXPECT(wrapper_shim_unbind(&da.t, 0, list, 3) ==
           WRAPPER_ERROR_INVALID_ARGUMENT);
  }

  if (failures)
    printf("%d shim checks failed\n", failures);
  else
    printf("all shim checks passed\n");
  // CHECK: all shim checks passed
  return failures != 0;
}
