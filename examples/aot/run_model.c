/* run_model: loads a model.so built by wrapper-compile, prints its
 * signature, runs it on inputs read from .npy files and compares the outputs
 * with reference .npy files.
 *
 *   run_model model.so in0.npy [in1.npy ...] [--ref out0.npy ...]
 *             [--save prefix] [--rtol R] [--atol A]
 *
 * Exit status: 0 when every output matches its reference, 1 otherwise, 2 on
 * usage or loading errors. */
#include "Wrapper/Runtime/WrapperModel.h"

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

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: run_model model.so inputs.npy... [--ref "
                    "outputs.npy...] [--save prefix] [--rtol R] [--atol A]\n");
    return 2;
  }
  /* dlopen searches the library path for a name without a slash. */
  char path[4096];
  snprintf(path, sizeof path, "%s%s", strchr(argv[1], '/') ? "" : "./",
           argv[1]);
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    fprintf(stderr, "run_model: cannot load %s: %s\n", path, dlerror());
    return 2;
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
  int refs_mode = 0;
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--ref")) {
      refs_mode = 1;
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
  if (run(model, inputs, got_in, outputs, n_out) != WRAPPER_OK) {
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
  dlclose(library);
  return ok ? 0 : 1;
}
