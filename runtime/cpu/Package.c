/*===- Package.c - AOT model packages, loaded from C ----------------------===*
 *
 * Part of the Wrapper project.
 *
 * WrapperPackage.h: a zip archive of stored (uncompressed) entries, read in
 * place. The central directory is parsed (zip64 included, for packages and
 * entries over 4 GB); each model library is copied into an anonymous file
 * (memfd) and loaded from there; weights are bound where they lie.
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include "PackageInternal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static uint16_t read16(const unsigned char *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}
static uint32_t read32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}
static uint64_t read64(const unsigned char *p) {
  return (uint64_t)read32(p) | (uint64_t)read32(p + 4) << 32;
}

static uint32_t crc32_of(const unsigned char *data, uint64_t size) {
  static uint32_t table[256];
  static int ready;
  if (!ready) {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      table[i] = c;
    }
    ready = 1;
  }
  uint32_t crc = 0xFFFFFFFFu;
  for (uint64_t i = 0; i < size; ++i)
    crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

static wrapper_status damaged(const char *what) {
  return wrapper_report_error(WRAPPER_ERROR_FORMAT,
                              "not a valid Wrapper package: %s (truncated or "
                              "damaged?)",
                              what);
}

/* The zip64 extra field's values, in order, for the fields that hold
 * 0xFFFFFFFF in the central directory header. */
static int read_zip64_extra(const unsigned char *extra, uint16_t length,
                            uint64_t *size, uint64_t *compressed,
                            uint64_t *offset) {
  uint16_t at = 0;
  while (at + 4 <= length) {
    uint16_t id = read16(extra + at), bytes = read16(extra + at + 2);
    if (at + 4 + bytes > length)
      return 0;
    if (id == 1) {
      const unsigned char *value = extra + at + 4;
      uint16_t used = 0;
      uint64_t *fields[3] = {size, compressed, offset};
      for (int i = 0; i < 3; ++i) {
        if (*fields[i] != 0xFFFFFFFFu)
          continue;
        if (used + 8 > bytes)
          return 0;
        *fields[i] = read64(value + used);
        used += 8;
      }
      return 1;
    }
    at += 4 + bytes;
  }
  return *size != 0xFFFFFFFFu && *compressed != 0xFFFFFFFFu &&
         *offset != 0xFFFFFFFFu;
}

/* Reads the central directory into package->entries. */
static wrapper_status read_directory(wrapper_package *package) {
  const unsigned char *base = package->base;
  uint64_t size = package->size;
  if (size < 22)
    return wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                "not a Wrapper package: %llu bytes, too short "
                                "for a zip archive",
                                (unsigned long long)size);
  /* The end of central directory record, searched from the end (after it
   * comes a comment of at most 65535 bytes). */
  uint64_t end = size - 22, stop = size > 22 + 65535 ? size - 22 - 65535 : 0;
  for (;; --end) {
    if (read32(base + end) == 0x06054b50u)
      break;
    if (end == stop)
      return wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                  "not a Wrapper package: no zip end record "
                                  "(wrong magic number: not a zip archive)");
  }
  uint64_t count = read16(base + end + 10);
  uint64_t directory_size = read32(base + end + 12);
  uint64_t directory = read32(base + end + 16);
  if (count == 0xFFFF || directory_size == 0xFFFFFFFFu ||
      directory == 0xFFFFFFFFu) {
    /* Zip64: the locator just before the end record points at the zip64
     * end record. */
    if (end < 20 || read32(base + end - 20) != 0x07064b50u)
      return damaged("a zip64 archive without its locator");
    uint64_t record = read64(base + end - 20 + 8);
    if (size < 56 || record > size - 56 || read32(base + record) != 0x06064b50u)
      return damaged("the zip64 end record is missing");
    count = read64(base + record + 32);
    directory_size = read64(base + record + 40);
    directory = read64(base + record + 48);
  }
  if (directory > size || directory_size > size - directory)
    return damaged("the central directory lies beyond the end of the file");
  if (count > directory_size / 46)
    return damaged("more entries than the central directory holds");
  package->entries = calloc(count ? count : 1, sizeof(package_entry));
  if (!package->entries)
    return wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                "cannot allocate the package's directory");
  const unsigned char *p = base + directory, *limit = p + directory_size;
  for (uint64_t i = 0; i < count; ++i) {
    if (p + 46 > limit || read32(p) != 0x02014b50u)
      return damaged("a central directory entry is cut off");
    uint16_t method = read16(p + 10);
    uint32_t crc = read32(p + 16);
    uint64_t compressed = read32(p + 20), bytes = read32(p + 24);
    uint16_t name_length = read16(p + 28), extra_length = read16(p + 30),
             comment_length = read16(p + 32);
    uint64_t local = read32(p + 42);
    if (p + 46 + name_length + extra_length + comment_length > limit)
      return damaged("a central directory entry is cut off");
    package_entry *entry = &package->entries[i];
    entry->name = strndup((const char *)p + 46, name_length);
    if (!entry->name)
      return wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                  "cannot allocate the package's directory");
    package->num_entries = (int)i + 1;
    if (!read_zip64_extra(p + 46 + name_length, extra_length, &bytes,
                          &compressed, &local))
      return damaged("an entry's zip64 sizes are missing");
    if (method != 0 || compressed != bytes)
      return wrapper_report_error(
          WRAPPER_ERROR_FORMAT,
          "package entry '%s' is compressed (method %u): packages store "
          "their entries uncompressed, so that they are used in place "
          "(wrapper_mlir.package writes them so)",
          entry->name, method);
    if (local > size || size - local < 30 ||
        read32(base + local) != 0x04034b50u)
      return damaged("an entry's local header is missing");
    uint64_t data =
        local + 30 + read16(base + local + 26) + read16(base + local + 28);
    if (data > size || bytes > size - data)
      return damaged("an entry's data runs past the end of the file");
    entry->data = base + data;
    entry->size = bytes;
    entry->crc = crc;
    p += 46 + name_length + extra_length + comment_length;
  }
  return WRAPPER_OK;
}

