//===- ContainerSource.cpp - the C source of a model container ------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "ContainerSource.h"
#include "WeightsFile.h"

#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace mlir;
using namespace mlir::wrapper;

/// run_checked of a CPU model (wrapper_model_run once the inputs passed
/// their checks): the inputs are used where they are. A result that owns
/// its block (compiled code's, not an input or a constant, not another
/// result's), dense and from the block's start is handed over as the
/// output array (wrapper_array_adopt_block: no copy); the others are copied
/// into runtime arrays, then the blocks not handed over are freed (once
/// each, after every copy that may read them).
static const char *const cpuRunSource = R"(
static wrapper_status run_checked(const wrapper_array *inputs,
                                  wrapper_array *outputs, int32_t *created) {
  void *data[NUM_INPUTS + 1];
  for (int32_t i = 0; i < NUM_INPUTS; ++i)
    data[i] = inputs[i].data;
  results_t results;
  wrapper_status status = call_entry(inputs, data, &results);
  if (status != WRAPPER_OK)
    return status;
  result_view_t views[NUM_OUTPUTS + 1];
  view_results(&results, views);
  /* Code compiled with runtime-allocator allocates through the runtime:
   * the distinct blocks the results own. */
  void *owned[NUM_OUTPUTS + 1] = {0};
  int32_t num_owned = 0;
  int adopted[NUM_OUTPUTS + 1] = {0};
  for (int32_t o = 0; o < NUM_OUTPUTS; ++o) {
    void *allocated = views[o].allocated;
    int mine = allocated && allocated != (void *)0xdeadbeef;
    for (int32_t i = 0; i < NUM_INPUTS; ++i)
      mine &= allocated != inputs[i].data;
    int first = 1;
    for (int32_t i = 0; i < num_owned; ++i)
      first &= allocated != owned[i];
    if (!mine || !first)
      continue;
    owned[num_owned++] = allocated;
    adopted[o] = views[o].data == allocated &&
                 is_dense(output_info[o].rank, views[o].sizes,
                          views[o].strides);
  }
  for (int32_t o = 0; o < NUM_OUTPUTS; ++o) {
    const info_t *info = &output_info[o];
    if (status != WRAPPER_OK) {
      adopted[o] = 0; /* not handed over: freed below */
      continue;
    }
    if (adopted[o]) {
      status = wrapper_array_adopt_block(info->dtype, info->rank,
                                         views[o].sizes, views[o].allocated,
                                         &outputs[o]);
      if (status != WRAPPER_OK)
        adopted[o] = 0;
      *created += status == WRAPPER_OK;
      continue;
    }
    status = wrapper_array_create(info->dtype, info->rank, views[o].sizes,
                                  &outputs[o]);
    *created += status == WRAPPER_OK;
    if (status == WRAPPER_OK)
      copy_out((char *)outputs[o].data, views[o].data, info->rank,
               views[o].sizes, views[o].strides,
               wrapper_dtype_size(info->dtype));
  }
  /* A block handed over belongs to its array now; on a failure the caller
   * destroys the arrays made (wrapper_model_run). */
  for (int32_t i = 0; i < num_owned; ++i) {
    int kept = 0;
    for (int32_t o = 0; o < NUM_OUTPUTS; ++o)
      kept |= adopted[o] && views[o].allocated == owned[i];
    if (!kept)
      _mlir_memref_to_llvm_free(owned[i]);
  }
  return status;
}

wrapper_status wrapper_model_run_device(wrapper_model *model,
                                        const wrapper_strided_array *inputs,
                                        int32_t num_inputs,
                                        wrapper_strided_array *outputs,
                                        int32_t num_outputs, void *stream) {
  (void)model;
  (void)inputs;
  (void)num_inputs;
  (void)outputs;
  (void)num_outputs;
  (void)stream;
  return wrapper_report_error(
      WRAPPER_ERROR_UNSUPPORTED,
      "wrapper_model_run_device: this model runs on the CPU; "
      "wrapper_model_run takes its inputs");
}

const char *wrapper_model_target(const wrapper_model *model) {
  (void)model;
  return "cpu";
}
)";

/// wrapper_model_run and wrapper_model_run_device of a CUDA model (its
/// entry compiled with device-arguments: it takes device buffers and
/// returns blocks of the caching allocator, one per result).
static const char *const cudaRunSource = R"(
static size_t bytes_of(const wrapper_array *array) {
  return (size_t)wrapper_array_numel(array) * wrapper_dtype_size(array->dtype);
}

