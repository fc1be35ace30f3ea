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
};

/// The call form a callee name asks for.
enum class ExternVariant { Functional, Out, InPlace };

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

/// Checks the operands `inputs` (tensors as buffers, scalars as values) and
/// the compile-time arguments `args` (by schema name; a unit value is None)
/// of a call of `kernel` against its schema, and that it produces
/// `numResults` results. Reports on `op` and fails on a mismatch.
LogicalResult verifyExternCall(Operation *op, StringRef callee,
                               const ExternKernel &kernel, TypeRange inputs,
                               DictionaryAttr args, unsigned numResults);

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_EXTERN_REGISTRY_H
