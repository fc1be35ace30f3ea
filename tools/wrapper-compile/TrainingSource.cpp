//===- TrainingSource.cpp - the C source of a trainer ---------------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "TrainingSource.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::wrapper;

static constexpr llvm::StringLiteral kState = "tensor_program.state";
static constexpr llvm::StringLiteral kLoss = "tensor_program.loss";
static constexpr llvm::StringLiteral kSeed = "tensor_program.seed";
static constexpr llvm::StringLiteral kName = "tensor_program.name";

/// Why `name` cannot name a state (it is a file name in the state
/// directory), or an empty string.
static std::string badStateName(StringRef name) {
  if (name.empty())
    return "is empty";
  if (name == "." || name == "..")
    return "is '" + name.str() + "'";
  for (char c : name)
    if (c == '/' || static_cast<unsigned char>(c) < 0x20)
      return "holds a '/' or a control character";
  return {};
}

/// `text` as a C string literal.
static std::string cString(StringRef text) {
  std::string result = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      result += '\\';
      result += c;
    } else if (c >= 0x20 && c < 0x7f) {
      result += c;
    } else {
      char octal[8];
      snprintf(octal, sizeof octal, "\\%03o", static_cast<unsigned char>(c));
      result += octal;
    }
  }
  return result + "\"";
}

