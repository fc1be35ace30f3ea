/*===- PackageWeights.c - swappable packages' weights from C --------------===*
 *
 * Part of the Wrapper project.
 *
 * WrapperPackage.h's weights of a swappable package: sets of parameters
 * (views of the package, or copies given by swaps) with the values the
 * package's prepare model computes from them. Calls take a reference to the
 * current set for their whole run; a swap builds a complete new set, then
 * publishes it; a set is freed when its last call ends.
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include "PackageInternal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A parameter's copy, shared by the sets that hold it (host memory, or a
 * block of the CUDA runtime's allocator). */
typedef struct {
  int refs;
  void *data;
} param_block;

/* The CUDA runtime's functions, found through a CUDA model's library
 * (which links libwrapper_cuda_runtime): a CUDA target's sets also hold
 * the parameters and prepared values in device memory, for
 * wrapper_package_run_device. */
typedef struct {
  wrapper_status (*alloc)(size_t, void **);
  wrapper_status (*free)(void *);
  wrapper_status (*to_device)(void *, const void *, size_t);
  wrapper_status (*to_host)(void *, const void *, size_t);
  wrapper_status (*copy_device)(void *, const void *, size_t);
  wrapper_status (*synchronize)(void);
  wrapper_status (*device_synchronize)(void);
  void *(*stream)(void);
} cuda_api;

typedef struct {
  int refs; /* calls using it, plus one while it is current */
  wrapper_array *params;
  param_block **owners; /* NULL: the package's own bytes */
  wrapper_array *prepared;
  int32_t num_prepared;
  wrapper_array *packed; /* per input the package fills: its B panels */
  int32_t num_packed;
  /* A CUDA target's: each parameter in device memory (shared between sets
   * like `owners`), and the prepared values the device prepare model made
   * (blocks of the CUDA runtime). */
  param_block **device_params;
  wrapper_strided_array *device_prepared;
  int32_t num_device_prepared;
} weight_set;

struct wrapper_package_weights {
  wrapper_package *package;
  package_model *model, *prepare;
  const wrapper_model_api *prepare_api;
  wrapper_model *prepare_instance;
  pthread_mutex_t lock;      /* guards `current` and the reference counts */
  pthread_mutex_t swap_lock; /* one swap at a time */
  weight_set *current;
  int device; /* a CUDA target: sets hold device copies too */
  cuda_api cuda;
};

/* Drops `set`'s references to the shared blocks of `blocks` (under the
 * weights' lock: sets sharing a block may be freed on two threads at
 * once); the blocks no set holds any more are left in `blocks`, the others
 * cleared. */
static void drop_blocks(wrapper_package_weights *weights, param_block **blocks,
                        int32_t count) {
  pthread_mutex_lock(&weights->lock);
  for (int32_t i = 0; i < count; ++i)
    if (blocks[i] && --blocks[i]->refs > 0)
      blocks[i] = NULL;
  pthread_mutex_unlock(&weights->lock);
}

/* Frees the device memory of `set` (its own and the parameter blocks it
 * held last). Calls on other streams may still read it: the device is
 * synchronized first. */
static void free_device_part(wrapper_package_weights *weights,
                             weight_set *set) {
  int32_t count = weights->package->num_params;
  int synced = 0;
  if (set->device_params)
    drop_blocks(weights, set->device_params, count);
  for (int32_t i = 0; set->device_params && i < count; ++i) {
    param_block *block = set->device_params[i];
    if (!block)
      continue;
    if (!synced++)
      weights->cuda.device_synchronize();
    weights->cuda.free(block->data);
    free(block);
  }
  for (int32_t i = 0; i < set->num_device_prepared; ++i) {
    if (!synced++)
      weights->cuda.device_synchronize();
    weights->cuda.free(set->device_prepared[i].allocated);
  }
  free(set->device_params);
  free(set->device_prepared);
}

