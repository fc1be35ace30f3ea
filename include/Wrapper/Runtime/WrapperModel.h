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
 * Versioning: WRAPPER_MODEL_ABI_VERSION grows when a function is added;
 * existing functions keep their signatures and meaning.
 *
 *===----------------------------------------------------------------------===*/

#ifndef WRAPPER_RUNTIME_WRAPPERMODEL_H
#define WRAPPER_RUNTIME_WRAPPERMODEL_H

#include "Wrapper/Runtime/WrapperRuntime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WRAPPER_MODEL_ABI_VERSION 1

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
 * outputs (which the caller destroys). */
wrapper_status wrapper_model_run(wrapper_model *model,
                                 const wrapper_array *inputs,
                                 int32_t num_inputs, wrapper_array *outputs,
                                 int32_t num_outputs);

#ifdef __cplusplus
}
#endif

#endif /* WRAPPER_RUNTIME_WRAPPERMODEL_H */