/* The elements a strided view spans from its first one. */
static int64_t span_of(int32_t rank, const int64_t *sizes,
                       const int64_t *strides) {
  int64_t span = 1;
  for (int32_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0)
      return 0;
    span += (sizes[d] - 1) * strides[d];
  }
  return span;
}

/* Host arrays: the inputs are copied to the device, the outputs back. */
static wrapper_status run_checked(const wrapper_array *inputs,
                                  wrapper_array *outputs, int32_t *created) {
  wrapper_status status = WRAPPER_OK;
  void *data[NUM_INPUTS + 1] = {0};
  for (int32_t i = 0; i < NUM_INPUTS && status == WRAPPER_OK; ++i) {
    status = wrapper_cuda_alloc(bytes_of(&inputs[i]), &data[i]);
    if (status == WRAPPER_OK)
      status = wrapper_cuda_copy_to_device(data[i], inputs[i].data,
                                           bytes_of(&inputs[i]));
  }
  results_t results;
  int called = 0;
  if (status == WRAPPER_OK) {
    status = call_entry(inputs, data, &results);
    called = status == WRAPPER_OK;
  }
  /* The first error of the asynchronous calls, if any. */
  if (status == WRAPPER_OK)
    status = wrapper_cuda_synchronize();
  /* Inputs the model updated: their new values back in the caller's. */
  for (int32_t i = 0; called && i < NUM_INPUTS && status == WRAPPER_OK; ++i)
    if (input_written[i])
      status = wrapper_cuda_copy_to_host(inputs[i].data, data[i],
                                         bytes_of(&inputs[i]));
  result_view_t views[NUM_OUTPUTS + 1];
  if (called)
    view_results(&results, views);
  for (int32_t o = 0; called && o < NUM_OUTPUTS; ++o) {
    const info_t *info = &output_info[o];
    size_t element = wrapper_dtype_size(info->dtype);
    if (status == WRAPPER_OK) {
      status = wrapper_array_create(info->dtype, info->rank, views[o].sizes,
                                    &outputs[o]);
      *created += status == WRAPPER_OK;
    }
    if (status == WRAPPER_OK &&
        is_dense(info->rank, views[o].sizes, views[o].strides)) {
      status = wrapper_cuda_copy_to_host(outputs[o].data, views[o].data,
                                         bytes_of(&outputs[o]));
    } else if (status == WRAPPER_OK) {
      /* The span of a strided result, then its elements in order. */
      size_t span =
          (size_t)span_of(info->rank, views[o].sizes, views[o].strides);
      char *staged = malloc(span * element + 1);
      status = staged ? wrapper_cuda_copy_to_host(staged, views[o].data,
                                                  span * element)
                      : wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                             "out of host memory copying "
                                             "output %s", output_names[o]);
      if (status == WRAPPER_OK)
        copy_out((char *)outputs[o].data, staged, info->rank, views[o].sizes,
                 views[o].strides, element);
      free(staged);
    }
    wrapper_cuda_free(views[o].allocated);
  }
  for (int32_t i = 0; i < NUM_INPUTS; ++i)
    wrapper_cuda_free(data[i]);
  return status;
}