bool mlir::wrapper::collectTrainingSignature(func::FuncOp func,
                                             TrainingSignature &signature,
                                             std::string &error) {
  error.clear();
  llvm::raw_string_ostream os(error);
  FunctionType type = func.getFunctionType();
  bool training = false;
  for (unsigned i = 0, e = type.getNumInputs(); i < e; ++i)
    training |= func.getArgAttr(i, kState) || func.getArgAttr(i, kSeed);
  for (unsigned i = 0, e = type.getNumResults(); i < e; ++i)
    training |= func.getResultAttr(i, kState) || func.getResultAttr(i, kLoss);
  if (!training)
    return false;

  signature = TrainingSignature();
  llvm::StringMap<unsigned> stateIndex;
  for (unsigned i = 0, e = type.getNumInputs(); i < e; ++i) {
    Attribute state = func.getArgAttr(i, kState);
    Attribute seed = func.getArgAttr(i, kSeed);
    if (state && seed) {
      os << "argument #" << i << " is both state and the seed";
      return false;
    }
    if (seed) {
      auto tensor = dyn_cast<RankedTensorType>(type.getInput(i));
      if (!isa<UnitAttr>(seed) || !tensor || tensor.getRank() != 0 ||
          !tensor.getElementType().isInteger(64)) {
        os << "argument #" << i
           << ": the seed is a unit attribute on a tensor<i64>";
        return false;
      }
      if (signature.seedInput >= 0) {
        os << "arguments #" << signature.seedInput << " and #" << i
           << " are both marked tensor_program.seed";
        return false;
      }
      signature.seedInput = i;
      continue;
    }
    if (!state) {
      signature.dataInputs.push_back(i);
      auto name = func.getArgAttrOfType<StringAttr>(i, kName);
      signature.dataNames.push_back(
          name ? name.str()
               : "input" + std::to_string(signature.dataNames.size()));
      continue;
    }
    auto name = dyn_cast<StringAttr>(state);
    if (!name) {
      os << "argument #" << i << ": tensor_program.state must be a string";
      return false;
    }
    if (std::string why = badStateName(name.getValue()); !why.empty()) {
      os << "argument #" << i << ": the state name '" << name.getValue() << "' "
         << why << " (state names are file names)";
      return false;
    }
    auto tensor = dyn_cast<RankedTensorType>(type.getInput(i));
    if (!tensor || !tensor.hasStaticShape()) {
      os << "state '" << name.getValue() << "' (argument #" << i
         << ") must have a static shape, got '" << type.getInput(i) << "'";
      return false;
    }
    if (!stateIndex.try_emplace(name.getValue(), signature.states.size())
             .second) {
      os << "two arguments hold the state '" << name.getValue() << "'";
      return false;
    }
    signature.states.push_back({name.str(), i, -1});
  }
  // States updated in place; nothing else may be written.
  for (Operation &op : func.getBody().front()) {
    auto copy = dyn_cast<tensor_program::CopyBackOp>(op);
    if (!copy)
      continue;
    unsigned arg = cast<BlockArgument>(copy.getTarget()).getArgNumber();
    auto state = llvm::find_if(signature.states,
                               [&](const auto &s) { return s.input == arg; });
    if (state == signature.states.end()) {
      os << "argument #" << arg
         << " is written back (tensor_program.copy_back) but is not a "
            "state; a training step updates only its states";
      return false;
    }
    state->inPlace = true;
  }

  int loss = -1;
  for (unsigned i = 0, e = type.getNumResults(); i < e; ++i) {
    if (Attribute marker = func.getResultAttr(i, kLoss)) {
      auto tensor = dyn_cast<RankedTensorType>(type.getResult(i));
      if (!isa<UnitAttr>(marker) || !tensor || tensor.getRank() != 0 ||
          !isa<FloatType>(tensor.getElementType())) {
        os << "result #" << i
           << ": the loss is a unit attribute on a float scalar tensor, got '"
           << type.getResult(i) << "'";
        return false;
      }
      if (loss >= 0) {
        os << "results #" << loss << " and #" << i
           << " are both marked tensor_program.loss";
        return false;
      }
      loss = i;
    }
    Attribute state = func.getResultAttr(i, kState);
    if (!state)
      continue;
    auto name = dyn_cast<StringAttr>(state);
    if (!name) {
      os << "result #" << i << ": tensor_program.state must be a string";
      return false;
    }
    auto it = stateIndex.find(name.getValue());
    if (it == stateIndex.end()) {
      os << "result #" << i << " updates the state '" << name.getValue()
         << "', which no argument holds";
      return false;
    }
    TrainingSignature::State &held = signature.states[it->second];
    if (held.inPlace) {
      os << "result #" << i << " updates the state '" << name.getValue()
         << "', which the step also writes back in place";
      return false;
    }
    if (held.output >= 0) {
      os << "results #" << held.output << " and #" << i
         << " both update the state '" << name.getValue() << "'";
      return false;
    }
    if (type.getResult(i) != type.getInput(held.input)) {
      os << "result #" << i << " updates the state '" << name.getValue()
         << "' with a '" << type.getResult(i) << "', the state is a '"
         << type.getInput(held.input) << "'";
      return false;
    }
    held.output = i;
  }
  if (loss < 0) {
    os << "a training step (with tensor_program.state or .seed) needs one "
          "result marked tensor_program.loss";
    return false;
  }
  signature.lossOutput = loss;
  return true;
}

std::string
mlir::wrapper::generateTrainingSource(const TrainingSignature &signature,
                                      bool cuda) {
  std::string source;
  llvm::raw_string_ostream os(source);
  os << R"c(
/* The trainer (Wrapper/Runtime/WrapperTraining.h): state held between
 * steps, each step one run of the model. */
#include "Wrapper/Runtime/WrapperTraining.h"

)c";
  size_t numStates = signature.states.size();
  size_t numData = signature.dataInputs.size();
  os << "enum { NUM_STATES = " << numStates << ", NUM_DATA = " << numData
     << ", LOSS_OUTPUT = " << signature.lossOutput
     << ", SEED_INPUT = " << signature.seedInput << " };\n";
  auto list = [&](StringRef decl, auto &&range, auto &&print) {
    os << "static const " << decl << "[] = {";
    bool empty = true;
    for (const auto &item : range) {
      print(item);
      os << ", ";
      empty = false;
    }
    if (empty)
      os << "0";
    os << "};\n";
  };
  list("char *const state_names", signature.states,
       [&](const TrainingSignature::State &s) { os << cString(s.name); });
  list("int32_t state_input", signature.states,
       [&](const TrainingSignature::State &s) { os << s.input; });
  list("int32_t state_output", signature.states,
       [&](const TrainingSignature::State &s) { os << s.output; });
  list("uint8_t state_in_place", signature.states,
       [&](const TrainingSignature::State &s) { os << (s.inPlace ? 1 : 0); });
  list("int32_t data_input", signature.dataInputs,
       [&](unsigned i) { os << i; });
  list("char *const data_names", signature.dataNames,
       [&](const std::string &name) { os << cString(name); });
  os << R"c(
