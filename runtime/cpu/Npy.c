/*===- Npy.c - arrays and NumPy .npy files -------------------------------===*
 *
 * Part of the Wrapper project.
 *
 * A strict reader: every malformed header, unsupported dtype, Fortran order,
 * big-endian data, truncated or oversized payload is an error naming the
 * file and what was expected, never a partial array.
 *
 *===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 200809L

#include "RuntimeInternal.h"
#include "Wrapper/Runtime/WrapperRuntime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t wrapper_dtype_size(wrapper_dtype dtype) {
  switch (dtype) {
  case WRAPPER_DTYPE_BOOL:
  case WRAPPER_DTYPE_I8:
  case WRAPPER_DTYPE_U8:
  case WRAPPER_DTYPE_F8E4M3FN:
    return 1;
  case WRAPPER_DTYPE_I16:
  case WRAPPER_DTYPE_F16:
  case WRAPPER_DTYPE_BF16:
    return 2;
  case WRAPPER_DTYPE_I32:
  case WRAPPER_DTYPE_F32:
    return 4;
  case WRAPPER_DTYPE_I64:
  case WRAPPER_DTYPE_F64:
    return 8;
  }
  return 0;
}

const char *wrapper_dtype_name(wrapper_dtype dtype) {
  switch (dtype) {
  case WRAPPER_DTYPE_BOOL:
    return "bool";
  case WRAPPER_DTYPE_I8:
    return "int8";
  case WRAPPER_DTYPE_I16:
    return "int16";
  case WRAPPER_DTYPE_I32:
    return "int32";
  case WRAPPER_DTYPE_I64:
    return "int64";
  case WRAPPER_DTYPE_U8:
    return "uint8";
  case WRAPPER_DTYPE_F16:
    return "float16";
  case WRAPPER_DTYPE_F32:
    return "float32";
  case WRAPPER_DTYPE_F64:
    return "float64";
  case WRAPPER_DTYPE_BF16:
    return "bfloat16";
  case WRAPPER_DTYPE_F8E4M3FN:
    return "float8_e4m3fn";
  }
  return "unknown";
}

/* The .npy descr of a dtype, without the byte-order character. */
static const char *dtypeDescr(wrapper_dtype dtype) {
  switch (dtype) {
  case WRAPPER_DTYPE_BOOL:
    return "|b1";
  case WRAPPER_DTYPE_I8:
    return "|i1";
  case WRAPPER_DTYPE_U8:
    return "|u1";
  case WRAPPER_DTYPE_I16:
    return "<i2";
  case WRAPPER_DTYPE_I32:
    return "<i4";
  case WRAPPER_DTYPE_I64:
    return "<i8";
  case WRAPPER_DTYPE_F16:
    return "<f2";
  case WRAPPER_DTYPE_F32:
    return "<f4";
  case WRAPPER_DTYPE_F64:
    return "<f8";
  case WRAPPER_DTYPE_BF16:
  case WRAPPER_DTYPE_F8E4M3FN:
    return NULL;
  }
  return NULL;
}

int64_t wrapper_array_numel(const wrapper_array *array) {
  int64_t count = 1;
  for (int32_t i = 0; i < array->rank; ++i) {
    if (array->shape[i] < 0 ||
        __builtin_mul_overflow(count, array->shape[i], &count))
      return -1;
  }
  return count;
}

/* Bytes of an array's payload, or -1 on overflow. */
static int64_t payloadBytes(const wrapper_array *array) {
  int64_t numel = wrapper_array_numel(array);
  int64_t bytes;
  if (numel < 0 ||
      __builtin_mul_overflow(numel, (int64_t)wrapper_dtype_size(array->dtype),
                             &bytes))
    return -1;
  return bytes;
}