/* Device memory in and out, on the caller's stream, without waiting. */
wrapper_status wrapper_model_run_device(wrapper_model *model,
                                        const wrapper_strided_array *inputs,
                                        int32_t num_inputs,
                                        wrapper_strided_array *outputs,
                                        int32_t num_outputs, void *stream) {
  wrapper_status status =
      check_counts(model, inputs, num_inputs, outputs, num_outputs,
                   "wrapper_model_run_device");
  if (status != WRAPPER_OK)
    return status;
  wrapper_array views[NUM_INPUTS + 1];
  void *data[NUM_INPUTS + 1];
  for (int32_t i = 0; i < NUM_INPUTS; ++i) {
    if (inputs[i].rank < 0 || inputs[i].rank > WRAPPER_MAX_RANK)
      return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                  "input %s has rank %d", input_names[i],
                                  (int)inputs[i].rank);
    views[i].dtype = inputs[i].dtype;
    views[i].rank = inputs[i].rank;
    memcpy(views[i].shape, inputs[i].shape, sizeof views[i].shape);
    views[i].data = data[i] = inputs[i].data;
  }
  status = check_inputs(views);
  if (status != WRAPPER_OK)
    return status;
  for (int32_t i = 0; i < NUM_INPUTS; ++i)
    if (!is_dense(inputs[i].rank, inputs[i].shape, inputs[i].strides))
      return wrapper_report_error(
          WRAPPER_ERROR_INVALID_ARGUMENT,
          "input %s is not dense row-major (its strides are not those of "
          "its shape); pass a contiguous array",
          input_names[i]);
  void *previous = NULL;
  status = wrapper_cuda_set_stream(stream, &previous);
  if (status != WRAPPER_OK)
    return status;
  int cancel_state;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
  results_t results;
  status = call_entry(views, data, &results);
  /* Errors of the calls made so far; kernels' own show up at the caller's
   * next synchronization. */
  wrapper_status queued = wrapper_cuda_take_error();
  wrapper_cuda_set_stream(previous, NULL);
  if (status == WRAPPER_OK)
    status = queued;
  result_view_t out[NUM_OUTPUTS + 1];
  view_results(&results, out);
  for (int32_t o = 0; o < NUM_OUTPUTS; ++o) {
    int32_t rank = output_info[o].rank;
    memset(&outputs[o], 0, sizeof outputs[o]);
    if (status != WRAPPER_OK) {
      wrapper_cuda_free(out[o].allocated);
      continue;
    }
    outputs[o].dtype = output_info[o].dtype;
    outputs[o].rank = rank;
    if (rank) {
      memcpy(outputs[o].shape, out[o].sizes, (size_t)rank * sizeof(int64_t));
      memcpy(outputs[o].strides, out[o].strides,
             (size_t)rank * sizeof(int64_t));
    }
    outputs[o].data = out[o].data;
    outputs[o].allocated = out[o].allocated;
  }
  ++model->runs;
  pthread_setcancelstate(cancel_state, NULL);
  return status;
}

const char *wrapper_model_target(const wrapper_model *model) {
  (void)model;
  return "cuda";
}
)";

static const char *dtypeName(Type type) {
  if (type.isF32())
    return "WRAPPER_DTYPE_F32";
  if (type.isF64())
    return "WRAPPER_DTYPE_F64";
  if (type.isF16())
    return "WRAPPER_DTYPE_F16";
  if (type.isBF16())
    return "WRAPPER_DTYPE_BF16";
  if (type.isInteger(1))
    return "WRAPPER_DTYPE_BOOL";
  if (type.isInteger(8))
    return "WRAPPER_DTYPE_I8";
  if (type.isInteger(16))
    return "WRAPPER_DTYPE_I16";
  if (type.isInteger(32))
    return "WRAPPER_DTYPE_I32";
  if (type.isInteger(64))
    return "WRAPPER_DTYPE_I64";
  return nullptr;
}

/// `{dtype, rank, {shape...}}` of a tensor type, -1 for dynamic sizes.
static std::string infoOf(RankedTensorType type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "{" << dtypeName(type.getElementType()) << ", " << type.getRank()
     << ", {";
  llvm::interleaveComma(type.getShape(), os, [&](int64_t size) {
    os << (ShapedType::isDynamic(size) ? int64_t(-1) : size);
  });
  if (type.getRank() == 0)
    os << "0";
  os << "}}";
  return text;
}

std::string mlir::wrapper::generateContainerSource(
    StringRef entry, TypeRange inputs, TypeRange outputs, bool cuda,
    StringRef shapeChecks, ArrayRef<unsigned> writtenInputs,
    std::string &error) {
  for (Type type : llvm::concat<const Type>(inputs, outputs)) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !dtypeName(tensor.getElementType())) {
      llvm::raw_string_ostream os(error);
      os << "the model's signature has a value of type '" << type << "'"
         << ", which the model ABI cannot pass (ranked tensors of bool, "
            "integers, f16, bf16, f32 or f64 only)";
      return {};
    }
  }
  std::string source;
  llvm::raw_string_ostream os(source);
  os << R"(/* Generated by wrapper-compile: the model container of @)" << entry
     << R"(. */
#include "Wrapper/Runtime/WrapperModel.h"
)";
  if (cuda)
    os << "#include \"Wrapper/Runtime/WrapperCuda.h\"\n";
  os << R"(
