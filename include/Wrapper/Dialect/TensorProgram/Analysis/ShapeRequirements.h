//===- ShapeRequirements.h - run-time shape relations of a program -*- C++ -*-===//
//
// Part of the Wrapper project.
//
// A tensor_program function with dynamic dimensions is only valid for some
// input shapes: the operands of `add` must agree where the lowering indexes
// them together, a reshape must keep the element count, a contraction's
// inner sizes must match. The compiled code trusts these relations (it
// indexes without bounds checks), so every entry point must check them
// before touching memory. This analysis derives them from the program: each
// dimension of each value as an expression of the inputs' dimensions, and
// each relation the lowering relies on as a requirement between two such
// expressions. The requirements can be evaluated on concrete shapes (the
// tools) or emitted as C (the model container of wrapper-compile).
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_TENSORPROGRAM_ANALYSIS_SHAPEREQUIREMENTS_H
#define WRAPPER_DIALECT_TENSORPROGRAM_ANALYSIS_SHAPEREQUIREMENTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <optional>
#include <string>
#include <tuple>

namespace mlir {
namespace tensor_program {

/// Sizes as expressions of the entry function's input dimensions, hash-consed
/// so that equal expressions have equal ids (a DAG, never a tree that grows
/// with the program).
class SizeExprTable {
public:
  using Id = int32_t;
  enum class Kind {
    Constant,
    InputDim,
    Add,
    Sub,
    Mul,
    FloorDiv,
    CeilDiv,
    Rem,
    Min,
    Max,
    Unknown
  };
  struct Node {
    Kind kind;
    int64_t a, b; // Constant: a; InputDim: input a, dim b; binary: ids a, b
  };

  Id constant(int64_t value);
  Id inputDim(unsigned input, int64_t dim);
  /// `lhs kind rhs`, folded when both sides are constant (and for the
  /// identities x+0, x*1, x/1); Unknown when either side is.
  Id binary(Kind kind, Id lhs, Id rhs);
  Id unknown();

  const Node &node(Id id) const { return nodes[id]; }
  bool isUnknown(Id id) const { return nodes[id].kind == Kind::Unknown; }
  std::optional<int64_t> getConstant(Id id) const;

  /// The value for concrete input shapes, or nullopt for Unknown, a
  /// division by zero or an overflow.
  std::optional<int64_t>
  evaluate(Id id, ArrayRef<SmallVector<int64_t>> inputShapes) const;

  /// Readable form: `x.dim0 * 197` (input names from `names`).
  std::string describe(Id id, ArrayRef<std::string> names) const;

  /// The C expression (int64_t arithmetic over `dims[input][dim]`), with a
  /// helper for each operator (see ShapeRequirements::emitC).
  std::string toC(Id id) const;

private:
  SmallVector<Node> nodes;
  std::map<std::tuple<int, int64_t, int64_t>, Id> unique;
  Id intern(Kind kind, int64_t a, int64_t b);
};

/// One relation the compiled program relies on.
struct ShapeRequirement {
  enum class Kind {
    Equal,     // lhs == rhs
    LessEqual, // lhs <= rhs
    EqualOrOne // lhs == rhs || lhs == 1 (broadcasting to rhs)
  };
  Kind kind;
  SizeExprTable::Id lhs, rhs;
  /// What relies on it: "'tensor_program.add' at loc(...) (operand #1
  /// dimension 0)".
  std::string reason;
};

/// The requirements of one function.
class ShapeRequirements {
public:
  /// Derives the requirements of `func`, whose arguments are ranked tensors
  /// (other argument types have no dimensions). Ops the analysis does not
  /// know give dynamic result sizes it cannot follow, and no requirements.
  static ShapeRequirements collect(func::FuncOp func);

  ArrayRef<ShapeRequirement> getRequirements() const { return requirements; }
  const SizeExprTable &getSizes() const { return sizes; }
  /// The dimensions of the function's results, as expressions.
  ArrayRef<SmallVector<SizeExprTable::Id>> getResultSizes() const {
    return resultSizes;
  }

  /// The first requirement that `inputShapes` (one shape per argument,
  /// empty for non-tensor arguments) break, as a message naming the inputs
  /// and dimensions; nullopt when all hold.
  std::optional<std::string>
  check(ArrayRef<SmallVector<int64_t>> inputShapes) const;

  /// The C function
  ///   static int check_shapes(const int64_t *const *dims, char *message,
  ///                           size_t size)
  /// which returns 0 when every requirement holds for the inputs' sizes
  /// (`dims[i][d]`), else 1 with the message written into `message`.
  void emitC(raw_ostream &os) const;

  /// Input names used in messages ("input #0", or the argument's
  /// `tensor_program.name` attribute).
  ArrayRef<std::string> getInputNames() const { return inputNames; }

private:
  SizeExprTable sizes;
  SmallVector<ShapeRequirement> requirements;
  SmallVector<SmallVector<SizeExprTable::Id>> resultSizes;
  SmallVector<std::string> inputNames;
  friend class ShapeRequirementBuilder;
};

} // namespace tensor_program
} // namespace mlir

#endif // WRAPPER_DIALECT_TENSORPROGRAM_ANALYSIS_SHAPEREQUIREMENTS_H
