//===- Interpreter.h - reference interpreter of tensor_program --*- C++ -*-===//
//
// Part of the Wrapper project.
//
// A naive interpreter of tensor_program functions: every op computed
// directly from its definition in double precision, rounded to the op's
// element type after each op. It shares no code with the compiled path
// (no decomposition, no linalg), so integration tests use it as the oracle.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_INTERPRETER_INTERPRETER_H
#define WRAPPER_INTERPRETER_INTERPRETER_H

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <string>
#include <vector>

namespace mlir {
namespace func {
class FuncOp;
} // namespace func

namespace wrapper {

/// A dense row-major tensor. Values are held as doubles: exact for every
/// float type up to f64 and for integers up to 2^53 in magnitude.
struct HostTensor {
  Type elementType;
  SmallVector<int64_t> shape;
  std::vector<double> values;

  int64_t numel() const;
};

/// Rounds `value` to what `elementType` can hold (float rounding, integer
/// wrap-around, `!= 0` for i1).
double roundToElementType(double value, Type elementType);

/// The outcome of interpreting a function.
struct InterpreterResult {
  SmallVector<HostTensor> results;
  /// Values written back to arguments by tensor_program.copy_back.
  std::map<unsigned, HostTensor> mutatedArguments;
};

/// Interprets `func` on `args` (tensors for tensor arguments; index, integer
/// and float arguments as rank-0 tensors). Fails with a message in `error`
/// naming the op that could not be interpreted.
FailureOr<InterpreterResult>
interpret(func::FuncOp func, ArrayRef<HostTensor> args, std::string &error);

/// Evaluates the single op `op` (a tensor_program op without regions, or
/// an arith constant) with `operands` as the values of its operands: what
/// constant folding uses. Fails with a message in `error`.
FailureOr<SmallVector<HostTensor>>
evaluateOperation(Operation *op, ArrayRef<HostTensor> operands,
                  std::string &error);

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_INTERPRETER_INTERPRETER_H
