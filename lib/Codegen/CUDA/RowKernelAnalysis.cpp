//===- RowKernelAnalysis.cpp - runs of row-local linalg ops ---------------===//
//
// Part of the Wrapper project.
//
// Which linalg ops on buffers a row kernel takes and how: loop sizes traced
// to their buffers, reduction combiners, the row shape of a run, and the
// vector width of each member's accesses.
//
//===----------------------------------------------------------------------===//

#include "RowKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace mlir {
namespace wrapper {
namespace row_kernels {

/// Folds the innermost reduction loops of `op` into one when there are
/// several and every operand indexes them as its contiguous innermost
/// dimensions (a sum over [rows, 5, 6] becomes one over [rows, 30], a sum
/// of a whole [3, 5, 6] tensor one over [90]): upstream's
/// collapseOpIterationDims, which collapses the buffers too. The result is
/// a row reduction this pass maps (instead of one thread per row, or host
/// code for a reduction to a scalar).
void collapseInnerReductions(linalg::GenericOp op, RewriterBase &rewriter) {
  if (!op.hasPureBufferSemantics() || op->getParentOfType<gpu::LaunchOp>())
    return;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t loops = iterators.size(), first = loops;
  while (first > 0 && iterators[first - 1] == utils::IteratorType::reduction)
    --first;
  if (loops - first < 2)
    return;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || !type.getLayout().isIdentity())
      return;
  }
  // No broadcast or keepdim zeros: their unit dimensions would not fold.
  for (AffineMap map : op.getIndexingMapsArray())
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return;
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < first; ++i)
    groups.push_back({i});
  groups.push_back(llvm::to_vector(llvm::seq<int64_t>(first, loops)));
  // Only the folded group needs preserving (singletons always are).
  if (!linalg::areDimSequencesPreserved(op.getIndexingMapsArray(),
                                        ArrayRef(groups).take_back()))
    return;
  rewriter.setInsertionPoint(op);
  if (succeeded(linalg::collapseOpIterationDims(
          cast<linalg::LinalgOp>(op.getOperation()), groups, rewriter)))
    rewriter.eraseOp(op);
}

/// The size an index value stands for.
LoopSize traceIndex(Value index) {
  if (std::optional<int64_t> c = getConstantIntValue(index))
    return {*c, {}, -1};
  if (auto dimOp = index.getDefiningOp<memref::DimOp>())
    if (std::optional<int64_t> d = dimOp.getConstantIndex())
      return traceSize(dimOp.getSource(), *d);
  return {ShapedType::kDynamic, index, -1};
}

LoopSize traceSize(Value memref, int64_t dim) {
  auto type = cast<MemRefType>(memref.getType());
  if (!type.isDynamicDim(dim))
    return {type.getDimSize(dim), {}, -1};
  if (auto alloc = memref.getDefiningOp<memref::AllocOp>())
    return traceIndex(alloc.getDynamicSizes()[type.getDynamicDimIndex(dim)]);
  return {ShapedType::kDynamic, memref, dim};
}

/// The loop sizes of a linalg op, from the first operand dimension that
/// each loop indexes directly; failure if some loop indexes none.
FailureOr<SmallVector<LoopSize>> loopSizes(linalg::LinalgOp op) {
  SmallVector<LoopSize> sizes(op.getNumLoops());
  SmallVector<bool> known(op.getNumLoops(), false);
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [position, expr] : llvm::enumerate(map.getResults()))
      if (auto d = dyn_cast<AffineDimExpr>(expr);
          d && !known[d.getPosition()]) {
        sizes[d.getPosition()] = traceSize(operand.get(), position);
        known[d.getPosition()] = true;
      }
  }
  if (llvm::is_contained(known, false))
    return failure();
  return sizes;
}

