/* train_model: trains with a compiled training step, no Python. Loads a
 * model.so that wrapper-compile built from a training step (for instance by
 * wrapper_mlir.compile_training(...).save(dir)), reads its state from a
 * directory of .npy files, runs steps on one batch of .npy inputs and prints
 * each step's loss.
 *
 *   train_model train_step.so state_dir in0.npy [in1.npy ...]
 *               [--steps N] [--seed S] [--lr X] [--save out_dir]
 *               [--expect-decrease] [--device] [--cuda-graph]
 *
 * --lr sets the state "optimizer.lr" (when the step has one), --save writes
 * the state after the last step (creating the directory), --expect-decrease
 * fails (exit 1) unless the last loss is below the first. With --device (a step
 * compiled for CUDA), the program puts the inputs into device memory once and
 * runs the steps on it with wrapper_train_step_device on the runtime's stream,
 * and prints the copies between host and device the steps made (the losses read
 * back, and nothing else: the state stays on the device); --cuda-graph
 * turns on the trainer's CUDA graph mode (a replay per step from the
 * second on) and says whether a graph was captured. Exit status 2 on
 * usage, loading or run errors. */
#include "Wrapper/Runtime/WrapperCuda.h"
#include "Wrapper/Runtime/WrapperTraining.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef int32_t (*version_fn)(void);
typedef wrapper_status (*create_fn)(wrapper_trainer **);
typedef void (*destroy_fn)(wrapper_trainer *);
typedef int32_t (*count_fn)(const wrapper_trainer *);
typedef const char *(*name_fn)(const wrapper_trainer *, int32_t);
typedef int32_t (*index_fn)(const wrapper_trainer *, const char *);
typedef wrapper_status (*info_fn)(const wrapper_trainer *, int32_t,
                                  wrapper_dtype *, int32_t *, int64_t *);
typedef wrapper_status (*set_fn)(wrapper_trainer *, int32_t,
                                 const wrapper_array *);
typedef wrapper_status (*load_fn)(wrapper_trainer *, const char *);
typedef wrapper_status (*save_fn)(const wrapper_trainer *, const char *);
typedef void (*seed_fn)(wrapper_trainer *, uint64_t);
typedef wrapper_status (*step_fn)(wrapper_trainer *, const wrapper_array *,
                                  int32_t, double *);
typedef wrapper_status (*step_device_fn)(wrapper_trainer *,
                                         const wrapper_strided_array *, int32_t,
                                         void *, double *);

static void *library;

static void *symbol(const char *name) {
  void *fn = dlsym(library, name);
  if (!fn) {
    fprintf(stderr,
            "train_model: the library lacks %s (not a training step?)\n", name);
    exit(2);
  }
  return fn;
}

static int fail(const char *what) {
  fprintf(stderr, "train_model: %s: %s\n", what, wrapper_last_error());
  return 2;
}

/* The CUDA runtime the library links (looked up in it, so that this
 * program runs CPU steps without it). */
static struct {
  wrapper_status (*alloc)(size_t, void **);
  wrapper_status (*free)(void *);
  wrapper_status (*to_device)(void *, const void *, size_t);
  wrapper_status (*synchronize)(void);
  void *(*stream)(void);
  void (*stats)(wrapper_cuda_stats *);
} cuda;

/* Device copies of `inputs` in `device` (dense row-major), made and
 * waited for before the steps. */
