//===- TrainingSource.h - the C source of a trainer -------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_TOOLS_WRAPPER_COMPILE_TRAININGSOURCE_H
#define WRAPPER_TOOLS_WRAPPER_COMPILE_TRAININGSOURCE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <vector>

namespace mlir {
namespace wrapper {

/// The roles of a training step's arguments and results, read from their
/// attributes (include/Wrapper/Runtime/WrapperTraining.h).
struct TrainingSignature {
  struct State {
    std::string name;
    unsigned input;
    /// The result holding the new value, -1 when the step does not return
    /// one.
    int output;
    /// Whether the step writes the new value into the state's own memory
    /// (tensor_program.copy_back) instead.
    bool inPlace = false;
  };
  std::vector<State> states;
  /// The data inputs (arguments that are neither state nor the seed).
  std::vector<unsigned> dataInputs;
  std::vector<std::string> dataNames;
  unsigned lossOutput = 0;
  int seedInput = -1;
};

/// Reads the training attributes (tensor_program.state, .loss, .seed) of
/// `func`'s arguments and results. Returns false with an empty `error` when
/// it has none (not a training step), false with a message naming the
/// problem when they are malformed.
bool collectTrainingSignature(func::FuncOp func, TrainingSignature &signature,
                              std::string &error);

/// The C source of the trainer (WrapperTraining.h) over the model container
/// of generateContainerSource, appended to the same file: it calls
/// wrapper_model_run and uses the container's input tables.
/// The C source of the trainer of a model container (ContainerSource.h)
/// compiled for the CPU or, with `cuda`, for a CUDA device (state in device
/// memory).
std::string generateTrainingSource(const TrainingSignature &signature,
                                   bool cuda);

/// The part of the trainer's source that depends on the target: the
/// trainer struct, its state's storage, the step (TrainingStateSource.cpp).
const char *trainerStateSource(bool cuda);

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_TOOLS_WRAPPER_COMPILE_TRAININGSOURCE_H