/// The buffer that `value` is a view of.
Value rootBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// The combiner of a one-output reduction's payload: the yielded value is
/// `op(element, acc)` with the accumulator used nowhere else, `op` an
/// associative arith op on 32-bit values (what gpu.all_reduce combines).
std::optional<Combiner> matchCombiner(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  BlockArgument acc = body.getArguments().back();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *combine = yield.getOperand(0).getDefiningOp();
  if (!combine || combine->getNumOperands() != 2 || !acc.hasOneUse() ||
      acc.getUses().begin()->getOwner() != combine)
    return std::nullopt;
  Type type = acc.getType();
  if (!type.isF32() && !type.isInteger(32))
    return std::nullopt;
  Combiner c;
  c.op = combine;
  c.element = combine->getOperand(0) == acc ? combine->getOperand(1)
                                            : combine->getOperand(0);
  Builder b(op.getContext());
  auto fl = [&](bool negative) {
    return b.getFloatAttr(type,
                          APFloat::getInf(APFloat::IEEEsingle(), negative));
  };
  using K = gpu::AllReduceOperation;
  std::optional<std::pair<K, TypedAttr>> m =
      llvm::TypeSwitch<Operation *, std::optional<std::pair<K, TypedAttr>>>(
          combine)
          .Case([&](arith::AddFOp) {
            return std::make_pair(K::ADD, TypedAttr(b.getFloatAttr(type, 0)));
          })
          .Case([&](arith::MulFOp) {
            return std::make_pair(K::MUL, TypedAttr(b.getFloatAttr(type, 1)));
          })
          .Case([&](arith::MaximumFOp) {
            return std::make_pair(K::MAXIMUMF, TypedAttr(fl(true)));
          })
          .Case([&](arith::MinimumFOp) {
            return std::make_pair(K::MINIMUMF, TypedAttr(fl(false)));
          })
          .Case([&](arith::MaxNumFOp) {
            return std::make_pair(K::MAXNUMF, TypedAttr(fl(true)));
          })
          .Case([&](arith::MinNumFOp) {
            return std::make_pair(K::MINNUMF, TypedAttr(fl(false)));
          })
          .Case([&](arith::AddIOp) {
            return std::make_pair(K::ADD, TypedAttr(b.getIntegerAttr(type, 0)));
          })
          .Case([&](arith::MulIOp) {
            return std::make_pair(K::MUL, TypedAttr(b.getIntegerAttr(type, 1)));
          })
          .Case([&](arith::MaxSIOp) {
            return std::make_pair(K::MAXSI,
                                  TypedAttr(b.getIntegerAttr(type, INT32_MIN)));
          })
          .Case([&](arith::MinSIOp) {
            return std::make_pair(K::MINSI,
                                  TypedAttr(b.getIntegerAttr(type, INT32_MAX)));
          })
          .Case([&](arith::MaxUIOp) {
            return std::make_pair(K::MAXUI,
                                  TypedAttr(b.getIntegerAttr(type, 0)));
          })
          .Case([&](arith::MinUIOp) {
            return std::make_pair(K::MINUI,
                                  TypedAttr(b.getIntegerAttr(type, -1)));
          })
          .Case([&](arith::AndIOp) {
            return std::make_pair(K::AND,
                                  TypedAttr(b.getIntegerAttr(type, -1)));
          })
          .Case([&](arith::OrIOp) {
            return std::make_pair(K::OR, TypedAttr(b.getIntegerAttr(type, 0)));
          })
          .Case([&](arith::XOrIOp) {
            return std::make_pair(K::XOR, TypedAttr(b.getIntegerAttr(type, 0)));
          })
          .Default([](Operation *) { return std::nullopt; });
  if (!m)
    return std::nullopt;
  c.kind = m->first;
  c.identity = m->second;
  return c;
}

/// Whether the reduced (last) loop is the innermost, contiguous dimension
/// of every input it indexes. A reduction across rows (a column sum) keeps
/// the parallel-loop mapping, whose neighbouring threads read neighbouring
/// columns.
bool reducesAlongRows(linalg::GenericOp op) {
  unsigned last = op.getNumLoops() - 1;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.isFunctionOfDim(last) &&
        map.getResults().back() != getAffineDimExpr(last, op.getContext()))
      return false;
  }
  return true;
}

/// Classifies `op` against `shape`; nullopt if it does not fit.
std::optional<Member> classify(linalg::GenericOp op, const RowShape &shape) {
  if (!op.hasPureBufferSemantics())
    return std::nullopt;
  FailureOr<SmallVector<LoopSize>> sizes = loopSizes(op);
  if (failed(sizes))
    return std::nullopt;
  unsigned rank = shape.rowRank();
  unsigned loops = op.getNumLoops();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  auto parallel = [](utils::IteratorType t) {
    return t == utils::IteratorType::parallel;
  };
  if (loops < rank ||
      !llvm::equal(ArrayRef(*sizes).take_front(rank), shape.rows))
    return std::nullopt;
  if (!llvm::all_of(ArrayRef(iterators).take_front(rank), parallel))
    return std::nullopt;
  if (loops == rank)
    return Member{op, Kind::Scalar, std::nullopt, 1};
  if (loops != rank + 1)
    return std::nullopt;
  LoopSize last = (*sizes)[rank];
  if (parallel(iterators.back())) {
    if (last == shape.length)
      return Member{op, Kind::Row, std::nullopt, 1};
    if (last.isOne())
      return Member{op, Kind::Scalar, std::nullopt, 1};
    return std::nullopt;
  }
  if (!(last == shape.length) || op.getNumDpsInits() != 1 ||
      !reducesAlongRows(op))
    return std::nullopt;
  std::optional<Combiner> combiner = matchCombiner(op);
  if (!combiner)
    return std::nullopt;
  return Member{op, Kind::Reduce, combiner, 1};
}

