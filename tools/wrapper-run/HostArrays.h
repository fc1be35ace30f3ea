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
/// Tolerances of a comparison; a negative one is chosen by element type
/// (1e-4/1e-5 for f32, looser for f16 and bf16, exact for integers).
struct Tolerances {
  double relative = -1, absolute = -1;
};

/// Compares `actual` with `expected` elementwise (NaN equals NaN, infinities
/// of one sign agree); prints one line naming `what`; returns whether close.
bool compareTensors(StringRef what, const HostTensor &actual,
                    const HostTensor &expected, Tolerances tolerances);

/// How random inputs are made.
struct RandomInputOptions {
  unsigned seed = 0;
  /// The size of every dynamic dimension (and the value of index scalars).
  int64_t dynamicSize = 5;
  /// Refuse an input above this many bytes.
  uint64_t maxBytes = uint64_t(16) << 30;
};

/// Random inputs for `types`: floats uniform in [-1, 1) (rounded to the
/// element type), integers in [-5, 5], booleans fair coins.
FailureOr<SmallVector<HostTensor>>
randomInputs(TypeRange types, const RandomInputOptions &options,
             std::string &error);

class CallFrame {
public:
  /// With `device`, the memref arguments live in device memory (from the
  /// CUDA runtime's allocator, copied in here) and results are device
  /// buffers (copied out by takeResults, freed by the runtime); check
  /// error() after construction.
  CallFrame(ArrayRef<HostTensor> args, TypeRange argTypes,
            TypeRange resultTypes, bool device = false);
  ~CallFrame();

  /// The packed argument list for ExecutionEngine::invokePacked.
  MutableArrayRef<void *> packed() { return packedArgs; }
  /// Clears the result descriptors before a call.
  void reset();
  /// Reads the results and frees the buffers the call allocated.
  SmallVector<HostTensor> takeResults();
  /// Reads the results, keeping the buffers (a CUDA graph replay rewrites
  /// them).
  SmallVector<HostTensor> readResults();
  /// Frees the buffers the call allocated without reading them.
  void releaseResults();
  /// What went wrong with device memory (empty if nothing).
  const std::string &error() const { return deviceError; }

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
  bool device;
  std::string deviceError;
};

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_TOOLS_WRAPPER_RUN_HOSTARRAYS_H
