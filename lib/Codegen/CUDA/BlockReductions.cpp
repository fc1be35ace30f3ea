//===- BlockReductions.cpp - one block per reduction output ---------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-cuda-block-reductions: reductions the row kernels
// leave (several reduced loops, reduced loops that are not innermost)
// become launches with one block per output element whose threads share
// the reduced elements and combine through gpu.all_reduce.
//
//===----------------------------------------------------------------------===//

#include "RowKernels.h"
#include "Wrapper/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERCUDABLOCKREDUCTIONSPASS
#include "Wrapper/Codegen/CUDA/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper::row_kernels;

namespace {
Value product(OpBuilder &b, Location loc, ArrayRef<Value> values) {
  Value result = arith::ConstantIndexOp::create(b, loc, 1);
  for (Value v : values)
    result = b.createOrFold<arith::MulIOp>(loc, result, v);
  return result;
}

/// The indices `map` gives for loop indices `ivs`.
SmallVector<Value> indicesOf(OpBuilder &b, Location loc, AffineMap map,
                             ArrayRef<Value> ivs) {
  SmallVector<Value> result;
  for (unsigned k = 0; k < map.getNumResults(); ++k)
    result.push_back(getValueOrCreateConstantIndexOp(
        b, loc,
        affine::makeComposedFoldedAffineApply(
            b, loc, map.getSubMap({k}),
            llvm::to_vector_of<OpFoldResult>(ivs))));
  return result;
}

/// Clones `payload` (a linalg body) but its terminator at the loop indices
/// `ivs` (for linalg.index), its arguments as `mapping` has them.
void clonePayload(OpBuilder &b, Block &payload, ArrayRef<Value> ivs,
                  IRMapping &mapping) {
  for (Operation &inner : payload.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(inner, mapping);
  }
}

/// The buffer a memref value views (through view-like ops).
Value rootOf(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// Whether `op` may be stepped over when a reduction moves to a later
/// point of its block (or a fill of its output is taken into it): it has
/// no memory effects but allocations.
bool steppable(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return isMemoryEffectFree(op);
  return effects.onlyHasEffect<MemoryEffects::Allocate>() ||
         effects.hasNoEffect();
}

/// The buffer `op` fills with one scalar (linalg.fill, or its generic
/// form: a scalar input yielded to every element), and the scalar; a null
/// pair otherwise.
std::pair<Value, Value> filled(Operation *op) {
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    if (fill.hasPureBufferSemantics())
      return {fill.getDpsInitOperand(0)->get(),
              fill.getDpsInputOperand(0)->get()};
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || !generic.hasPureBufferSemantics() ||
      generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0)
    return {};
  OpOperand *input = generic.getDpsInputOperand(0);
  OpOperand *output = generic.getDpsInitOperand(0);
  Block &body = generic.getRegion().front();
  if (!input->get().getType().isIntOrIndexOrFloat() ||
      !generic.getMatchingIndexingMap(output).isIdentity() ||
      body.getTerminator()->getOperand(0) != body.getArgument(0))
    return {};
  return {output->get(), input->get()};
}

struct BlockReductionsPass
    : public wrapper::impl::WrapperCUDABlockReductionsPassBase<
          BlockReductionsPass> {
  using Base::Base;

  /// A reduction this pass maps: its combiner and the elements it reduces
  /// per output (kDynamic when a reduced size is).
  struct Candidate {
    linalg::GenericOp op;
    Combiner combiner;
    int64_t reduced;
    /// A fill of the whole output before the reduction, taken into the
    /// launch (the total combines with the fill's value, not a load).
    Operation *fill = nullptr;
    /// Elementwise ops after the reduction over its output's elements,
    /// taken into the launch (thread 0 of each block computes its
    /// element), in order.
    SmallVector<linalg::GenericOp> epilogues;
  };

  /// The fill of `op`'s output (exactly that value) before `op`, found
  /// over steppable ops and fills of other buffers that `op` does not read.
  Operation *fillBefore(linalg::GenericOp op) {
    Value init = op.getDpsInitOperand(0)->get();
    DenseSet<Value> read;
    for (Value operand : op->getOperands())
      read.insert(rootOf(operand));
    for (Operation *prev = op->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      Value buffer = filled(prev).first;
      if (buffer && buffer == init)
        return prev;
      if (buffer && !read.contains(rootOf(buffer)))
        continue;
      if (!steppable(prev))
        return nullptr;
    }
    return nullptr;
  }

  /// The elementwise ops right after `op` (over steppable ops) that run
  /// over its output's elements and read its output or an earlier one's
  /// at the same element: each output element's block can compute them
  /// once it has the element. Their outputs are not buffers the
  /// reduction reads (other blocks may still be reading them), and a
  /// buffer written among them is read only at the element written.
  SmallVector<linalg::GenericOp> epiloguesAfter(linalg::GenericOp op) {
    SmallVector<linalg::GenericOp> result;
    Value init = op.getDpsInitOperand(0)->get();
    auto initType = dyn_cast<MemRefType>(init.getType());
    if (!initType || !initType.hasStaticShape() ||
        !op.getMatchingIndexingMap(op.getDpsInitOperand(0))
             .isProjectedPermutation())
      return result;
    DenseSet<Value> reductionReads;
    for (OpOperand *input : op.getDpsInputOperands())
      reductionReads.insert(rootOf(input->get()));
    // Buffers the fused ops write (by root) and the exact values written.
    DenseSet<Value> writtenRoots = {rootOf(init)};
    DenseSet<Value> written = {init};
    for (Operation *next = op->getNextNode(); next;
         next = next->getNextNode()) {
      if (steppable(next))
        continue;
      auto generic = dyn_cast<linalg::GenericOp>(next);
      if (!generic || !generic.hasPureBufferSemantics() ||
          generic.getNumReductionLoops() != 0 ||
          generic.getStaticLoopRanges() != initType.getShape())
        break;
      bool readsResult = false, fits = true;
      for (OpOperand *input : generic.getDpsInputOperands()) {
        Value value = input->get();
        AffineMap map = generic.getMatchingIndexingMap(input);
        if (!isa<MemRefType>(value.getType()))
          continue;
        if (!map.isProjectedPermutation())
          fits = false;
        if (writtenRoots.contains(rootOf(value))) {
          // Only the element this block computed.
          fits &= written.contains(value) && map.isIdentity();
          readsResult = true;
        }
      }
      for (OpOperand &output : generic.getDpsInitsMutable()) {
        Value root = rootOf(output.get());
        fits &= generic.getMatchingIndexingMap(&output).isIdentity() &&
                !reductionReads.contains(root);
      }
      if (!fits || !readsResult)
        break;
      for (OpOperand &output : generic.getDpsInitsMutable()) {
        writtenRoots.insert(rootOf(output.get()));
        written.insert(output.get());
      }
      result.push_back(generic);
    }
    return result;
  }

  std::optional<Candidate> candidate(linalg::GenericOp op) {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() == 0 ||
        op->getParentOfType<gpu::LaunchOp>() ||
        op->getParentOfType<scf::ParallelOp>())
      return std::nullopt;
    // The output is indexed by parallel loops only (one element per block).
    AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    for (auto [dim, iterator] : llvm::enumerate(iterators))
      if (iterator == utils::IteratorType::reduction &&
          out.isFunctionOfDim(dim))
        return std::nullopt;
    int64_t reduced = 1;
    for (auto [size, iterator] :
         llvm::zip_equal(op.getStaticLoopRanges(), iterators)) {
      if (iterator != utils::IteratorType::reduction)
        continue;
      if (ShapedType::isDynamic(size)) {
        reduced = ShapedType::kDynamic;
        break;
      }
      reduced *= size;
    }
    if (reduced != ShapedType::kDynamic && reduced < minReduction)
      return std::nullopt;
    for (OpOperand *input : op.getDpsInputOperands())
      if (!isa<MemRefType>(input->get().getType()) &&
          !input->get().getType().isIntOrIndexOrFloat())
        return std::nullopt;
    std::optional<Combiner> combiner = matchCombiner(op);
    if (!combiner)
      return std::nullopt;
    return Candidate{op, *combiner, reduced, fillBefore(op),
                     epiloguesAfter(op)};
  }

