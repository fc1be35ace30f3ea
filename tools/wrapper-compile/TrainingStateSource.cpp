//===- TrainingStateSource.cpp - the C source of a trainer's state -------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// The target-specific part of the trainer (TrainingSource.cpp): where the
// state lives and how one step runs -- host arrays and wrapper_model_run
// on the CPU; device blocks, wrapper_model_run_device and CUDA graph mode
// on CUDA.
//
//===----------------------------------------------------------------------===//

#include "TrainingSource.h"

/// The trainer's state on the CPU: host arrays, each step one
/// wrapper_model_run whose outputs replace the updated states (no copy).
static const char *const cpuStateSource = R"c(
struct wrapper_trainer {
  wrapper_model *model;
  wrapper_array state[NUM_STATES + 1];
  uint8_t set[NUM_STATES + 1];
  uint64_t seed;
  int64_t steps;
};

static wrapper_status state_create(wrapper_trainer *trainer, int32_t i) {
  const info_t *info = state_info(i);
  return wrapper_array_create(info->dtype, info->rank, info->shape,
                              &trainer->state[i]);
}

static void state_destroy(wrapper_trainer *trainer, int32_t i) {
  wrapper_array_destroy(&trainer->state[i]);
}

static wrapper_status state_read(const wrapper_trainer *trainer, int32_t i,
                                 wrapper_array *out) {
  const wrapper_array *state = &trainer->state[i];
  wrapper_status status =
      wrapper_array_create(state->dtype, state->rank, state->shape, out);
  if (status == WRAPPER_OK && array_bytes(state))
    memcpy(out->data, state->data, array_bytes(state));
  return status;
}

static wrapper_status state_write(wrapper_trainer *trainer, int32_t i,
                                  const wrapper_array *value) {
  if (array_bytes(value))
    memcpy(trainer->state[i].data, value->data, array_bytes(value));
  return WRAPPER_OK;
}

static void seeds_changed(wrapper_trainer *trainer) { (void)trainer; }

static void target_release(wrapper_trainer *trainer) { (void)trainer; }

static wrapper_status run_step(wrapper_trainer *trainer,
                               const wrapper_array *inputs, double *loss) {
  wrapper_array all[NUM_INPUTS + 1];
  for (int32_t i = 0; i < NUM_STATES; ++i)
    all[state_input[i]] = trainer->state[i];
  for (int32_t i = 0; i < NUM_DATA; ++i)
    all[data_input[i]] = inputs[i];
  int64_t seed = step_seed(trainer->seed, trainer->steps);
  if (SEED_INPUT >= 0) {
    memset(&all[SEED_INPUT], 0, sizeof all[0]);
    all[SEED_INPUT].dtype = WRAPPER_DTYPE_I64;
    all[SEED_INPUT].data = &seed;
  }
  wrapper_array outputs[NUM_OUTPUTS + 1];
  memset(outputs, 0, sizeof outputs);
  wrapper_status status =
      wrapper_model_run(trainer->model, all, NUM_INPUTS, outputs, NUM_OUTPUTS);
  if (status == WRAPPER_OK) {
    if (loss)
      *loss = scalar_value(outputs[LOSS_OUTPUT].dtype,
                           outputs[LOSS_OUTPUT].data);
    /* The new values replace the state: no copy. */
    for (int32_t i = 0; i < NUM_STATES; ++i) {
      if (state_output[i] < 0)
        continue;
      wrapper_array_destroy(&trainer->state[i]);
      trainer->state[i] = outputs[state_output[i]];
      outputs[state_output[i]].data = NULL;
    }
    ++trainer->steps;
  }
  for (int32_t i = 0; i < NUM_OUTPUTS; ++i)
    if (outputs[i].data)
      wrapper_array_destroy(&outputs[i]);
  return status;
}

wrapper_status wrapper_train_step_device(wrapper_trainer *trainer,
                                         const wrapper_strided_array *inputs,
                                         int32_t num_inputs, void *stream,
                                         double *loss) {
  (void)trainer;
  (void)inputs;
  (void)num_inputs;
  (void)stream;
  (void)loss;
  return wrapper_report_error(
      WRAPPER_ERROR_UNSUPPORTED,
      "wrapper_train_step_device: this training step runs on the CPU; "
      "wrapper_train_step takes its inputs");
}