static const info_t *state_info(int32_t i) { return &input_info[state_input[i]]; }

static size_t array_bytes(const wrapper_array *array) {
  return (size_t)wrapper_array_numel(array) * wrapper_dtype_size(array->dtype);
}

/* splitmix64: the seed of step k, below 2^53 like the Python runner's. */
static int64_t step_seed(uint64_t seed, int64_t step) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (uint64_t)(step + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (int64_t)(z & ((1ULL << 53) - 1));
}

static double scalar_value(wrapper_dtype dtype, const void *data) {
  switch (dtype) {
  case WRAPPER_DTYPE_F32:
    return *(const float *)data;
  case WRAPPER_DTYPE_F64:
    return *(const double *)data;
  case WRAPPER_DTYPE_F16:
    return wrapper_f16_to_f32(*(const uint16_t *)data);
  case WRAPPER_DTYPE_BF16:
    return wrapper_bf16_to_f32(*(const uint16_t *)data);
  default:
    return 0.0;
  }
}

/* `dtype[d0, d1, ...]` of an info or an array into `text`. */
static void describe(char *text, size_t size, wrapper_dtype dtype,
                     int32_t rank, const int64_t *shape) {
  int used = snprintf(text, size, "%s[", wrapper_dtype_name(dtype));
  for (int32_t d = 0; d < rank && d < WRAPPER_MAX_RANK; ++d)
    if (used < (int)size)
      used += snprintf(text + used, size - (size_t)used,
                       d ? ", %lld" : "%lld", (long long)shape[d]);
  if (used < (int)size)
    snprintf(text + used, size - (size_t)used, "]");
}

/* Whether `value` has the dtype and shape of `info`; the message names
 * `where`, `kind` ("state", "input"), `name` and both types. */
static wrapper_status check_value(const info_t *info,
                                  const wrapper_array *value,
                                  const char *where, const char *kind,
                                  const char *name) {
  int same = value->dtype == info->dtype && value->rank == info->rank;
  for (int32_t d = 0; same && d < info->rank; ++d)
    same = value->shape[d] == info->shape[d];
  if (same)
    return WRAPPER_OK;
  char got[256], expected[256];
  describe(got, sizeof got, value->dtype, value->rank, value->shape);
  describe(expected, sizeof expected, info->dtype, info->rank, info->shape);
  return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                              "%s: %s '%s' is %s, got %s", where, kind, name,
                              expected, got);
}

static wrapper_status check_state_value(int32_t i, const wrapper_array *value,
                                        const char *where) {
  return check_value(state_info(i), value, where, "state", state_names[i]);
}

/* What every step checks before its inputs: the arguments, the count, the
 * states set. */
static int state_is_set(const wrapper_trainer *trainer, int32_t i);
static wrapper_status check_step(const wrapper_trainer *trainer,
                                 int null_inputs, int32_t num_inputs,
                                 const char *where) {
  if (!trainer || null_inputs)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "%s: NULL argument", where);
  if (num_inputs != NUM_DATA)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "the training step takes %d inputs, got %d",
                                (int)NUM_DATA, (int)num_inputs);
  for (int32_t i = 0; i < NUM_STATES; ++i)
    if (!state_is_set(trainer, i))
      return wrapper_report_error(
          WRAPPER_ERROR_INVALID_ARGUMENT,
          "state '%s' was never loaded or set (wrapper_train_load_state, "
          "wrapper_train_set_state)",
          state_names[i]);
  return WRAPPER_OK;
}
)c";
  os << trainerStateSource(cuda);
  os << R"c(
