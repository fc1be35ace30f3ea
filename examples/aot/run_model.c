/* run_model: loads a model.so built by wrapper-compile, prints its
 * signature, runs it on inputs read from .npy files and compares the outputs
 * with reference .npy files.
 *
 *   run_model model.so in0.npy [in1.npy ...] [--ref out0.npy ...]
 *             [--save prefix] [--rtol R] [--atol A] [--device]
 *   run_model model.wpkg ... [--target cpu|cuda] [--memory]
 *
 * A package (a file ending in .wpkg, wrapper_mlir.package) is opened with
 * wrapper_package_open (with --memory: read into memory first and opened
 * with wrapper_package_open_memory) and its model for --target (default:
 * the first this host runs) loaded with wrapper_package_load; the rest is
 * the same. A swappable package's parameters are filled from the package
 * (wrapper_package_weights_create, wrapper_package_run): the inputs given
 * are the caller's only.
 *
 * With --device (a CUDA model), the program puts the inputs into device
 * memory itself and runs the model on it with wrapper_model_run_device on
 * the runtime's stream, then prints how many copies between host and
 * device the run made (none) and copies the outputs back to compare them.
 *
 * Exit status: 0 when every output matches its reference, 1 otherwise, 2 on
 * usage or loading errors. */
#include "Wrapper/Runtime/WrapperCuda.h"
#include "Wrapper/Runtime/WrapperModel.h"
#include "Wrapper/Runtime/WrapperPackage.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int32_t (*abi_version_fn)(void);
typedef wrapper_status (*create_fn)(wrapper_model **);
typedef void (*destroy_fn)(wrapper_model *);
typedef int32_t (*count_fn)(const wrapper_model *);
typedef const char *(*name_fn)(const wrapper_model *, int32_t);
typedef wrapper_status (*info_fn)(const wrapper_model *, int32_t,
                                  wrapper_dtype *, int32_t *, int64_t *);
typedef wrapper_status (*run_fn)(wrapper_model *, const wrapper_array *,
                                 int32_t, wrapper_array *, int32_t);

static void *symbol(void *library, const char *name) {
  void *fn = dlsym(library, name);
  if (!fn) {
    fprintf(stderr, "run_model: the model lacks %s\n", name);
    exit(2);
  }
  return fn;
}

/* The CUDA runtime's functions, from the model's own dependencies (this
 * program does not link the CUDA runtime). */
static struct {
  wrapper_status (*alloc)(size_t, void **);
  wrapper_status (*free)(void *);
  wrapper_status (*to_device)(void *, const void *, size_t);
  wrapper_status (*to_host)(void *, const void *, size_t);
  wrapper_status (*synchronize)(void);
  void *(*stream)(void);
  void (*stats)(wrapper_cuda_stats *);
} cuda;

/* Runs `run_device` on device copies of `inputs` (made before the run)
 * and copies the outputs into host arrays (after it). */