static void free_set(wrapper_package_weights *weights, weight_set *set) {
  if (weights->device)
    free_device_part(weights, set);
  else
    free(set->device_params);
  int32_t count = weights->package->num_params;
  drop_blocks(weights, set->owners, count);
  for (int32_t i = 0; i < count; ++i) {
    if (set->owners[i]) {
      free(set->owners[i]->data);
      free(set->owners[i]);
    }
  }
  for (int32_t i = 0; i < set->num_prepared; ++i)
    wrapper_array_destroy(&set->prepared[i]);
  free(set->prepared);
  for (int32_t i = 0; i < set->num_packed; ++i)
    wrapper_array_destroy(&set->packed[i]);
  free(set->packed);
  free(set->params);
  free(set->owners);
  free(set);
}

/* Drops a reference to `set` (a call's, or the current set's). */
static void release(wrapper_package_weights *weights, weight_set *set) {
  pthread_mutex_lock(&weights->lock);
  int last = --set->refs == 0;
  pthread_mutex_unlock(&weights->lock);
  if (last)
    free_set(weights, set);
}

static weight_set *acquire(wrapper_package_weights *weights) {
  pthread_mutex_lock(&weights->lock);
  weight_set *set = weights->current;
  ++set->refs;
  pthread_mutex_unlock(&weights->lock);
  return set;
}

/* Runs the prepare model on `set`'s parameters into `set->prepared`. */
static wrapper_status prepare_set(wrapper_package_weights *weights,
                                  weight_set *set) {
  if (!weights->prepare)
    return WRAPPER_OK;
  const wrapper_model_api *api = weights->prepare_api;
  wrapper_model *instance = weights->prepare_instance;
  int32_t inputs = api->num_inputs(instance);
  int32_t outputs = api->num_outputs(instance);
  wrapper_array *in = calloc(inputs ? inputs : 1, sizeof(wrapper_array));
  set->prepared = calloc(outputs ? outputs : 1, sizeof(wrapper_array));
  if (!in || !set->prepared) {
    free(in);
    return wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                "cannot allocate the prepared weights");
  }
  int filled = 0;
  for (int i = 0; i < weights->prepare->num_inputs; ++i) {
    package_input input = weights->prepare->inputs[i];
    if (input.prepared || input.index >= inputs)
      continue;
    in[input.index] = set->params[input.which];
    ++filled;
  }
  wrapper_status status =
      filled == inputs
          ? api->run(instance, in, inputs, set->prepared, outputs)
          : wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                 "the package's prepare model takes %d inputs, "
                                 "its index fills %d",
                                 inputs, filled);
  free(in);
  if (status == WRAPPER_OK)
    set->num_prepared = outputs;
  return status;
}

/* The GEMM template's B panels of `b` ([K, N] f32): [ceil(N/nr)][K][nr],
 * element (k, n) at (n / nr, k, n % nr), zero past N. */
static wrapper_status pack_panels(const wrapper_array *b, int64_t nr,
                                  wrapper_array *out) {
  if (b->dtype != WRAPPER_DTYPE_F32 || b->rank != 2)
    return wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                "the package's index packs a weight that is "
                                "not a 2-d float32 array");
  int64_t rows = b->shape[0], cols = b->shape[1];
  int64_t shape[3] = {(cols + nr - 1) / nr, rows, nr};
  wrapper_status status =
      wrapper_array_create(WRAPPER_DTYPE_F32, 3, shape, out);
  if (status != WRAPPER_OK)
    return status;
  const float *from = b->data;
  float *to = out->data;
  for (int64_t p = 0; p < shape[0]; ++p)
    for (int64_t k = 0; k < rows; ++k) {
      float *panel = to + (p * rows + k) * nr;
      int64_t n0 = p * nr, width = cols - n0 < nr ? cols - n0 : nr;
      /* Parameters given by a swap may be unaligned: memcpy. */
      memcpy(panel, from + k * cols + n0, (size_t)width * sizeof(float));
    }
  return WRAPPER_OK;
}

