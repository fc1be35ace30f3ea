/*===- Safetensors.c - the tensors of a safetensors file ------------------===*
 *
 * Part of the Wrapper project.
 *
 * WrapperPackage.h's wrapper_safetensors_read: a safetensors file is an
 * 8-byte little-endian header size, a JSON object of that many bytes naming
 * each tensor's dtype, shape and byte range ("data_offsets", relative to the
 * end of the header), then the data. The JSON is parsed here in full (every
 * escape, nesting bounded) since the bytes come from anywhere; every range
 * and size is checked against the buffer.
 *
 *===----------------------------------------------------------------------===*/

#include "Wrapper/Runtime/WrapperPackage.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* safetensors' own limit on the header (100 MB); nesting inside
 * "__metadata__" or unknown keys is bounded too. */
#define MAX_HEADER (100u << 20)
#define MAX_DEPTH 64

typedef struct {
  const char *p, *end;
  const char *error; /* the first problem found */
} json;

static int fail(json *j, const char *what) {
  if (!j->error)
    j->error = what;
  return 0;
}

/* Reports the JSON problem found (or a generic one). */
static wrapper_status json_error(const json *j) {
  return wrapper_report_error(WRAPPER_ERROR_FORMAT,
                              "not a safetensors file: %s",
                              j->error ? j->error : "malformed JSON header");
}

