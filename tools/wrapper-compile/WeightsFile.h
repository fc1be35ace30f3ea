//===- WeightsFile.h - weights outside the model library --------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// --weights=appended and --weights=external: the values of a compiled
// module's constants taken out of its IR into one blob, which is appended to
// model.so (mapped when a model is created) or written as a safetensors file
// (bound with wrapper_model_bind_weights, or mapped from next to the
// library). See docs/Tools.md, "Weights".
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_TOOLS_WRAPPER_COMPILE_WEIGHTSFILE_H
#define WRAPPER_TOOLS_WRAPPER_COMPILE_WEIGHTSFILE_H

#include "ContainerSource.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace mlir {
namespace wrapper {

/// Moves the values of the module's constants into `blob` (each aligned to
/// 64 bytes): each constant is renamed w<N> (its slot is then
/// __wrapper_slot_w<N>, a C identifier) and left without a value; `weights`
/// records each one's slot, place, original name, dtype and shape, and a
/// random number that identifies this blob.
LogicalResult takeOutConstants(ModuleOp module, AppendedWeights &weights,
                               std::vector<char> &blob, std::string &error);

/// Appends padding (to a page boundary), the blob and the trailer [blob
/// offset, blob bytes, magic] to the library `path`.
LogicalResult appendWeights(StringRef path, const AppendedWeights &weights,
                            const std::vector<char> &blob, std::string &error);

/// Writes the blob as the safetensors file `path`: a JSON header naming each
/// weight (its original name, dtype, shape and place; the alignment gaps as
/// U8 tensors named wrapper.pad.<N>, since safetensors allows no holes)
/// with __metadata__ {"wrapper.magic": "0x<16 hex digits>"}, padded with
/// spaces so that the data starts on a page boundary.
LogicalResult writeSafetensors(StringRef path, const AppendedWeights &weights,
                               const std::vector<char> &blob,
                               std::string &error);

/// The text by which a safetensors header names the blob `magic` (what
/// wrapper_model_bind_weights looks for).
std::string safetensorsMagicText(uint64_t magic);

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_TOOLS_WRAPPER_COMPILE_WEIGHTSFILE_H