/* Packs the inputs the model takes as B panels, from `set`'s parameters or
 * prepared values. */
static wrapper_status pack_set(wrapper_package_weights *weights,
                               weight_set *set) {
  const package_model *model = weights->model;
  set->packed =
      calloc(model->num_inputs ? model->num_inputs : 1, sizeof(wrapper_array));
  if (!set->packed)
    return wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                "cannot allocate the packed weights");
  set->num_packed = model->num_inputs;
  for (int i = 0; i < model->num_inputs; ++i) {
    package_input input = model->inputs[i];
    if (!input.packed)
      continue;
    if (input.prepared && input.which >= set->num_prepared)
      return wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                  "the package's index packs a prepared "
                                  "value the prepare model does not make");
    const wrapper_array *source = input.prepared ? &set->prepared[input.which]
                                                 : &set->params[input.which];
    wrapper_status status = pack_panels(source, input.packed, &set->packed[i]);
    if (status != WRAPPER_OK)
      return status;
  }
  return WRAPPER_OK;
}

/* A dense row-major strided view of `array`'s shape over `data`. */
static wrapper_strided_array dense_view(const wrapper_array *array,
                                        void *data) {
  wrapper_strided_array view;
  memset(&view, 0, sizeof(view));
  view.dtype = array->dtype;
  view.rank = array->rank;
  int64_t stride = 1;
  for (int32_t d = array->rank - 1; d >= 0; --d) {
    view.shape[d] = array->shape[d];
    view.strides[d] = stride;
    stride *= array->shape[d];
  }
  view.data = data;
  return view;
}

static size_t array_bytes(const wrapper_array *array) {
  return (size_t)wrapper_array_numel(array) * wrapper_dtype_size(array->dtype);
}

/* The device part of a CUDA target's set: parameters without a device
 * block (new ones) uploaded from the host copy, then the device prepare
 * model run on them; waits for the work so that calls on any stream see
 * it. */
static wrapper_status device_set(wrapper_package_weights *weights,
                                 weight_set *set) {
  const wrapper_package *package = weights->package;
  const cuda_api *cuda = &weights->cuda;
  wrapper_status status = WRAPPER_OK;
  for (int32_t i = 0; i < package->num_params && status == WRAPPER_OK; ++i) {
    if (set->device_params[i])
      continue;
    param_block *block = calloc(1, sizeof(param_block));
    if (!block)
      return wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                  "cannot allocate device weights");
    size_t bytes = array_bytes(&set->params[i]);
    status = cuda->alloc(bytes ? bytes : 1, &block->data);
    if (status != WRAPPER_OK) {
      free(block);
      return status;
    }
    block->refs = 1;
    set->device_params[i] = block; /* freed with the set on failure */
    status = cuda->to_device(block->data, set->params[i].data, bytes);
  }
  if (status == WRAPPER_OK && weights->prepare) {
    const wrapper_model_api *api = weights->prepare_api;
    wrapper_model *instance = weights->prepare_instance;
    int32_t inputs = api->num_inputs(instance);
    int32_t outputs = api->num_outputs(instance);
    wrapper_strided_array *in =
        calloc(inputs ? inputs : 1, sizeof(wrapper_strided_array));
    set->device_prepared =
        calloc(outputs ? outputs : 1, sizeof(wrapper_strided_array));
    if (!in || !set->device_prepared) {
      free(in);
      return wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                  "cannot allocate the prepared weights");
    }
    for (int i = 0; i < weights->prepare->num_inputs; ++i) {
      package_input input = weights->prepare->inputs[i];
      if (!input.prepared && input.index < inputs)
        in[input.index] = dense_view(&set->params[input.which],
                                     set->device_params[input.which]->data);
    }
    status = api->run_device(instance, in, inputs, set->device_prepared,
                             outputs, cuda->stream());
    free(in);
    if (status == WRAPPER_OK)
      set->num_device_prepared = outputs;
  }
  if (status == WRAPPER_OK)
    status = cuda->synchronize();
  return status;
}

