/*===- WrapperPackage.h - AOT model packages, loaded from C --------*- C -*-===*
 *
 * Part of the Wrapper project.
 *
 * A package (wrapper_mlir.package, docs/Packages.md) is one file holding a
 * compiled model for one or more targets, its weights and its metadata: a
 * zip archive whose entries are stored uncompressed, each weights file
 * page-aligned, so that the weights are used where they lie in the file
 * (mapped, or in the caller's memory) without a copy:
 *
 * - wrapper-package.index: "wrapper-package 1", then one line per model,
 *   "model <target> <library entry> <weights entry or ->", and for a
 *   swappable package its parameters and the inputs it fills;
 * - wrapper-package.json: the metadata (signature, versions, targets);
 * - <target>/model.so: the model library (WrapperModel.h's ABI);
 * - <target>/weights.safetensors: its weights (--weights=external);
 * - params.safetensors: a swappable package's parameters.
 *
 * Open a package from a file or from memory, load the model of a target (its
 * library is loaded from an anonymous in-memory file, its weights bound in
 * place), then call the model ABI through the returned table. The host
 * program provides libwrapper_runtime (it links it to call these functions);
 * the library of a CPU model also needs the libomp it was linked with, a
 * CUDA model libwrapper_cuda_runtime, both found by the library's RUNPATH
 * or the loader's search path.
 *
 * Every function that can fail returns a wrapper_status and leaves a message
 * in wrapper_last_error(): not a package (no zip end record, no index),
 * truncated or damaged (entries beyond the end, checksum mismatch), an
 * unknown format version, a library of a model ABI this runtime cannot
 * call, weights that are not the model's, a CPU model for features the host
 * lacks.
 *
 *===----------------------------------------------------------------------===*/

#ifndef WRAPPER_RUNTIME_WRAPPERPACKAGE_H
#define WRAPPER_RUNTIME_WRAPPERPACKAGE_H

#include "Wrapper/Runtime/WrapperModel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The newest package format this runtime reads (the index's first line);
 * it reads every older one. 2 adds "packed NR" to "input" lines: the model
 * takes that weight as the GEMM template's B panels, which the loader
 * makes. */
#define WRAPPER_PACKAGE_FORMAT_VERSION 2

typedef struct wrapper_package wrapper_package;

/* The model ABI of a loaded library, resolved with dlsym. `run_device` is
 * NULL for CPU models and libraries of ABI 1. */
typedef struct wrapper_model_api {
  const char *target; /* "cpu" or "cuda" */
  void *library;      /* the dlopen handle */
  const char *path;   /* the name it was loaded under (/proc/self/fd/N) */
  int32_t (*abi_version)(void);
  wrapper_status (*create)(wrapper_model **out);
  void (*destroy)(wrapper_model *model);
  int32_t (*num_inputs)(const wrapper_model *model);
  int32_t (*num_outputs)(const wrapper_model *model);
  const char *(*input_name)(const wrapper_model *model, int32_t i);
  const char *(*output_name)(const wrapper_model *model, int32_t i);
  wrapper_status (*input_info)(const wrapper_model *model, int32_t i,
                               wrapper_dtype *dtype, int32_t *rank,
                               int64_t *shape);
  wrapper_status (*output_info)(const wrapper_model *model, int32_t i,
                                wrapper_dtype *dtype, int32_t *rank,
                                int64_t *shape);
  wrapper_status (*run)(wrapper_model *model, const wrapper_array *inputs,
                        int32_t num_inputs, wrapper_array *outputs,
                        int32_t num_outputs);
  wrapper_status (*run_device)(wrapper_model *model,
                               const wrapper_strided_array *inputs,
                               int32_t num_inputs,
                               wrapper_strided_array *outputs,
                               int32_t num_outputs, void *stream);
} wrapper_model_api;

/* Opens the package file `path`, mapped read-only (weights are used from the
 * mapping). */
wrapper_status wrapper_package_open(const char *path, wrapper_package **out);

/* Opens a package that is already in memory: the `size` bytes at `data`,
 * which must stay valid and unchanged until wrapper_package_close (the
 * weights are used where they are: keep them 64-byte aligned, as a page
 * aligned buffer is). */
wrapper_status wrapper_package_open_memory(const void *data, uint64_t size,
                                           wrapper_package **out);

/* Unloads the package's libraries and unmaps it. Destroy its models first. */
void wrapper_package_close(wrapper_package *package);

/* The package's metadata (wrapper-package.json), NUL-terminated; "" when it
 * has none. */
const char *wrapper_package_metadata(const wrapper_package *package);

/* Where the entry `name` lies (in the package's memory, valid until
 * wrapper_package_close): a swappable package's parameters
 * ("params.safetensors"), or any other entry. */
wrapper_status wrapper_package_entry(const wrapper_package *package,
                                     const char *name, const void **data,
                                     uint64_t *size);

/* The models it holds and their targets ("cpu", "cuda"); NULL when `i` is
 * out of range. */
int32_t wrapper_package_num_models(const wrapper_package *package);
const char *wrapper_package_model_target(const wrapper_package *package,
                                         int32_t i);

/* Loads the model of `target` (NULL: the first one this host can run: a
 * CPU model whose features it has) once, binds its weights, and returns its
 * ABI (valid until wrapper_package_close). A CPU model compiled for
 * features the host lacks is refused, naming them. */
wrapper_status wrapper_package_load(wrapper_package *package,
                                    const char *target,
                                    const wrapper_model_api **out);