static int find_entry(const wrapper_package *package, const char *name) {
  for (int i = 0; i < package->num_entries; ++i)
    if (strcmp(package->entries[i].name, name) == 0)
      return i;
  return -1;
}

/* Unloads a model's library. dlopen finds a loaded library by its name
 * before opening anything, so the name /proc/self/fd/N must not come back
 * while a library of that name is still loaded (another dlopen of it, such
 * as Python's ctypes, keeps it): its memfd stays open then, and with it the
 * number. */
static void unload(package_model *model) {
  if (model->api.library) {
    dlclose(model->api.library);
    model->api.library = NULL;
    void *still = dlopen(model->path, RTLD_NOW | RTLD_NOLOAD);
    if (still) {
      dlclose(still);
      model->fd = -1; /* kept open on purpose */
    }
  }
  if (model->fd >= 0)
    close(model->fd);
  model->fd = -1;
  model->loaded = 0;
}

static wrapper_status check_crc(const package_entry *entry) {
  if (crc32_of(entry->data, entry->size) != entry->crc)
    return wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                "package entry '%s' does not match its "
                                "checksum: the package is damaged",
                                entry->name);
  return WRAPPER_OK;
}

/* "param NAME DTYPE OFFSET BYTES RANK D0 D1 ...": a parameter of a
 * swappable package, at OFFSET of the params entry. */