static wrapper_status run_on_device(void *library, wrapper_model *model,
                                    const wrapper_array *inputs, int32_t n_in,
                                    wrapper_array *outputs, int32_t n_out) {
  wrapper_status (*run_device)(wrapper_model *, const wrapper_strided_array *,
                               int32_t, wrapper_strided_array *, int32_t,
                               void *);
  *(void **)&run_device = symbol(library, "wrapper_model_run_device");
  const char *(*target)(const wrapper_model *);
  *(void **)&target = symbol(library, "wrapper_model_target");
  wrapper_strided_array in[16], out[16];
  memset(in, 0, sizeof in);
  memset(out, 0, sizeof out);
  if (strcmp(target(model), "cuda") != 0) /* refused, with the reason */
    return run_device(model, in, n_in, out, n_out, NULL);
  *(void **)&cuda.alloc = symbol(library, "wrapper_cuda_alloc");
  *(void **)&cuda.free = symbol(library, "wrapper_cuda_free");
  *(void **)&cuda.to_device = symbol(library, "wrapper_cuda_copy_to_device");
  *(void **)&cuda.to_host = symbol(library, "wrapper_cuda_copy_to_host");
  *(void **)&cuda.synchronize = symbol(library, "wrapper_cuda_synchronize");
  *(void **)&cuda.stream = symbol(library, "wrapper_cuda_stream");
  *(void **)&cuda.stats = symbol(library, "wrapper_cuda_get_stats");
  wrapper_status status = WRAPPER_OK;
  for (int32_t i = 0; i < n_in && status == WRAPPER_OK; ++i) {
    size_t bytes = (size_t)wrapper_array_numel(&inputs[i]) *
                   wrapper_dtype_size(inputs[i].dtype);
    in[i].dtype = inputs[i].dtype;
    in[i].rank = inputs[i].rank;
    int64_t stride = 1;
    for (int32_t d = inputs[i].rank - 1; d >= 0; --d) {
      in[i].shape[d] = inputs[i].shape[d];
      in[i].strides[d] = stride;
      stride *= inputs[i].shape[d];
    }
    status = cuda.alloc(bytes, &in[i].data);
    if (status == WRAPPER_OK)
      status = cuda.to_device(in[i].data, inputs[i].data, bytes);
  }
  if (status == WRAPPER_OK)
    status = cuda.synchronize();
  wrapper_cuda_stats before, after;
  cuda.stats(&before);
  if (status == WRAPPER_OK)
    status = run_device(model, in, n_in, out, n_out, cuda.stream());
  cuda.stats(&after);
  if (status == WRAPPER_OK)
    printf("device run: %llu copies between host and device\n",
           (unsigned long long)(after.copies_to_device -
                                before.copies_to_device + after.copies_to_host -
                                before.copies_to_host));
  for (int32_t o = 0; o < n_out && status == WRAPPER_OK; ++o) {
    /* The span of the (possibly strided) output, then its elements. */
    size_t element = wrapper_dtype_size(out[o].dtype);
    int64_t span = 1, count = 1;
    for (int32_t d = 0; d < out[o].rank; ++d) {
      span += (out[o].shape[d] - 1) * out[o].strides[d];
      count *= out[o].shape[d];
    }
    char *staged = malloc((size_t)(count ? span : 0) * element + 1);
    status =
        cuda.to_host(staged, out[o].data, (size_t)(count ? span : 0) * element);
    if (status == WRAPPER_OK)
      status = wrapper_array_create(out[o].dtype, out[o].rank, out[o].shape,
                                    &outputs[o]);
    for (int64_t flat = 0; status == WRAPPER_OK && flat < count; ++flat) {
      int64_t offset = 0, rest = flat;
      for (int32_t d = out[o].rank - 1; d >= 0; --d) {
        offset += rest % out[o].shape[d] * out[o].strides[d];
        rest /= out[o].shape[d];
      }
      memcpy((char *)outputs[o].data + flat * element,
             staged + offset * element, element);
    }
    free(staged);
  }
  for (int32_t o = 0; o < n_out; ++o)
    cuda.free(status == WRAPPER_OK ? out[o].allocated : NULL);
  for (int32_t i = 0; i < n_in; ++i)
    cuda.free(in[i].data);
  return status;
}

static double element(const wrapper_array *a, int64_t i) {
  switch (a->dtype) {
  case WRAPPER_DTYPE_F32:
    return ((const float *)a->data)[i];
  case WRAPPER_DTYPE_F64:
    return ((const double *)a->data)[i];
  case WRAPPER_DTYPE_F16:
    return wrapper_f16_to_f32(((const uint16_t *)a->data)[i]);
  case WRAPPER_DTYPE_I32:
    return ((const int32_t *)a->data)[i];
  case WRAPPER_DTYPE_I64:
    return (double)((const int64_t *)a->data)[i];
  case WRAPPER_DTYPE_BOOL:
  case WRAPPER_DTYPE_U8:
    return ((const uint8_t *)a->data)[i];
  default:
    return NAN;
  }
}

static void print_info(const char *what, const char *name, wrapper_dtype dtype,
                       int32_t rank, const int64_t *shape) {
  printf("%s %s: %s [", what, name, wrapper_dtype_name(dtype));
  for (int32_t d = 0; d < rank; ++d) {
    if (d)
      printf(", ");
    if (shape[d] < 0)
      printf("?");
    else
      printf("%lld", (long long)shape[d]);
  }
  printf("]\n");
}