static void skip_space(json *j) {
  while (j->p < j->end &&
         (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
    ++j->p;
}

static int expect(json *j, char c) {
  skip_space(j);
  if (j->p >= j->end || *j->p != c)
    return fail(j, "malformed JSON header");
  ++j->p;
  return 1;
}

static int hex4(json *j, unsigned *out) {
  if (j->end - j->p < 4)
    return fail(j, "malformed JSON header (a \\u escape)");
  unsigned v = 0;
  for (int i = 0; i < 4; ++i) {
    char c = *j->p++;
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= (unsigned)(c - 'A' + 10);
    else
      return fail(j, "malformed JSON header (a \\u escape)");
  }
  *out = v;
  return 1;
}

/* Appends `code` as UTF-8 to `out` (room for 4 bytes is guaranteed). */
static size_t utf8(unsigned code, char *out) {
  if (code < 0x80) {
    out[0] = (char)code;
    return 1;
  }
  if (code < 0x800) {
    out[0] = (char)(0xC0 | (code >> 6));
    out[1] = (char)(0x80 | (code & 0x3F));
    return 2;
  }
  if (code < 0x10000) {
    out[0] = (char)(0xE0 | (code >> 12));
    out[1] = (char)(0x80 | ((code >> 6) & 0x3F));
    out[2] = (char)(0x80 | (code & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (code >> 18));
  out[1] = (char)(0x80 | ((code >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((code >> 6) & 0x3F));
  out[3] = (char)(0x80 | (code & 0x3F));
  return 4;
}

/* Parses a string; returns it decoded (malloc'd, NUL-terminated) when
 * `keep`, else NULL (also on failure, with j->error set). A decoded NUL is
 * refused: names are C strings. */
static char *string(json *j, int keep, int *ok) {
  *ok = 0;
  if (!expect(j, '"'))
    return NULL;
  /* Decoded UTF-8 is never longer than its escaped source. */
  const char *start = j->p;
  while (j->p < j->end && *j->p != '"')
    j->p += *j->p == '\\' && j->p + 1 < j->end ? 2 : 1;
  if (j->p >= j->end) {
    fail(j, "malformed JSON header (an unterminated string)");
    return NULL;
  }
  size_t length = (size_t)(j->p - start);
  const char *stop = j->p++;
  char *out = keep ? malloc(length + 1) : NULL;
  if (keep && !out) {
    fail(j, "out of memory");
    return NULL;
  }
  size_t n = 0;
  char scratch[4];
  for (const char *s = start; s < stop;) {
    unsigned char c = (unsigned char)*s++;
    if (c < 0x20) {
      free(out);
      fail(j, "malformed JSON header (a control character in a string)");
      return NULL;
    }
    if (c != '\\') {
      if (out)
        out[n] = (char)c;
      ++n;
      continue;
    }
    char e = *s++;
    unsigned code;
    switch (e) {
    case '"':
    case '\\':
    case '/':
      code = (unsigned char)e;
      break;
    case 'b':
      code = '\b';
      break;
    case 'f':
      code = '\f';
      break;
    case 'n':
      code = '\n';
      break;
    case 'r':
      code = '\r';
      break;
    case 't':
      code = '\t';
      break;
    case 'u': {
      json sub = {s, stop, NULL};
      if (!hex4(&sub, &code)) {
        free(out);
        fail(j, sub.error);
        return NULL;
      }
      s = sub.p;
      if (code >= 0xD800 && code < 0xDC00) {
        unsigned low;
        if (stop - s < 6 || s[0] != '\\' || s[1] != 'u' ||
            (sub.p = s + 2, !hex4(&sub, &low)) || low < 0xDC00 ||
            low >= 0xE000) {
          free(out);
          fail(j, "malformed JSON header (an unpaired surrogate)");
          return NULL;
        }
        s = sub.p;
        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
      } else if (code >= 0xDC00 && code < 0xE000) {
        free(out);
        fail(j, "malformed JSON header (an unpaired surrogate)");
        return NULL;
      }
      break;
    }
    default:
      free(out);
      fail(j, "malformed JSON header (an unknown escape)");
      return NULL;
    }
    if (code == 0) {
      free(out);
      fail(j, "a name in the JSON header holds a NUL character");
      return NULL;
    }
    size_t bytes = utf8(code, scratch);
    if (out)
      memcpy(out + n, scratch, bytes);
    n += bytes;
  }
  if (out)
    out[n] = '\0';
  *ok = 1;
  return out;
}

/* A non-negative integer that fits in 63 bits. */
static int integer(json *j, int64_t *out) {
  skip_space(j);
  if (j->p >= j->end || *j->p < '0' || *j->p > '9')
    return fail(j, "a shape or offset in the JSON header is not a "
                   "non-negative integer");
  uint64_t v = 0;
  while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
    v = v * 10 + (uint64_t)(*j->p++ - '0');
    if (v > (uint64_t)INT64_MAX)
      return fail(j, "a shape or offset in the JSON header is too large");
  }
  *out = (int64_t)v;
  return 1;
}

/* Skips any JSON value. */
static int skip_value(json *j, int depth) {
  if (depth > MAX_DEPTH)
    return fail(j, "the JSON header nests too deep");
  skip_space(j);
  if (j->p >= j->end)
    return fail(j, "malformed JSON header");
  char c = *j->p;
  int ok;
  if (c == '"') {
    string(j, 0, &ok);
    return ok;
  }
  if (c == '{' || c == '[') {
    char close = c == '{' ? '}' : ']';
    ++j->p;
    skip_space(j);
    if (j->p < j->end && *j->p == close) {
      ++j->p;
      return 1;
    }
    while (1) {
      if (c == '{') {
        string(j, 0, &ok);
        if (!ok || !expect(j, ':'))
          return 0;
      }
      if (!skip_value(j, depth + 1))
        return 0;
      skip_space(j);
      if (j->p < j->end && *j->p == ',') {
        ++j->p;
        continue;
      }
      return expect(j, close);
    }
  }
  const char *start = j->p;
  while (j->p < j->end &&
         (strchr("+-.eE", *j->p) || (*j->p >= '0' && *j->p <= '9') ||
          (*j->p >= 'a' && *j->p <= 'z')))
    ++j->p;
  size_t n = (size_t)(j->p - start);
  if ((n == 4 && (!memcmp(start, "true", 4) || !memcmp(start, "null", 4))) ||
      (n == 5 && !memcmp(start, "false", 5)))
    return 1;
  if (n > 0 && ((*start >= '0' && *start <= '9') || *start == '-'))
    return 1;
  return fail(j, "malformed JSON header");
}

static int dtype_of(const char *name, wrapper_dtype *out) {
  static const struct {
    const char *name;
    wrapper_dtype dtype;
  } table[] = {{"BOOL", WRAPPER_DTYPE_BOOL},       {"I8", WRAPPER_DTYPE_I8},
               {"I16", WRAPPER_DTYPE_I16},         {"I32", WRAPPER_DTYPE_I32},
               {"I64", WRAPPER_DTYPE_I64},         {"U8", WRAPPER_DTYPE_U8},
               {"F16", WRAPPER_DTYPE_F16},         {"F32", WRAPPER_DTYPE_F32},
               {"F64", WRAPPER_DTYPE_F64},         {"BF16", WRAPPER_DTYPE_BF16},
               {"F8_E4M3", WRAPPER_DTYPE_F8E4M3FN}};
  for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); ++i)
    if (strcmp(table[i].name, name) == 0) {
      *out = table[i].dtype;
      return 1;
    }
  return 0;
}

/* One tensor's description: {"dtype": ..., "shape": [...], "data_offsets":
 * [begin, end]} (other keys skipped). */
static wrapper_status tensor(json *j, const char *name, const char *data,
                             uint64_t data_size,
                             wrapper_safetensors_tensor *out) {
  int have_dtype = 0, have_shape = 0, have_offsets = 0, ok;
  int64_t begin = 0, end = 0;
  if (!expect(j, '{'))
    return json_error(j);
  skip_space(j);
  int empty = j->p < j->end && *j->p == '}';
  if (empty)
    ++j->p;
  while (!empty) {
    char *key = string(j, 1, &ok);
    if (!ok || !expect(j, ':')) {
      free(key);
      return json_error(j);
    }
    if (strcmp(key, "dtype") == 0) {
      char *dtype = string(j, 1, &ok);
      if (ok && !dtype_of(dtype, &out->view.dtype)) {
        wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED,
                             "tensor '%s' of the safetensors file has dtype "
                             "'%s', which the runtime does not support",
                             name, dtype);
        free(dtype);
        free(key);
        return WRAPPER_ERROR_UNSUPPORTED;
      }
      free(dtype);
      have_dtype = ok;
    } else if (strcmp(key, "shape") == 0) {
      ok = expect(j, '[');
      skip_space(j);
      if (ok && j->p < j->end && *j->p == ']') {
        ++j->p;
      } else {
        while (ok) {
          if (out->view.rank == WRAPPER_MAX_RANK) {
            ok = fail(j, "a tensor has more dimensions than the runtime "
                         "supports");
            break;
          }
          ok = integer(j, &out->view.shape[out->view.rank++]);
          skip_space(j);
          if (ok && j->p < j->end && *j->p == ',') {
            ++j->p;
            continue;
          }
          ok = ok && expect(j, ']');
          break;
        }
      }
      have_shape = ok;
    } else if (strcmp(key, "data_offsets") == 0) {
      ok = expect(j, '[') && integer(j, &begin) && expect(j, ',') &&
           integer(j, &end) && expect(j, ']');
      have_offsets = ok;
    } else {
      ok = skip_value(j, 1);
    }
    free(key);
    if (!ok)
      return json_error(j);
    skip_space(j);
    if (j->p < j->end && *j->p == ',') {
      ++j->p;
      continue;
    }
    if (!expect(j, '}'))
      return json_error(j);
    break;
  }
  if (!have_dtype || !have_shape || !have_offsets)
    return wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                "tensor '%s' of the safetensors file lacks "
                                "its dtype, shape or data_offsets",
                                name);
  int64_t numel = wrapper_array_numel(&out->view);
  size_t element = wrapper_dtype_size(out->view.dtype);
  if (numel < 0 || (uint64_t)numel > UINT64_MAX / element)
    return wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                "tensor '%s' of the safetensors file is too "
                                "large",
                                name);
  uint64_t bytes = (uint64_t)numel * element;
  if (begin > end || (uint64_t)(end - begin) != bytes)
    return wrapper_report_error(
        WRAPPER_ERROR_FORMAT,
        "tensor '%s' of the safetensors file: data_offsets [%lld, %lld] do "
        "not hold its %llu bytes",
        name, (long long)begin, (long long)end, (unsigned long long)bytes);
  if ((uint64_t)end > data_size)
    return wrapper_report_error(
        WRAPPER_ERROR_FORMAT,
        "tensor '%s' lies beyond the end of the safetensors file (it ends at "
        "byte %lld of %llu data bytes): the file is truncated",
        name, (long long)end, (unsigned long long)data_size);
  out->view.data = (void *)(uintptr_t)(data + begin);
  return WRAPPER_OK;
}