static int state_is_set(const wrapper_trainer *trainer, int32_t i) {
  return trainer->set[i];
}

int32_t wrapper_train_abi_version(void) { return WRAPPER_TRAIN_ABI_VERSION; }

const char *wrapper_train_target(const wrapper_trainer *trainer) {
  return wrapper_model_target(trainer ? trainer->model : NULL);
}

void wrapper_train_destroy(wrapper_trainer *trainer) {
  if (!trainer)
    return;
  for (int32_t i = 0; i < NUM_STATES; ++i)
    state_destroy(trainer, i);
  target_release(trainer);
  wrapper_model_destroy(trainer->model);
  free(trainer);
}

wrapper_status wrapper_train_create(wrapper_trainer **out) {
  if (!out)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_train_create: out is NULL");
  *out = NULL;
  wrapper_trainer *trainer = (wrapper_trainer *)calloc(1, sizeof *trainer);
  if (!trainer)
    return wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                "out of memory creating the trainer");
  wrapper_status status = wrapper_model_create(&trainer->model);
  for (int32_t i = 0; i < NUM_STATES && status == WRAPPER_OK; ++i)
    status = state_create(trainer, i);
  if (status != WRAPPER_OK) {
    wrapper_train_destroy(trainer);
    return status;
  }
  *out = trainer;
  return WRAPPER_OK;
}

int32_t wrapper_train_num_states(const wrapper_trainer *trainer) {
  (void)trainer;
  return NUM_STATES;
}

const char *wrapper_train_state_name(const wrapper_trainer *trainer,
                                     int32_t i) {
  (void)trainer;
  return i >= 0 && i < NUM_STATES ? state_names[i] : NULL;
}

int32_t wrapper_train_state_index(const wrapper_trainer *trainer,
                                  const char *name) {
  (void)trainer;
  for (int32_t i = 0; name && i < NUM_STATES; ++i)
    if (strcmp(state_names[i], name) == 0)
      return i;
  return -1;
}

static wrapper_status check_state_index(int32_t i) {
  if (i < 0 || i >= NUM_STATES)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "state index %d out of range (%d states)",
                                (int)i, (int)NUM_STATES);
  return WRAPPER_OK;
}

wrapper_status wrapper_train_state_info(const wrapper_trainer *trainer,
                                        int32_t i, wrapper_dtype *dtype,
                                        int32_t *rank, int64_t *shape) {
  (void)trainer;
  wrapper_status status = check_state_index(i);
  return status != WRAPPER_OK
             ? status
             : info(input_info, NUM_INPUTS, state_input[i], dtype, rank,
                    shape);
}

int32_t wrapper_train_state_updated(const wrapper_trainer *trainer,
                                    int32_t i) {
  (void)trainer;
  return i >= 0 && i < NUM_STATES &&
         (state_output[i] >= 0 || state_in_place[i]);
}

wrapper_status wrapper_train_get_state(const wrapper_trainer *trainer,
                                       int32_t i, wrapper_array *out) {
  if (!trainer || !out)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_train_get_state: NULL argument");
  wrapper_status status = check_state_index(i);
  return status == WRAPPER_OK ? state_read(trainer, i, out) : status;
}

wrapper_status wrapper_train_set_state(wrapper_trainer *trainer, int32_t i,
                                       const wrapper_array *value) {
  if (!trainer || !value)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_train_set_state: NULL argument");
  wrapper_status status = check_state_index(i);
  if (status == WRAPPER_OK)
    status = check_state_value(i, value, "wrapper_train_set_state");
  if (status == WRAPPER_OK)
    status = state_write(trainer, i, value);
  if (status == WRAPPER_OK)
    trainer->set[i] = 1;
  return status;
}

