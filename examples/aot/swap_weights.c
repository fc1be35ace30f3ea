/* swap_weights: runs a swappable package (wrapper_mlir.package(...,
 * swappable=True)) from C through WrapperPackage.h, swaps some of its
 * parameters, runs it again, and (with --threads) calls it from several
 * threads while the main thread swaps back and forth, checking that every
 * output is that of one set of weights or the other, never a mix.
 *
 *   swap_weights model.wpkg in0.npy [in1.npy ...] [--ref out.npy]
 *                [--swap NAME=value.npy ... --ref-swapped out.npy]
 *                [--swap-file new.safetensors --ref-swapped out.npy]
 *                [--threads N --calls K] [--target cpu|cuda] [--device]
 *
 * With --device (a CUDA package), the inputs and the swapped values are
 * put in device memory once, the model runs on them with
 * wrapper_package_run_device (the weights' device copies fill the rest;
 * the first run prints how many host<->device copies it made: none) and
 * swaps take device arrays (wrapper_package_weights_swap_device).
 *
 * Exit status: 0 when every comparison holds, 1 otherwise, 2 on usage or
 * loading errors. */
#include "Wrapper/Runtime/WrapperCuda.h"
#include "Wrapper/Runtime/WrapperPackage.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARRAYS 16

static const wrapper_model_api *api;
static wrapper_package_weights *weights;
static wrapper_model *model;
static wrapper_array inputs[MAX_ARRAYS];
static int32_t num_inputs, num_outputs;
static wrapper_array first, second; /* output 0 with each set */
static int calls = 20;

/* --device: the CUDA runtime's functions (through the model's library) and
 * the device copies of the inputs. */
static int device;
static struct {
  wrapper_status (*alloc)(size_t, void **);
  wrapper_status (*free)(void *);
  wrapper_status (*to_device)(void *, const void *, size_t);
  wrapper_status (*to_host)(void *, const void *, size_t);
  void *(*stream)(void);
  void (*stats)(wrapper_cuda_stats *);
} cuda;
static wrapper_strided_array device_inputs[MAX_ARRAYS];
static long long first_run_copies = -1;

static int fail(const char *what) {
  fprintf(stderr, "swap_weights: %s: %s\n", what, wrapper_last_error());
  return 2;
}

/* A device copy of `array` (dense), or a zeroed array on failure. */
static wrapper_strided_array to_device(const wrapper_array *array) {
  wrapper_strided_array view;
  memset(&view, 0, sizeof(view));
  size_t bytes =
      (size_t)wrapper_array_numel(array) * wrapper_dtype_size(array->dtype);
  if (cuda.alloc(bytes ? bytes : 1, &view.data) != WRAPPER_OK ||
      cuda.to_device(view.data, array->data, bytes) != WRAPPER_OK)
    return view;
  view.dtype = array->dtype;
  view.rank = array->rank;
  int64_t stride = 1;
  for (int32_t d = array->rank - 1; d >= 0; --d) {
    view.shape[d] = array->shape[d];
    view.strides[d] = stride;
    stride *= array->shape[d];
  }
  view.allocated = view.data;
  return view;
}

/* --device: runs on the device inputs; output 0 copied to the host. */
static wrapper_status run_once_on_device(wrapper_array *out) {
  wrapper_strided_array outputs[MAX_ARRAYS];
  wrapper_cuda_stats before, after;
  cuda.stats(&before);
  wrapper_status status =
      wrapper_package_run_device(weights, model, device_inputs, num_inputs,
                                 outputs, num_outputs, cuda.stream());
  cuda.stats(&after);
  if (status != WRAPPER_OK)
    return status;
  if (first_run_copies < 0)
    first_run_copies =
        (long long)(after.copies_to_device - before.copies_to_device +
                    after.copies_to_host - before.copies_to_host);
  /* Output 0 is dense (the model's own allocation). */
  status = wrapper_array_create(outputs[0].dtype, outputs[0].rank,
                                outputs[0].shape, out);
  if (status == WRAPPER_OK)
    status = cuda.to_host(out->data, outputs[0].data,
                          (size_t)wrapper_array_numel(out) *
                              wrapper_dtype_size(out->dtype));
  for (int32_t i = 0; i < num_outputs; ++i)
    cuda.free(outputs[i].allocated);
  return status;
}

/* Runs the model; output 0 in `out` (the others destroyed). */
static wrapper_status run_once(wrapper_array *out) {
  if (device)
    return run_once_on_device(out);
  wrapper_array outputs[MAX_ARRAYS];
  wrapper_status status = wrapper_package_run(weights, model, inputs,
                                              num_inputs, outputs, num_outputs);
  if (status != WRAPPER_OK)
    return status;
  *out = outputs[0];
  for (int32_t i = 1; i < num_outputs; ++i)
    wrapper_array_destroy(&outputs[i]);
  return WRAPPER_OK;
}

static size_t bytes_of(const wrapper_array *a) {
  return (size_t)wrapper_array_numel(a) * wrapper_dtype_size(a->dtype);
}