void wrapper_safetensors_free(wrapper_safetensors_tensor *tensors,
                              int32_t count) {
  if (!tensors)
    return;
  for (int32_t i = 0; i < count; ++i)
    free(tensors[i].name);
  free(tensors);
}

wrapper_status wrapper_safetensors_read(const void *bytes, uint64_t size,
                                        wrapper_safetensors_tensor **tensors,
                                        int32_t *count) {
  if (!tensors || !count || (!bytes && size))
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_safetensors_read: a null argument");
  *tensors = NULL;
  *count = 0;
  const unsigned char *u = bytes;
  if (size < 8)
    return wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                "not a safetensors file (%llu bytes, fewer "
                                "than its 8-byte header size)",
                                (unsigned long long)size);
  uint64_t header = 0;
  for (int i = 7; i >= 0; --i)
    header = header << 8 | u[i];
  if (header > MAX_HEADER || header > size - 8)
    return wrapper_report_error(
        WRAPPER_ERROR_FORMAT,
        "not a safetensors file, or a truncated one: its header claims %llu "
        "bytes, the file has %llu after the size",
        (unsigned long long)header, (unsigned long long)(size - 8));
  json j = {(const char *)u + 8, (const char *)u + 8 + header, NULL};
  const char *data = j.end;
  uint64_t data_size = size - 8 - header;
  wrapper_safetensors_tensor *list = NULL;
  int32_t n = 0, capacity = 0;
  wrapper_status status = WRAPPER_OK;
  int ok = expect(&j, '{');
  skip_space(&j);
  int empty = ok && j.p < j.end && *j.p == '}';
  if (empty)
    ++j.p;
  while (ok && !empty) {
    char *name = string(&j, 1, &ok);
    if (!ok || !expect(&j, ':')) {
      free(name);
      ok = 0;
      break;
    }
    if (strcmp(name, "__metadata__") == 0) {
      free(name);
      ok = skip_value(&j, 1);
    } else {
      for (int32_t i = 0; i < n; ++i)
        if (strcmp(list[i].name, name) == 0) {
          status = wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                        "the safetensors file names tensor "
                                        "'%s' twice",
                                        name);
          break;
        }
      if (status == WRAPPER_OK && n == capacity) {
        int32_t grown_capacity = capacity ? 2 * capacity : 16;
        wrapper_safetensors_tensor *grown =
            realloc(list, (size_t)grown_capacity * sizeof(*list));
        if (grown) {
          list = grown;
          capacity = grown_capacity;
        } else {
          status = wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                        "cannot read a safetensors header");
        }
      }
      if (status != WRAPPER_OK) {
        free(name);
        break;
      }
      memset(&list[n], 0, sizeof(list[n]));
      list[n].name = name;
      ++n;
      status = tensor(&j, name, data, data_size, &list[n - 1]);
      if (status != WRAPPER_OK)
        break;
    }
    if (!ok)
      break;
    skip_space(&j);
    if (j.p < j.end && *j.p == ',') {
      ++j.p;
      continue;
    }
    ok = expect(&j, '}');
    break;
  }
  if (ok && status == WRAPPER_OK) {
    skip_space(&j);
    if (j.p != j.end)
      ok = fail(&j, "malformed JSON header (bytes after its object)");
  }
  if (status == WRAPPER_OK && !ok)
    status = json_error(&j);
  if (status != WRAPPER_OK) {
    wrapper_safetensors_free(list, n);
    return status;
  }
  *tensors = list;
  *count = n;
  return WRAPPER_OK;
}