static weight_set *new_set(int32_t count) {
  weight_set *set = calloc(1, sizeof(weight_set));
  if (!set)
    return NULL;
  set->params = calloc(count ? count : 1, sizeof(wrapper_array));
  set->owners = calloc(count ? count : 1, sizeof(param_block *));
  set->device_params = calloc(count ? count : 1, sizeof(param_block *));
  if (!set->params || !set->owners || !set->device_params) {
    free(set->params);
    free(set->owners);
    free(set->device_params);
    free(set);
    return NULL;
  }
  set->refs = 1;
  return set;
}

int32_t wrapper_package_num_params(const wrapper_package *package) {
  return package ? package->num_params : 0;
}

const char *wrapper_package_param_name(const wrapper_package *package,
                                       int32_t i) {
  if (!package || i < 0 || i >= package->num_params)
    return NULL;
  return package->params[i].name;
}

wrapper_status wrapper_package_param(const wrapper_package *package, int32_t i,
                                     wrapper_array *view) {
  if (!package || !view || i < 0 || i >= package->num_params)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_package_param: no parameter %d", i);
  *view = package->params[i].view;
  return WRAPPER_OK;
}

wrapper_status wrapper_package_weights_create(wrapper_package *package,
                                              const char *target,
                                              wrapper_package_weights **out) {
  if (!package || !target || !out)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_package_weights_create: a null "
                                "argument");
  *out = NULL;
  if (package->num_params == 0)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "the package is not swappable (it holds no "
                                "parameters: package it with swappable=True)");
  const wrapper_model_api *api;
  wrapper_status status = wrapper_package_load(package, target, &api);
  if (status != WRAPPER_OK)
    return status;
  wrapper_package_weights *weights = calloc(1, sizeof(*weights));
  if (!weights)
    return wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                "cannot allocate the package's weights");
  weights->package = package;
  weights->model = wrapper_package_find_model_internal(package, target);
  if (strcmp(api->target, "cuda") == 0 && api->run_device) {
    cuda_api *cuda = &weights->cuda;
    void *library = api->library;
    *(void **)&cuda->alloc = dlsym(library, "wrapper_cuda_alloc");
    *(void **)&cuda->free = dlsym(library, "wrapper_cuda_free");
    *(void **)&cuda->to_device = dlsym(library, "wrapper_cuda_copy_to_device");
    *(void **)&cuda->to_host = dlsym(library, "wrapper_cuda_copy_to_host");
    *(void **)&cuda->copy_device = dlsym(library, "wrapper_cuda_copy_device");
    *(void **)&cuda->synchronize = dlsym(library, "wrapper_cuda_synchronize");
    *(void **)&cuda->device_synchronize =
        dlsym(library, "wrapper_cuda_device_synchronize");
    *(void **)&cuda->stream = dlsym(library, "wrapper_cuda_stream");
    weights->device = cuda->alloc && cuda->free && cuda->to_device &&
                      cuda->to_host && cuda->copy_device && cuda->synchronize &&
                      cuda->device_synchronize && cuda->stream;
    if (!weights->device) {
      free(weights);
      return wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED,
                                  "the CUDA model's runtime lacks the device "
                                  "functions of CUDA ABI version 5");
    }
  }
  pthread_mutex_init(&weights->lock, NULL);
  pthread_mutex_init(&weights->swap_lock, NULL);
  char name[32];
  snprintf(name, sizeof(name), "%s:prepare", target);
  weights->prepare = wrapper_package_find_model_internal(package, name);
  if (weights->prepare) {
    status = wrapper_package_load(package, name, &weights->prepare_api);
    if (status == WRAPPER_OK)
      status = weights->prepare_api->create(&weights->prepare_instance);
  }
  weight_set *set = status == WRAPPER_OK ? new_set(package->num_params) : NULL;
  if (status == WRAPPER_OK && !set)
    status = wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                  "cannot allocate the package's weights");
  if (set) {
    for (int32_t i = 0; i < package->num_params; ++i)
      set->params[i] = package->params[i].view;
    status = prepare_set(weights, set);
    if (status == WRAPPER_OK)
      status = pack_set(weights, set);
    if (status == WRAPPER_OK && weights->device)
      status = device_set(weights, set);
    if (status != WRAPPER_OK)
      free_set(weights, set);
    else
      weights->current = set;
  }
  if (status != WRAPPER_OK) {
    wrapper_package_weights_destroy(weights);
    return status;
  }
  *out = weights;
  return WRAPPER_OK;
}

