//===- CUDARowKernels.cpp - one block per row for row reductions ----------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-cuda-row-kernels: runs of linalg ops on buffers that
// share their leading ("row") dimensions and reduce over the innermost one
// (softmax, layer_norm, rms_norm, sums over the last dimension) become one
// gpu.launch with one block per row. Upstream's path (linalg to parallel
// loops to gpu) gives a reduction one thread per row: the threads of a warp
// then read addresses a row apart and each thread walks its row alone. Here
// the block's threads share the row (neighbouring threads on neighbouring
// elements, 128-bit accesses where aligned) and combine their partial
// results with gpu.all_reduce. See docs/Rationale/CUDAPath.md.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERCUDAROWKERNELSPASS
#include "Wrapper/Codegen/CUDA/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {

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

LoopSize traceSize(Value memref, int64_t dim);

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

/// How a reduction's payload combines its element into the accumulator.
struct Combiner {
  Operation *op = nullptr; // yields the new accumulator
  Value element;           // the other operand of `op`
  gpu::AllReduceOperation kind;
  TypedAttr identity;
};

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
class RowKernelBuilder {
public:
  RowKernelBuilder(OpBuilder &b, Location loc, unsigned rank, Value thread,
                   Value threads, Value length, ArrayRef<Value> rowIndex)
      : b(b), loc(loc), rank(rank), thread(thread), threads(threads),
        length(length), rowIndex(rowIndex) {}

  /// Registers instead of row loops: with a static row that the block's
  /// vectors cover in `count` steps or fewer, each thread's part of the row
  /// is loaded once (straight-line code, values kept in registers) and
  /// reused by every later op of the run that reads the same buffer;
  /// `written` are the buffers the run writes (never cached).
  void keepRowsInRegisters(int64_t rowLength, int64_t threadCount,
                           ArrayRef<Value> written) {
    staticLength = rowLength;
    staticThreads = threadCount;
    writtenRoots.insert(written.begin(), written.end());
  }
  static constexpr int64_t kMaxChunks = 8;

  void emit(const Member &m) {
    switch (m.kind) {
    case Kind::Row:
      emitRow(m);
      break;
    case Kind::Reduce:
      emitReduce(m);
      break;
    case Kind::Scalar:
      emitScalar(m);
      break;
    }
  }

private:
  /// Loop indices: the row's, then `along` for the row dimension (if the
  /// op has one).
  SmallVector<Value> dims(linalg::GenericOp op, Value along) {
    SmallVector<Value> d(rowIndex.begin(), rowIndex.end());
    if (op.getNumLoops() > rank)
      d.push_back(along);
    return d;
  }

  SmallVector<Value> indices(AffineMap map, ArrayRef<Value> d) {
    SmallVector<Value> result;
    for (unsigned k = 0; k < map.getNumResults(); ++k) {
      OpFoldResult index = affine::makeComposedFoldedAffineApply(
          b, loc, map.getSubMap({k}), llvm::to_vector_of<OpFoldResult>(d));
      result.push_back(getValueOrCreateConstantIndexOp(b, loc, index));
    }
    return result;
  }

  /// Per lane, the value of each operand at loop indices `d` (the row
  /// index being the first of `lanes` consecutive ones).
  /// Reductions read no output here (the accumulator stands for it).
  SmallVector<SmallVector<Value>> load(linalg::GenericOp op, ArrayRef<Value> d,
                                       int64_t lanes, bool inputsOnly = false) {
    SmallVector<SmallVector<Value>> values;
    Block &body = op.getRegion().front();
    for (OpOperand &operand : op->getOpOperands()) {
      BlockArgument arg = body.getArgument(operand.getOperandNumber());
      SmallVector<Value> perLane;
      if (arg.use_empty() || (inputsOnly && op.isDpsInit(&operand))) {
        values.push_back(perLane);
        continue;
      }
      AffineMap map = op.getMatchingIndexingMap(&operand);
      Value buffer = operand.get();
      if (Value hoisted = invariant.lookup(&operand)) {
        perLane.assign(lanes, hoisted);
      } else if (!isa<MemRefType>(buffer.getType())) {
        perLane.assign(lanes, buffer); // a scalar operand
      } else if (lanes > 1 && map.isFunctionOfDim(rank)) {
        // Read once per thread and chunk while the run keeps rows in
        // registers (buffers it does not write).
        CacheKey key{buffer, map, currentChunk, lanes};
        bool cacheable =
            currentChunk >= 0 && !writtenRoots.contains(rootBuffer(buffer));
        Value vector = cacheable ? cache.lookup(key) : Value();
        if (!vector) {
          auto type = VectorType::get({lanes}, arg.getType());
          int64_t bytes = lanes * arg.getType().getIntOrFloatBitWidth() / 8;
          vector =
              vector::LoadOp::create(b, loc, type, buffer, indices(map, d),
                                     /*nontemporal=*/false, llvm::Align(bytes));
          if (cacheable)
            cache[key] = vector;
        }
        for (int64_t lane = 0; lane < lanes; ++lane)
          perLane.push_back(vector::ExtractOp::create(b, loc, vector, lane));
      } else {
        Value scalar = memref::LoadOp::create(b, loc, buffer, indices(map, d));
        perLane.assign(lanes, scalar);
      }
      values.push_back(perLane);
    }
    return values;
  }

