/*===- WrapperModel.h - the C ABI of a compiled model.so -----------*- C -*-===*
 *
 * Part of the Wrapper project.
 *
 * What `wrapper-compile model.mlir -o model.so` exports: a model container
 * in the spirit of AOTInductor's, behind a small versioned C ABI. Load the
 * library (dlopen or link), check wrapper_model_abi_version(), create a
 * model, query its inputs and outputs, run it on arrays, destroy it.
 *
 * Shapes use -1 for a dynamic dimension. Arrays are the runtime's
 * wrapper_array (dense, row-major, owning their data); outputs are created
 * by wrapper_model_run and destroyed by the caller with
 * wrapper_array_destroy. Every function that can fail returns a
 * wrapper_status and leaves a message in wrapper_last_error().
 *
 * A model compiled for CUDA also runs on device memory the caller owns,
 * on the caller's stream, without copies or waiting:
 * wrapper_model_run_device (version 2).
 *
 * Versioning: WRAPPER_MODEL_ABI_VERSION grows when a function is added;
 * existing functions keep their signatures and meaning. Version 2 added
 * wrapper_strided_array, wrapper_model_run_device and
 * wrapper_model_target; version 3 wrapper_model_cpu_features (CPU
 * models) and wrapper_model_bind_weights (models compiled with
 * --weights=external).
 *
 *===----------------------------------------------------------------------===*/

#ifndef WRAPPER_RUNTIME_WRAPPERMODEL_H
#define WRAPPER_RUNTIME_WRAPPERMODEL_H

#include "Wrapper/Runtime/WrapperRuntime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WRAPPER_MODEL_ABI_VERSION 3

typedef struct wrapper_model wrapper_model;

/* The ABI version the library implements (WRAPPER_MODEL_ABI_VERSION). */
int32_t wrapper_model_abi_version(void);

wrapper_status wrapper_model_create(wrapper_model **out);
void wrapper_model_destroy(wrapper_model *model);

int32_t wrapper_model_num_inputs(const wrapper_model *model);
int32_t wrapper_model_num_outputs(const wrapper_model *model);
/* Names of the inputs and outputs ("arg0", "output0", ...); NULL when the
 * index is out of range. */
const char *wrapper_model_input_name(const wrapper_model *model, int32_t i);
const char *wrapper_model_output_name(const wrapper_model *model, int32_t i);
/* dtype, rank and shape (WRAPPER_MAX_RANK entries, -1 = dynamic). */
wrapper_status wrapper_model_input_info(const wrapper_model *model, int32_t i,
                                        wrapper_dtype *dtype, int32_t *rank,
                                        int64_t *shape);
wrapper_status wrapper_model_output_info(const wrapper_model *model, int32_t i,
                                         wrapper_dtype *dtype, int32_t *rank,
                                         int64_t *shape);

/* Runs the model: checks the inputs against their info, and creates the
 * outputs (which the caller destroys). A CUDA model copies the inputs to
 * the device and the outputs back, and waits for the GPU. */
wrapper_status wrapper_model_run(wrapper_model *model,
                                 const wrapper_array *inputs,
                                 int32_t num_inputs, wrapper_array *outputs,
                                 int32_t num_outputs);

/* Where the model runs: "cpu" or "cuda". */
const char *wrapper_model_target(const wrapper_model *model);

/* An array in memory the caller or the runtime owns, with strides (in
 * elements; `rank` entries of `shape` and `strides` are used). */
typedef struct wrapper_strided_array {
  wrapper_dtype dtype;
  int32_t rank;
  int64_t shape[WRAPPER_MAX_RANK];
  int64_t strides[WRAPPER_MAX_RANK];
  void *data; /* the first element */
  /* Outputs: the block to release (wrapper_cuda_free, or hand it to
   * wrapper_cuda_dlpack); inputs: not read. */
  void *allocated;
} wrapper_strided_array;

/* Runs a CUDA model on device memory: `inputs` are device arrays of the
 * runtime's device (dense row-major; checked like wrapper_model_run's),
 * read and written only by work queued on `stream` (a CUstream of the
 * device's primary context, the one PyTorch and the CUDA runtime API
 * use; NULL is the legacy default stream). The call queues its kernels on
 * `stream` and returns without waiting: the outputs are blocks of the
 * runtime's caching allocator (ready once `stream` gets there), one per
 * output, which the caller releases with wrapper_cuda_free. No copy
 * between host and device memory is made (wrapper_cuda_stats counts
 * them). Errors of queuing the work are returned (and no outputs are
 * left); errors of the kernels themselves show up at the caller's next
 * synchronization of `stream`. A CPU model returns
 * WRAPPER_ERROR_UNSUPPORTED. */
wrapper_status wrapper_model_run_device(wrapper_model *model,
                                        const wrapper_strided_array *inputs,
                                        int32_t num_inputs,
                                        wrapper_strided_array *outputs,
                                        int32_t num_outputs, void *stream);

/* A CPU model: the LLVM target features its code was compiled for
 * ("+avx2,+avx512f,...,-amx-tile"), which the host must have. (Version 3;
 * CUDA models lack it.) */
const char *wrapper_model_cpu_features(void);

/* A model compiled with --weights=external: points its weights into `file`,
 * the `bytes` bytes of the safetensors file wrapper-compile wrote
 * (--weights-file), checked to be this model's (the magic number in its
 * header, the size of its data); the bytes must stay valid and unchanged
 * while the library is loaded. Bind before the first wrapper_model_create;
 * without a binding, wrapper_model_create maps the file of that name from
 * the library's directory. Shared by every model of the library. (Version
 * 3; other libraries lack it.) */
wrapper_status wrapper_model_bind_weights(const void *file, uint64_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* WRAPPER_RUNTIME_WRAPPERMODEL_H */