static wrapper_status read_param(wrapper_package *package, const char *line) {
  char name[256];
  int dtype, rank, used = 0;
  unsigned long long offset, bytes;
  if (sscanf(line, "param %255s %d %llu %llu %d%n", name, &dtype, &offset,
             &bytes, &rank, &used) != 5 ||
      rank < 0 || rank > WRAPPER_MAX_RANK)
    return damaged("a 'param' line of the index is malformed");
  int entry = find_entry(package, "params.safetensors");
  if (entry < 0)
    return wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                "the package lacks 'params.safetensors', which "
                                "its index names parameters of");
  if (offset > package->entries[entry].size ||
      bytes > package->entries[entry].size - offset)
    return damaged("a parameter lies beyond the end of params.safetensors");
  package_param *grown = realloc(package->params, (package->num_params + 1) *
                                                      sizeof(package_param));
  if (!grown)
    return wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                "cannot read the package index");
  package->params = grown;
  package_param *param = &package->params[package->num_params];
  memset(param, 0, sizeof(*param));
  param->name = strdup(name);
  if (!param->name)
    return wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                "cannot read the package index");
  ++package->num_params;
  param->view.dtype = (wrapper_dtype)dtype;
  param->view.rank = rank;
  if (wrapper_dtype_size(param->view.dtype) == 0)
    return damaged("a parameter of the index has an unknown dtype");
  const char *p = line + used;
  for (int d = 0; d < rank; ++d) {
    long long size;
    int n = 0;
    if (sscanf(p, "%lld%n", &size, &n) != 1 || size < 0)
      return damaged("a 'param' line of the index is malformed");
    param->view.shape[d] = size;
    p += n;
  }
  int64_t numel = wrapper_array_numel(&param->view);
  if (numel < 0 ||
      (uint64_t)numel > UINT64_MAX / wrapper_dtype_size(param->view.dtype) ||
      (uint64_t)numel * wrapper_dtype_size(param->view.dtype) != bytes)
    return damaged("a parameter's size does not match its shape");
  param->view.data = (void *)(uintptr_t)(package->entries[entry].data + offset);
  return WRAPPER_OK;
}

/* "input TARGET INDEX weight NAME" or "input TARGET INDEX prepared K": an
 * input of a model that the package fills (after the models and params),
 * optionally followed by "packed NR" (format version 2): the model takes it
 * as the GEMM template's B panels, nr wide. */
static wrapper_status read_input(wrapper_package *package, const char *line) {
  char target[24], kind[16], what[256], extra[16] = "";
  int index;
  long long packed = 0;
  int fields = sscanf(line, "input %23s %d %15s %255s %15s %lld", target,
                      &index, kind, what, extra, &packed);
  if (fields < 4 || index < 0 ||
      (fields > 4 && (fields != 6 || strcmp(extra, "packed") != 0 ||
                      packed <= 0 || packed > 4096)))
    return damaged("an 'input' line of the index is malformed");
  package_model *model = wrapper_package_find_model_internal(package, target);
  if (!model)
    return damaged("an 'input' line names a model the index does not list");
  int32_t which = -1;
  int prepared = strcmp(kind, "prepared") == 0;
  if (prepared) {
    which = atoi(what);
  } else if (strcmp(kind, "weight") == 0) {
    for (int i = 0; i < package->num_params; ++i)
      if (strcmp(package->params[i].name, what) == 0)
        which = i;
    if (which < 0)
      return wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                  "the package's index names a parameter '%s' "
                                  "it does not hold",
                                  what);
  } else {
    return damaged("an 'input' line is neither weight nor prepared");
  }
  package_input *grown =
      realloc(model->inputs, (model->num_inputs + 1) * sizeof(package_input));
  if (!grown)
    return wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                "cannot read the package index");
  model->inputs = grown;
  model->inputs[model->num_inputs++] =
      (package_input){index, prepared, which, packed};
  return WRAPPER_OK;
}

package_model *wrapper_package_find_model_internal(wrapper_package *package,
                                                   const char *target) {
  for (int i = 0; i < package->num_models; ++i)
    if (strcmp(package->models[i].target, target) == 0)
      return &package->models[i];
  return NULL;
}