/* The bytes of a file in page-aligned memory (the package's weights are
 * used where they lie), or NULL with a message. */
static void *read_file(const char *path, size_t *size) {
  FILE *file = fopen(path, "rb");
  if (!file) {
    fprintf(stderr, "run_model: cannot open %s\n", path);
    return NULL;
  }
  fseek(file, 0, SEEK_END);
  long length = ftell(file);
  fseek(file, 0, SEEK_SET);
  void *bytes = NULL;
  if (length <= 0 || posix_memalign(&bytes, 4096, (size_t)length) != 0 ||
      fread(bytes, 1, (size_t)length, file) != (size_t)length) {
    fprintf(stderr, "run_model: cannot read %s\n", path);
    free(bytes);
    fclose(file);
    return NULL;
  }
  fclose(file);
  *size = (size_t)length;
  return bytes;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: run_model model.so inputs.npy... [--ref "
                    "outputs.npy...] [--save prefix] [--rtol R] [--atol A] "
                    "[--device]\n");
    return 2;
  }
  const char *package_target = NULL;
  int from_memory = 0;
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--target") && i + 1 < argc)
      package_target = argv[++i];
    else if (!strcmp(argv[i], "--memory"))
      from_memory = 1;
  }
  void *library = NULL;
  wrapper_package *package = NULL;
  wrapper_package_weights *weights = NULL;
  void *package_bytes = NULL;
  size_t length = strlen(argv[1]);
  if (length > 5 && !strcmp(argv[1] + length - 5, ".wpkg")) {
    wrapper_status status;
    if (from_memory) {
      package_bytes = read_file(argv[1], &length);
      if (!package_bytes)
        return 2;
      status = wrapper_package_open_memory(package_bytes, length, &package);
    } else {
      status = wrapper_package_open(argv[1], &package);
    }
    const wrapper_model_api *api = NULL;
    if (status == WRAPPER_OK)
      status = wrapper_package_load(package, package_target, &api);
    if (status != WRAPPER_OK) {
      fprintf(stderr, "run_model: %s\n", wrapper_last_error());
      return 2;
    }
    if (wrapper_package_num_params(package) > 0 &&
        wrapper_package_weights_create(package, api->target, &weights) !=
            WRAPPER_OK) {
      fprintf(stderr, "run_model: %s\n", wrapper_last_error());
      return 2;
    }
    printf("package: %s model%s\n", api->target,
           from_memory ? " (opened from memory)" : "");
    if (weights)
      printf("swappable: %d parameters filled from the package\n",
             (int)wrapper_package_num_params(package));
    library = api->library;
  } else {
    /* dlopen searches the library path for a name without a slash. */
    char path[4096];
    snprintf(path, sizeof path, "%s%s", strchr(argv[1], '/') ? "" : "./",
             argv[1]);
    library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      fprintf(stderr, "run_model: cannot load %s: %s\n", path, dlerror());
      return 2;
    }
  }
  abi_version_fn version = (abi_version_fn)symbol(library, "wrapper_model_abi_version");
  if (version() != WRAPPER_MODEL_ABI_VERSION) {
    fprintf(stderr, "run_model: model ABI version %d, expected %d\n",
            (int)version(), WRAPPER_MODEL_ABI_VERSION);
    return 2;
  }
  create_fn create = (create_fn)symbol(library, "wrapper_model_create");
  destroy_fn destroy = (destroy_fn)symbol(library, "wrapper_model_destroy");
  count_fn num_inputs = (count_fn)symbol(library, "wrapper_model_num_inputs");
  count_fn num_outputs = (count_fn)symbol(library, "wrapper_model_num_outputs");
  name_fn input_name = (name_fn)symbol(library, "wrapper_model_input_name");
  name_fn output_name = (name_fn)symbol(library, "wrapper_model_output_name");
  info_fn input_info = (info_fn)symbol(library, "wrapper_model_input_info");
  info_fn output_info = (info_fn)symbol(library, "wrapper_model_output_info");
  run_fn run = (run_fn)symbol(library, "wrapper_model_run");

  wrapper_model *model = NULL;
  if (create(&model) != WRAPPER_OK) {
    fprintf(stderr, "run_model: %s\n", wrapper_last_error());
    return 2;
  }
  int32_t n_in = num_inputs(model), n_out = num_outputs(model);
  for (int32_t i = 0; i < n_in + n_out; ++i) {
    wrapper_dtype dtype;
    int32_t rank;
    int64_t shape[WRAPPER_MAX_RANK];
    int is_input = i < n_in;
    int32_t k = is_input ? i : i - n_in;
    (is_input ? input_info : output_info)(model, k, &dtype, &rank, shape);
    print_info(is_input ? "input" : "output",
               (is_input ? input_name : output_name)(model, k), dtype, rank,
               shape);
  }

  wrapper_array inputs[16], outputs[16], refs[16];
  int32_t got_in = 0, got_ref = 0;
  const char *save = NULL;
  double rtol = 1e-4, atol = 1e-5;
  int refs_mode = 0, device = 0;
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--target")) {
      ++i; /* read above */
    } else if (!strcmp(argv[i], "--memory")) {
      /* read above */
    } else if (!strcmp(argv[i], "--ref")) {
      refs_mode = 1;
    } else if (!strcmp(argv[i], "--device")) {
      device = 1;
    } else if (!strcmp(argv[i], "--save") && i + 1 < argc) {
      save = argv[++i];
    } else if (!strcmp(argv[i], "--rtol") && i + 1 < argc) {
      rtol = atof(argv[++i]);
    } else if (!strcmp(argv[i], "--atol") && i + 1 < argc) {
      atol = atof(argv[++i]);
    } else {
      wrapper_array *slot = refs_mode ? &refs[got_ref++] : &inputs[got_in++];
      if (wrapper_npy_load(argv[i], slot) != WRAPPER_OK) {
        fprintf(stderr, "run_model: %s\n", wrapper_last_error());
        return 2;
      }
    }
  }
  if (weights && device) {
    fprintf(stderr, "run_model: --device runs models without package "
                    "parameters (not swappable ones)\n");
    return 2;
  }
  wrapper_status status =
      weights
          ? wrapper_package_run(weights, model, inputs, got_in, outputs, n_out)
      : device ? run_on_device(library, model, inputs, got_in, outputs, n_out)
               : run(model, inputs, got_in, outputs, n_out);
  if (status != WRAPPER_OK) {
    fprintf(stderr, "run_model: run failed: %s\n", wrapper_last_error());
    destroy(model);
    return 1;
  }
  int ok = 1;
  for (int32_t o = 0; o < n_out; ++o) {
    int64_t n = wrapper_array_numel(&outputs[o]);
    printf("%s: %s, %lld elements\n", output_name(model, o),
           wrapper_dtype_name(outputs[o].dtype), (long long)n);
    if (save) {
      char path[4096];
      snprintf(path, sizeof(path), "%s%d.npy", save, (int)o);
      if (wrapper_npy_save(path, &outputs[o]) != WRAPPER_OK)
        fprintf(stderr, "run_model: %s\n", wrapper_last_error());
    }
    if (o >= got_ref)
      continue;
    if (wrapper_array_numel(&refs[o]) != n) {
      printf("  reference has %lld elements: FAIL\n",
             (long long)wrapper_array_numel(&refs[o]));
      ok = 0;
      continue;
    }
    double max_err = 0;
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      double x = element(&outputs[o], i), y = element(&refs[o], i);
      double err = fabs(x - y);
      if (err > max_err)
        max_err = err;
      if (!(err <= atol + rtol * fabs(y)))
        ++bad;
    }
    printf("  vs reference: max abs error %.3g: %s\n", max_err,
           bad ? "FAIL" : "ok");
    ok &= bad == 0;
  }
  for (int32_t o = 0; o < n_out; ++o)
    wrapper_array_destroy(&outputs[o]);
  for (int32_t i = 0; i < got_in; ++i)
    wrapper_array_destroy(&inputs[i]);
  for (int32_t i = 0; i < got_ref; ++i)
    wrapper_array_destroy(&refs[i]);
  destroy(model);
  if (package) {
    wrapper_package_weights_destroy(weights);
    wrapper_package_close(package);
    free(package_bytes);
  } else {
    dlclose(library);
  }
  return ok ? 0 : 1;
}
