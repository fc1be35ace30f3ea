//===- Registry.h - the extern kernel registry ------------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
// The kernels of lib/Extern/externs.yaml with their schemas and variants,
// and the check of an extern call against its schema.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_EXTERN_REGISTRY_H
#define WRAPPER_EXTERN_REGISTRY_H

#include "Wrapper/Extern/Schema.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/TypeRange.h"

namespace mlir {
namespace wrapper {

/// One registered kernel.
struct ExternKernel {
  /// The functional schema.
  Schema schema;
  /// The variants the library implements.
  bool functional = false, out = false, inPlace = false;
  /// The version of the kernel's C ABI: 1 + the number of earlier schemas
  /// (`abi_history`), each the current one minus trailing arguments.
  unsigned abiVersion = 1;
};

/// The call form a callee name asks for.
enum class ExternVariant { Functional, Out, InPlace };

/// The name of the C shim entry point of `variant` of `kernel`:
/// `wrapper_shim_<name>[_out|_inplace][_v<N>]` (WrapperShim.h).
std::string getShimName(const ExternKernel &kernel, ExternVariant variant);

/// How a call supplies one schema argument.
struct ExternArgumentBinding {
  enum Kind {
    /// Operand `operand` of the call.
    Operand,
    /// The compile-time argument `attr` (a unit attribute is None).
    Attribute,
    /// Not given: the schema's default (or None for an optional argument
    /// without one).
    Default,
  };
  Kind kind = Default;
  unsigned operand = 0;
  ::mlir::Attribute attr;
};

class ExternRegistry {
public:
  /// The registry compiled from externs.yaml (parsed once; a malformed
  /// entry is a build-time bug and aborts with its message).
  static const ExternRegistry &get();

  /// The kernel a callee names: `aten::mm`, `aten::mm.out` or the in-place
  /// `aten::relu_` (variant in `variant`), or null when not registered.
  const ExternKernel *lookup(StringRef callee,
                             ExternVariant *variant = nullptr) const;

  ArrayRef<ExternKernel> kernels() const { return entries; }

private:
  std::vector<ExternKernel> entries;
};

/// Binds the operands `inputs` (tensors as buffers, scalars as values) and
/// the compile-time arguments `args` (by schema name; a unit value is None)
/// of a call of `kernel` to its schema's arguments, one binding per schema
/// argument. Operands take, in order, the arguments that `args` does not
/// name; one that does not fit an argument with a default (or an optional
/// one) leaves that argument to its default. Reports on `op` and fails when
/// they do not fit.
FailureOr<SmallVector<ExternArgumentBinding>>
bindExternCall(Operation *op, StringRef callee, const ExternKernel &kernel,
               TypeRange inputs, DictionaryAttr args);

/// What a call produces for one schema return.
enum class ExternResultKind { Buffer, BufferList, Other };

/// Checks a call of `kernel` against its schema: its arguments (as
/// bindExternCall), and its results `results` (with their kinds): one per
/// schema return, a buffer for a `Tensor` and a list of buffers for a
/// `Tensor[]`. Reports on `op` and fails on a mismatch.
LogicalResult verifyExternCall(Operation *op, StringRef callee,
                               const ExternKernel &kernel, TypeRange inputs,
                               DictionaryAttr args, TypeRange results,
                               ArrayRef<ExternResultKind> kinds);

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_EXTERN_REGISTRY_H