void wrapper_package_weights_destroy(wrapper_package_weights *weights) {
  if (!weights)
    return;
  if (weights->current)
    release(weights, weights->current);
  if (weights->prepare_instance)
    weights->prepare_api->destroy(weights->prepare_instance);
  pthread_mutex_destroy(&weights->lock);
  pthread_mutex_destroy(&weights->swap_lock);
  free(weights);
}

/* "float32 (8, 16)": an array's dtype and shape, for messages. */
static void describe(const wrapper_array *array, char *out, size_t size) {
  int n = snprintf(out, size, "%s (", wrapper_dtype_name(array->dtype));
  for (int32_t d = 0; d < array->rank && n > 0 && (size_t)n < size; ++d)
    n += snprintf(out + n, size - (size_t)n, "%s%lld", d ? ", " : "",
                  (long long)array->shape[d]);
  if (n > 0 && (size_t)n < size)
    snprintf(out + n, size - (size_t)n, ")");
}

static int32_t find_param(const wrapper_package *package, const char *name) {
  for (int32_t i = 0; i < package->num_params; ++i)
    if (strcmp(package->params[i].name, name) == 0)
      return i;
  return -1;
}

/* A swap of `count` parameters from host arrays (`values`) or device
 * arrays (`device`, dense; a CUDA target's). */