wrapper_status wrapper_train_set_cuda_graph(wrapper_trainer *trainer,
                                            int32_t enabled) {
  (void)trainer;
  return enabled ? wrapper_report_error(
                       WRAPPER_ERROR_UNSUPPORTED,
                       "wrapper_train_set_cuda_graph: this training step runs "
                       "on the CPU")
                 : WRAPPER_OK;
}

int32_t wrapper_train_cuda_graph_captured(const wrapper_trainer *trainer) {
  (void)trainer;
  return 0;
}
)c";

/// The trainer's state on a CUDA device: one block of the runtime's caching
/// allocator per state, each step one wrapper_model_run_device whose
/// result blocks replace the updated states (no copy, no host round trip);
/// the seeds of SEED_BATCH steps sit in one device block uploaded at once.
static const char *const cudaStateSource = R"c(
#include "Wrapper/Runtime/WrapperCuda.h"

enum { SEED_BATCH = 1024 };

struct wrapper_trainer {
  wrapper_model *model;
  void *state[NUM_STATES + 1]; /* device blocks, dense row-major */
  uint8_t set[NUM_STATES + 1];
  uint64_t seed;
  int64_t steps;
  void *seeds;        /* SEED_BATCH step seeds on the device */
  int64_t seeds_from; /* the step of seeds[0] */
  uint8_t seeds_ready; /* whether `seeds` holds those of `seed` */
  /* CUDA graph mode (wrapper_train_set_cuda_graph): one captured step that
   * reads static inputs and updates the state blocks in place. */
  uint8_t graph_wanted, graph_refused;
  wrapper_cuda_graph_pool *pool;
  wrapper_cuda_graph *graph;
  void *graph_inputs[NUM_DATA + 1];
  void *graph_seed;
  wrapper_strided_array graph_loss; /* the loss output (in the pool) */
};

static void release_graph(wrapper_trainer *trainer) {
  wrapper_cuda_graph_destroy(trainer->graph);
  wrapper_cuda_graph_pool_destroy(trainer->pool);
  for (int32_t i = 0; i < NUM_DATA; ++i)
    wrapper_cuda_free(trainer->graph_inputs[i]);
  wrapper_cuda_free(trainer->graph_seed);
  trainer->graph = NULL;
  trainer->pool = NULL;
  memset(trainer->graph_inputs, 0, sizeof trainer->graph_inputs);
  trainer->graph_seed = NULL;
}

static void seeds_changed(wrapper_trainer *trainer) {
  trainer->seeds_ready = 0;
}

static void target_release(wrapper_trainer *trainer) {
  release_graph(trainer);
  wrapper_cuda_free(trainer->seeds);
}

static size_t info_bytes(const info_t *info) {
  size_t bytes = wrapper_dtype_size(info->dtype);
  for (int32_t d = 0; d < info->rank; ++d)
    bytes *= (size_t)info->shape[d];
  return bytes;
}

static wrapper_status state_create(wrapper_trainer *trainer, int32_t i) {
  return wrapper_cuda_alloc(info_bytes(state_info(i)), &trainer->state[i]);
}

static void state_destroy(wrapper_trainer *trainer, int32_t i) {
  wrapper_cuda_free(trainer->state[i]);
}

/* Reading and writing a state waits for all work on the device first: the
 * steps may have run on any stream. */
static wrapper_status state_read(const wrapper_trainer *trainer, int32_t i,
                                 wrapper_array *out) {
  const info_t *info = state_info(i);
  wrapper_status status = wrapper_cuda_device_synchronize();
  if (status == WRAPPER_OK)
    status = wrapper_array_create(info->dtype, info->rank, info->shape, out);
  if (status == WRAPPER_OK && info_bytes(info)) {
    status = wrapper_cuda_copy_to_host(out->data, trainer->state[i],
                                       info_bytes(info));
    if (status != WRAPPER_OK)
      wrapper_array_destroy(out);
  }
  return status;
}

static wrapper_status state_write(wrapper_trainer *trainer, int32_t i,
                                  const wrapper_array *value) {
  wrapper_status status = wrapper_cuda_device_synchronize();
  if (status == WRAPPER_OK && array_bytes(value))
    status = wrapper_cuda_copy_to_device(trainer->state[i], value->data,
                                         array_bytes(value));
  if (status == WRAPPER_OK)
    status = wrapper_cuda_synchronize();
  return status;
}

