//===- SpecializeContractions.cpp - products for the GEMM template --------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-specialize-contractions: contraction generics (f32,
// or f16/bf16 into f32) with unit batch loops (and their elementwise consumer)
// lose those loops and become linalg.matmul; linalg.batch_matmul becomes a loop
// of linalg.matmul over the batch; a linalg.matmul whose maps read an operand
// transposed reads a transposed view of it instead. All on buffers, for the
// GEMM template.
//
//===----------------------------------------------------------------------===//

#include "GemmTemplate.h"

#include "Wrapper/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/SmallBitVector.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERSPECIALIZECONTRACTIONSPASS
#include "Wrapper/Codegen/CPU/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

/// Whether `op` is a product on buffers whose element types the GEMM
/// template takes: f32, or f16/bf16 operands into an f32 result.
static bool isTemplateProductOnBuffers(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op->getNumOperands() != 3 ||
      !llvm::all_of(op->getOperandTypes(), llvm::IsaPred<MemRefType>))
    return false;
  Type a = getElementTypeOrSelf(op->getOperand(0).getType());
  Type b = getElementTypeOrSelf(op->getOperand(1).getType());
  Type c = getElementTypeOrSelf(op->getOperand(2).getType());
  return a == b && c.isF32() && (a.isF32() || a.isBF16() || a.isF16());
}

/// Whether some loop of `op` has a static extent of 1.
static bool hasUnitLoop(linalg::GenericOp op) {
  return llvm::is_contained(op.getStaticLoopRanges(), 1);
}

/// `op` without its unit-extent loops, or null when it cannot lose them:
/// every operand dimension indexed by such a loop (or by 0) and of size 1
/// is dropped through a rank-reducing subview, and the indexing maps are
/// rewritten over the loops left. (Upstream's linalg::dropUnitDims works
/// on tensors; these are buffers.)
static linalg::GenericOp dropUnitLoops(RewriterBase &rewriter,
                                       linalg::GenericOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  llvm::SmallBitVector unit(ranges.size());
  for (auto [i, range] : llvm::enumerate(ranges))
    unit[i] = range == 1;
  if (unit.none() || !op.getBody()->getOps<linalg::IndexOp>().empty())
    return nullptr;
  // Loop i becomes loop newIndex[i] of the rewritten op.
  SmallVector<int64_t> newIndex(ranges.size(), -1);
  int64_t kept = 0;
  for (size_t i = 0; i < ranges.size(); ++i)
    if (!unit[i])
      newIndex[i] = kept++;
  MLIRContext *context = op.getContext();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> operands;
  SmallVector<AffineMap> maps;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type) { // a scalar
      operands.push_back(operand.get());
      maps.push_back(AffineMap::get(kept, 0, context));
      continue;
    }
    SmallVector<AffineExpr> results;
    SmallVector<int64_t> keptShape;
    SmallVector<OpFoldResult> sizes;
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      auto constant = dyn_cast<AffineConstantExpr>(expr);
      bool droppable =
          type.getDimSize(d) == 1 && ((dim && unit[dim.getPosition()]) ||
                                      (constant && constant.getValue() == 0));
      if (droppable) {
        sizes.push_back(rewriter.getIndexAttr(1));
        continue;
      }
      if (!dim || unit[dim.getPosition()])
        return nullptr; // an expression the rewrite does not handle
      results.push_back(getAffineDimExpr(newIndex[dim.getPosition()], context));
      keptShape.push_back(type.getDimSize(d));
      sizes.push_back(memref::getMixedSize(rewriter, loc, operand.get(), d));
    }
    Value value = operand.get();
    if (results.size() != map.getNumResults()) {
      SmallVector<OpFoldResult> offsets(type.getRank(),
                                        rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> strides(type.getRank(),
                                        rewriter.getIndexAttr(1));
      auto reduced = memref::SubViewOp::inferRankReducedResultType(
          keptShape, type, offsets, sizes, strides);
      value =
          memref::SubViewOp::create(rewriter, loc, cast<MemRefType>(reduced),
                                    value, offsets, sizes, strides);
    }
    operands.push_back(value);
    maps.push_back(AffineMap::get(kept, 0, results, context));
  }
  SmallVector<utils::IteratorType> iterators;
  for (auto [i, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    if (!unit[i])
      iterators.push_back(iterator);
  int64_t inputs = op.getNumDpsInputs();
  auto replacement = linalg::GenericOp::create(
      rewriter, loc, TypeRange{}, ArrayRef(operands).take_front(inputs),
      ArrayRef(operands).drop_front(inputs), maps, iterators);
  rewriter.inlineRegionBefore(op.getRegion(), replacement.getRegion(),
                              replacement.getRegion().begin());
  rewriter.eraseOp(op);
  return replacement;
}

/// The elementwise linalg.generic right after `producer` (pure ops between
/// them) that reads `buffer`, or null.
static linalg::GenericOp elementwiseConsumer(Operation *producer,
                                             Value buffer) {
  for (Operation *next = producer->getNextNode(); next;
       next = next->getNextNode()) {
    if (isMemoryEffectFree(next))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(next);
    if (!generic || !generic.hasPureBufferSemantics() ||
        generic.getNumReductionLoops() != 0 || !hasUnitLoop(generic))
      return nullptr;
    for (OpOperand *input : generic.getDpsInputOperands())
      if (input->get() == buffer)
        return generic;
    return nullptr;
  }
  return nullptr;
}

/// The underlying buffer of `value` through subviews.
static Value rootBuffer(Value value) {
  while (auto subview = value.getDefiningOp<memref::SubViewOp>())
    value = subview.getSource();
  return value;
}

/// A rank-reducing subview of the 2-D matrix at `indices` of the leading
/// (batch) dimensions of `source`.
static Value batchElement(OpBuilder &b, Location loc, Value source,
                          ValueRange indices) {
  auto type = cast<MemRefType>(source.getType());
  int64_t rank = type.getRank();
  if (rank == 2) // the same matrix for every batch element
    return source;
  SmallVector<OpFoldResult> offsets(indices.begin(), indices.end());
  SmallVector<OpFoldResult> sizes(indices.size(), b.getIndexAttr(1));
  for (int64_t d = rank - 2; d < rank; ++d) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(memref::getMixedSize(b, loc, source, d));
  }
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  auto reduced = memref::SubViewOp::inferRankReducedResultType(
      {type.getDimSize(rank - 2), type.getDimSize(rank - 1)}, type, offsets,
      sizes, strides);
  return memref::SubViewOp::create(b, loc, cast<MemRefType>(reduced), source,
                                   offsets, sizes, strides);
}