#include "Wrapper/Runtime/WrapperShim.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ranked memref descriptors, as MLIR passes them. */
)";
  std::set<int64_t> ranks;
  for (Type type : llvm::concat<const Type>(inputs, outputs))
    ranks.insert(cast<RankedTensorType>(type).getRank());
  for (int64_t rank : ranks) {
    os << "typedef struct { void *allocated, *aligned; int64_t offset;";
    if (rank > 0)
      os << " int64_t sizes[" << rank << "]; int64_t strides[" << rank << "];";
    os << " } desc" << rank << ";\n";
  }
  os << "\n";
  os << "typedef struct {";
  for (auto [index, type] : llvm::enumerate(outputs))
    os << " desc" << cast<RankedTensorType>(type).getRank() << " r" << index
       << ";";
  if (outputs.empty())
    os << " int none;";
  os << " } results_t;\n";
  os << "extern void _mlir_ciface_" << entry << "(";
  SmallVector<std::string> params;
  if (!outputs.empty())
    params.push_back("results_t *");
  for (Type type : inputs)
    params.push_back(
        "desc" + std::to_string(cast<RankedTensorType>(type).getRank()) + " *");
  llvm::interleaveComma(params, os);
  if (params.empty())
    os << "void";
  os << ");\n\n";

  os << "typedef struct { wrapper_dtype dtype; int32_t rank; int64_t "
        "shape[WRAPPER_MAX_RANK]; } info_t;\n";
  auto table = [&](StringRef name, TypeRange types, StringRef prefix) {
    os << "static const info_t " << name << "_info[] = {";
    for (Type type : types)
      os << infoOf(cast<RankedTensorType>(type)) << ", ";
    if (types.empty())
      os << "{0, 0, {0}}";
    os << "};\n";
    os << "static const char *const " << name << "_names[] = {";
    for (size_t i = 0; i < types.size(); ++i)
      os << "\"" << prefix << i << "\", ";
    if (types.empty())
      os << "0";
    os << "};\n";
  };
  table("input", inputs, "arg");
  table("output", outputs, "output");
  os << "enum { NUM_INPUTS = " << inputs.size()
     << ", NUM_OUTPUTS = " << outputs.size() << " };\n";
  // The inputs the model writes (1) or only reads (0).
  os << "static const uint8_t input_written[] = {";
  for (size_t i = 0; i < inputs.size(); ++i)
    os << (llvm::is_contained(writtenInputs, i) ? 1 : 0) << ", ";
  os << "0};\n";

  os << R"(
struct wrapper_model { int32_t runs; };

int32_t wrapper_model_abi_version(void) { return WRAPPER_MODEL_ABI_VERSION; }

/* Weights appended to the library (wrapper-compile --weights=appended):
 * defined by the weight loader source, a no-op otherwise. */
wrapper_status wrapper_container_map_weights(void);

wrapper_status wrapper_model_create(wrapper_model **out) {
  if (!out)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_model_create: out is NULL");
  wrapper_status mapped = wrapper_container_map_weights();
  if (mapped != WRAPPER_OK)
    return mapped;
)";
  if (cuda)
    os << R"(  if (!wrapper_cuda_available()) {
    char reason[512];
    snprintf(reason, sizeof reason, "%s", wrapper_last_error());
    return wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED,
                                "this model runs on CUDA: %s", reason);
  }
)";
  os << R"(  *out = (wrapper_model *)calloc(1, sizeof(wrapper_model));
  return *out ? WRAPPER_OK
              : wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                     "out of memory creating the model");
}

void wrapper_model_destroy(wrapper_model *model) { free(model); }

int32_t wrapper_model_num_inputs(const wrapper_model *model) {
  (void)model;
  return NUM_INPUTS;
}
int32_t wrapper_model_num_outputs(const wrapper_model *model) {
  (void)model;
  return NUM_OUTPUTS;
}
const char *wrapper_model_input_name(const wrapper_model *model, int32_t i) {
  (void)model;
  return i >= 0 && i < NUM_INPUTS ? input_names[i] : NULL;
}
const char *wrapper_model_output_name(const wrapper_model *model, int32_t i) {
  (void)model;
  return i >= 0 && i < NUM_OUTPUTS ? output_names[i] : NULL;
}

static wrapper_status info(const info_t *table, int32_t count, int32_t i,
                           wrapper_dtype *dtype, int32_t *rank,
                           int64_t *shape) {
  if (i < 0 || i >= count || !dtype || !rank || !shape)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "index %d out of range or NULL argument",
                                (int)i);
  *dtype = table[i].dtype;
  *rank = table[i].rank;
  memcpy(shape, table[i].shape, sizeof(table[i].shape));
  return WRAPPER_OK;
}
wrapper_status wrapper_model_input_info(const wrapper_model *model, int32_t i,
                                        wrapper_dtype *dtype, int32_t *rank,
                                        int64_t *shape) {
  (void)model;
  return info(input_info, NUM_INPUTS, i, dtype, rank, shape);
}
wrapper_status wrapper_model_output_info(const wrapper_model *model, int32_t i,
                                         wrapper_dtype *dtype, int32_t *rank,
                                         int64_t *shape) {
  (void)model;
  return info(output_info, NUM_OUTPUTS, i, dtype, rank, shape);
}