/* Parses the index (format version, models) and copies the metadata. */
static wrapper_status read_index(wrapper_package *package) {
  int index = find_entry(package, INDEX_NAME);
  if (index < 0)
    return wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                "a zip archive but not a Wrapper package: it "
                                "has no " INDEX_NAME);
  const package_entry *entry = &package->entries[index];
  wrapper_status status = check_crc(entry);
  if (status != WRAPPER_OK)
    return status;
  char *text = strndup((const char *)entry->data, entry->size);
  if (!text)
    return wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                "cannot read the package index");
  char *save = NULL;
  int line_number = 0;
  status = WRAPPER_OK;
  for (char *line = strtok_r(text, "\n", &save); line && status == WRAPPER_OK;
       line = strtok_r(NULL, "\n", &save)) {
    ++line_number;
    char kind[32], target[24], library[256], weights[256];
    int version;
    if (line_number == 1) {
      if (sscanf(line, "wrapper-package %d", &version) != 1)
        status = damaged("the index does not start with 'wrapper-package'");
      else if (version < 1 || version > WRAPPER_PACKAGE_FORMAT_VERSION)
        status = wrapper_report_error(
            WRAPPER_ERROR_UNSUPPORTED,
            "package format version %d; this runtime reads versions 1 to %d "
            "(use the runtime of the wrapper_mlir that made the package)",
            version, WRAPPER_PACKAGE_FORMAT_VERSION);
      continue;
    }
    if (sscanf(line, "%31s", kind) != 1)
      continue;
    if (strcmp(kind, "param") == 0) {
      status = read_param(package, line);
      continue;
    }
    if (strcmp(kind, "input") == 0) {
      status = read_input(package, line);
      continue;
    }
    if (strcmp(kind, "model") != 0)
      continue; /* a kind of line a later version added */
    if (sscanf(line, "%31s %23s %255s %255s", kind, target, library, weights) !=
        4) {
      status = damaged("an index line is not 'model TARGET LIBRARY WEIGHTS'");
      break;
    }
    if (package->num_models == MAX_MODELS) {
      status = wrapper_report_error(WRAPPER_ERROR_LIMIT,
                                    "the package holds more than %d models",
                                    MAX_MODELS);
      break;
    }
    package_model *model = &package->models[package->num_models];
    snprintf(model->target, sizeof(model->target), "%s", target);
    model->library = find_entry(package, library);
    model->weights =
        strcmp(weights, "-") == 0 ? -1 : find_entry(package, weights);
    model->fd = -1;
    if (model->library < 0)
      status = wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                    "the package lacks '%s', the %s model's "
                                    "library",
                                    library, target);
    else if (model->weights < 0 && strcmp(weights, "-") != 0)
      status = wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                    "the package lacks '%s', the %s model's "
                                    "weights",
                                    weights, target);
    ++package->num_models;
  }
  free(text);
  if (status == WRAPPER_OK && line_number == 0)
    status = damaged("the index is empty");
  if (status != WRAPPER_OK)
    return status;
  int metadata = find_entry(package, METADATA_NAME);
  package->metadata =
      metadata < 0 ? strdup("")
                   : strndup((const char *)package->entries[metadata].data,
                             package->entries[metadata].size);
  if (!package->metadata)
    return wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                "cannot read the package metadata");
  /* Weights are used in place: they must be aligned as compiled code reads
   * them. */
  for (int i = 0; i < package->num_models; ++i) {
    int weights = package->models[i].weights;
    if (weights >= 0 && (uintptr_t)package->entries[weights].data % 64 != 0)
      return wrapper_report_error(
          WRAPPER_ERROR_INVALID_ARGUMENT,
          "the weights '%s' lie at an address that is not 64-byte aligned: "
          "open the package from a file, or from memory aligned to 4096 "
          "bytes",
          package->entries[weights].name);
  }
  return WRAPPER_OK;
}

static wrapper_status open_package(wrapper_package *package) {
  wrapper_status status = read_directory(package);
  if (status == WRAPPER_OK)
    status = read_index(package);
  return status;
}

wrapper_status wrapper_package_open_memory(const void *data, uint64_t size,
                                           wrapper_package **out) {
  if (!data || !out)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_package_open_memory: no data or no "
                                "result pointer");
  *out = NULL;
  wrapper_package *package = calloc(1, sizeof(*package));
  if (!package)
    return wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                "cannot allocate a package");
  package->base = data;
  package->size = size;
  wrapper_status status = open_package(package);
  if (status != WRAPPER_OK) {
    wrapper_package_close(package);
    return status;
  }
  *out = package;
  return WRAPPER_OK;
}

wrapper_status wrapper_package_open(const char *path, wrapper_package **out) {
  if (!path || !out)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_package_open: no path or no result "
                                "pointer");
  *out = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return wrapper_report_error(WRAPPER_ERROR_IO, "cannot open '%s': %s", path,
                                strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return wrapper_report_error(WRAPPER_ERROR_IO, "'%s' is not a regular file",
                                path);
  }
  if (st.st_size == 0) {
    close(fd);
    return wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                "not a Wrapper package: '%s' is empty", path);
  }
  void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED)
    return wrapper_report_error(WRAPPER_ERROR_IO, "cannot map '%s': %s", path,
                                strerror(errno));
  wrapper_package *package = calloc(1, sizeof(*package));
  if (!package) {
    munmap(map, (size_t)st.st_size);
    return wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                "cannot allocate a package");
  }
  package->base = map;
  package->size = (uint64_t)st.st_size;
  package->map = map;
  wrapper_status status = open_package(package);
  if (status != WRAPPER_OK) {
    char message[1024];
    snprintf(message, sizeof(message), "%s", wrapper_last_error());
    wrapper_package_close(package);
    return wrapper_report_error(status, "'%s': %s", path, message);
  }
  *out = package;
  return WRAPPER_OK;
}