/// A product generic over loops (m, n, k) that reads A as (k, m) or B as
/// (n, k) reads a transposed view of that operand with the default maps
/// instead (upstream's specialization would take it for a plain matmul).
static void viewTransposedGenericOperands(RewriterBase &rewriter,
                                          linalg::GenericOp op) {
  std::optional<std::pair<bool, bool>> transposes =
      wrapper::gemm::getProductTransposes(op.getIndexingMapsArray());
  if (!transposes || (!transposes->first && !transposes->second))
    return;
  rewriter.modifyOpInPlace(op, [&] {
    for (auto [index, transposed] : {std::make_pair(0u, transposes->first),
                                     std::make_pair(1u, transposes->second)}) {
      OpOperand &operand = op->getOpOperand(index);
      if (transposed)
        operand.set(wrapper::gemm::transposeLastTwo(rewriter, op.getLoc(),
                                                    operand.get()));
    }
    op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(
        linalg::MatmulOp::getDefaultIndexingMaps(op.getContext())));
  });
}

/// The buffer `value` is a view of (through subviews, reshapes,
/// transposes and casts).
static Value viewedBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// The linalg.fill of the whole of `c` right before the batched product
/// `op` (pure ops between them), or null: the split fills each matrix of
/// the batch right before its product, where the GEMM template drops a
/// zero fill (the first K slice stores instead of accumulating).
static linalg::FillOp batchFill(Operation *op, Value c) {
  auto fill =
      dyn_cast_or_null<linalg::FillOp>(wrapper::gemm::previousEffectfulOp(op));
  if (!fill || !fill.hasPureBufferSemantics() || fill.getOutputs()[0] != c)
    return nullptr;
  return fill;
}