static wrapper_status swap(wrapper_package_weights *weights,
                           const char *const *names,
                           const wrapper_array *values,
                           const wrapper_strided_array *device, int32_t count) {
  if (!weights || count <= 0 || !names || (!values && !device))
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_package_weights_swap: no weights "
                                "given");
  if (device && !weights->device)
    return wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED,
                                "swapping from device memory needs a CUDA "
                                "model; this one runs on the CPU");
  /* The device arrays as host descriptions, checked like host arrays. */
  wrapper_array *described = NULL;
  if (device) {
    described = calloc((size_t)count, sizeof(wrapper_array));
    if (!described)
      return wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                  "cannot swap the weights");
    for (int32_t k = 0; k < count; ++k) {
      described[k].dtype = device[k].dtype;
      described[k].rank = device[k].rank;
      memcpy(described[k].shape, device[k].shape, sizeof(device[k].shape));
      described[k].data = device[k].data;
      wrapper_strided_array dense = dense_view(&described[k], NULL);
      for (int32_t d = 0; d < device[k].rank; ++d)
        if (device[k].shape[d] > 1 &&
            device[k].strides[d] != dense.strides[d]) {
          free(described);
          return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                      "parameter '%s': the device array given "
                                      "is not dense row-major",
                                      names[k] ? names[k] : "(null)");
        }
    }
    values = described;
  }
  wrapper_status result = WRAPPER_OK;
  const wrapper_package *package = weights->package;
  /* Everything is checked before anything changes. */
  for (int32_t k = 0; k < count; ++k) {
    int32_t i = names[k] ? find_param(package, names[k]) : -1;
    if (i < 0) {
      free(described);
      return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                  "the model has no parameter '%s'",
                                  names[k] ? names[k] : "(null)");
    }
    const wrapper_array *have = &package->params[i].view, *given = &values[k];
    int same = have->dtype == given->dtype && have->rank == given->rank &&
               given->data != NULL;
    for (int32_t d = 0; same && d < have->rank; ++d)
      same = have->shape[d] == given->shape[d];
    if (!same) {
      char want[160], got[160];
      describe(have, want, sizeof(want));
      describe(given, got, sizeof(got));
      free(described);
      return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                  "parameter '%s': the array given is %s%s; "
                                  "the model's is %s",
                                  names[k], got,
                                  given->data ? "" : " without data", want);
    }
  }
  pthread_mutex_lock(&weights->swap_lock);
  /* Swaps are serialized: the current set stays while this one is built. */
  pthread_mutex_lock(&weights->lock);
  weight_set *old = weights->current;
  pthread_mutex_unlock(&weights->lock);
  weight_set *set = new_set(package->num_params);
  wrapper_status status = WRAPPER_OK;
  if (!set) {
    status = wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                  "cannot allocate new weights");
  } else {
    /* Unchanged parameters are shared with the old set. */
    pthread_mutex_lock(&weights->lock);
    for (int32_t i = 0; i < package->num_params; ++i) {
      set->params[i] = old->params[i];
      set->owners[i] = old->owners[i];
      if (set->owners[i])
        ++set->owners[i]->refs;
      set->device_params[i] = old->device_params[i];
      if (set->device_params[i])
        ++set->device_params[i]->refs;
    }
    pthread_mutex_unlock(&weights->lock);
    for (int32_t k = 0; k < count && status == WRAPPER_OK; ++k) {
      int32_t i = find_param(package, names[k]);
      size_t bytes = (size_t)wrapper_array_numel(&values[k]) *
                     wrapper_dtype_size(values[k].dtype);
      param_block *owner = calloc(1, sizeof(param_block));
      if (!owner || posix_memalign(&owner->data, 64, bytes ? bytes : 64) != 0) {
        free(owner);
        status = wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                      "cannot copy parameter '%s'", names[k]);
        break;
      }
      owner->refs = 1;
      if (device)
        status = weights->cuda.to_host(owner->data, device[k].data, bytes);
      else
        memcpy(owner->data, values[k].data, bytes);
      pthread_mutex_lock(&weights->lock);
      param_block *previous = set->owners[i];
      if (previous && --previous->refs == 0) {
        free(previous->data);
        free(previous);
      }
      /* The device copy is made again (from the device array, or uploaded
       * by device_set); the old one stays with the old set. */
      param_block *was = set->device_params[i];
      if (was)
        --was->refs; /* the old set still holds it */
      set->device_params[i] = NULL;
      pthread_mutex_unlock(&weights->lock);
      set->owners[i] = owner;
      set->params[i].data = owner->data;
      if (status == WRAPPER_OK && device) {
        param_block *block = calloc(1, sizeof(param_block));
        status = block ? weights->cuda.alloc(bytes ? bytes : 1, &block->data)
                       : wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                              "cannot copy parameter '%s'",
                                              names[k]);
        if (status == WRAPPER_OK) {
          block->refs = 1;
          set->device_params[i] = block;
          status =
              weights->cuda.copy_device(block->data, device[k].data, bytes);
        } else {
          free(block);
        }
      }
    }
    if (status == WRAPPER_OK)
      status = prepare_set(weights, set);
    if (status == WRAPPER_OK)
      status = pack_set(weights, set);
    if (status == WRAPPER_OK && weights->device)
      status = device_set(weights, set);
  }
  if (status != WRAPPER_OK) {
    if (set)
      free_set(weights, set);
    pthread_mutex_unlock(&weights->swap_lock);
    free(described);
    return status;
  }
  pthread_mutex_lock(&weights->lock);
  weights->current = set;
  pthread_mutex_unlock(&weights->lock);
  release(weights, old);
  pthread_mutex_unlock(&weights->swap_lock);
  free(described);
  return result;
}