/* `array` as a dense row-major device array of `dtype[shape]` at `data`. */
static void dense_view(wrapper_strided_array *array, wrapper_dtype dtype,
                       int32_t rank, const int64_t *shape, void *data) {
  memset(array, 0, sizeof *array);
  array->dtype = dtype;
  array->rank = rank;
  int64_t stride = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    array->shape[d] = shape[d];
    array->strides[d] = stride;
    stride *= shape[d];
  }
  array->data = data;
}

/* The device seed of the current step (on the current stream). */
static wrapper_status seed_of_step(wrapper_trainer *trainer, void **out) {
  int64_t step = trainer->steps;
  wrapper_status status = WRAPPER_OK;
  if (!trainer->seeds)
    status = wrapper_cuda_alloc(SEED_BATCH * sizeof(int64_t), &trainer->seeds);
  if (status == WRAPPER_OK &&
      (!trainer->seeds_ready || step < trainer->seeds_from ||
       step >= trainer->seeds_from + SEED_BATCH)) {
    int64_t seeds[SEED_BATCH];
    for (int32_t k = 0; k < SEED_BATCH; ++k)
      seeds[k] = step_seed(trainer->seed, step + k);
    status = wrapper_cuda_copy_to_device(trainer->seeds, seeds, sizeof seeds);
    trainer->seeds_from = step;
    trainer->seeds_ready = status == WRAPPER_OK;
  }
  if (status == WRAPPER_OK)
    *out = (int64_t *)trainer->seeds + (step - trainer->seeds_from);
  return status;
}

/* A dense copy of result `result` (of state `i`'s type) in a new block:
 * results are dense, so this staging through the host is a fallback. */
static wrapper_status densify(int32_t i, const wrapper_strided_array *result,
                              void **out) {
  const info_t *info = state_info(i);
  size_t element = wrapper_dtype_size(info->dtype);
  size_t span = (size_t)span_of(info->rank, result->shape, result->strides);
  char *staged = malloc(span * element + 1);
  char *dense = malloc(info_bytes(info) + 1);
  wrapper_status status =
      staged && dense ? wrapper_cuda_alloc(info_bytes(info), out)
                      : wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                             "out of host memory copying "
                                             "state '%s'", state_names[i]);
  if (status == WRAPPER_OK)
    status = wrapper_cuda_copy_to_host(staged, result->data, span * element);
  if (status == WRAPPER_OK) {
    copy_out(dense, staged, info->rank, result->shape, result->strides,
             element);
    status = wrapper_cuda_copy_to_device(*out, dense, info_bytes(info));
  }
  free(staged);
  free(dense);
  return status;
}

/* One step on `all` (the data inputs filled in; the states and the seed
 * are filled here) on `stream`; the loss read back (waiting for `stream`)
 * when `loss` is not NULL. The states are replaced only when everything
 * succeeded. */
static wrapper_status graph_step(wrapper_trainer *trainer,
                                 wrapper_strided_array *all, void *stream,
                                 double *loss, int *ran);