static wrapper_status state_path(const char *directory, int32_t i, char *path,
                                 size_t size) {
  if ((size_t)snprintf(path, size, "%s/%s.npy", directory, state_names[i]) >=
      size)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "the path of state '%s' in '%s' is too long",
                                state_names[i], directory);
  return WRAPPER_OK;
}

wrapper_status wrapper_train_load_state(wrapper_trainer *trainer,
                                        const char *directory) {
  if (!trainer || !directory)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_train_load_state: NULL argument");
  /* All files read and checked before any state changes. */
  wrapper_array loaded[NUM_STATES + 1];
  memset(loaded, 0, sizeof loaded);
  wrapper_status status = WRAPPER_OK;
  char path[4096];
  int32_t count = 0;
  for (; count < NUM_STATES && status == WRAPPER_OK; ++count) {
    status = state_path(directory, count, path, sizeof path);
    if (status == WRAPPER_OK)
      status = wrapper_npy_load(path, &loaded[count]);
    if (status == WRAPPER_OK)
      status = check_state_value(count, &loaded[count], path);
  }
  for (int32_t i = 0; i < count; ++i) {
    if (status == WRAPPER_OK)
      status = state_write(trainer, i, &loaded[i]);
    if (status == WRAPPER_OK)
      trainer->set[i] = 1;
    wrapper_array_destroy(&loaded[i]);
  }
  return status;
}

wrapper_status wrapper_train_save_state(const wrapper_trainer *trainer,
                                        const char *directory) {
  if (!trainer || !directory)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_train_save_state: NULL argument");
  char path[4096];
  for (int32_t i = 0; i < NUM_STATES; ++i) {
    wrapper_array value;
    memset(&value, 0, sizeof value);
    wrapper_status status = state_path(directory, i, path, sizeof path);
    if (status == WRAPPER_OK)
      status = state_read(trainer, i, &value);
    if (status == WRAPPER_OK)
      status = wrapper_npy_save(path, &value);
    wrapper_array_destroy(&value);
    if (status != WRAPPER_OK)
      return status;
  }
  return WRAPPER_OK;
}

int32_t wrapper_train_num_inputs(const wrapper_trainer *trainer) {
  (void)trainer;
  return NUM_DATA;
}

const char *wrapper_train_input_name(const wrapper_trainer *trainer,
                                     int32_t i) {
  (void)trainer;
  return i >= 0 && i < NUM_DATA ? data_names[i] : NULL;
}

wrapper_status wrapper_train_input_info(const wrapper_trainer *trainer,
                                        int32_t i, wrapper_dtype *dtype,
                                        int32_t *rank, int64_t *shape) {
  (void)trainer;
  if (i < 0 || i >= NUM_DATA)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "input index %d out of range (%d inputs)",
                                (int)i, (int)NUM_DATA);
  return info(input_info, NUM_INPUTS, data_input[i], dtype, rank, shape);
}

void wrapper_train_set_seed(wrapper_trainer *trainer, uint64_t seed) {
  if (!trainer)
    return;
  trainer->seed = seed;
  seeds_changed(trainer);
}

int64_t wrapper_train_steps(const wrapper_trainer *trainer) {
  return trainer ? trainer->steps : 0;
}

wrapper_status wrapper_train_step(wrapper_trainer *trainer,
                                  const wrapper_array *inputs,
                                  int32_t num_inputs, double *loss) {
  wrapper_status status = check_step(trainer, NUM_DATA && !inputs, num_inputs,
                                     "wrapper_train_step");
  for (int32_t i = 0; i < NUM_DATA && status == WRAPPER_OK; ++i)
    status = check_value(&input_info[data_input[i]], &inputs[i],
                         "wrapper_train_step", "input", data_names[i]);
  return status == WRAPPER_OK ? run_step(trainer, inputs, loss) : status;
}
)c";
  return source;
}