wrapper_status wrapper_package_weights_swap(wrapper_package_weights *weights,
                                            const char *const *names,
                                            const wrapper_array *values,
                                            int32_t count) {
  return swap(weights, names, values, NULL, count);
}

wrapper_status wrapper_package_weights_swap_device(
    wrapper_package_weights *weights, const char *const *names,
    const wrapper_strided_array *values, int32_t count) {
  if (!values)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_package_weights_swap_device: no "
                                "weights given");
  return swap(weights, names, NULL, values, count);
}

wrapper_status
wrapper_package_weights_swap_safetensors(wrapper_package_weights *weights,
                                         const void *bytes, uint64_t size) {
  if (!weights)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_package_weights_swap_safetensors: "
                                "no weights");
  wrapper_safetensors_tensor *tensors;
  int32_t count;
  wrapper_status status =
      wrapper_safetensors_read(bytes, size, &tensors, &count);
  if (status != WRAPPER_OK)
    return status;
  const char **names = calloc(count ? (size_t)count : 1, sizeof(char *));
  wrapper_array *values =
      calloc(count ? (size_t)count : 1, sizeof(wrapper_array));
  if (!names || !values) {
    status = wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                  "cannot read the safetensors file");
  } else {
    /* The padding tensors of Wrapper's own writer are no parameters. */
    int32_t given = 0;
    for (int32_t k = 0; k < count; ++k) {
      if (strncmp(tensors[k].name, "wrapper.pad.", 12) == 0)
        continue;
      names[given] = tensors[k].name;
      values[given++] = tensors[k].view;
    }
    status = given ? wrapper_package_weights_swap(weights, names, values, given)
                   : wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                          "the safetensors file holds no "
                                          "tensors");
  }
  free(names);
  free(values);
  wrapper_safetensors_free(tensors, count);
  return status;
}

wrapper_status
wrapper_package_weights_swap_file(wrapper_package_weights *weights,
                                  const char *path) {
  if (!weights || !path)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_package_weights_swap_file: a null "
                                "argument");
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat info;
  if (fd < 0 || fstat(fd, &info) != 0) {
    int error = errno;
    if (fd >= 0)
      close(fd);
    return wrapper_report_error(WRAPPER_ERROR_IO, "cannot open '%s': %s", path,
                                strerror(error));
  }
  /* Mapped: the tensors are copied by the swap, the file is read once. */
  void *map = info.st_size > 0 ? mmap(NULL, (size_t)info.st_size, PROT_READ,
                                      MAP_PRIVATE, fd, 0)
                               : NULL;
  close(fd);
  if (info.st_size > 0 && map == MAP_FAILED)
    return wrapper_report_error(WRAPPER_ERROR_IO, "cannot map '%s': %s", path,
                                strerror(errno));
  wrapper_status status = wrapper_package_weights_swap_safetensors(
      weights, map, (uint64_t)info.st_size);
  if (map && map != MAP_FAILED)
    munmap(map, (size_t)info.st_size);
  return status;
}

int32_t wrapper_package_num_user_inputs(const wrapper_package_weights *weights,
                                        const wrapper_model *model) {
  if (!weights || !model)
    return -1;
  return weights->model->api.num_inputs(model) - weights->model->num_inputs;
}

/* The start of a run: checks that the caller gives the model's inputs
 * less those the weights fill, and allocates the `total` input slots
 * (`element` bytes each) and the mask of those the weights fill. */
static wrapper_status begin_run(const wrapper_package_weights *weights,
                                const wrapper_model *model, int32_t num_inputs,
                                size_t element, int32_t *total, void **all,
                                char **mine) {
  *total = weights->model->api.num_inputs(model);
  int32_t filled = weights->model->num_inputs;
  if (num_inputs != *total - filled)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "the model takes %d inputs besides its "
                                "weights, %d were given",
                                *total - filled, num_inputs);
  *all = calloc(*total ? *total : 1, element);
  *mine = calloc(*total ? *total : 1, 1);
  if (!*all || !*mine) {
    free(*all);
    free(*mine);
    return wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                "cannot allocate the model's inputs");
  }
  return WRAPPER_OK;
}