/* Whether a strided view is dense row-major (strides of size-1
 * dimensions do not matter, nor any of an empty view). */
static int is_dense(int32_t rank, const int64_t *sizes,
                    const int64_t *strides) {
  int64_t count = 1;
  int dense = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    dense &= sizes[d] == 1 || strides[d] == count;
    count *= sizes[d];
  }
  return dense || count == 0;
}

/* Copies a strided result into a dense array: one memcpy when the result
 * is dense row-major already, else element by element. */
static void copy_out(char *dst, const char *src, int32_t rank,
                     const int64_t *sizes, const int64_t *strides,
                     size_t element) {
  int64_t index[WRAPPER_MAX_RANK] = {0};
  int64_t count = 1;
  for (int32_t d = 0; d < rank; ++d)
    count *= sizes[d];
  if (is_dense(rank, sizes, strides)) {
    if (count > 0)
      memcpy(dst, src, (size_t)count * element);
    return;
  }
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t offset = 0;
    for (int32_t d = 0; d < rank; ++d)
      offset += index[d] * strides[d];
    memcpy(dst + flat * element, src + offset * element, element);
    for (int32_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
}

static wrapper_status check_input(const wrapper_array *array, int32_t i) {
  const info_t *expected = &input_info[i];
  if (!array->data && wrapper_array_numel(array) != 0)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "input %s has no data", input_names[i]);
  if (array->dtype != expected->dtype)
    return wrapper_report_error(
        WRAPPER_ERROR_INVALID_ARGUMENT, "input %s has dtype %s, expected %s",
        input_names[i], wrapper_dtype_name(array->dtype),
        wrapper_dtype_name(expected->dtype));
  if (array->rank != expected->rank)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "input %s has rank %d, expected %d",
                                input_names[i], (int)array->rank,
                                (int)expected->rank);
  for (int32_t d = 0; d < expected->rank; ++d)
    if (expected->shape[d] >= 0 ? array->shape[d] != expected->shape[d]
                                : array->shape[d] < 0)
      return wrapper_report_error(
          WRAPPER_ERROR_INVALID_ARGUMENT,
          "input %s dimension %d is %lld, expected %lld", input_names[i],
          (int)d, (long long)array->shape[d], (long long)expected->shape[d]);
  return WRAPPER_OK;
}

)";
  os << shapeChecks;

  os << R"(
/* The checks of wrapper_model_run, on the inputs' dtypes and shapes. */
static wrapper_status check_inputs(const wrapper_array *inputs) {
  for (int32_t i = 0; i < NUM_INPUTS; ++i) {
    wrapper_status status = check_input(&inputs[i], i);
    if (status != WRAPPER_OK)
      return status;
  }
  /* The relations between dynamic sizes that the code relies on. */
  const int64_t *dims[NUM_INPUTS + 1];
  char message[1024];
  for (int32_t i = 0; i < NUM_INPUTS; ++i)
    dims[i] = inputs[i].shape;
  if (check_shapes(dims, message, sizeof message))
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT, "%s", message);
  return WRAPPER_OK;
}

static wrapper_status check_counts(const wrapper_model *model,
                                   const void *inputs, int32_t num_inputs,
                                   const void *outputs, int32_t num_outputs,
                                   const char *function) {
  if (!model || (NUM_INPUTS && !inputs) || (NUM_OUTPUTS && !outputs))
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "%s: NULL argument", function);
  if (num_inputs != NUM_INPUTS || num_outputs != NUM_OUTPUTS)
    return wrapper_report_error(
        WRAPPER_ERROR_INVALID_ARGUMENT,
        "the model takes %d inputs and %d outputs, got %d and %d",
        NUM_INPUTS, NUM_OUTPUTS, (int)num_inputs, (int)num_outputs);
  return WRAPPER_OK;
}

/* Calls the compiled entry on dense row-major inputs at `data`, with the
 * runtime's error jump: a failing extern kernel or proxy call
 * (wrapper_shim_check) returns here with its status. */
