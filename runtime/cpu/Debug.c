/*===- Debug.c - debug output of buffers --------------------------------===*
 *
 * Part of the Wrapper project.
 *
 * What wrapper.debug_print, wrapper.debug_save and wrapper.debug_message
 * lower to: Inductor's intermediate-value debug printer at run time.
 *
 *===--------------------------------------------------------------------===*/

#include "RuntimeInternal.h"
#include "Wrapper/Runtime/WrapperRuntime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double wrapper_load_element(int32_t dtype, const void *data, int64_t index) {
  switch ((wrapper_dtype)dtype) {
  case WRAPPER_DTYPE_BOOL:
  case WRAPPER_DTYPE_U8:
    return ((const uint8_t *)data)[index];
  case WRAPPER_DTYPE_I8:
    return ((const int8_t *)data)[index];
  case WRAPPER_DTYPE_I16:
    return ((const int16_t *)data)[index];
  case WRAPPER_DTYPE_I32:
    return ((const int32_t *)data)[index];
  case WRAPPER_DTYPE_I64:
    return (double)((const int64_t *)data)[index];
  case WRAPPER_DTYPE_F16:
    return wrapper_f16_to_f32(((const uint16_t *)data)[index]);
  case WRAPPER_DTYPE_BF16:
    return wrapper_bf16_to_f32(((const uint16_t *)data)[index]);
  case WRAPPER_DTYPE_F8E4M3FN:
    return wrapper_f8e4m3fn_to_f32(((const uint8_t *)data)[index]);
  case WRAPPER_DTYPE_F32:
    return ((const float *)data)[index];
  case WRAPPER_DTYPE_F64:
    return ((const double *)data)[index];
  }
  return 0;
}

/* Number of elements of the view, or -1 for a bad view. */
static int64_t viewElements(int32_t dtype, int32_t rank,
                            const int64_t *sizesAndStrides) {
  if (rank < 0 || rank > WRAPPER_MAX_RANK || wrapper_dtype_size(dtype) == 0 ||
      (rank > 0 && !sizesAndStrides))
    return -1;
  int64_t n = 1;
  for (int32_t d = 0; d < rank; ++d) {
    if (sizesAndStrides[d] < 0 ||
        (sizesAndStrides[d] != 0 && n > INT64_MAX / sizesAndStrides[d]))
      return -1;
    n *= sizesAndStrides[d];
  }
  return n;
}

/* Storage index of the row-major element `flat` of the view. */
static int64_t viewIndex(int32_t rank, const int64_t *sizesAndStrides,
                         int64_t offset, int64_t flat) {
  int64_t index = offset;
  for (int32_t d = rank - 1; d >= 0; --d) {
    index += (flat % sizesAndStrides[d]) * sizesAndStrides[rank + d];
    flat /= sizesAndStrides[d];
  }
  return index;
}

static void printShape(int32_t rank, const int64_t *sizesAndStrides) {
  printf("[");
  for (int32_t d = 0; d < rank; ++d)
    printf("%s%lld", d ? ", " : "", (long long)sizesAndStrides[d]);
  printf("]");
}

void wrapper_debug_print(const char *label, int32_t dtype, int32_t rank,
                         const int64_t *sizesAndStrides, const void *data,
                         int64_t offset) {
  int64_t n = viewElements(dtype, rank, sizesAndStrides);
  if (n < 0 || (n > 0 && !data)) {
    fprintf(stderr, "wrapper_debug_print: bad view for '%s'\n",
            label ? label : "");
    return;
  }
  double min = INFINITY, max = -INFINITY, sum = 0, squares = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = wrapper_load_element(
        dtype, data, viewIndex(rank, sizesAndStrides, offset, i));
    min = v < min ? v : min;
    max = v > max ? v : max;
    sum += v;
  }
  double mean = n ? sum / (double)n : 0;
  for (int64_t i = 0; i < n; ++i) {
    double d = wrapper_load_element(
                   dtype, data, viewIndex(rank, sizesAndStrides, offset, i)) -
               mean;
    squares += d * d;
  }
  printf("%s: shape ", label ? label : "");
  printShape(rank, sizesAndStrides);
  printf(" %s", wrapper_dtype_name((wrapper_dtype)dtype));
  if (n == 0) {
    printf(" (empty)\n");
  } else {
    printf(" min %.6g max %.6g mean %.6g std %.6g\n", min, max, mean,
           sqrt(squares / (double)n));
  }
  if (n > 0 && n <= 64) {
    printf("  values:");
    for (int64_t i = 0; i < n; ++i)
      printf(" %.6g",
             wrapper_load_element(dtype, data,
                                  viewIndex(rank, sizesAndStrides, offset, i)));
    printf("\n");
  }
  fflush(stdout);
}

void wrapper_debug_save(const char *path, int32_t dtype, int32_t rank,
                        const int64_t *sizesAndStrides, const void *data,
                        int64_t offset) {
  int64_t n = viewElements(dtype, rank, sizesAndStrides);
  if (!path || n < 0 || (n > 0 && !data)) {
    fprintf(stderr, "wrapper_debug_save: bad view for '%s'\n",
            path ? path : "");
    return;
  }
  wrapper_array array;
  if (wrapper_array_create((wrapper_dtype)dtype, rank, sizesAndStrides,
                           &array) != WRAPPER_OK) {
    fprintf(stderr, "wrapper_debug_save: %s\n", wrapper_last_error());
    return;
  }
  size_t size = wrapper_dtype_size((wrapper_dtype)dtype);
  for (int64_t i = 0; i < n; ++i)
    memcpy((char *)array.data + (size_t)i * size,
           (const char *)data +
               (size_t)viewIndex(rank, sizesAndStrides, offset, i) * size,
           size);
  if (wrapper_npy_save(path, &array) != WRAPPER_OK)
    fprintf(stderr, "wrapper_debug_save: %s\n", wrapper_last_error());
  wrapper_array_destroy(&array);
}

void wrapper_debug_message(const char *message) {
  printf("%s\n", message ? message : "");
  fflush(stdout);
}
