//===- RowKernelBuilder.cpp - the body of a row kernel --------------------===//
//
// Part of the Wrapper project.
//
// Emits the members of a run inside its gpu.launch: row loops strided by
// the block's threads (128-bit vectors where aligned), block reductions
// through gpu.all_reduce, and rows kept in registers when they are short.
//
//===----------------------------------------------------------------------===//

#include "RowKernels.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::wrapper::row_kernels;

namespace {
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
} // namespace

void mlir::wrapper::row_kernels::emitRowKernelBody(
    OpBuilder &b, Location loc, const RowKernelContext &context,
    ArrayRef<Member> members) {
  RowKernelBuilder kernel(b, loc, context.rank, context.thread, context.threads,
                          context.length, context.rowIndex);
  if (context.staticLength != ShapedType::kDynamic)
    kernel.keepRowsInRegisters(context.staticLength, context.threadCount,
                               context.written);
  for (auto [index, m] : llvm::enumerate(members)) {
    if (index != 0)
      gpu::BarrierOp::create(b, loc);
    kernel.emit(m);
  }
}

SmallVector<Value>
mlir::wrapper::row_kernels::delinearize(OpBuilder &b, Location loc, Value index,
                                        ArrayRef<Value> sizes) {
  SmallVector<Value> result(sizes.size());
  for (int k = static_cast<int>(sizes.size()) - 1; k >= 0; --k) {
    if (k == 0) {
      result[k] = index;
      break;
    }
    result[k] = arith::RemUIOp::create(b, loc, index, sizes[k]);
    index = arith::DivUIOp::create(b, loc, index, sizes[k]);
  }
  return result;
}