static wrapper_status call_entry(const wrapper_array *inputs,
                                 void *const *data, results_t *results) {
  (void)inputs;
  (void)data;
  memset(results, 0, sizeof *results);
)";
  for (auto [index, type] : llvm::enumerate(inputs)) {
    int64_t rank = cast<RankedTensorType>(type).getRank();
    os << "  desc" << rank << " in" << index << ";\n";
    os << "  in" << index << ".allocated = in" << index << ".aligned = data["
       << index << "];\n";
    os << "  in" << index << ".offset = 0;\n";
    if (rank > 0) {
      os << "  {\n    int64_t stride = 1;\n    for (int32_t d = " << rank - 1
         << "; d >= 0; --d) {\n      in" << index << ".sizes[d] = inputs["
         << index << "].shape[d];\n      in" << index
         << ".strides[d] = stride;\n      stride *= inputs[" << index
         << "].shape[d];\n    }\n  }\n";
    }
  }
  // The call scope records the blocks the entry allocates: a failure jumps
  // past its frees, and ending the scope with release frees them.
  os << "  jmp_buf failure;\n  void *volatile previous_jump = NULL;\n"
        "  wrapper_call_scope_begin();\n"
        "  int failed_status = setjmp(failure);\n"
        "  if (failed_status) {\n"
        "    wrapper_set_error_jump(previous_jump);\n"
        "    return wrapper_call_scope_end((wrapper_status)failed_status);\n"
        "  }\n"
        "  previous_jump = wrapper_set_error_jump(&failure);\n";
  os << "  _mlir_ciface_" << entry << "(";
  SmallVector<std::string> args;
  if (!outputs.empty())
    args.push_back("results");
  for (size_t i = 0; i < inputs.size(); ++i)
    args.push_back("&in" + std::to_string(i));
  llvm::interleaveComma(args, os);
  os << ");\n";
  os << "  wrapper_set_error_jump(previous_jump);\n"
        "  return wrapper_call_scope_end(WRAPPER_OK);\n}\n";

  // The results as (sizes, strides, first element, allocation) rows.
  os << "\ntypedef struct { const int64_t *sizes, *strides; char *data; void "
        "*allocated; } result_view_t;\n";
  os << "static void view_results(results_t *results, result_view_t "
        "*views) {\n  (void)results;\n  (void)views;\n";
  for (auto [index, type] : llvm::enumerate(outputs)) {
    int64_t rank = cast<RankedTensorType>(type).getRank();
    std::string r = "results->r" + std::to_string(index);
    std::string v = "views[" + std::to_string(index) + "]";
    if (rank > 0)
      os << "  " << v << ".sizes = " << r << ".sizes;\n  " << v
         << ".strides = " << r << ".strides;\n";
    else
      os << "  " << v << ".sizes = " << v << ".strides = NULL;\n";
    os << "  " << v << ".data = (char *)" << r << ".aligned + " << r
       << ".offset * wrapper_dtype_size(output_info[" << index << "].dtype);\n";
    os << "  " << v << ".allocated = " << r << ".allocated;\n";
  }
  os << "}\n";

  os << (cuda ? cudaRunSource : cpuRunSource);
  os << R"(
wrapper_status wrapper_model_run(wrapper_model *model,
                                 const wrapper_array *inputs,
                                 int32_t num_inputs, wrapper_array *outputs,
                                 int32_t num_outputs) {
  wrapper_status status = check_counts(model, inputs, num_inputs, outputs,
                                       num_outputs, "wrapper_model_run");
  if (status == WRAPPER_OK)
    status = check_inputs(inputs);
  if (status != WRAPPER_OK)
    return status;
  int32_t created = 0;
  /* A thread cancelled during the call stops after it, with nothing held. */
  int cancel_state;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
  status = run_checked(inputs, outputs, &created);
  /* A failure after some outputs were created (the allocation or copy of a
   * later one) leaves the caller no outputs to free. */
  if (status != WRAPPER_OK)
    for (int32_t i = 0; i < created; ++i)
      wrapper_array_destroy(&outputs[i]);
  ++model->runs;
  pthread_setcancelstate(cancel_state, NULL);
  return status;
}
)";
  return source;
}