void wrapper_package_close(wrapper_package *package) {
  if (!package)
    return;
  for (int i = 0; i < package->num_models; ++i)
    unload(&package->models[i]);
  for (int i = 0; i < package->num_models; ++i)
    free(package->models[i].inputs);
  for (int i = 0; i < package->num_params; ++i)
    free(package->params[i].name);
  free(package->params);
  for (int i = 0; i < package->num_entries; ++i)
    free(package->entries[i].name);
  free(package->entries);
  free(package->metadata);
  if (package->map)
    munmap(package->map, (size_t)package->size);
  free(package);
}

const char *wrapper_package_metadata(const wrapper_package *package) {
  return package && package->metadata ? package->metadata : "";
}

wrapper_status wrapper_package_entry(const wrapper_package *package,
                                     const char *name, const void **data,
                                     uint64_t *size) {
  if (!package || !name || !data || !size)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_package_entry: a null argument");
  int index = find_entry(package, name);
  if (index < 0)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "the package has no entry '%s'", name);
  *data = package->entries[index].data;
  *size = package->entries[index].size;
  return WRAPPER_OK;
}

int32_t wrapper_package_num_models(const wrapper_package *package) {
  return package ? package->num_models : 0;
}

const char *wrapper_package_model_target(const wrapper_package *package,
                                         int32_t i) {
  if (!package || i < 0 || i >= package->num_models)
    return NULL;
  return package->models[i].target;
}

/* LLVM feature names and the /proc/cpuinfo flags that say the host has
 * them: the vector and matrix extensions compiled code may use. */
static const char *const kFeatureFlags[][2] = {
    {"sse4.2", "sse4_2"},
    {"avx", "avx"},
    {"avx2", "avx2"},
    {"fma", "fma"},
    {"f16c", "f16c"},
    {"avx512f", "avx512f"},
    {"avx512bw", "avx512bw"},
    {"avx512dq", "avx512dq"},
    {"avx512vl", "avx512vl"},
    {"avx512cd", "avx512cd"},
    {"avx512bf16", "avx512_bf16"},
    {"avx512fp16", "avx512_fp16"},
    {"avx512vnni", "avx512_vnni"},
    {"avx512vbmi", "avx512vbmi"},
    {"avx512vbmi2", "avx512_vbmi2"},
    {"avx512ifma", "avx512ifma"},
    {"avx512bitalg", "avx512_bitalg"},
    {"avx512vpopcntdq", "avx512_vpopcntdq"},
    {"avxvnni", "avx_vnni"},
    {"amx-tile", "amx_tile"},
    {"amx-bf16", "amx_bf16"},
    {"amx-int8", "amx_int8"},
};

/* The host's CPU flags as " flag flag ... " (WRAPPER_HOST_CPU_FLAGS or
 * /proc/cpuinfo's first "flags" line); NULL when unknown. */
static char *host_flags(void) {
  const char *override = getenv("WRAPPER_HOST_CPU_FLAGS");
  char *flags = NULL;
  if (override) {
    flags = malloc(strlen(override) + 3);
    if (flags)
      sprintf(flags, " %s ", override);
    return flags;
  }
  FILE *file = fopen("/proc/cpuinfo", "r");
  if (!file)
    return NULL;
  char *line = NULL;
  size_t capacity = 0;
  while (getline(&line, &capacity, file) > 0) {
    if (strncmp(line, "flags", 5) != 0)
      continue;
    const char *colon = strchr(line, ':');
    if (!colon)
      break;
    flags = malloc(strlen(colon) + 3);
    if (flags) {
      sprintf(flags, " %s ", colon + 1);
      for (char *c = flags; *c; ++c)
        if (*c == '\n' || *c == '\t')
          *c = ' ';
    }
    break;
  }
  free(line);
  fclose(file);
  return flags;
}

