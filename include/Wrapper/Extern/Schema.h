//===- Schema.h - PyTorch-style operator schemas ----------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
// The schemas of extern kernels, in the syntax of PyTorch's
// native_functions.yaml:
//
//   addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1,
//         Scalar alpha=1) -> Tensor
//   topk(Tensor self, int k, int dim=-1, bool largest=True,
//        bool sorted=True) -> (Tensor values, Tensor indices)
//   mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)
//
// parseSchema reads one; the registry of extern kernels and the verifier of
// extern calls are built on it.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_EXTERN_SCHEMA_H
#define WRAPPER_EXTERN_SCHEMA_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace wrapper {

/// The element kinds of schema types.
enum class SchemaBaseType {
  Tensor,
  Int,
  Float,
  Bool,
  Scalar,
  ScalarType,
  Str,
  Device,
  Layout,
  MemoryFormat,
  Generator,
};

/// A schema type: `Tensor`, `Tensor?`, `int[]`, `int[2]`, `Tensor(a!)`,
/// `Tensor?[]`.
struct SchemaType {
  SchemaBaseType base = SchemaBaseType::Tensor;
  /// `T?`: may be None (for a list, the elements are optional: `Tensor?[]`).
  bool optional = false;
  /// `T[]` or `T[N]`.
  bool list = false;
  /// N of `T[N]`.
  std::optional<int64_t> listSize;
  /// `T?[]?`: the list itself may be None.
  bool optionalList = false;
  /// The alias set of `Tensor(a)` / `Tensor(a!)`, empty when none.
  std::string aliasSet;
  /// `Tensor(a!)`: written by the kernel.
  bool mutates = false;

  std::string str() const;
};

/// An argument: `int dim=-1`.
struct SchemaArgument {
  std::string name;
  SchemaType type;
  /// The default value as written (`-1`, `True`, `None`, `[1, 1]`).
  std::optional<std::string> defaultValue;
  /// After `*` in the argument list.
  bool keywordOnly = false;
};

/// A result: `Tensor values`, or an unnamed `Tensor`.
struct SchemaReturn {
  std::string name;
  SchemaType type;
};

/// A whole operator schema.
struct Schema {
  /// `addmm` of `aten::addmm.out`: without namespace and overload.
  std::string name;
  /// `aten` of `aten::addmm`, empty when none is given.
  std::string ns;
  /// `out` of `addmm.out`, empty when none is given.
  std::string overload;
  std::vector<SchemaArgument> arguments;
  std::vector<SchemaReturn> returns;

  /// `ns::name.overload`, as the schema names itself.
  std::string qualifiedName() const;
  /// The in-place variant: a name ending in `_` whose `self` is mutated.
  bool isInPlace() const;
  /// The `out=` variant: keyword-only arguments that the kernel writes.
  bool isOutVariant() const;
  /// Positional arguments (before `*`).
  unsigned numPositional() const;
  /// The argument named `name`, or null.
  const SchemaArgument *lookup(StringRef name) const;
  /// The schema printed back in canonical form.
  std::string str() const;
};

/// Parses `text`; on failure returns nullopt with `error` naming the
/// position and what was expected.
std::optional<Schema> parseSchema(StringRef text, std::string &error);

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_EXTERN_SCHEMA_H