/// The weights' slots, places and identity as C definitions (arrays with a
/// last unused entry, so that they are never empty).
static void writeWeightTables(llvm::raw_ostream &os,
                              const AppendedWeights &weights) {
  for (const AppendedWeight &weight : weights.weights)
    os << "extern void *" << weight.slot << ";\n";
  os << "static void **const weight_slots[] = {";
  for (const AppendedWeight &weight : weights.weights)
    os << "&" << weight.slot << ", ";
  os << "NULL};\nstatic const uint64_t weight_offsets[] = {";
  for (const AppendedWeight &weight : weights.weights)
    os << weight.offset << "ULL, ";
  os << "0};\n";
  os << "#define NUM_WEIGHTS " << weights.weights.size() << "\n";
  os << "#define WEIGHTS_BYTES " << weights.totalBytes << "ULL\n";
  os << "#define WEIGHTS_MAGIC 0x";
  os.write_hex(weights.magic);
  os << "ULL\n";
}

static constexpr const char *kWeightLoaderIncludes = R"c(#define _GNU_SOURCE
#include "Wrapper/Runtime/WrapperRuntime.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

)c";

/// The loader of --weights=external: wrapper_model_bind_weights, and the
/// safetensors file next to the library when nothing was bound.
static void writeExternalLoader(llvm::raw_ostream &os,
                                const AppendedWeights &weights,
                                StringRef file) {
  os << "/* Generated by wrapper-compile: binds the weights of a safetensors "
        "file\n * (--weights=external). */\n"
     << kWeightLoaderIncludes;
  writeWeightTables(os, weights);
  os << "#define WEIGHTS_FILE \"" << file << "\"\n";
  os << "static const char magic_text[] = \"";
  os.write_escaped(safetensorsMagicText(weights.magic));
  os << "\";\n";
  os << R"c(
static pthread_mutex_t weights_lock = PTHREAD_MUTEX_INITIALIZER;
static int weights_bound;

/* Checks a safetensors file's bytes against this model's weights and points
 * the slots into its data. */
static wrapper_status bind_locked(const void *file, uint64_t bytes,
                                  const char *what) {
  uint64_t header;
  if (bytes < 8)
    return wrapper_report_error(WRAPPER_ERROR_FORMAT,
                                "%s: %llu bytes, too short for a safetensors "
                                "file", what, (unsigned long long)bytes);
  memcpy(&header, file, sizeof(header));
  if (header > bytes - 8)
    return wrapper_report_error(
        WRAPPER_ERROR_FORMAT,
        "%s: its header (%llu bytes) runs past its end (%llu bytes): a "
        "truncated or damaged safetensors file", what,
        (unsigned long long)header, (unsigned long long)bytes);
  if (!memmem((const char *)file + 8, (size_t)header, magic_text,
              sizeof(magic_text) - 1))
    return wrapper_report_error(
        WRAPPER_ERROR_FORMAT,
        "%s: not the weights this model was compiled with (its header "
        "lacks this model's %s)", what, magic_text);
  if (bytes - 8 - header != WEIGHTS_BYTES)
    return wrapper_report_error(
        WRAPPER_ERROR_FORMAT,
        "%s: %llu bytes of tensor data, this model's weights are %llu "
        "bytes: truncated or damaged", what,
        (unsigned long long)(bytes - 8 - header),
        (unsigned long long)WEIGHTS_BYTES);
  const char *data = (const char *)file + 8 + header;
  for (int i = 0; i < NUM_WEIGHTS; ++i)
    *weight_slots[i] = (void *)(data + weight_offsets[i]);
  weights_bound = 1;
  return WRAPPER_OK;
}

wrapper_status wrapper_model_bind_weights(const void *file, uint64_t bytes) {
  if (!file)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_model_bind_weights: no weights given");
  pthread_mutex_lock(&weights_lock);
  wrapper_status status = bind_locked(file, bytes, "the weights given");
  pthread_mutex_unlock(&weights_lock);
  return status;
}

/* Maps WEIGHTS_FILE from the library's directory (mapped for the rest of
 * the process, as appended weights are). */
static wrapper_status map_default_locked(void) {
  Dl_info info;
  char path[4096];
  if (!dladdr((void *)&map_default_locked, &info) || !info.dli_fname)
    return wrapper_report_error(WRAPPER_ERROR_IO,
                                "cannot find the file of the model library "
                                "to find its weights");
  const char *slash = strrchr(info.dli_fname, '/');
  int dir = slash ? (int)(slash - info.dli_fname) : 1;
  snprintf(path, sizeof(path), "%.*s/%s", dir, slash ? info.dli_fname : ".",
           WEIGHTS_FILE);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return wrapper_report_error(
        WRAPPER_ERROR_IO,
        "this model's weights are external (wrapper-compile "
        "--weights=external): bind them with wrapper_model_bind_weights (a "
        "package does) or put %s next to the library (cannot open '%s': %s)",
        WEIGHTS_FILE, path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return wrapper_report_error(WRAPPER_ERROR_IO, "cannot read '%s': %s", path,
                                strerror(errno));
  }
  void *map = st.st_size > 0 ? mmap(NULL, (size_t)st.st_size, PROT_READ,
                                    MAP_PRIVATE, fd, 0)
                             : MAP_FAILED;
  close(fd);
  if (map == MAP_FAILED)
    return wrapper_report_error(WRAPPER_ERROR_IO, "cannot map '%s': %s", path,
                                st.st_size > 0 ? strerror(errno) : "empty");
  wrapper_status status = bind_locked(map, (uint64_t)st.st_size, path);
  if (status != WRAPPER_OK)
    munmap(map, (size_t)st.st_size);
  return status;
}

wrapper_status wrapper_container_map_weights(void) {
  pthread_mutex_lock(&weights_lock);
  wrapper_status status = weights_bound ? WRAPPER_OK : map_default_locked();
  pthread_mutex_unlock(&weights_lock);
  return status;
}
)c";
}