wrapper_status wrapper_array_create(wrapper_dtype dtype, int32_t rank,
                                    const int64_t *shape, wrapper_array *out) {
  if (!out || (rank > 0 && !shape))
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "wrapper_array_create: NULL argument");
  memset(out, 0, sizeof(*out));
  if (rank < 0 || rank > WRAPPER_MAX_RANK)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "rank %d is outside [0, %d]", (int)rank,
                             WRAPPER_MAX_RANK);
  if (wrapper_dtype_size(dtype) == 0)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT, "unknown dtype %d",
                             (int)dtype);
  out->dtype = dtype;
  out->rank = rank;
  for (int32_t i = 0; i < rank; ++i) {
    if (shape[i] < 0)
      return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                               "dimension %d has negative size %lld", (int)i,
                               (long long)shape[i]);
    out->shape[i] = shape[i];
  }
  int64_t bytes = payloadBytes(out);
  if (bytes < 0)
    return wrapper_set_error(WRAPPER_ERROR_LIMIT,
                             "array size overflows a 64-bit byte count");
  wrapper_status status = wrapper_alloc((size_t)bytes, 64, &out->data);
  if (status != WRAPPER_OK)
    return status;
  memset(out->data, 0, (size_t)bytes);
  return WRAPPER_OK;
}

void wrapper_array_destroy(wrapper_array *array) {
  if (!array)
    return;
  wrapper_free(array->data);
  array->data = NULL;
}

/*===------------------------------------------------------------------===*
 * Reading
 *===------------------------------------------------------------------===*/

/* Finds `'key':` in the header dict and returns the text after it. */
static const char *findKey(const char *header, const char *key) {
  char pattern[64];
  snprintf(pattern, sizeof(pattern), "'%s'", key);
  const char *at = strstr(header, pattern);
  if (!at)
    return NULL;
  at += strlen(pattern);
  while (*at == ' ')
    ++at;
  if (*at != ':')
    return NULL;
  ++at;
  while (*at == ' ')
    ++at;
  return at;
}

static int parseDescr(const char *text, wrapper_dtype *dtype, char *descr,
                      size_t descrSize) {
  if (*text != '\'' && *text != '"')
    return 0;
  char quote = *text++;
  const char *end = strchr(text, quote);
  if (!end || (size_t)(end - text) >= descrSize)
    return 0;
  memcpy(descr, text, (size_t)(end - text));
  descr[end - text] = 0;
  static const struct {
    const char *names[3];
    wrapper_dtype dtype;
  } table[] = {
      {{"|b1", "<b1", "=b1"}, WRAPPER_DTYPE_BOOL},
      {{"|i1", "<i1", "=i1"}, WRAPPER_DTYPE_I8},
      {{"|u1", "<u1", "=u1"}, WRAPPER_DTYPE_U8},
      {{"<i2", "=i2", ""}, WRAPPER_DTYPE_I16},
      {{"<i4", "=i4", ""}, WRAPPER_DTYPE_I32},
      {{"<i8", "=i8", ""}, WRAPPER_DTYPE_I64},
      {{"<f2", "=f2", ""}, WRAPPER_DTYPE_F16},
      {{"<f4", "=f4", ""}, WRAPPER_DTYPE_F32},
      {{"<f8", "=f8", ""}, WRAPPER_DTYPE_F64},
  };
  for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); ++i)
    for (int j = 0; j < 3; ++j)
      if (table[i].names[j][0] && strcmp(descr, table[i].names[j]) == 0) {
        *dtype = table[i].dtype;
        return 1;
      }
  return -1; /* well-formed but unsupported */
}

static int parseShape(const char *text, wrapper_array *array) {
  if (*text != '(')
    return 0;
  ++text;
  array->rank = 0;
  for (;;) {
    while (*text == ' ' || *text == ',')
      ++text;
    if (*text == ')')
      return 1;
    if (*text < '0' || *text > '9')
      return 0;
    if (array->rank == WRAPPER_MAX_RANK)
      return -1;
    char *end;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno == ERANGE || value < 0)
      return 0;
    array->shape[array->rank++] = value;
    text = end;
    if (*text == 'L') /* Python 2 longs */
      ++text;
  }
}