static wrapper_status upload(const wrapper_array *inputs, int count,
                             wrapper_strided_array *device) {
  *(void **)&cuda.alloc = symbol("wrapper_cuda_alloc");
  *(void **)&cuda.free = symbol("wrapper_cuda_free");
  *(void **)&cuda.to_device = symbol("wrapper_cuda_copy_to_device");
  *(void **)&cuda.synchronize = symbol("wrapper_cuda_synchronize");
  *(void **)&cuda.stream = symbol("wrapper_cuda_stream");
  *(void **)&cuda.stats = symbol("wrapper_cuda_get_stats");
  wrapper_status status = WRAPPER_OK;
  for (int i = 0; i < count && status == WRAPPER_OK; ++i) {
    memset(&device[i], 0, sizeof device[i]);
    device[i].dtype = inputs[i].dtype;
    device[i].rank = inputs[i].rank;
    int64_t stride = 1;
    for (int32_t d = inputs[i].rank - 1; d >= 0; --d) {
      device[i].shape[d] = inputs[i].shape[d];
      device[i].strides[d] = stride;
      stride *= inputs[i].shape[d];
    }
    size_t bytes = (size_t)wrapper_array_numel(&inputs[i]) *
                   wrapper_dtype_size(inputs[i].dtype);
    status = cuda.alloc(bytes, &device[i].data);
    if (status == WRAPPER_OK)
      status = cuda.to_device(device[i].data, inputs[i].data, bytes);
  }
  return status == WRAPPER_OK ? cuda.synchronize() : status;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: train_model train_step.so state_dir inputs.npy... "
                    "[--steps N] [--seed S] [--lr X] [--save dir] "
                    "[--expect-decrease] [--device] [--cuda-graph]\n");
    return 2;
  }
  /* dlopen searches the library path for a name without a slash. */
  char path[4096];
  snprintf(path, sizeof path, "%s%s", strchr(argv[1], '/') ? "" : "./",
           argv[1]);
  library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    fprintf(stderr, "train_model: cannot load %s: %s\n", path, dlerror());
    return 2;
  }
  int32_t version = ((version_fn)symbol("wrapper_train_abi_version"))();
  if (version != WRAPPER_TRAIN_ABI_VERSION) {
    fprintf(stderr, "train_model: training ABI version %d, expected %d\n",
            (int)version, WRAPPER_TRAIN_ABI_VERSION);
    return 2;
  }
  create_fn create = (create_fn)symbol("wrapper_train_create");
  destroy_fn destroy = (destroy_fn)symbol("wrapper_train_destroy");
  count_fn num_inputs = (count_fn)symbol("wrapper_train_num_inputs");
  name_fn input_name = (name_fn)symbol("wrapper_train_input_name");
  index_fn state_index = (index_fn)symbol("wrapper_train_state_index");
  info_fn state_info = (info_fn)symbol("wrapper_train_state_info");
  set_fn set_state = (set_fn)symbol("wrapper_train_set_state");
  load_fn load_state = (load_fn)symbol("wrapper_train_load_state");
  save_fn save_state = (save_fn)symbol("wrapper_train_save_state");
  seed_fn set_seed = (seed_fn)symbol("wrapper_train_set_seed");
  step_fn step = (step_fn)symbol("wrapper_train_step");

  long steps = 10;
  unsigned long long seed = 0;
  const char *save = NULL, *lr = NULL;
  int expect_decrease = 0, on_device = 0, cuda_graph = 0;
  const char *files[64];
  int num_files = 0;
  for (int i = 3; i < argc; ++i) {
    if (!strcmp(argv[i], "--steps") && i + 1 < argc)
      steps = strtol(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--lr") && i + 1 < argc)
      lr = argv[++i];
    else if (!strcmp(argv[i], "--save") && i + 1 < argc)
      save = argv[++i];
    else if (!strcmp(argv[i], "--expect-decrease"))
      expect_decrease = 1;
    else if (!strcmp(argv[i], "--device"))
      on_device = 1;
    else if (!strcmp(argv[i], "--cuda-graph"))
      cuda_graph = 1;
    else if (argv[i][0] == '-' && argv[i][1] == '-') {
      fprintf(stderr, "train_model: unknown option %s\n", argv[i]);
      return 2;
    } else if (num_files < 64)
      files[num_files++] = argv[i];
  }

  wrapper_trainer *trainer = NULL;
  if (create(&trainer) != WRAPPER_OK)
    return fail("cannot create the trainer");
  if (load_state(trainer, argv[2]) != WRAPPER_OK)
    return fail("cannot load the state");
  set_seed(trainer, seed);
  if (lr) {
    int32_t index = state_index(trainer, "optimizer.lr");
    wrapper_dtype dtype;
    int32_t rank;
    int64_t shape[WRAPPER_MAX_RANK];
    if (index < 0 ||
        state_info(trainer, index, &dtype, &rank, shape) != WRAPPER_OK ||
        rank != 0 ||
        (dtype != WRAPPER_DTYPE_F32 && dtype != WRAPPER_DTYPE_F64)) {
      fprintf(stderr, "train_model: --lr: the step has no f32/f64 scalar "
                      "state 'optimizer.lr'\n");
      return 2;
    }
    double value = strtod(lr, NULL);
    float single = (float)value;
    wrapper_array array;
    memset(&array, 0, sizeof array);
    array.dtype = dtype;
    array.data = dtype == WRAPPER_DTYPE_F64 ? (void *)&value : (void *)&single;
    if (set_state(trainer, index, &array) != WRAPPER_OK)
      return fail("--lr");
  }

  int32_t count = num_inputs(trainer);
  if (num_files != count) {
    fprintf(stderr, "train_model: the step takes %d inputs (", (int)count);
    for (int32_t i = 0; i < count; ++i)
      fprintf(stderr, "%s%s", i ? ", " : "", input_name(trainer, i));
    fprintf(stderr, "), got %d files\n", num_files);
    return 2;
  }
  wrapper_array inputs[64];
  for (int i = 0; i < num_files; ++i)
    if (wrapper_npy_load(files[i], &inputs[i]) != WRAPPER_OK)
      return fail("cannot read an input");

  /* --device: the inputs on the device (a CPU step refuses them at its
   * first step, saying why). */
  step_device_fn step_device = NULL;
  wrapper_strided_array device_inputs[64];
  const char *(*target)(const wrapper_trainer *) = NULL;
  wrapper_cuda_stats before;
  if (on_device) {
    step_device = (step_device_fn)symbol("wrapper_train_step_device");
    *(void **)&target = symbol("wrapper_train_target");
    if (!strcmp(target(trainer), "cuda")) {
      if (upload(inputs, num_files, device_inputs) != WRAPPER_OK)
        return fail("cannot put the inputs on the device");
      cuda.stats(&before);
    } else {
      memset(device_inputs, 0, sizeof device_inputs);
    }
  }

  if (cuda_graph) {
    wrapper_status (*set_graph)(wrapper_trainer *, int32_t);
    *(void **)&set_graph = symbol("wrapper_train_set_cuda_graph");
    if (set_graph(trainer, 1) != WRAPPER_OK)
      return fail("--cuda-graph");
  }

  double first = NAN, last = NAN;
  for (long s = 0; s < steps; ++s) {
    double loss;
    wrapper_status status =
        step_device ? step_device(trainer, device_inputs, count,
                                  cuda.stream ? cuda.stream() : NULL, &loss)
                    : step(trainer, inputs, count, &loss);
    if (status != WRAPPER_OK) {
      fprintf(stderr, "train_model: step %ld failed: %s\n", s,
              wrapper_last_error());
      return 2;
    }
    printf("step %ld: loss %.6g\n", s, loss);
    if (s == 0)
      first = loss;
    last = loss;
  }
  if (step_device) {
    wrapper_cuda_stats after;
    cuda.stats(&after);
    printf(
        "device steps: %llu copies to the device, %llu to the host\n",
        (unsigned long long)(after.copies_to_device - before.copies_to_device),
        (unsigned long long)(after.copies_to_host - before.copies_to_host));
    for (int i = 0; i < num_files; ++i)
      cuda.free(device_inputs[i].data);
  }
  if (cuda_graph) {
    int32_t (*captured)(const wrapper_trainer *);
    *(void **)&captured = symbol("wrapper_train_cuda_graph_captured");
    printf("cuda graph: %s\n", captured(trainer) ? "captured" : "not captured");
  }
  if (save)
    mkdir(save, 0777); /* an existing directory is fine */
  if (save && save_state(trainer, save) != WRAPPER_OK)
    return fail("cannot save the state");
  for (int i = 0; i < num_files; ++i)
    wrapper_array_destroy(&inputs[i]);
  destroy(trainer);
  if (expect_decrease) {
    int decreased = last < first;
    printf("loss %.6g -> %.6g: %s\n", first, last,
           decreased ? "decreased" : "did not decrease");
    return decreased ? 0 : 1;
  }
  return 0;
}