  /// Threads per block for `reduced` elements per output (dynamic: 256).
  int64_t threadsFor(int64_t reduced) {
    if (blockSize > 0)
      return blockSize;
    if (ShapedType::isDynamic(reduced))
      return 256;
    // At least eight elements a thread, a whole warp at least.
    return std::clamp<int64_t>(llvm::PowerOf2Ceil(llvm::divideCeil(reduced, 8)),
                               32, 256);
  }

  void rewrite(const Candidate &found) {
    linalg::GenericOp op = found.op;
    const Combiner &c = found.combiner;
    // The launch goes where the last fused op was: what lies between them
    // is steppable, and the epilogues' operands are all defined by then.
    OpBuilder b(found.epilogues.empty() ? op.getOperation()
                                        : found.epilogues.back());
    Location loc = op.getLoc();
    SmallVector<Range> ranges =
        cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc);
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    SmallVector<unsigned> parallelDims, reducedDims;
    SmallVector<Value> parallelSizes, reducedSizes;
    for (auto [dim, iterator] : llvm::enumerate(iterators)) {
      Value size = getValueOrCreateConstantIndexOp(b, loc, ranges[dim].size);
      if (iterator == utils::IteratorType::reduction) {
        reducedDims.push_back(dim);
        reducedSizes.push_back(size);
      } else {
        parallelDims.push_back(dim);
        parallelSizes.push_back(size);
      }
    }
    Value blocks = product(b, loc, parallelSizes);
    Value reduced = product(b, loc, reducedSizes);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value threads =
        arith::ConstantIndexOp::create(b, loc, threadsFor(found.reduced));
    // No launch of zero blocks (a dynamic size of 0).
    std::optional<int64_t> staticBlocks = getConstantIntValue(blocks);
    if (!staticBlocks) {
      Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                        blocks, zero);
      auto guard = scf::IfOp::create(b, loc, any, /*withElseRegion=*/false);
      b.setInsertionPoint(guard.thenBlock()->getTerminator());
    } else if (*staticBlocks == 0) {
      eraseFused(found);
      return;
    }
    auto launch =
        gpu::LaunchOp::create(b, loc, blocks, one, one, threads, one, one);
    Block &body = launch.getBody().front();
    b.setInsertionPointToStart(&body);
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(&body);

    SmallVector<Value> ivs(iterators.size());
    for (auto [dim, index] : llvm::zip_equal(
             parallelDims,
             delinearize(b, loc, launch.getBlockIds().x, parallelSizes)))
      ivs[dim] = index;
    Value thread = launch.getThreadIds().x;
    Value identity = arith::ConstantOp::create(b, loc, c.identity);
    auto loop = scf::ForOp::create(b, loc, thread, reduced,
                                   launch.getBlockSize().x, identity);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      for (auto [dim, index] : llvm::zip_equal(
               reducedDims,
               delinearize(b, loc, loop.getInductionVar(), reducedSizes)))
        ivs[dim] = index;
      Block &payload = op.getRegion().front();
      IRMapping mapping;
      for (OpOperand *input : op.getDpsInputOperands()) {
        BlockArgument arg = payload.getArgument(input->getOperandNumber());
        if (arg.use_empty())
          continue;
        Value value = input->get();
        if (isa<MemRefType>(value.getType()))
          value = memref::LoadOp::create(
              b, loc, value,
              indicesOf(b, loc, op.getMatchingIndexingMap(input), ivs));
        mapping.map(arg, value);
      }
      mapping.map(payload.getArguments().back(), loop.getRegionIterArg(0));
      clonePayload(b, payload, ivs, mapping);
      scf::YieldOp::create(
          b, loc,
          mapping.lookupOrDefault(payload.getTerminator()->getOperand(0)));
    }
    Value total = gpu::AllReduceOp::create(
                      b, loc, loop.getResult(0),
                      gpu::AllReduceOperationAttr::get(b.getContext(), c.kind),
                      /*uniform=*/true)
                      .getResult();
    // Thread 0 folds the total into the output's initial value.
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread, zero);
    auto ifOp = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    for (unsigned dim : reducedDims)
      ivs[dim] = zero; // the output's map does not read them
    OpOperand *init = op.getDpsInitOperand(0);
    SmallVector<Value> idx =
        indicesOf(b, loc, op.getMatchingIndexingMap(init), ivs);
    Value initial = found.fill
                        ? filled(found.fill).second
                        : memref::LoadOp::create(b, loc, init->get(), idx);
    IRMapping mapping;
    mapping.map(op.getRegion().front().getArguments().back(), initial);
    mapping.map(c.element, total);
    Value result = b.clone(*c.op, mapping)->getResult(0);
    memref::StoreOp::create(b, loc, result, init->get(), idx);
    // The epilogues at this block's element (their loops are the output's
    // dimensions): values written before are taken as computed.
    DenseMap<Value, Value> computed = {{init->get(), result}};
    for (linalg::GenericOp epilogue : found.epilogues)
      emitEpilogue(b, epilogue, idx, computed);
    eraseFused(found);
  }

  void emitEpilogue(OpBuilder &b, linalg::GenericOp op, ArrayRef<Value> ivs,
                    DenseMap<Value, Value> &computed) {
    Location loc = op.getLoc();
    Block &payload = op.getRegion().front();
    IRMapping mapping;
    for (OpOperand &operand : op->getOpOperands()) {
      BlockArgument arg = payload.getArgument(operand.getOperandNumber());
      if (arg.use_empty())
        continue;
      Value value = operand.get();
      if (auto it = computed.find(value); it != computed.end())
        value = it->second;
      else if (isa<MemRefType>(value.getType()))
        value = memref::LoadOp::create(
            b, loc, value,
            indicesOf(b, loc, op.getMatchingIndexingMap(&operand), ivs));
      mapping.map(arg, value);
    }
    clonePayload(b, payload, ivs, mapping);
    for (auto [output, yielded] : llvm::zip_equal(
             op.getDpsInits(), payload.getTerminator()->getOperands())) {
      Value value = mapping.lookupOrDefault(yielded);
      memref::StoreOp::create(b, loc, value, output, ivs);
      computed[output] = value;
    }
  }

  static void eraseFused(const Candidate &found) {
    for (linalg::GenericOp epilogue : llvm::reverse(found.epilogues))
      epilogue.erase();
    found.op->erase();
    if (found.fill)
      found.fill->erase();
  }

  void runOnOperation() override {
    if (blockSize > 1024 || (blockSize > 0 && blockSize % 32 != 0)) {
      getOperation().emitError()
          << "wrapper-cuda-block-reductions: block-size "
          << static_cast<int64_t>(blockSize)
          << " must be a multiple of 32 up to 1024 (0: chosen per reduction)";
      return signalPassFailure();
    }
    SmallVector<Candidate> found;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<Candidate> c = candidate(op))
        found.push_back(*c);
    });
    for (const Candidate &c : found)
      rewrite(c);
  }
};
} // namespace
