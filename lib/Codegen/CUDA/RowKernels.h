//===- RowKernels.h - pieces of --wrapper-cuda-row-kernels ------*- C++ -*-===//
//
// Part of the Wrapper project.
//
// Private to lib/Codegen/CUDA: the analysis that forms runs of row-local
// linalg ops (RowKernelAnalysis.cpp) and the emission of their kernel
// (RowKernelBuilder.cpp), which the pass (RowKernels.cpp) composes.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_LIB_CODEGEN_CUDA_ROWKERNELS_H
#define WRAPPER_LIB_CODEGEN_CUDA_ROWKERNELS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir {
namespace wrapper {
namespace row_kernels {

/// The size of a loop, comparable across ops without building IR: a static
/// size, or the dynamic dimension of a buffer traced back through
/// allocations and memref.dim to where it comes from.
struct LoopSize {
  int64_t fixed = ShapedType::kDynamic;
  Value value;
  int64_t dim = -1;
  bool operator==(const LoopSize &other) const {
    return fixed == other.fixed && value == other.value && dim == other.dim;
  }
  bool isOne() const { return fixed == 1; }
};

/// How a reduction's payload combines its element into the accumulator.
struct Combiner {
  Operation *op = nullptr; // yields the new accumulator
  Value element;           // the other operand of `op`
  gpu::AllReduceOperation kind;
  TypedAttr identity;
};

enum class Kind {
  Row,    // parallel over the rows and the row's elements
  Reduce, // parallel over the rows, reducing the row's elements
  Scalar  // one element per row
};

struct Member {
  mutable linalg::GenericOp op; // (op handles are not const-correct)
  Kind kind;
  std::optional<Combiner> combiner;
  int64_t vector = 1; // elements per access (1: scalar accesses)
};

/// The rows (leading loops) and the row length of a run.
struct RowShape {
  SmallVector<LoopSize> rows;
  LoopSize length;
  unsigned rowRank() const { return rows.size(); }
};

/// Folds the innermost reduction loops of `op` into one when there are
/// several and every operand indexes them as its contiguous innermost
/// dimensions (a sum over [rows, 5, 6] becomes one over [rows, 30], a sum
/// of a whole [3, 5, 6] tensor one over [90]): upstream's
/// collapseOpIterationDims, which collapses the buffers too. The result is
/// a row reduction this pass maps (instead of one thread per row, or host
/// code for a reduction to a scalar).
void collapseInnerReductions(linalg::GenericOp op, RewriterBase &rewriter);

/// The size an index value stands for.
LoopSize traceIndex(Value index);

LoopSize traceSize(Value memref, int64_t dim);

/// The loop sizes of a linalg op, from the first operand dimension that
/// each loop indexes directly; failure if some loop indexes none.
FailureOr<SmallVector<LoopSize>> loopSizes(linalg::LinalgOp op);

/// The buffer that `value` is a view of.
Value rootBuffer(Value value);

/// The combiner of a one-output reduction's payload: the yielded value is
/// `op(element, acc)` with the accumulator used nowhere else, `op` an
/// associative arith op on 32-bit values (what gpu.all_reduce combines).
std::optional<Combiner> matchCombiner(linalg::GenericOp op);

/// Whether the reduced (last) loop is the innermost, contiguous dimension
/// of every input it indexes. A reduction across rows (a column sum) keeps
/// the parallel-loop mapping, whose neighbouring threads read neighbouring
/// columns.
bool reducesAlongRows(linalg::GenericOp op);

/// Classifies `op` against `shape`; nullopt if it does not fit.
std::optional<Member> classify(linalg::GenericOp op, const RowShape &shape);

/// The row shape a reduction defines: its leading parallel loops are the
/// rows, its one trailing reduction loop the row.
std::optional<RowShape> rowShapeOf(linalg::GenericOp op);

/// Whether `map` indexes a buffer row by row: its leading results are the
/// row dimensions in order and at most one more result follows, the
/// row's dimension (if `along` is set) or the constant 0.
bool isRowLocal(AffineMap map, unsigned rank, bool along);

/// Whether the members' accesses keep rows independent: every buffer
/// written by a member is accessed by all members through the same value
/// and row by row (element-wise along the row only where the member runs
/// along it; outputs of reductions and scalar ops one element per row).
bool rowsIndependent(ArrayRef<Member> members, unsigned rank);

/// Ops that may sit between the members of a run: moved before the launch
/// (or, for frees, after it); none of them touches a buffer's contents.
bool isMovable(Operation *op);

/// Elements per 128-bit access for member `m`, or 1: every operand indexed
/// along the row must be contiguous along it (the row dimension last, unit
/// stride) and aligned (other strides and the offset multiples of the
/// vector), and the row length a static multiple of the vector.
int64_t vectorWidth(const Member &m, const RowShape &shape);

/// `index` delinearized over `sizes` (the last fastest; the first is not
/// reduced modulo its size).
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value index,
                               ArrayRef<Value> sizes);

/// Where a row kernel's body is emitted: inside a gpu.launch with one block
/// per row, `thread` of `threads` threads, a row of `length` elements and
/// the block's row index (one value per row dimension).
struct RowKernelContext {
  unsigned rank = 0;
  Value thread, threads, length;
  SmallVector<Value> rowIndex;
  /// With a static row: its length and the block's thread count (each
  /// thread's part of the row is then kept in registers), and the buffers
  /// the run writes (never cached).
  int64_t staticLength = ShapedType::kDynamic;
  int64_t threadCount = 0;
  SmallVector<Value> written;
};

/// Emits the members of a run, one after the other with a block barrier
/// between them, at `b`'s insertion point.
void emitRowKernelBody(OpBuilder &b, Location loc,
                       const RowKernelContext &context,
                       ArrayRef<Member> members);

} // namespace row_kernels
} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_LIB_CODEGEN_CUDA_ROWKERNELS_H