static int same(const wrapper_array *a, const wrapper_array *b) {
  return a->dtype == b->dtype && bytes_of(a) == bytes_of(b) &&
         memcmp(a->data, b->data, bytes_of(a)) == 0;
}

/* Compares a float32 output with a reference .npy; prints the error. */
static int compare(const char *what, const wrapper_array *out,
                   const char *path) {
  wrapper_array ref;
  if (wrapper_npy_load(path, &ref) != WRAPPER_OK)
    return fail(path), 0;
  int64_t n = wrapper_array_numel(out);
  double worst = 0;
  int ok = out->dtype == WRAPPER_DTYPE_F32 && ref.dtype == out->dtype &&
           wrapper_array_numel(&ref) == n;
  for (int64_t i = 0; ok && i < n; ++i) {
    double x = ((float *)out->data)[i], y = ((float *)ref.data)[i];
    double error = fabs(x - y);
    worst = error > worst ? error : worst;
    if (error > 1e-5 + 1e-4 * fabs(y))
      ok = 0;
  }
  printf("%s: max abs error %.3g vs %s: %s\n", what, worst, path,
         ok ? "ok" : "MISMATCH");
  wrapper_array_destroy(&ref);
  return ok;
}

static int mixed, with_first, with_second, finished;
static pthread_mutex_t counts = PTHREAD_MUTEX_INITIALIZER;

static void *caller(void *unused) {
  (void)unused;
  for (int i = 0; i < calls; ++i) {
    wrapper_array out;
    if (run_once(&out) != WRAPPER_OK) {
      fprintf(stderr, "swap_weights: a call failed: %s\n",
              wrapper_last_error());
      pthread_mutex_lock(&counts);
      ++mixed;
      pthread_mutex_unlock(&counts);
      continue;
    }
    pthread_mutex_lock(&counts);
    if (same(&out, &first))
      ++with_first;
    else if (same(&out, &second))
      ++with_second;
    else
      ++mixed;
    pthread_mutex_unlock(&counts);
    wrapper_array_destroy(&out);
  }
  pthread_mutex_lock(&counts);
  ++finished;
  pthread_mutex_unlock(&counts);
  return NULL;
}