  /// Loads, at the current point (before a row loop), the operands that
  /// are the same all along the row (per-row scalars, broadcasts).
  void hoistInvariants(linalg::GenericOp op, bool inputsOnly) {
    invariant.clear();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    SmallVector<Value> d = dims(op, zero);
    Block &body = op.getRegion().front();
    for (OpOperand &operand : op->getOpOperands()) {
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (body.getArgument(operand.getOperandNumber()).use_empty() ||
          (inputsOnly && op.isDpsInit(&operand)) ||
          !isa<MemRefType>(operand.get().getType()) ||
          map.isFunctionOfDim(rank))
        continue;
      invariant[&operand] =
          memref::LoadOp::create(b, loc, operand.get(), indices(map, d));
    }
  }

  /// Clones the payload for one lane; `accumulator`, if set, stands for the
  /// output's block argument. Returns the yielded values.
  SmallVector<Value> payload(linalg::GenericOp op,
                             ArrayRef<SmallVector<Value>> values, int64_t lane,
                             ArrayRef<Value> d, Value accumulator = {}) {
    Block &body = op.getRegion().front();
    IRMapping mapping;
    for (auto [index, arg] : llvm::enumerate(body.getArguments()))
      if (!values[index].empty())
        mapping.map(arg, values[index][lane]);
    if (accumulator)
      mapping.map(body.getArguments().back(), accumulator);
    for (Operation &inner : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        Value value = d[index.getDim()];
        if (index.getDim() == rank && lane != 0)
          value = arith::AddIOp::create(
              b, loc, value, arith::ConstantIndexOp::create(b, loc, lane));
        mapping.map(index.getResult(), value);
        continue;
      }
      b.clone(inner, mapping);
    }
    SmallVector<Value> yielded;
    for (Value v : body.getTerminator()->getOperands())
      yielded.push_back(mapping.lookupOrDefault(v));
    return yielded;
  }

  /// Stores per-lane `results` into the op's outputs at loop indices `d`.
  void store(linalg::GenericOp op, ArrayRef<SmallVector<Value>> results,
             ArrayRef<Value> d, int64_t lanes) {
    for (auto [k, init] : llvm::enumerate(op.getDpsInitsMutable())) {
      AffineMap map = op.getMatchingIndexingMap(&init);
      SmallVector<Value> idx = indices(map, d);
      if (lanes > 1) {
        SmallVector<Value> elements;
        for (int64_t lane = 0; lane < lanes; ++lane)
          elements.push_back(results[lane][k]);
        auto type = VectorType::get({lanes}, elements.front().getType());
        Value vector = vector::FromElementsOp::create(b, loc, type, elements);
        int64_t bytes =
            lanes * elements.front().getType().getIntOrFloatBitWidth() / 8;
        vector::StoreOp::create(b, loc, vector, init.get(), idx,
                                /*nontemporal=*/false, llvm::Align(bytes));
      } else {
        memref::StoreOp::create(b, loc, results[0][k], init.get(), idx);
      }
    }
  }

  /// The row loop of this thread: from thread * lanes by threads * lanes.
  scf::ForOp rowLoop(int64_t lanes, ValueRange iterArgs = {}) {
    Value lanesValue = arith::ConstantIndexOp::create(b, loc, lanes);
    Value start = arith::MulIOp::create(b, loc, thread, lanesValue);
    Value step = arith::MulIOp::create(b, loc, threads, lanesValue);
    return scf::ForOp::create(b, loc, start, length, step, iterArgs);
  }

  /// Steps of `lanes`-element vectors that cover the row in straight-line
  /// code, or 0 (a loop).
  int64_t chunksFor(int64_t lanes) const {
    if (staticLength <= 0)
      return 0;
    int64_t perStep = staticThreads * lanes;
    if (staticLength % perStep != 0 || staticLength / perStep > kMaxChunks)
      return 0;
    return staticLength / perStep;
  }

  /// The row index of this thread's `chunk`-th vector.
  Value chunkIndex(int64_t lanes, int64_t chunk) {
    Value base = arith::MulIOp::create(
        b, loc, thread, arith::ConstantIndexOp::create(b, loc, lanes));
    if (chunk == 0)
      return base;
    return arith::AddIOp::create(
        b, loc, base,
        arith::ConstantIndexOp::create(b, loc, chunk * staticThreads * lanes));
  }

  void emitRow(const Member &m) {
    hoistInvariants(m.op, /*inputsOnly=*/false);
    if (int64_t chunks = chunksFor(m.vector)) {
      for (int64_t k = 0; k < chunks; ++k) {
        currentChunk = k;
        SmallVector<Value> d = dims(m.op, chunkIndex(m.vector, k));
        SmallVector<SmallVector<Value>> values = load(m.op, d, m.vector);
        SmallVector<SmallVector<Value>> results;
        for (int64_t lane = 0; lane < m.vector; ++lane)
          results.push_back(payload(m.op, values, lane, d));
        store(m.op, results, d, m.vector);
      }
      currentChunk = -1;
      invariant.clear();
      return;
    }
    scf::ForOp loop = rowLoop(m.vector);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    SmallVector<Value> d = dims(m.op, loop.getInductionVar());
    SmallVector<SmallVector<Value>> values = load(m.op, d, m.vector);
    SmallVector<SmallVector<Value>> results;
    for (int64_t lane = 0; lane < m.vector; ++lane)
      results.push_back(payload(m.op, values, lane, d));
    store(m.op, results, d, m.vector);
    invariant.clear();
  }

  void emitReduce(const Member &m) {
    const Combiner &c = *m.combiner;
    Value identity = arith::ConstantOp::create(b, loc, c.identity);
    hoistInvariants(m.op, /*inputsOnly=*/true);
    Value partial;
    if (int64_t chunks = chunksFor(m.vector)) {
      partial = identity;
      for (int64_t k = 0; k < chunks; ++k) {
        currentChunk = k;
        SmallVector<Value> d = dims(m.op, chunkIndex(m.vector, k));
        SmallVector<SmallVector<Value>> values =
            load(m.op, d, m.vector, /*inputsOnly=*/true);
        for (int64_t lane = 0; lane < m.vector; ++lane)
          partial = payload(m.op, values, lane, d, partial).front();
      }
      currentChunk = -1;
    } else {
      scf::ForOp loop = rowLoop(m.vector, identity);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(loop.getBody());
        SmallVector<Value> d = dims(m.op, loop.getInductionVar());
        SmallVector<SmallVector<Value>> values =
            load(m.op, d, m.vector, /*inputsOnly=*/true);
        Value acc = loop.getRegionIterArg(0);
        for (int64_t lane = 0; lane < m.vector; ++lane)
          acc = payload(m.op, values, lane, d, acc).front();
        scf::YieldOp::create(b, loc, acc);
      }
      partial = loop.getResult(0);
    }
    invariant.clear();
    Value total = gpu::AllReduceOp::create(
                      b, loc, partial,
                      gpu::AllReduceOperationAttr::get(b.getContext(), c.kind),
                      /*uniform=*/true)
                      .getResult();
    // Thread 0 folds the total into the output's initial value.
    onThreadZero([&] {
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      SmallVector<Value> d = dims(m.op, zero);
      OpOperand &init = m.op.getDpsInitsMutable()[0];
      SmallVector<Value> idx = indices(m.op.getMatchingIndexingMap(&init), d);
      Value initial = memref::LoadOp::create(b, loc, init.get(), idx);
      IRMapping mapping;
      mapping.map(m.op.getRegion().front().getArguments().back(), initial);
      mapping.map(c.element, total);
      Value result = b.clone(*c.op, mapping)->getResult(0);
      memref::StoreOp::create(b, loc, result, init.get(), idx);
    });
  }

  void emitScalar(const Member &m) {
    onThreadZero([&] {
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      SmallVector<Value> d = dims(m.op, zero);
      SmallVector<SmallVector<Value>> values = load(m.op, d, 1);
      SmallVector<SmallVector<Value>> results{payload(m.op, values, 0, d)};
      store(m.op, results, d, 1);
    });
  }

  void onThreadZero(function_ref<void()> body) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread, zero);
    auto ifOp = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    body();
  }

  OpBuilder &b;
  Location loc;
  unsigned rank;
  Value thread, threads, length;
  ArrayRef<Value> rowIndex;
  /// Operands loaded once before the current row loop.
  llvm::DenseMap<OpOperand *, Value> invariant;
  /// Straight-line rows: the static row length and block size (0: loops),
  /// the chunk being emitted (-1: none), the vectors loaded so far.
  int64_t staticLength = 0, staticThreads = 0, currentChunk = -1;
  using CacheKey = std::tuple<Value, AffineMap, int64_t, int64_t>;
  llvm::DenseMap<CacheKey, Value> cache;
  llvm::SmallPtrSet<Value, 8> writtenRoots;
};