/* Swappable packages (wrapper_mlir.package(..., swappable=True)): the
 * parameters are inputs of the model, held by the package in
 * params.safetensors; the package's prepare model ("<target>:prepare")
 * computes what depends only on them. A wrapper_package_weights holds a
 * current set of parameters and prepared values; wrapper_package_run calls
 * the model with the caller's inputs and that set; a swap makes a new set
 * (the arrays given are copied, the prepare model run on it) and publishes
 * it whole: a call uses the set current when it started, never a mix. */
typedef struct wrapper_package_weights wrapper_package_weights;

/* The package's parameters, by qualified name ("encoder.0.weight"). */
int32_t wrapper_package_num_params(const wrapper_package *package);
const char *wrapper_package_param_name(const wrapper_package *package,
                                       int32_t i);

/* A view of parameter `i` as the package holds it (not to be destroyed;
 * valid until wrapper_package_close). */
wrapper_status wrapper_package_param(const wrapper_package *package, int32_t i,
                                     wrapper_array *view);

/* Loads the model of `target` and its prepare model, and makes the first
 * set from the parameters the package holds (used in place). */
wrapper_status wrapper_package_weights_create(wrapper_package *package,
                                              const char *target,
                                              wrapper_package_weights **out);
/* Once no call uses it any more. */
void wrapper_package_weights_destroy(wrapper_package_weights *weights);

/* Replaces the parameters `names[i]` by `values[i]` (same dtype and shape;
 * copied): all of them or, on failure, none. Safe while other threads run
 * the model. */
wrapper_status wrapper_package_weights_swap(wrapper_package_weights *weights,
                                            const char *const *names,
                                            const wrapper_array *values,
                                            int32_t count);

/* A tensor of a safetensors file: its name (as in the file) and a view of
 * its bytes where they lie in the file's buffer (not necessarily aligned to
 * the element size: copy it, or read it with memcpy). */
typedef struct wrapper_safetensors_tensor {
  char *name;
  wrapper_array view;
} wrapper_safetensors_tensor;

/* Reads the tensors of a safetensors file held in `bytes` (`size` of them,
 * as read or mapped): each one's name, dtype, shape and place, checked
 * against the buffer (a malformed header, an unknown dtype, a tensor whose
 * byte range does not match its shape or lies beyond the end, a name given
 * twice: refused with a message). `*tensors` (`*count` of them) is freed
 * with wrapper_safetensors_free; "__metadata__" is skipped. */
wrapper_status wrapper_safetensors_read(const void *bytes, uint64_t size,
                                        wrapper_safetensors_tensor **tensors,
                                        int32_t *count);
void wrapper_safetensors_free(wrapper_safetensors_tensor *tensors,
                              int32_t count);

/* Replaces the parameters named by the tensors of a safetensors file (all
 * or a subset of the model's: a fine-tune, LoRA-merged layers), given as
 * its bytes or by its path: each tensor must name a parameter of the model
 * with its dtype and shape; as wrapper_package_weights_swap (copied, all or
 * none, safe while other threads run the model). */
wrapper_status
wrapper_package_weights_swap_safetensors(wrapper_package_weights *weights,
                                         const void *bytes, uint64_t size);
wrapper_status
wrapper_package_weights_swap_file(wrapper_package_weights *weights,
                                  const char *path);

/* The number of inputs `model` (of the weights' target) takes from the
 * caller: its inputs less those the weights fill. */
int32_t wrapper_package_num_user_inputs(const wrapper_package_weights *weights,
                                        const wrapper_model *model);

/* Runs `model` (created from the weights' target's API) on the caller's
 * inputs, in order, with the weights' current set filling the rest. */
wrapper_status wrapper_package_run(wrapper_package_weights *weights,
                                   wrapper_model *model,
                                   const wrapper_array *inputs,
                                   int32_t num_inputs, wrapper_array *outputs,
                                   int32_t num_outputs);

/* A CUDA model's wrapper_package_run on device memory: the caller's inputs
 * are device arrays (as wrapper_model_run_device takes them), the weights'
 * current set fills the rest from its device copies, the work is queued on
 * `stream` without waiting, and the outputs are blocks of the CUDA runtime
 * (released with wrapper_cuda_free). A CUDA target's set holds its
 * parameters and prepared values in device memory too, made when the set
 * is (by wrapper_package_weights_create or a swap); a set replaced by a
 * swap is freed after the device is synchronized, so work still queued on
 * any stream reads it intact. A CPU model: WRAPPER_ERROR_UNSUPPORTED. */
wrapper_status wrapper_package_run_device(wrapper_package_weights *weights,
                                          wrapper_model *model,
                                          const wrapper_strided_array *inputs,
                                          int32_t num_inputs,
                                          wrapper_strided_array *outputs,
                                          int32_t num_outputs, void *stream);

/* wrapper_package_weights_swap from device memory (a CUDA model's): each
 * value a dense row-major device array of the parameter's dtype and shape,
 * copied on the device (and to the host copy that wrapper_package_run and
 * the host path read). */
wrapper_status wrapper_package_weights_swap_device(
    wrapper_package_weights *weights, const char *const *names,
    const wrapper_strided_array *values, int32_t count);

/* The features of an LLVM feature list ("+avx2,+avx512f,-sse4a") that this
 * host lacks, as "avx512f, amx-tile" in `missing` (empty when it has them
 * all; only vector and matrix extensions are checked). Returns the number
 * missing. WRAPPER_HOST_CPU_FLAGS, when set, replaces the host's
 * /proc/cpuinfo flags (tests). */
int32_t wrapper_cpu_missing_features(const char *features, char *missing,
                                     size_t missing_size);

#ifdef __cplusplus
}
#endif

#endif /* WRAPPER_RUNTIME_WRAPPERPACKAGE_H */