std::string
mlir::wrapper::generateWeightLoaderSource(const AppendedWeights &weights,
                                          StringRef externalFile) {
  std::string source;
  llvm::raw_string_ostream os(source);
  if (!externalFile.empty()) {
    writeExternalLoader(os, weights, externalFile);
    return source;
  }
  if (weights.weights.empty()) {
    os << R"c(/* Generated by wrapper-compile: no appended weights. */
#include "Wrapper/Runtime/WrapperRuntime.h"
wrapper_status wrapper_container_map_weights(void) { return WRAPPER_OK; }
)c";
    return source;
  }
  os << "/* Generated by wrapper-compile: maps the weights appended to this\n"
        " * library. File layout: [library][padding][weights][u64 weights "
        "offset]\n * [u64 weights bytes][u64 magic]. */\n"
     << kWeightLoaderIncludes;
  writeWeightTables(os, weights);
  os << R"c(
static pthread_once_t weights_once = PTHREAD_ONCE_INIT;
static wrapper_status weights_status = WRAPPER_OK;
static char weights_error[1024];

static void fail_mapping(wrapper_status status, const char *message) {
  weights_status = status;
  snprintf(weights_error, sizeof(weights_error), "%s", message);
}

static void map_weights(void) {
  char message[900];
  Dl_info info;
  if (!dladdr((void *)&map_weights, &info) || !info.dli_fname) {
    fail_mapping(WRAPPER_ERROR_IO, "cannot find the file of the model library "
                                   "to map its weights");
    return;
  }
  int fd = open(info.dli_fname, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(message, sizeof(message), "cannot open '%s' to map its weights: "
             "%s", info.dli_fname, strerror(errno));
    fail_mapping(WRAPPER_ERROR_IO, message);
    return;
  }
  struct stat st;
  uint64_t trailer[3] = {0, 0, 0};
  int ok = fstat(fd, &st) == 0 && st.st_size >= 24 &&
           pread(fd, trailer, sizeof(trailer), st.st_size - 24) == 24;
  if (!ok || trailer[2] != WEIGHTS_MAGIC || trailer[1] != WEIGHTS_BYTES ||
      trailer[0] + trailer[1] + 24 != (uint64_t)st.st_size) {
    close(fd);
    snprintf(message, sizeof(message), "'%s' does not end in the weights "
             "this model was compiled with (magic number or size mismatch; "
             "was the library stripped or its weights replaced?)",
             info.dli_fname);
    fail_mapping(WRAPPER_ERROR_FORMAT, message);
    return;
  }
  void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) {
    snprintf(message, sizeof(message), "cannot map the weights of '%s': %s",
             info.dli_fname, strerror(errno));
    fail_mapping(WRAPPER_ERROR_IO, message);
    return;
  }
  for (int i = 0; i < NUM_WEIGHTS; ++i)
    *weight_slots[i] = (char *)map + trailer[0] + weight_offsets[i];
}

wrapper_status wrapper_container_map_weights(void) {
  pthread_once(&weights_once, map_weights);
  if (weights_status != WRAPPER_OK)
    return wrapper_report_error(weights_status, "%s", weights_error);
  return WRAPPER_OK;
}
)c";
  return source;
}