static wrapper_status device_step(wrapper_trainer *trainer,
                                  wrapper_strided_array *all, void *stream,
                                  double *loss) {
  /* After the first step (which uploads the constants), a graph replay. */
  if (trainer->graph_wanted && !trainer->graph_refused && trainer->steps > 0) {
    int ran = 0;
    wrapper_status status = graph_step(trainer, all, stream, loss, &ran);
    if (ran || status != WRAPPER_OK)
      return status;
  }
  for (int32_t i = 0; i < NUM_STATES; ++i) {
    const info_t *info = state_info(i);
    dense_view(&all[state_input[i]], info->dtype, info->rank, info->shape,
               trainer->state[i]);
  }
  void *previous = NULL;
  wrapper_status status = wrapper_cuda_set_stream(stream, &previous);
  if (status != WRAPPER_OK)
    return status;
  if (SEED_INPUT >= 0) {
    void *seed = NULL;
    status = seed_of_step(trainer, &seed);
    dense_view(&all[SEED_INPUT], WRAPPER_DTYPE_I64, 0, NULL, seed);
  }
  wrapper_strided_array outputs[NUM_OUTPUTS + 1];
  memset(outputs, 0, sizeof outputs);
  if (status == WRAPPER_OK)
    status = wrapper_model_run_device(trainer->model, all, NUM_INPUTS, outputs,
                                      NUM_OUTPUTS, stream);
  /* The new values, dense and from their block's start. */
  void *updated[NUM_STATES + 1] = {0};
  for (int32_t i = 0; i < NUM_STATES && status == WRAPPER_OK; ++i) {
    if (state_output[i] < 0)
      continue;
    wrapper_strided_array *result = &outputs[state_output[i]];
    const info_t *info = state_info(i);
    if (result->data == result->allocated &&
        is_dense(info->rank, result->shape, result->strides)) {
      updated[i] = result->allocated;
      result->allocated = NULL;
    } else {
      status = densify(i, result, &updated[i]);
    }
  }
  if (status == WRAPPER_OK && loss) {
    const wrapper_strided_array *value = &outputs[LOSS_OUTPUT];
    uint64_t scalar = 0;
    status = wrapper_cuda_copy_to_host(&scalar, value->data,
                                       wrapper_dtype_size(value->dtype));
    if (status == WRAPPER_OK)
      *loss = scalar_value(value->dtype, &scalar);
  }
  wrapper_cuda_set_stream(previous, NULL);
  for (int32_t i = 0; i < NUM_STATES; ++i) {
    if (!updated[i])
      continue;
    if (status == WRAPPER_OK) {
      wrapper_cuda_free(trainer->state[i]);
      trainer->state[i] = updated[i];
    } else {
      wrapper_cuda_free(updated[i]);
    }
  }
  for (int32_t o = 0; o < NUM_OUTPUTS; ++o)
    wrapper_cuda_free(outputs[o].allocated);
  if (status == WRAPPER_OK)
    ++trainer->steps;
  return status;
}

/* The static input buffers and the graph of one step: captured on the
 * first call in graph mode; the state blocks are updated in place (device
 * copies of the new values, inside the graph), so the graph stays valid. A
 * step that cannot be captured (dynamic input shapes, a result that is not
 * dense) leaves graph mode off (`*ran` 0: the caller runs it plainly). */
/* This step's data inputs and seed copied into the graph's static
 * buffers (device copies on the current stream). */
static wrapper_status fill_graph_inputs(wrapper_trainer *trainer,
                                        const wrapper_strided_array *all) {
  wrapper_status status = WRAPPER_OK;
  for (int32_t i = 0; i < NUM_DATA && status == WRAPPER_OK; ++i)
    status = wrapper_cuda_copy_device(trainer->graph_inputs[i],
                                      all[data_input[i]].data,
                                      info_bytes(&input_info[data_input[i]]));
  if (status == WRAPPER_OK && SEED_INPUT >= 0) {
    void *seed = NULL;
    status = seed_of_step(trainer, &seed);
    if (status == WRAPPER_OK)
      status = wrapper_cuda_copy_device(trainer->graph_seed, seed,
                                        sizeof(int64_t));
  }
  return status;
}