/// The elementwise linalg.generic right after the batched product `op`
/// (operands a, b, c, `batch` leading batch dimensions) that reads `c`
/// element for element over loops (batch..., m, n) and writes its own
/// output at (batch..., m, n), or null. The split applies its slice for
/// one matrix of the batch right after that matrix's product, where the
/// GEMM template fuses it as its epilogue (instead of a pass over the
/// whole batch's product afterwards). Each operand's map must index the
/// batch loops by plain dimensions (or not at all: a broadcast), so that a
/// slice is a subview; nothing it writes may be an operand of the product.
static linalg::GenericOp batchConsumer(Operation *op, Value a, Value b, Value c,
                                       int64_t batch) {
  auto generic =
      dyn_cast_or_null<linalg::GenericOp>(wrapper::gemm::nextEffectfulOp(op));
  if (!generic || !generic.hasPureBufferSemantics() ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != static_cast<unsigned>(batch + 2) ||
      generic.getNumReductionLoops() != 0 ||
      !generic.getBody()->getOps<linalg::IndexOp>().empty())
    return nullptr;
  int64_t rank = batch + 2;
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(rank, generic.getContext());
  OpOperand *init = generic.getDpsInitOperand(0);
  if (generic.getMatchingIndexingMap(init) != identity)
    return nullptr;
  // Written in place (into the product) or into a buffer of its own.
  Value cRoot = viewedBuffer(c), outRoot = viewedBuffer(init->get());
  if (outRoot == viewedBuffer(a) || outRoot == viewedBuffer(b) ||
      (outRoot == cRoot && init->get() != c))
    return nullptr;
  bool readsProduct = false;
  for (OpOperand &operand : generic->getOpOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(&operand);
    if (viewedBuffer(operand.get()) == cRoot) {
      // The product, read where it is written (anything else would read
      // values of other matrices not yet computed).
      if (operand.get() != c || map != identity)
        return nullptr;
      readsProduct = true;
      continue;
    }
    // Each batch loop a plain dimension of its own (sliced), other
    // expressions over m and n only.
    llvm::SmallBitVector seen(batch);
    for (AffineExpr expr : map.getResults()) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (dim && dim.getPosition() < static_cast<unsigned>(batch)) {
        if (seen.test(dim.getPosition()))
          return nullptr;
        seen.set(dim.getPosition());
        continue;
      }
      for (int64_t d = 0; d < batch; ++d)
        if (expr.isFunctionOfDim(d))
          return nullptr;
    }
  }
  return readsProduct ? generic : nullptr;
}

/// The slice of `generic` (from batchConsumer) for the matrix at `indices`
/// of the batch: each operand indexed by batch loops through a
/// rank-reducing subview at those indices, its map over (m, n).
static void sliceConsumer(OpBuilder &b, Location loc, linalg::GenericOp generic,
                          ValueRange indices) {
  int64_t batch = indices.size();
  MLIRContext *context = generic.getContext();
  // Loops (batch..., m, n) to (m, n); the batch loops occur in no
  // expression left.
  SmallVector<AffineExpr> over(batch, getAffineConstantExpr(0, context));
  over.push_back(getAffineDimExpr(0, context));
  over.push_back(getAffineDimExpr(1, context));
  SmallVector<Value> operands;
  SmallVector<AffineMap> maps;
  for (OpOperand &operand : generic->getOpOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(&operand);
    Value value = operand.get();
    auto type = dyn_cast<MemRefType>(value.getType());
    SmallVector<AffineExpr> results;
    SmallVector<OpFoldResult> offsets, sizes;
    SmallVector<int64_t> keptShape;
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (dim && dim.getPosition() < static_cast<unsigned>(batch)) {
        offsets.push_back(indices[dim.getPosition()]);
        sizes.push_back(b.getIndexAttr(1));
        continue;
      }
      results.push_back(expr.replaceDims(over));
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(memref::getMixedSize(b, loc, value, d));
      keptShape.push_back(type.getDimSize(d));
    }
    if (type && results.size() != map.getNumResults()) {
      SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
      auto reduced = memref::SubViewOp::inferRankReducedResultType(
          keptShape, type, offsets, sizes, strides);
      value = memref::SubViewOp::create(b, loc, cast<MemRefType>(reduced),
                                        value, offsets, sizes, strides);
    }
    operands.push_back(value);
    maps.push_back(AffineMap::get(2, 0, results, context));
  }
  int64_t inputs = generic.getNumDpsInputs();
  auto slice = linalg::GenericOp::create(
      b, loc, TypeRange{}, ArrayRef(operands).take_front(inputs),
      ArrayRef(operands).drop_front(inputs), maps,
      SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel));
  IRMapping mapping;
  generic.getRegion().cloneInto(&slice.getRegion(), mapping);
}

