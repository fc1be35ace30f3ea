//===- ContainerSource.h - the C source of a model container ----*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_TOOLS_WRAPPER_COMPILE_CONTAINERSOURCE_H
#define WRAPPER_TOOLS_WRAPPER_COMPILE_CONTAINERSOURCE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeRange.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
namespace wrapper {

/// The C source of the model container of a compiled function `entry` with
/// tensor `inputs` and `outputs`: the versioned ABI of WrapperModel.h, which
/// checks inputs, builds memref descriptors, calls `_mlir_ciface_<entry>`
/// and copies the results into runtime arrays. With `cuda` (an entry
/// compiled by --wrapper-cuda-pipeline with device-arguments), creating a
/// model checks that CUDA is available; wrapper_model_run copies the inputs
/// to the device and the results back, waits for the GPU and reports its
/// first error, and wrapper_model_run_device passes device memory through
/// on the caller's stream. `shapeChecks` is the C source of
/// `check_shapes` (ShapeRequirements::emitC), run on the inputs' sizes
/// before anything reads them. Fails (empty string, message in `error`) for
/// element types the runtime has no dtype for. `writtenInputs` are the
/// inputs the model updates in place (tensor_program.copy_back): on CUDA,
/// wrapper_model_run copies them back into the caller's host arrays.
std::string generateContainerSource(StringRef entry, TypeRange inputs,
                                    TypeRange outputs, bool cuda,
                                    StringRef shapeChecks,
                                    ArrayRef<unsigned> writtenInputs,
                                    std::string &error);

/// A weight taken out of model.so: the pointer slot the compiled code reads
/// it through, where it lies in the blob, and what it was (the constant's
/// symbol name, its safetensors dtype and its shape).
struct AppendedWeight {
  std::string slot;
  uint64_t offset, bytes;
  std::string name, dtype;
  std::vector<int64_t> shape;
};

/// The weights appended to model.so and the number that identifies them.
struct AppendedWeights {
  std::vector<AppendedWeight> weights;
  uint64_t totalBytes = 0;
  uint64_t magic = 0;
};

/// The C source that finds the weights at wrapper_model_create. Appended
/// (`externalFile` empty): it finds its own file (dladdr), checks the
/// trailer [blob offset, blob bytes, magic] at the end of the file against
/// the values compiled in, maps the file read-only once, and fills each
/// slot. External: it exports wrapper_model_bind_weights (a safetensors
/// file's bytes, checked for the magic and size) and, when nothing was
/// bound, maps `externalFile` (a name) from the library's directory.
std::string generateWeightLoaderSource(const AppendedWeights &weights,
                                       StringRef externalFile = "");

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_TOOLS_WRAPPER_COMPILE_CONTAINERSOURCE_H