/// The row shape a reduction defines: its leading parallel loops are the
/// rows, its one trailing reduction loop the row.
std::optional<RowShape> rowShapeOf(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      op.getNumReductionLoops() != 1 ||
      op.getIteratorTypesArray().back() != utils::IteratorType::reduction)
    return std::nullopt;
  if (!reducesAlongRows(op))
    return std::nullopt;
  FailureOr<SmallVector<LoopSize>> sizes = loopSizes(op);
  if (failed(sizes))
    return std::nullopt;
  RowShape shape;
  shape.rows.assign(sizes->begin(), sizes->end() - 1);
  shape.length = sizes->back();
  return shape;
}

/// Whether `map` indexes a buffer row by row: its leading results are the
/// row dimensions in order and at most one more result follows, the
/// row's dimension (if `along` is set) or the constant 0.
bool isRowLocal(AffineMap map, unsigned rank, bool along) {
  if (map.getNumResults() < rank || map.getNumResults() > rank + 1)
    return false;
  for (unsigned k = 0; k < rank; ++k)
    if (map.getResult(k) != getAffineDimExpr(k, map.getContext()))
      return false;
  if (map.getNumResults() == rank)
    return true;
  AffineExpr last = map.getResult(rank);
  if (auto c = dyn_cast<AffineConstantExpr>(last))
    return c.getValue() == 0;
  return along && last == getAffineDimExpr(rank, map.getContext());
}

/// Whether the members' accesses keep rows independent: every buffer
/// written by a member is accessed by all members through the same value
/// and row by row (element-wise along the row only where the member runs
/// along it; outputs of reductions and scalar ops one element per row).
bool rowsIndependent(ArrayRef<Member> members, unsigned rank) {
  llvm::DenseMap<Value, Value> written; // root -> the value used
  for (const Member &m : members)
    for (OpOperand &init : m.op.getDpsInitsMutable())
      written.try_emplace(rootBuffer(init.get()), init.get());
  for (const Member &m : members) {
    for (OpOperand &operand : m.op->getOpOperands()) {
      auto it = written.find(rootBuffer(operand.get()));
      if (it == written.end())
        continue;
      if (operand.get() != it->second)
        return false;
      AffineMap map = m.op.getMatchingIndexingMap(&operand);
      bool isOutput = m.op.isDpsInit(&operand);
      // Outputs of reductions hold one element per row; everything else
      // may index the row dimension (of size 1 for scalar ops).
      bool along = !(m.kind == Kind::Reduce && isOutput);
      if (!isRowLocal(map, rank, along))
        return false;
      // A row op writes each element of the row once.
      if (isOutput && m.kind == Kind::Row && map.getNumResults() != rank + 1)
        return false;
    }
  }
  return true;
}

/// Ops that may sit between the members of a run: moved before the launch
/// (or, for frees, after it); none of them touches a buffer's contents.
bool isMovable(Operation *op) {
  return isa<memref::AllocOp, memref::DeallocOp, memref::DimOp,
             arith::ConstantOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
             memref::SubViewOp, memref::CastOp, memref::ReinterpretCastOp,
             memref::GetGlobalOp>(op);
}

/// Elements per 128-bit access for member `m`, or 1: every operand indexed
/// along the row must be contiguous along it (the row dimension last, unit
/// stride) and aligned (other strides and the offset multiples of the
/// vector), and the row length a static multiple of the vector.
int64_t vectorWidth(const Member &m, const RowShape &shape) {
  if (m.kind == Kind::Scalar || shape.length.fixed == ShapedType::kDynamic)
    return 1;
  unsigned rank = shape.rowRank();
  MLIRContext *context = m.op.getContext();
  AffineExpr along = getAffineDimExpr(rank, context);
  unsigned bits = 0;
  for (OpOperand &operand : m.op->getOpOperands()) {
    AffineMap map = m.op.getMatchingIndexingMap(&operand);
    if (!map.isFunctionOfDim(rank))
      continue;
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || map.getNumResults() == 0 || map.getResults().back() != along)
      return 1;
    for (AffineExpr expr : map.getResults().drop_back())
      if (expr.isFunctionOfDim(rank))
        return 1;
    Type element = type.getElementType();
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() < 8)
      return 1;
    bits = std::max(bits, element.getIntOrFloatBitWidth());
    auto [strides, offset] = type.getStridesAndOffset();
    if (strides.back() != 1)
      return 1;
    int64_t lanes = 128 / element.getIntOrFloatBitWidth();
    for (int64_t stride : ArrayRef(strides).drop_back())
      if (ShapedType::isDynamic(stride) || stride % lanes != 0)
        return 1;
    if (ShapedType::isDynamic(offset) || offset % lanes != 0)
      return 1;
  }
  if (bits == 0)
    return 1;
  int64_t lanes = 128 / bits;
  if (lanes <= 1 || shape.length.fixed % lanes != 0)
    return 1;
  return lanes;
}

/// Emits the kernel of one run.

} // namespace row_kernels
} // namespace wrapper
} // namespace mlir