/// The batched product `op` (operands a, b, c with `batch` leading batch
/// dimensions) as a loop nest over the batch of 2-D linalg.matmul, with the
/// fill of `c` before it (batchFill) and its elementwise consumer
/// (batchConsumer) split along.
static void splitBatch(RewriterBase &rewriter, Operation *op, Value a, Value b,
                       Value c, int64_t batch, int64_t minParallelWork,
                       bool parallel) {
  Location loc = op->getLoc();
  auto aType = cast<MemRefType>(a.getType());
  auto bType = cast<MemRefType>(b.getType());
  int64_t aRank = aType.getRank(), bRank = bType.getRank();
  int64_t m = aType.getDimSize(aRank - 2), k = aType.getDimSize(aRank - 1),
          n = bType.getDimSize(bRank - 1);
  bool small = !ShapedType::isDynamic(m) && !ShapedType::isDynamic(k) &&
               !ShapedType::isDynamic(n) && m * k * n < minParallelWork;
  linalg::FillOp fill = batchFill(op, c);
  linalg::GenericOp consumer = batchConsumer(op, a, b, c, batch);
  // At the consumer when there is one (only pure ops between it and the
  // product; the views it reads may be defined among them).
  rewriter.setInsertionPoint(consumer ? consumer.getOperation() : op);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  SmallVector<Value> lower(batch, zero), steps(batch, one), upper;
  for (int64_t d = 0; d < batch; ++d)
    upper.push_back(getValueOrCreateConstantIndexOp(
        rewriter, loc, memref::getMixedSize(rewriter, loc, c, d)));
  auto body = [&](OpBuilder &nested, Location l, ValueRange indices) {
    Value ai = batchElement(nested, l, a, indices);
    Value bi = batchElement(nested, l, b, indices);
    Value ci = batchElement(nested, l, c, indices);
    if (fill)
      linalg::FillOp::create(nested, l, fill.getInputs()[0], ci);
    linalg::MatmulOp::create(nested, l, ValueRange{ai, bi}, ValueRange{ci});
    if (consumer)
      sliceConsumer(nested, l, consumer, indices);
  };
  // The fill and the consumer go with the product.
  auto eraseSplit = [&] {
    rewriter.eraseOp(op);
    if (fill)
      rewriter.eraseOp(fill);
    if (consumer)
      rewriter.eraseOp(consumer);
  };
  auto parallelLoop = [&] {
    scf::ParallelOp::create(
        rewriter, loc, lower, upper, steps,
        [&](OpBuilder &nested, Location l, ValueRange indices) {
          body(nested, l, indices);
          scf::ReduceOp::create(nested, l);
        });
  };
  auto sequentialLoop = [&] {
    scf::buildLoopNest(rewriter, loc, lower, upper, steps,
                       [&](OpBuilder &nested, Location l, ValueRange indices) {
                         body(nested, l, indices);
                       });
  };
  if (small)
    return parallelLoop(), eraseSplit();
  if (!parallel)
    return sequentialLoop(), eraseSplit();
  // Over the batch when its elements keep every thread busy at least 3/4
  // of the time (ceil(batch / threads) rounds of `threads` products), else
  // one product after the other, each spread over the threads.
  auto module = op->getParentOfType<ModuleOp>();
  Value threads = arith::IndexCastOp::create(
      rewriter, loc, rewriter.getIndexType(),
      func::CallOp::create(rewriter, loc,
                           wrapper::gemm::getOrDeclareMaxThreads(module),
                           ValueRange{})
          .getResult(0));
  threads = arith::MaxSIOp::create(rewriter, loc, threads, one);
  Value total = one;
  for (Value size : upper)
    total = arith::MulIOp::create(rewriter, loc, total, size);
  Value rounds = arith::CeilDivUIOp::create(rewriter, loc, total, threads);
  Value slots = arith::MulIOp::create(rewriter, loc, rounds, threads);
  auto times = [&](Value x, int64_t k) {
    return arith::MulIOp::create(
        rewriter, loc, x, arith::ConstantIndexOp::create(rewriter, loc, k));
  };
  Value busy = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge,
                                     times(total, 4), times(slots, 3));
  Value several = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::ugt, threads, one);
  auto choice = scf::IfOp::create(
      rewriter, loc, arith::AndIOp::create(rewriter, loc, busy, several),
      /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(choice.thenBlock()->getTerminator());
  parallelLoop();
  rewriter.setInsertionPoint(choice.elseBlock()->getTerminator());
  sequentialLoop();
  eraseSplit();
}