int32_t wrapper_cpu_missing_features(const char *features, char *missing,
                                     size_t missing_size) {
  if (missing && missing_size)
    missing[0] = '\0';
  char *flags = host_flags();
  if (!flags || !features)
    return (free(flags), 0);
  int32_t count = 0;
  const char *p = features;
  while (*p) {
    const char *end = strchr(p, ',');
    size_t length = end ? (size_t)(end - p) : strlen(p);
    if (length > 1 && p[0] == '+') {
      for (size_t i = 0; i < sizeof(kFeatureFlags) / sizeof(kFeatureFlags[0]);
           ++i) {
        if (strlen(kFeatureFlags[i][0]) != length - 1 ||
            strncmp(kFeatureFlags[i][0], p + 1, length - 1) != 0)
          continue;
        char needle[40];
        snprintf(needle, sizeof(needle), " %s ", kFeatureFlags[i][1]);
        if (!strstr(flags, needle)) {
          if (missing && missing_size) {
            size_t used = strlen(missing);
            snprintf(missing + used, missing_size - used, "%s%s",
                     count ? ", " : "", kFeatureFlags[i][0]);
          }
          ++count;
        }
      }
    }
    p += length + (end ? 1 : 0);
  }
  free(flags);
  return count;
}

static void *symbol(void *library, const char *name) {
  return dlsym(library, name);
}

/* Resolves the model ABI of a loaded library into `api`. */
static wrapper_status resolve_api(package_model *model, const char *entry) {
  wrapper_model_api *api = &model->api;
  void *library = api->library;
  api->target = model->target;
  api->path = model->path;
  api->abi_version =
      (int32_t(*)(void))symbol(library, "wrapper_model_abi_version");
  api->create = (wrapper_status(*)(wrapper_model **))symbol(
      library, "wrapper_model_create");
  api->destroy =
      (void (*)(wrapper_model *))symbol(library, "wrapper_model_destroy");
  api->num_inputs = (int32_t(*)(const wrapper_model *))symbol(
      library, "wrapper_model_num_inputs");
  api->num_outputs = (int32_t(*)(const wrapper_model *))symbol(
      library, "wrapper_model_num_outputs");
  api->input_name = (const char *(*)(const wrapper_model *, int32_t))symbol(
      library, "wrapper_model_input_name");
  api->output_name = (const char *(*)(const wrapper_model *, int32_t))symbol(
      library, "wrapper_model_output_name");
  typedef wrapper_status (*info_fn)(const wrapper_model *, int32_t,
                                    wrapper_dtype *, int32_t *, int64_t *);
  api->input_info = (info_fn)symbol(library, "wrapper_model_input_info");
  api->output_info = (info_fn)symbol(library, "wrapper_model_output_info");
  api->run = (wrapper_status(*)(wrapper_model *, const wrapper_array *, int32_t,
                                wrapper_array *,
                                int32_t))symbol(library, "wrapper_model_run");
  api->run_device =
      (wrapper_status(*)(wrapper_model *, const wrapper_strided_array *,
                         int32_t, wrapper_strided_array *, int32_t,
                         void *))symbol(library, "wrapper_model_run_device");
  if (!api->abi_version || !api->create || !api->destroy || !api->num_inputs ||
      !api->num_outputs || !api->input_name || !api->output_name ||
      !api->input_info || !api->output_info || !api->run)
    return wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                "package entry '%s' is not a model library "
                                "(it lacks the model ABI's functions)",
                                entry);
  int32_t version = api->abi_version();
  if (version < 1 || version > WRAPPER_MODEL_ABI_VERSION)
    return wrapper_report_error(
        WRAPPER_ERROR_UNSUPPORTED,
        "package entry '%s' implements model ABI %d; this runtime calls ABI "
        "1 to %d (use the runtime of the wrapper_mlir that made the package)",
        entry, version, WRAPPER_MODEL_ABI_VERSION);
  return WRAPPER_OK;
}