static wrapper_status capture_step(wrapper_trainer *trainer,
                                   const wrapper_strided_array *all,
                                   void *capture) {
  wrapper_status status = WRAPPER_OK;
  for (int32_t i = 0; i < NUM_DATA && status == WRAPPER_OK; ++i) {
    const info_t *info = &input_info[data_input[i]];
    status = wrapper_cuda_alloc(info_bytes(info), &trainer->graph_inputs[i]);
  }
  if (status == WRAPPER_OK && SEED_INPUT >= 0)
    status = wrapper_cuda_alloc(sizeof(int64_t), &trainer->graph_seed);
  if (status == WRAPPER_OK)
    status = wrapper_cuda_graph_pool_create(&trainer->pool);
  /* The static inputs hold this step's values before any run reads them. */
  if (status == WRAPPER_OK)
    status = fill_graph_inputs(trainer, all);
  if (status != WRAPPER_OK)
    return status;
  wrapper_strided_array fixed[NUM_INPUTS + 1];
  for (int32_t i = 0; i < NUM_INPUTS; ++i)
    fixed[i] = all[i];
  for (int32_t i = 0; i < NUM_DATA; ++i)
    fixed[data_input[i]].data = trainer->graph_inputs[i];
  if (SEED_INPUT >= 0)
    fixed[SEED_INPUT].data = trainer->graph_seed;
  wrapper_strided_array outputs[NUM_OUTPUTS + 1];
  memset(outputs, 0, sizeof outputs);
  /* Captured on `capture` (the legacy default stream cannot capture); the
   * graph replays on any stream. */
  void *caller = NULL;
  status = wrapper_cuda_set_stream(capture, &caller);
  if (status == WRAPPER_OK && capture != caller) {
    /* Another stream than the steps': one run outside the capture first
     * (its results dropped), after all work so far, for what must not
     * happen inside a capture (the stream's cuBLAS handle). States the
     * step writes in place are written in scratch copies there, so that
     * the run changes nothing. */
    status = wrapper_cuda_device_synchronize();
    wrapper_strided_array warm[NUM_OUTPUTS + 1];
    memset(warm, 0, sizeof warm);
    wrapper_strided_array scratch_inputs[NUM_INPUTS + 1];
    void *scratch[NUM_STATES + 1] = {0};
    for (int32_t i = 0; i < NUM_INPUTS; ++i)
      scratch_inputs[i] = fixed[i];
    for (int32_t i = 0; i < NUM_STATES && status == WRAPPER_OK; ++i) {
      if (!state_in_place[i])
        continue;
      size_t bytes = info_bytes(state_info(i));
      status = wrapper_cuda_alloc(bytes, &scratch[i]);
      if (status == WRAPPER_OK)
        status = wrapper_cuda_copy_device(scratch[i], trainer->state[i], bytes);
      scratch_inputs[state_input[i]].data = scratch[i];
    }
    if (status == WRAPPER_OK)
      status = wrapper_model_run_device(trainer->model, scratch_inputs,
                                        NUM_INPUTS, warm, NUM_OUTPUTS, capture);
    if (status == WRAPPER_OK)
      status = wrapper_cuda_synchronize();
    for (int32_t o = 0; o < NUM_OUTPUTS; ++o)
      wrapper_cuda_free(warm[o].allocated);
    for (int32_t i = 0; i < NUM_STATES; ++i)
      if (scratch[i])
        wrapper_cuda_free(scratch[i]);
  }
  if (status == WRAPPER_OK)
    status = wrapper_cuda_graph_begin_in(trainer->pool);
  if (status != WRAPPER_OK) {
    wrapper_cuda_set_stream(caller, NULL);
    return status;
  }
  wrapper_status captured = wrapper_model_run_device(
      trainer->model, fixed, NUM_INPUTS, outputs, NUM_OUTPUTS, capture);
  for (int32_t i = 0; i < NUM_STATES && captured == WRAPPER_OK; ++i) {
    if (state_output[i] < 0)
      continue;
    const wrapper_strided_array *result = &outputs[state_output[i]];
    const info_t *info = state_info(i);
    if (result->data != result->allocated ||
        !is_dense(info->rank, result->shape, result->strides))
      captured = wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED,
                                      "state '%s' comes out strided",
                                      state_names[i]);
    else
      captured = wrapper_cuda_copy_device(trainer->state[i], result->data,
                                          info_bytes(info));
  }
  status = wrapper_cuda_graph_end(&trainer->graph);
  wrapper_cuda_set_stream(caller, NULL);
  if (captured != WRAPPER_OK)
    status = captured;
  trainer->graph_loss = outputs[LOSS_OUTPUT];
  return status;
}