namespace {
struct WrapperSpecializeContractionsPass
    : public wrapper::impl::WrapperSpecializeContractionsPassBase<
          WrapperSpecializeContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> contractions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (isTemplateProductOnBuffers(op) &&
          linalg::isaContractionOpInterface(op))
        contractions.push_back(op);
    });
    for (linalg::GenericOp op : contractions) {
      Value output = rootBuffer(op.getDpsInitOperand(0)->get());
      linalg::GenericOp consumer = elementwiseConsumer(op, output);
      if (hasUnitLoop(op)) {
        op = dropUnitLoops(rewriter, op);
        if (!op)
          continue;
      }
      // A plain product (three loops) becomes linalg.matmul (an operand it
      // reads transposed read through a transposed view first); batched
      // ones are split below.
      if (op.getNumLoops() != 3)
        continue;
      rewriter.setInsertionPoint(op);
      viewTransposedGenericOperands(rewriter, op);
      FailureOr<linalg::LinalgOp> named =
          linalg::specializeGenericOp(rewriter, op);
      if (failed(named) || !isa<linalg::MatmulOp>(named->getOperation()))
        continue;
      // The consumer loses the same unit loops, so that the template
      // finds a 2-D epilogue reading the product's view.
      if (consumer)
        dropUnitLoops(rewriter, consumer);
    }
    // Batched products: the named op, and generics batched over several
    // dimensions (the named op has one).
    SmallVector<std::pair<linalg::LinalgOp, int64_t>> batched;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!isTemplateProductOnBuffers(op))
        return;
      if (auto named = dyn_cast<linalg::BatchMatmulOp>(op.getOperation())) {
        if (!named.hasUserDefinedMaps())
          batched.push_back({op, 1});
      } else if (std::optional<int64_t> dims =
                     wrapper::getBatchedMatmulDims(op)) {
        batched.push_back({op, *dims});
      }
    });
    for (auto [op, dims] : batched) {
      // Operands read transposed through the maps: transposed views (the
      // 2-D matmuls of the batch read their strided matrices).
      Value a = op.getDpsInputs()[0], b = op.getDpsInputs()[1];
      if (std::optional<wrapper::BatchedMatmul> product =
              wrapper::matchBatchedMatmul(op)) {
        rewriter.setInsertionPoint(op);
        if (product->aTransposed)
          a = wrapper::gemm::transposeLastTwo(rewriter, op.getLoc(), a);
        if (product->bTransposed)
          b = wrapper::gemm::transposeLastTwo(rewriter, op.getLoc(), b);
      }
      splitBatch(rewriter, op, a, b, op.getDpsInits()[0], dims, minParallelWork,
                 parallel);
    }
    // Products reading an operand transposed (through their maps) read a
    // transposed view of it, which the template packs from.
    SmallVector<linalg::MatmulOp> matmuls;
    getOperation().walk([&](linalg::MatmulOp op) {
      if (isTemplateProductOnBuffers(op))
        matmuls.push_back(op);
    });
    for (linalg::MatmulOp op : matmuls)
      wrapper::viewTransposedOperands(rewriter, op);
  }
};
} // namespace