wrapper_status wrapper_npy_load(const char *path, wrapper_array *out) {
  if (!path || !out)
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "wrapper_npy_load: NULL argument");
  memset(out, 0, sizeof(*out));
  FILE *file = fopen(path, "rb");
  if (!file)
    return wrapper_set_error(WRAPPER_ERROR_IO, "cannot open '%s': %s", path,
                             strerror(errno));
  wrapper_status status = WRAPPER_OK;
  char *header = NULL;
  unsigned char preamble[10];
  if (fread(preamble, 1, 8, file) != 8 ||
      memcmp(preamble, "\x93NUMPY", 6) != 0) {
    status = wrapper_set_error(WRAPPER_ERROR_FORMAT,
                               "'%s' is not a .npy file (bad magic)", path);
    goto done;
  }
  unsigned major = preamble[6];
  size_t headerLen;
  if (major == 1) {
    unsigned char len[2];
    if (fread(len, 1, 2, file) != 2)
      goto truncated;
    headerLen = (size_t)len[0] | ((size_t)len[1] << 8);
  } else if (major == 2 || major == 3) {
    unsigned char len[4];
    if (fread(len, 1, 4, file) != 4)
      goto truncated;
    headerLen = (size_t)len[0] | ((size_t)len[1] << 8) |
                ((size_t)len[2] << 16) | ((size_t)len[3] << 24);
  } else {
    status = wrapper_set_error(WRAPPER_ERROR_UNSUPPORTED,
                               "'%s' has .npy format version %u, expected 1, "
                               "2 or 3",
                               path, major);
    goto done;
  }
  if (headerLen > (1u << 20)) {
    status = wrapper_set_error(WRAPPER_ERROR_FORMAT,
                               "'%s' has a header of %zu bytes, more than "
                               "1 MiB",
                               path, headerLen);
    goto done;
  }
  header = (char *)malloc(headerLen + 1);
  if (!header) {
    status = wrapper_set_error(WRAPPER_ERROR_OUT_OF_MEMORY, "out of memory");
    goto done;
  }
  if (fread(header, 1, headerLen, file) != headerLen)
    goto truncated;
  header[headerLen] = 0;

  char descr[32];
  const char *descrText = findKey(header, "descr");
  const char *orderText = findKey(header, "fortran_order");
  const char *shapeText = findKey(header, "shape");
  int parsed;
  if (!descrText || !orderText || !shapeText) {
    status = wrapper_set_error(WRAPPER_ERROR_FORMAT,
                               "'%s' has a malformed header: expected the "
                               "keys 'descr', 'fortran_order' and 'shape'",
                               path);
    goto done;
  }
  parsed = parseDescr(descrText, &out->dtype, descr, sizeof(descr));
  if (parsed == 0) {
    status = wrapper_set_error(WRAPPER_ERROR_FORMAT,
                               "'%s' has a malformed 'descr'", path);
    goto done;
  }
  if (parsed < 0) {
    status = wrapper_set_error(
        WRAPPER_ERROR_UNSUPPORTED,
        "'%s' has dtype '%s'; supported: bool, int8, uint8, int16, int32, "
        "int64, float16, float32, float64, little-endian",
        path, descr);
    goto done;
  }
  if (strncmp(orderText, "False", 5) != 0) {
    status = wrapper_set_error(WRAPPER_ERROR_UNSUPPORTED,
                               "'%s' is in Fortran order; save it C-contiguous "
                               "(numpy.ascontiguousarray)",
                               path);
    goto done;
  }
  parsed = parseShape(shapeText, out);
  if (parsed <= 0) {
    status = wrapper_set_error(WRAPPER_ERROR_FORMAT,
                               parsed < 0 ? "'%s' has more than 16 dimensions"
                                          : "'%s' has a malformed 'shape'",
                               path);
    goto done;
  }
  {
    int64_t bytes = payloadBytes(out);
    if (bytes < 0) {
      status = wrapper_set_error(WRAPPER_ERROR_LIMIT,
                                 "'%s' has a shape whose size overflows a "
                                 "64-bit byte count",
                                 path);
      goto done;
    }
    long start = ftell(file);
    if (fseek(file, 0, SEEK_END) != 0) {
      status = wrapper_set_error(WRAPPER_ERROR_IO, "cannot seek in '%s'", path);
      goto done;
    }
    long end = ftell(file);
    if (start < 0 || end < 0 || fseek(file, start, SEEK_SET) != 0) {
      status = wrapper_set_error(WRAPPER_ERROR_IO, "cannot seek in '%s'", path);
      goto done;
    }
    if ((int64_t)(end - start) != bytes) {
      status = wrapper_set_error(
          WRAPPER_ERROR_FORMAT,
          "'%s' holds %lld bytes of data, but its shape and dtype need %lld",
          path, (long long)(end - start), (long long)bytes);
      goto done;
    }
    status = wrapper_alloc((size_t)bytes, 64, &out->data);
    if (status != WRAPPER_OK)
      goto done;
    if (fread(out->data, 1, (size_t)bytes, file) != (size_t)bytes)
      goto truncated;
  }
  goto done;