/* Copies the library into an anonymous file and loads it from there. */
static wrapper_status load_library(package_model *model,
                                   const package_entry *entry) {
  wrapper_status status = check_crc(entry);
  if (status != WRAPPER_OK)
    return status;
  int fd = memfd_create("wrapper-model", MFD_CLOEXEC);
  if (fd < 0)
    return wrapper_report_error(WRAPPER_ERROR_IO,
                                "cannot create an in-memory file for '%s': %s",
                                entry->name, strerror(errno));
  for (uint64_t written = 0; written < entry->size;) {
    ssize_t n = write(fd, entry->data + written, entry->size - written);
    if (n <= 0) {
      close(fd);
      return wrapper_report_error(WRAPPER_ERROR_IO, "cannot copy '%s': %s",
                                  entry->name, strerror(errno));
    }
    written += (uint64_t)n;
  }
  snprintf(model->path, sizeof(model->path), "/proc/self/fd/%d", fd);
  void *library = dlopen(model->path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    close(fd);
    return wrapper_report_error(WRAPPER_ERROR_IO,
                                "cannot load the %s model's library '%s': %s",
                                model->target, entry->name, dlerror());
  }
  model->fd = fd;
  model->api.library = library;
  return WRAPPER_OK;
}

static wrapper_status load_model(wrapper_package *package,
                                 package_model *model) {
  const package_entry *entry = &package->entries[model->library];
  wrapper_status status = load_library(model, entry);
  if (status == WRAPPER_OK)
    status = resolve_api(model, entry->name);
  if (status == WRAPPER_OK) {
    const char *(*features)(void) = (const char *(*)(void))symbol(
        model->api.library, "wrapper_model_cpu_features");
    char missing[512];
    if (features &&
        wrapper_cpu_missing_features(features(), missing, sizeof(missing)) > 0)
      status = wrapper_report_error(
          WRAPPER_ERROR_UNSUPPORTED,
          "the %s model was compiled for CPU features this host lacks (%s): "
          "make the package on a host like this one, or for its CPU",
          model->target, missing);
  }
  if (status == WRAPPER_OK && model->weights >= 0) {
    const package_entry *weights = &package->entries[model->weights];
    wrapper_status (*bind)(const void *, uint64_t) =
        (wrapper_status(*)(const void *, uint64_t))symbol(
            model->api.library, "wrapper_model_bind_weights");
    if (!bind)
      status = wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                    "the %s model's library takes no external "
                                    "weights, but the package gives it '%s'",
                                    model->target, weights->name);
    else if ((status = bind(weights->data, weights->size)) != WRAPPER_OK) {
      char message[1024];
      snprintf(message, sizeof(message), "%s", wrapper_last_error());
      status = wrapper_report_error(status, "package entry '%s': %s",
                                    weights->name, message);
    }
  }
  if (status != WRAPPER_OK) {
    unload(model);
    return status;
  }
  model->loaded = 1;
  return WRAPPER_OK;
}

wrapper_status wrapper_package_load(wrapper_package *package,
                                    const char *target,
                                    const wrapper_model_api **out) {
  if (!package || !out)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_package_load: no package or no "
                                "result pointer");
  *out = NULL;
  wrapper_status first_failure = WRAPPER_OK;
  char failure[1024] = "";
  for (int i = 0; i < package->num_models; ++i) {
    package_model *model = &package->models[i];
    if (target ? strcmp(model->target, target) != 0
               : strchr(model->target, ':') != NULL)
      continue; /* "cpu:prepare" and such load only by name */
    if (!model->loaded) {
      wrapper_status status = load_model(package, model);
      if (status != WRAPPER_OK) {
        if (target)
          return status;
        /* Without a target: try the next one, and report the first
         * refusal when none loads. */
        if (first_failure == WRAPPER_OK) {
          first_failure = status;
          snprintf(failure, sizeof(failure), "%s", wrapper_last_error());
        }
        continue;
      }
    }
    *out = &model->api;
    return WRAPPER_OK;
  }
  if (first_failure != WRAPPER_OK)
    return wrapper_report_error(first_failure, "%s", failure);
  char targets[128] = "";
  for (int i = 0; i < package->num_models; ++i) {
    size_t used = strlen(targets);
    snprintf(targets + used, sizeof(targets) - used, "%s%s", i ? ", " : "",
             package->models[i].target);
  }
  return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                              "the package has no %s model (it has: %s)",
                              target ? target : "loadable",
                              targets[0] ? targets : "none");
}