static int all_finished(int threads) {
  pthread_mutex_lock(&counts);
  int done = finished == threads;
  pthread_mutex_unlock(&counts);
  return done;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: swap_weights model.wpkg inputs.npy... [--ref "
                    "out.npy] [--swap NAME=value.npy ... --ref-swapped "
                    "out.npy] [--swap-file F.safetensors --ref-swapped "
                    "out.npy] [--threads N --calls K] [--target T]\n");
    return 2;
  }
  const char *ref = NULL, *ref_swapped = NULL, *target = "cpu";
  const char *swap_file = NULL;
  const char *names[MAX_ARRAYS];
  wrapper_array values[MAX_ARRAYS], originals[MAX_ARRAYS];
  int32_t num_swaps = 0;
  int threads = 0;
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--ref") && i + 1 < argc) {
      ref = argv[++i];
    } else if (!strcmp(argv[i], "--ref-swapped") && i + 1 < argc) {
      ref_swapped = argv[++i];
    } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--calls") && i + 1 < argc) {
      calls = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--device")) {
      device = 1;
    } else if (!strcmp(argv[i], "--swap-file") && i + 1 < argc) {
      swap_file = argv[++i];
    } else if (!strcmp(argv[i], "--target") && i + 1 < argc) {
      target = argv[++i];
    } else if (!strcmp(argv[i], "--swap") && i + 1 < argc &&
               num_swaps < MAX_ARRAYS) {
      char *spec = argv[++i], *equals = strchr(spec, '=');
      if (!equals) {
        fprintf(stderr, "swap_weights: --swap takes NAME=FILE.npy\n");
        return 2;
      }
      *equals = '\0';
      names[num_swaps] = spec;
      if (wrapper_npy_load(equals + 1, &values[num_swaps]) != WRAPPER_OK)
        return fail(equals + 1);
      ++num_swaps;
    } else if (num_inputs < MAX_ARRAYS) {
      if (wrapper_npy_load(argv[i], &inputs[num_inputs]) != WRAPPER_OK)
        return fail(argv[i]);
      ++num_inputs;
    }
  }
  if (swap_file && num_swaps) {
    fprintf(stderr,
            "swap_weights: --swap and --swap-file exclude each other\n");
    return 2;
  }
  wrapper_package *package;
  if (wrapper_package_open(argv[1], &package) != WRAPPER_OK)
    return fail("opening the package");
  if (wrapper_package_weights_create(package, target, &weights) != WRAPPER_OK)
    return fail("making its weights");
  if (wrapper_package_load(package, target, &api) != WRAPPER_OK ||
      api->create(&model) != WRAPPER_OK)
    return fail("creating the model");
  num_outputs = api->num_outputs(model);
  /* Device arrays of the swapped values and of the originals. */
  wrapper_strided_array device_values[MAX_ARRAYS], device_originals[MAX_ARRAYS];
  if (device) {
    *(void **)&cuda.alloc = dlsym(api->library, "wrapper_cuda_alloc");
    *(void **)&cuda.free = dlsym(api->library, "wrapper_cuda_free");
    *(void **)&cuda.to_device =
        dlsym(api->library, "wrapper_cuda_copy_to_device");
    *(void **)&cuda.to_host = dlsym(api->library, "wrapper_cuda_copy_to_host");
    *(void **)&cuda.stream = dlsym(api->library, "wrapper_cuda_stream");
    *(void **)&cuda.stats = dlsym(api->library, "wrapper_cuda_get_stats");
    if (!cuda.alloc || !cuda.free || !cuda.to_device || !cuda.to_host ||
        !cuda.stream || !cuda.stats) {
      fprintf(stderr, "swap_weights: --device needs a CUDA package\n");
      return 2;
    }
    for (int32_t i = 0; i < num_inputs; ++i)
      if (!(device_inputs[i] = to_device(&inputs[i])).data)
        return fail("copying the inputs to the device");
  }
  printf("%d parameters, the model takes %d inputs besides them\n",
         (int)wrapper_package_num_params(package),
         (int)wrapper_package_num_user_inputs(weights, model));
  int ok = 1;
  if (run_once(&first) != WRAPPER_OK)
    return fail("running the model");
  if (ref)
    ok &= compare("packaged weights", &first, ref);
  if (num_swaps) {
    /* The packaged values of what is swapped, to swap back to. */
    for (int32_t k = 0; k < num_swaps; ++k)
      for (int32_t i = 0; i < wrapper_package_num_params(package); ++i)
        if (!strcmp(wrapper_package_param_name(package, i), names[k]))
          wrapper_package_param(package, i, &originals[k]);
    for (int32_t k = 0; device && k < num_swaps; ++k) {
      device_values[k] = to_device(&values[k]);
      device_originals[k] = to_device(&originals[k]);
      if (!device_values[k].data || !device_originals[k].data)
        return fail("copying the swapped values to the device");
    }
    if ((device ? wrapper_package_weights_swap_device(weights, names,
                                                      device_values, num_swaps)
                : wrapper_package_weights_swap(weights, names, values,
                                               num_swaps)) != WRAPPER_OK)
      return fail("swapping");
    if (run_once(&second) != WRAPPER_OK)
      return fail("running the model");
    if (ref_swapped)
      ok &= compare("swapped weights", &second, ref_swapped);
  }
  if (swap_file) {
    /* The tensors of a safetensors file (a subset of the parameters). */
    if (wrapper_package_weights_swap_file(weights, swap_file) != WRAPPER_OK)
      return fail("swapping from the file");
    if (run_once(&second) != WRAPPER_OK)
      return fail("running the model");
    if (ref_swapped)
      ok &= compare("weights of the file", &second, ref_swapped);
  }
  if (threads > 0 && num_swaps) {
    pthread_t ids[64];
    threads = threads > 64 ? 64 : threads;
    for (int t = 0; t < threads; ++t)
      pthread_create(&ids[t], NULL, caller, NULL);
    /* Back and forth until they are done. */
    int swaps = 0;
    for (; !all_finished(threads); swaps += 2) {
      wrapper_status back =
          device ? wrapper_package_weights_swap_device(
                       weights, names, device_originals, num_swaps)
                 : wrapper_package_weights_swap(weights, names, originals,
                                                num_swaps);
      wrapper_status again =
          back != WRAPPER_OK ? back
          : device
              ? wrapper_package_weights_swap_device(weights, names,
                                                    device_values, num_swaps)
              : wrapper_package_weights_swap(weights, names, values, num_swaps);
      if (again != WRAPPER_OK)
        return fail("swapping during calls");
    }
    for (int t = 0; t < threads; ++t)
      pthread_join(ids[t], NULL);
    printf("%d threads x %d calls during %d swaps: %d with the first weights, "
           "%d with the second, %d mixed\n",
           threads, calls, swaps, with_first, with_second, mixed);
    ok &= mixed == 0 && with_first + with_second == threads * calls;
  }
  if (device) {
    printf("device runs: %lld copies between host and device in the first\n",
           first_run_copies);
    for (int32_t i = 0; i < num_inputs; ++i)
      cuda.free(device_inputs[i].allocated);
    for (int32_t k = 0; k < num_swaps; ++k) {
      cuda.free(device_values[k].allocated);
      cuda.free(device_originals[k].allocated);
    }
  }
  api->destroy(model);
  wrapper_package_weights_destroy(weights);
  wrapper_package_close(package);
  wrapper_array_destroy(&first);
  if (num_swaps || swap_file)
    wrapper_array_destroy(&second);
  for (int32_t k = 0; k < num_swaps; ++k)
    wrapper_array_destroy(&values[k]);
  for (int32_t i = 0; i < num_inputs; ++i)
    wrapper_array_destroy(&inputs[i]);
  return ok ? 0 : 1;
}