truncated:
  status = wrapper_set_error(WRAPPER_ERROR_FORMAT, "'%s' is truncated", path);
done:
  free(header);
  fclose(file);
  if (status != WRAPPER_OK) {
    wrapper_free(out->data);
    memset(out, 0, sizeof(*out));
  }
  return status;
}

/*===------------------------------------------------------------------===*
 * Writing
 *===------------------------------------------------------------------===*/

wrapper_status wrapper_npy_save(const char *path, const wrapper_array *array) {
  if (!path || !array || (!array->data && wrapper_array_numel(array) != 0))
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "wrapper_npy_save: NULL argument");
  const char *descr = dtypeDescr(array->dtype);
  if (!descr)
    return wrapper_set_error(WRAPPER_ERROR_UNSUPPORTED,
                             "cannot save %s data to '%s': NumPy has no such "
                             "dtype",
                             wrapper_dtype_name(array->dtype), path);
  int64_t bytes = payloadBytes(array);
  if (bytes < 0)
    return wrapper_set_error(WRAPPER_ERROR_LIMIT, "array too large");
  char dict[512];
  int n = snprintf(dict, sizeof(dict),
                   "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int32_t i = 0; i < array->rank; ++i)
    n += snprintf(dict + n, sizeof(dict) - (size_t)n, "%lld%s",
                  (long long)array->shape[i],
                  array->rank == 1 || i + 1 < array->rank ? ", " : "");
  n += snprintf(dict + n, sizeof(dict) - (size_t)n, "), }");
  /* Pad so that the data starts on a 64-byte boundary; end with '\n'. */
  size_t total = 10 + (size_t)n + 1;
  size_t padded = (total + 63) / 64 * 64;
  size_t headerLen = padded - 10;
  FILE *file = fopen(path, "wb");
  if (!file)
    return wrapper_set_error(WRAPPER_ERROR_IO, "cannot create '%s': %s", path,
                             strerror(errno));
  unsigned char preamble[10] = {0x93,
                                'N',
                                'U',
                                'M',
                                'P',
                                'Y',
                                1,
                                0,
                                (unsigned char)(headerLen & 0xff),
                                (unsigned char)(headerLen >> 8)};
  int ok = fwrite(preamble, 1, 10, file) == 10 &&
           fwrite(dict, 1, (size_t)n, file) == (size_t)n;
  for (size_t i = (size_t)n; ok && i + 1 < headerLen; ++i)
    ok = fputc(' ', file) != EOF;
  ok = ok && fputc('\n', file) != EOF;
  ok = ok && (bytes == 0 ||
              fwrite(array->data, 1, (size_t)bytes, file) == (size_t)bytes);
  ok = (fclose(file) == 0) && ok;
  if (!ok)
    return wrapper_set_error(WRAPPER_ERROR_IO, "cannot write '%s'", path);
  return WRAPPER_OK;
}
