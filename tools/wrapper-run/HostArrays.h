//===- HostArrays.h - wrapper-run's arrays, files and call frames -*- C++
//-*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_TOOLS_WRAPPER_RUN_HOSTARRAYS_H
#define WRAPPER_TOOLS_WRAPPER_RUN_HOSTARRAYS_H

#include "Wrapper/Interpreter/Interpreter.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeRange.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
namespace wrapper {

std::string formatShape(ArrayRef<int64_t> shape);
std::string typeToString(Type type);

/// Bytes a tensor takes in its element type.
uint64_t hostBytes(const HostTensor &tensor);

/// Reads a .npy file for argument `index` of type `expected` (a ranked
/// tensor, or a scalar as a rank-0 array), checking dtype, rank and static
/// dimensions; `what` names the file's role in messages.
FailureOr<HostTensor> loadInput(StringRef path, Type expected, size_t index,
                                std::string &error, StringRef what = "input");

/// Writes a tensor to a .npy file.
LogicalResult saveOutput(StringRef path, const HostTensor &tensor,
                         std::string &error);

/// Prints shape, dtype, statistics and (up to 64) values.
void printTensor(llvm::raw_ostream &os, StringRef name,
                 const HostTensor &tensor);

/// The arguments and results of one call of a `_mlir_ciface_` function in
/// MLIR's C calling convention: memref descriptors passed by pointer, the
/// results through a pointer to a struct of descriptors passed first.
class CallFrame {
public:
  CallFrame(ArrayRef<HostTensor> args, TypeRange argTypes,
            TypeRange resultTypes);
  ~CallFrame();

  /// The packed argument list for ExecutionEngine::invokePacked.
  MutableArrayRef<void *> packed() { return packedArgs; }
  /// Clears the result descriptors before a call.
  void reset();
  /// Reads the results and frees the buffers the call allocated.
  SmallVector<HostTensor> takeResults();
  /// Frees the buffers the call allocated without reading them.
  void releaseResults();

private:
  struct Buffer;
  std::vector<std::unique_ptr<Buffer>> inputs;
  std::vector<std::vector<int64_t>> descriptors;
  std::vector<void *> descriptorPointers;
  std::vector<int64_t> scalars;
  /// Per argument: index into descriptors (>= 0) or -1 - index into scalars.
  std::vector<int> argKinds;
  std::vector<int64_t> resultStruct;
  void *resultPointer = nullptr;
  SmallVector<Type> resultTypes;
  SmallVector<size_t> resultOffsets;
  std::vector<void *> packedArgs;
};

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_TOOLS_WRAPPER_RUN_HOSTARRAYS_H