wrapper_status wrapper_package_run(wrapper_package_weights *weights,
                                   wrapper_model *model,
                                   const wrapper_array *inputs,
                                   int32_t num_inputs, wrapper_array *outputs,
                                   int32_t num_outputs) {
  if (!weights || !model || (num_inputs && !inputs))
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_package_run: a null argument");
  const wrapper_model_api *api = &weights->model->api;
  int32_t total, filled = weights->model->num_inputs;
  wrapper_array *all;
  char *mine;
  wrapper_status begun =
      begin_run(weights, model, num_inputs, sizeof(wrapper_array), &total,
                (void **)&all, &mine);
  if (begun != WRAPPER_OK)
    return begun;
  weight_set *set = acquire(weights);
  wrapper_status status = WRAPPER_OK;
  for (int32_t i = 0; i < filled; ++i) {
    package_input input = weights->model->inputs[i];
    if (input.index >= total ||
        (input.prepared && input.which >= set->num_prepared)) {
      status = wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                    "the package's index fills an input the "
                                    "model does not have");
      break;
    }
    all[input.index] = input.packed     ? set->packed[i]
                       : input.prepared ? set->prepared[input.which]
                                        : set->params[input.which];
    mine[input.index] = 1;
  }
  for (int32_t i = 0, next = 0; status == WRAPPER_OK && i < total; ++i)
    if (!mine[i])
      all[i] = inputs[next++];
  if (status == WRAPPER_OK)
    status = api->run(model, all, total, outputs, num_outputs);
  release(weights, set);
  free(all);
  free(mine);
  return status;
}

wrapper_status wrapper_package_run_device(wrapper_package_weights *weights,
                                          wrapper_model *model,
                                          const wrapper_strided_array *inputs,
                                          int32_t num_inputs,
                                          wrapper_strided_array *outputs,
                                          int32_t num_outputs, void *stream) {
  if (!weights || !model || (num_inputs && !inputs))
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_package_run_device: a null argument");
  if (!weights->device)
    return wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED,
                                "the %s model runs on host memory: call "
                                "wrapper_package_run",
                                weights->model->api.target);
  const wrapper_model_api *api = &weights->model->api;
  int32_t total, filled = weights->model->num_inputs;
  wrapper_strided_array *all;
  char *mine;
  wrapper_status begun =
      begin_run(weights, model, num_inputs, sizeof(wrapper_strided_array),
                &total, (void **)&all, &mine);
  if (begun != WRAPPER_OK)
    return begun;
  weight_set *set = acquire(weights);
  wrapper_status status = WRAPPER_OK;
  for (int32_t i = 0; i < filled; ++i) {
    package_input input = weights->model->inputs[i];
    if (input.index >= total || input.packed ||
        (input.prepared && input.which >= set->num_device_prepared)) {
      status = wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                    "the package's index fills an input the "
                                    "CUDA model does not have");
      break;
    }
    all[input.index] = input.prepared
                           ? set->device_prepared[input.which]
                           : dense_view(&set->params[input.which],
                                        set->device_params[input.which]->data);
    mine[input.index] = 1;
  }
  for (int32_t i = 0, next = 0; status == WRAPPER_OK && i < total; ++i)
    if (!mine[i])
      all[i] = inputs[next++];
  if (status == WRAPPER_OK)
    status = api->run_device(model, all, total, outputs, num_outputs, stream);
  /* The set's device memory outlives this call's queued work: a set is
   * freed only after the device is synchronized (free_device_part). */
  release(weights, set);
  free(all);
  free(mine);
  return status;
}
