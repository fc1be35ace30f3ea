/*===- WrapperTraining.h - the C ABI of a compiled training step --*- C -*-===*
 *
 * Part of the Wrapper project.
 *
 * What `wrapper-compile` adds to a model.so whose entry function is a
 * training step (docs/Runtime.md, "Training steps"): a trainer that owns the
 * step's state -- parameters, buffers, optimizer state, hyperparameters --
 * and runs forward, backward and the optimizer update on it, one call per
 * step, with no Python.
 *
 * The entry function marks its state with attributes: an argument
 * `{tensor_program.state = "name"}` is state the trainer holds; the step
 * updates it either in place (`tensor_program.copy_back %new to %state`:
 * the new value is written into the state's own memory during the step,
 * which compile_training does) or through a result with the same name,
 * whose value replaces the state after the step (a state with neither,
 * such as a learning rate, stays as set). One result `{tensor_program.loss}` (a
 *float scalar) is the loss the step returns; an argument
 *`{tensor_program.seed}` (i64 scalar) is the seed of the step's random numbers,
 *which the trainer derives from its seed and the step count. The other
 *arguments are the step's data inputs (inputs and targets), passed to each
 *wrapper_train_step call.
 *
 * Every state must be loaded or set before the first step. The library
 * also exports the model ABI of WrapperModel.h (the step as a pure
 * function). A trainer is not thread-safe: one thread at a time.
 *
 * A training step compiled for CUDA keeps its state in device memory (blocks
 * of the runtime's caching allocator): a step copies no state between host
 * and device. wrapper_train_step copies its data inputs to the device and
 * the loss back; wrapper_train_step_device takes device inputs on the
 * caller's stream and, without `loss`, returns without waiting.
 * wrapper_train_get_state / set_state / load_state / save_state copy
 * between host arrays and the device (after waiting for the device).
 *
 * Versioning: WRAPPER_TRAIN_ABI_VERSION grows when a function is added;
 * existing functions keep their signatures and meaning. Version 2 added
 * wrapper_train_step_device, wrapper_train_target,
 * wrapper_train_set_cuda_graph and wrapper_train_cuda_graph_captured (and
 * CUDA trainers keep their state on the device).
 *
 *===----------------------------------------------------------------------===*/

#ifndef WRAPPER_RUNTIME_WRAPPERTRAINING_H
#define WRAPPER_RUNTIME_WRAPPERTRAINING_H

#include "Wrapper/Runtime/WrapperModel.h"
#include "Wrapper/Runtime/WrapperRuntime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WRAPPER_TRAIN_ABI_VERSION 2

typedef struct wrapper_trainer wrapper_trainer;

/* The ABI version the library implements (WRAPPER_TRAIN_ABI_VERSION). */
int32_t wrapper_train_abi_version(void);

wrapper_status wrapper_train_create(wrapper_trainer **out);
void wrapper_train_destroy(wrapper_trainer *trainer);

/* The state: names (parameter names such as "fc1.weight", optimizer state
 * such as "optimizer.exp_avg.fc1.weight"), dtypes and static shapes. */
int32_t wrapper_train_num_states(const wrapper_trainer *trainer);
const char *wrapper_train_state_name(const wrapper_trainer *trainer, int32_t i);
/* The index of the state named `name`, -1 when there is none. */
int32_t wrapper_train_state_index(const wrapper_trainer *trainer,
                                  const char *name);
wrapper_status wrapper_train_state_info(const wrapper_trainer *trainer,
                                        int32_t i, wrapper_dtype *dtype,
                                        int32_t *rank, int64_t *shape);
/* Whether the step updates state `i` (0: it stays as set, e.g. the
 * learning rate). */
int32_t wrapper_train_state_updated(const wrapper_trainer *trainer, int32_t i);

/* A copy of state `i` in `out` (the caller destroys it with
 * wrapper_array_destroy). */