struct WrapperCUDARowKernelsPass
    : public wrapper::impl::WrapperCUDARowKernelsPassBase<
          WrapperCUDARowKernelsPass> {
  using Base::Base;

  /// The longest run starting at `ops[start]` under the row shape of the
  /// first reduction found from there; without a reduction, a lone
  /// elementwise op with long aligned rows (a row per block, 128-bit
  /// accesses); otherwise empty.
  SmallVector<Member> formRun(ArrayRef<Operation *> ops, size_t start,
                              RowShape &shape, size_t &end) {
    std::optional<RowShape> found;
    for (size_t i = start; i < ops.size() && !found; ++i) {
      if (auto generic = dyn_cast<linalg::GenericOp>(ops[i]))
        found = rowShapeOf(generic);
      else if (!isMovable(ops[i]))
        break;
    }
    if (!found)
      return elementwiseRun(cast<linalg::GenericOp>(ops[start]), shape, start,
                            end);
    shape = *found;
    SmallVector<Member> members;
    for (size_t i = start; i < ops.size(); ++i) {
      auto generic = dyn_cast<linalg::GenericOp>(ops[i]);
      if (!generic) {
        if (isMovable(ops[i]))
          continue;
        break;
      }
      std::optional<Member> member = classify(generic, shape);
      if (!member)
        break;
      members.push_back(*member);
      if (!rowsIndependent(members, shape.rowRank())) {
        members.pop_back();
        break;
      }
      end = i + 1;
    }
    if (llvm::none_of(members,
                      [](const Member &m) { return m.kind == Kind::Reduce; }))
      return {};
    return members;
  }

  /// Rows of at least this many elements make an elementwise op a row
  /// kernel (shorter ones keep the parallel-loop mapping).
  static constexpr int64_t kMinElementwiseRow = 512;

  SmallVector<Member> elementwiseRun(linalg::GenericOp op, RowShape &shape,
                                     size_t start, size_t &end) {
    if (!vectorize || !op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
        op.getNumParallelLoops() != op.getNumLoops())
      return {};
    FailureOr<SmallVector<LoopSize>> sizes = loopSizes(op);
    if (failed(sizes) || sizes->back().fixed < kMinElementwiseRow)
      return {};
    shape.rows.assign(sizes->begin(), sizes->end() - 1);
    shape.length = sizes->back();
    std::optional<Member> member = classify(op, shape);
    if (!member || member->kind != Kind::Row ||
        !rowsIndependent(*member, shape.rowRank()) ||
        vectorWidth(*member, shape) == 1)
      return {};
    end = start + 1;
    return {*member};
  }

  void materialize(ArrayRef<Operation *> ops, size_t start, size_t end,
                   MutableArrayRef<Member> members, const RowShape &shape) {
    Operation *first = members.front().op;
    SmallPtrSet<Operation *, 8> isMember;
    for (const Member &m : members)
      isMember.insert(m.op);
    SmallVector<Operation *> frees;
    for (Operation *op : ops.slice(start, end - start)) {
      if (isMember.contains(op))
        continue;
      if (isa<memref::DeallocOp>(op))
        frees.push_back(op);
      else if (op->isBeforeInBlock(first))
        continue;
      else
        op->moveBefore(first);
    }

    int64_t lanes = 1;
    for (Member &m : members) {
      m.vector = vectorize ? vectorWidth(m, shape) : 1;
      lanes = std::max(lanes, m.vector);
    }
    int64_t threadCount = blockSize;
    if (threadCount <= 0) {
      threadCount = 256;
      if (shape.length.fixed != ShapedType::kDynamic)
        threadCount = std::clamp<int64_t>(
            llvm::PowerOf2Ceil(llvm::divideCeil(shape.length.fixed, lanes * 4)),
            64, 1024);
      // An elementwise row: one vector per thread, as few idle as may be.
      if (members.size() == 1 && members.front().kind == Kind::Row)
        threadCount = std::clamp<int64_t>(
            static_cast<int64_t>(llvm::bit_floor(
                static_cast<uint64_t>(shape.length.fixed / lanes))),
            64, 1024);
    }

    OpBuilder b(first);
    Location loc = first->getLoc();
    // Sizes from the first reduction (all members agree on them).
    auto reference = llvm::find_if(
        members, [](const Member &m) { return m.kind == Kind::Reduce; });
    if (reference == members.end())
      reference = members.begin();
    SmallVector<Range> ranges =
        cast<linalg::LinalgOp>(reference->op.getOperation())
            .createLoopRanges(b, loc);
    unsigned rank = shape.rowRank();
    SmallVector<Value> rowSizes;
    Value rowCount = arith::ConstantIndexOp::create(b, loc, 1);
    for (unsigned k = 0; k < rank; ++k) {
      rowSizes.push_back(
          getValueOrCreateConstantIndexOp(b, loc, ranges[k].size));
      rowCount = arith::MulIOp::create(b, loc, rowCount, rowSizes.back());
    }
    Value length = getValueOrCreateConstantIndexOp(b, loc, ranges[rank].size);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value threads = arith::ConstantIndexOp::create(b, loc, threadCount);
    auto launch =
        gpu::LaunchOp::create(b, loc, rowCount, one, one, threads, one, one);
    Block &body = launch.getBody().front();
    b.setInsertionPointToStart(&body);
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(&body);
    // The block's row: its index delinearized over the row sizes.
    SmallVector<Value> rowIndex(rank);
    Value rest = launch.getBlockIds().x;
    for (int k = rank - 1; k >= 0; --k) {
      if (k == 0) {
        rowIndex[k] = rest;
        break;
      }
      rowIndex[k] = arith::RemUIOp::create(b, loc, rest, rowSizes[k]);
      rest = arith::DivUIOp::create(b, loc, rest, rowSizes[k]);
    }
    RowKernelBuilder kernel(b, loc, rank, launch.getThreadIds().x,
                            launch.getBlockSize().x, length, rowIndex);
    if (shape.length.fixed != ShapedType::kDynamic) {
      SmallVector<Value> written;
      for (const Member &m : members)
        for (Value init : m.op.getDpsInits())
          written.push_back(rootBuffer(init));
      kernel.keepRowsInRegisters(shape.length.fixed, threadCount, written);
    }
    for (auto [index, m] : llvm::enumerate(members)) {
      if (index != 0)
        gpu::BarrierOp::create(b, loc);
      kernel.emit(m);
    }
    for (Operation *op : llvm::reverse(frees))
      op->moveAfter(launch);
    for (Member &m : members)
      m.op.erase();
  }

  void runOnOperation() override {
    if (blockSize > 1024) {
      getOperation().emitError()
          << "wrapper-cuda-row-kernels: block-size "
          << static_cast<int64_t>(blockSize)
          << " exceeds the 1024 threads a CUDA block may have";
      return signalPassFailure();
    }
    // Fills take part as the generic ops they are.
    SmallVector<linalg::FillOp> fills;
    getOperation().walk([&](linalg::FillOp fill) {
      if (fill.hasPureBufferSemantics() &&
          !fill->getParentOfType<gpu::LaunchOp>())
        fills.push_back(fill);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::FillOp fill : fills) {
      rewriter.setInsertionPoint(fill);
      if (failed(linalg::generalizeNamedOp(rewriter, fill)))
        return signalPassFailure();
    }

    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp op : generics)
      collapseInnerReductions(op, rewriter);

    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) {
      if (!block->getParentOp()->getParentOfType<gpu::LaunchOp>() &&
          !isa<gpu::LaunchOp, linalg::GenericOp>(block->getParentOp()))
        blocks.push_back(block);
    });
    for (Block *block : blocks) {
      SmallVector<Operation *> ops =
          llvm::map_to_vector(*block, [](Operation &op) { return &op; });
      for (size_t i = 0; i < ops.size();) {
        RowShape shape;
        size_t end = i + 1;
        SmallVector<Member> members;
        if (isa<linalg::GenericOp>(ops[i]))
          members = formRun(ops, i, shape, end);
        if (members.empty()) {
          ++i;
          continue;
        }
        materialize(ops, i, end, members, shape);
        i = end;
      }
    }
  }
};
} // namespace