static wrapper_status graph_step(wrapper_trainer *trainer,
                                 wrapper_strided_array *all, void *stream,
                                 double *loss, int *ran) {
  *ran = 0;
  for (int32_t i = 0; i < NUM_INPUTS; ++i)
    for (int32_t d = 0; d < input_info[i].rank; ++d)
      if (input_info[i].shape[d] < 0) {
        trainer->graph_refused = 1; /* shapes may change between steps */
        return WRAPPER_OK;
      }
  for (int32_t i = 0; i < NUM_STATES; ++i) {
    const info_t *info = state_info(i);
    dense_view(&all[state_input[i]], info->dtype, info->rank, info->shape,
               trainer->state[i]);
  }
  if (SEED_INPUT >= 0)
    dense_view(&all[SEED_INPUT], WRAPPER_DTYPE_I64, 0, NULL, NULL);
  void *previous = NULL;
  wrapper_status status = wrapper_cuda_set_stream(stream, &previous);
  if (status != WRAPPER_OK)
    return status;
  if (trainer->graph) {
    status = fill_graph_inputs(trainer, all);
  } else {
    /* The caller's stream, or the thread's own when the caller's is the
     * legacy default stream (PyTorch's default); the capture fills the
     * static inputs. */
    void *capture = stream ? stream : previous;
    status = capture ? capture_step(trainer, all, capture)
                     : wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED,
                                            "no stream to capture on");
    if (status != WRAPPER_OK) {
      /* Not capturable: plain steps from now on. */
      release_graph(trainer);
      trainer->graph_refused = 1;
      wrapper_cuda_set_stream(previous, NULL);
      return WRAPPER_OK;
    }
  }
  *ran = 1;
  if (status == WRAPPER_OK)
    status = wrapper_cuda_graph_launch(trainer->graph);
  if (status == WRAPPER_OK && loss) {
    uint64_t scalar = 0;
    status = wrapper_cuda_copy_to_host(
        &scalar, trainer->graph_loss.data,
        wrapper_dtype_size(trainer->graph_loss.dtype));
    if (status == WRAPPER_OK)
      *loss = scalar_value(trainer->graph_loss.dtype, &scalar);
  }
  wrapper_cuda_set_stream(previous, NULL);
  if (status == WRAPPER_OK)
    ++trainer->steps;
  return status;
}

wrapper_status wrapper_train_set_cuda_graph(wrapper_trainer *trainer,
                                            int32_t enabled) {
  if (!trainer)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_train_set_cuda_graph: NULL trainer");
  trainer->graph_wanted = enabled != 0;
  trainer->graph_refused = 0;
  if (!enabled) {
    wrapper_status status = wrapper_cuda_device_synchronize();
    release_graph(trainer);
    return status;
  }
  return WRAPPER_OK;
}

int32_t wrapper_train_cuda_graph_captured(const wrapper_trainer *trainer) {
  return trainer && trainer->graph != NULL;
}

/* Host inputs: copied to the device on the runtime's stream. */
static wrapper_status run_step(wrapper_trainer *trainer,
                               const wrapper_array *inputs, double *loss) {
  wrapper_strided_array all[NUM_INPUTS + 1];
  void *copies[NUM_DATA + 1] = {0};
  wrapper_status status = WRAPPER_OK;
  for (int32_t i = 0; i < NUM_DATA && status == WRAPPER_OK; ++i) {
    status = wrapper_cuda_alloc(array_bytes(&inputs[i]), &copies[i]);
    if (status == WRAPPER_OK)
      status = wrapper_cuda_copy_to_device(copies[i], inputs[i].data,
                                           array_bytes(&inputs[i]));
    dense_view(&all[data_input[i]], inputs[i].dtype, inputs[i].rank,
               inputs[i].shape, copies[i]);
  }
  if (status == WRAPPER_OK)
    status = device_step(trainer, all, wrapper_cuda_stream(), loss);
  for (int32_t i = 0; i < NUM_DATA; ++i)
    wrapper_cuda_free(copies[i]);
  return status;
}

wrapper_status wrapper_train_step_device(wrapper_trainer *trainer,
                                         const wrapper_strided_array *inputs,
                                         int32_t num_inputs, void *stream,
                                         double *loss) {
  wrapper_status status =
      check_step(trainer, NUM_DATA && !inputs, num_inputs,
                 "wrapper_train_step_device");
  wrapper_strided_array all[NUM_INPUTS + 1];
  for (int32_t i = 0; i < NUM_DATA && status == WRAPPER_OK; ++i) {
    wrapper_array shape;
    memset(&shape, 0, sizeof shape);
    shape.dtype = inputs[i].dtype;
    shape.rank = inputs[i].rank;
    if (shape.rank >= 0 && shape.rank <= WRAPPER_MAX_RANK)
      memcpy(shape.shape, inputs[i].shape,
             (size_t)shape.rank * sizeof(int64_t));
    status = check_value(&input_info[data_input[i]], &shape,
                         "wrapper_train_step_device", "input", data_names[i]);
    all[data_input[i]] = inputs[i];
  }
  return status == WRAPPER_OK ? device_step(trainer, all, stream, loss)
                              : status;
}
)c";

const char *mlir::wrapper::trainerStateSource(bool cuda) {
  return cuda ? cudaStateSource : cpuStateSource;
}