wrapper_status wrapper_train_get_state(const wrapper_trainer *trainer,
                                       int32_t i, wrapper_array *out);
/* Copies `value` into state `i`; its dtype and shape must be the state's. */
wrapper_status wrapper_train_set_state(wrapper_trainer *trainer, int32_t i,
                                       const wrapper_array *value);
/* Reads every state from `<directory>/<name>.npy` (all or nothing: on an
 * error no state changes), writes every state there (the directory must
 * exist). */
wrapper_status wrapper_train_load_state(wrapper_trainer *trainer,
                                        const char *directory);
wrapper_status wrapper_train_save_state(const wrapper_trainer *trainer,
                                        const char *directory);

/* The data inputs each step takes, in order ("input0", ..., "targets"). */
int32_t wrapper_train_num_inputs(const wrapper_trainer *trainer);
const char *wrapper_train_input_name(const wrapper_trainer *trainer, int32_t i);
wrapper_status wrapper_train_input_info(const wrapper_trainer *trainer,
                                        int32_t i, wrapper_dtype *dtype,
                                        int32_t *rank, int64_t *shape);

/* The seed of the random numbers (dropout): step k uses a seed mixed from
 * `seed` and k, so a run is reproducible from (seed, state). Default 0. */
void wrapper_train_set_seed(wrapper_trainer *trainer, uint64_t seed);
/* Steps taken since the trainer was created. */
int64_t wrapper_train_steps(const wrapper_trainer *trainer);

/* One training step on the data inputs: the loss (before the update) in
 * `*loss` when `loss` is not NULL, the state updated. On an error the
 * states updated through results are unchanged; states updated in place
 * may hold their new values. */
wrapper_status wrapper_train_step(wrapper_trainer *trainer,
                                  const wrapper_array *inputs,
                                  int32_t num_inputs, double *loss);

/* Where the step runs: "cpu" or "cuda". (Version 2.) */
const char *wrapper_train_target(const wrapper_trainer *trainer);

/* One training step of a CUDA trainer on device inputs (dense row-major
 * arrays of the runtime's device, checked like wrapper_train_step's), on
 * `stream` (a CUstream of the device's primary context; NULL is the legacy
 * default stream): no copy between host and device except the loss, which
 * is read back (waiting for `stream`) only when `loss` is not NULL.
 * Without `loss` the call returns once the step is queued; the inputs must
 * stay valid until `stream` gets there. Errors of queuing are returned
 * (and leave the state unchanged); errors of the kernels show up at the
 * next synchronization. A CPU trainer returns WRAPPER_ERROR_UNSUPPORTED.
 * (Version 2.) */
wrapper_status wrapper_train_step_device(wrapper_trainer *trainer,
                                         const wrapper_strided_array *inputs,
                                         int32_t num_inputs, void *stream,
                                         double *loss);

/* CUDA graph mode of a CUDA trainer (default off): from the second step
 * on, each step (wrapper_train_step or _device) is the replay of one CUDA
 * graph captured at the first such step -- one driver call instead of a
 * launch per kernel -- that reads static copies of the data inputs (device
 * copies made before each replay) and updates the state blocks in place.
 * A step that cannot be captured (data inputs of dynamic shapes) runs
 * without a graph, as do all later ones; so does a program whose extern
 * calls (collectives) cannot run inside a capture, which must not turn it
 * on. With a graph, a step that fails on the GPU may leave the state
 * partly updated. Turning it off frees the graph. A CPU trainer refuses
 * `enabled`. (Version 2.) */
wrapper_status wrapper_train_set_cuda_graph(wrapper_trainer *trainer,
                                            int32_t enabled);
/* Whether a graph is captured (replayed by the next steps). (Version 2.) */
int32_t wrapper_train_cuda_graph_captured(const wrapper_trainer *trainer);

#ifdef __cplusplus
}
#endif

#endif /* WRAPPER_RUNTIME_WRAPPERTRAINING_H */
