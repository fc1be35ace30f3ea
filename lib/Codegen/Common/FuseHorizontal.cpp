//===- FuseHorizontal.cpp - siblings and transposes into one generic ------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-fuse-horizontal: a linalg.transpose of an
// elementwise generic's result becomes one more result of the generic, and
// independent elementwise generics over the same loops become one generic
// with the results of both.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERFUSEHORIZONTALPASS
#include "Wrapper/Codegen/Common/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
/// An elementwise generic on tensors with static loops whose outputs are
/// written through permutations and not read: it may take more outputs,
/// and its body may run next to another's.
bool isFreshElementwise(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumLoops() == 0 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return false;
  if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
    return false;
  return llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
    return !op.payloadUsesValueFromOperand(&init) &&
           op.getMatchingIndexingMap(&init).isPermutation();
  });
}

/// One more result of a generic: result `result` of the combined ops
/// written again into `init` through `map`.
struct ExtraResult {
  unsigned result;
  Value init;
  AffineMap map;
};

/// A generic computing the results of `ops` (same loops, in this order)
/// and then `extras`, built at the rewriter's insertion point.
linalg::GenericOp combine(RewriterBase &rewriter, Location loc,
                          ArrayRef<linalg::GenericOp> ops,
                          ArrayRef<ExtraResult> extras) {
  SmallVector<Value> inputs, inits;
  SmallVector<AffineMap> inputMaps, initMaps;
  SmallVector<Type> resultTypes;
  for (linalg::GenericOp op : ops) {
    for (OpOperand *input : op.getDpsInputOperands()) {
      inputs.push_back(input->get());
      inputMaps.push_back(op.getMatchingIndexingMap(input));
    }
    for (OpOperand &init : op.getDpsInitsMutable()) {
      inits.push_back(init.get());
      initMaps.push_back(op.getMatchingIndexingMap(&init));
    }
    llvm::append_range(resultTypes, op.getResultTypes());
  }
  for (const ExtraResult &extra : extras) {
    inits.push_back(extra.init);
    initMaps.push_back(extra.map);
    resultTypes.push_back(extra.init.getType());
  }
  SmallVector<AffineMap> maps = inputMaps;
  llvm::append_range(maps, initMaps);
  linalg::GenericOp first = ops.front();
  return linalg::GenericOp::create(
      rewriter, loc, resultTypes, inputs, inits, maps,
      first.getIteratorTypesArray(),
      [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
        ValueRange inputArgs = args.take_front(inputs.size());
        ValueRange initArgs = args.drop_front(inputs.size());
        SmallVector<Value> yields;
        unsigned inputOffset = 0, initOffset = 0;
        for (linalg::GenericOp op : ops) {
          Block &body = op.getRegion().front();
          IRMapping mapping;
          unsigned numInputs = op.getNumDpsInputs();
          for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
            Value to = i < numInputs ? inputArgs[inputOffset + i]
                                     : initArgs[initOffset + (i - numInputs)];
            mapping.map(arg, to);
          }
          for (Operation &inner : body.without_terminator())
            b.clone(inner, mapping);
          for (Value yielded : body.getTerminator()->getOperands())
            yields.push_back(mapping.lookupOrDefault(yielded));
          inputOffset += numInputs;
          initOffset += op.getNumDpsInits();
        }
        for (const ExtraResult &extra : extras)
          yields.push_back(yields[extra.result]);
        linalg::YieldOp::create(b, bodyLoc, yields);
      });
}

/// `transpose` of a result of an elementwise generic (or of a
/// tensor.expand_shape of one that only adds unit dimensions) as one more
/// result of the generic.
LogicalResult absorbTranspose(RewriterBase &rewriter,
                              linalg::TransposeOp transpose) {
  Value source = transpose.getInput();
  auto expand = source.getDefiningOp<tensor::ExpandShapeOp>();
  if (expand)
    source = expand.getSrc();
  auto result = dyn_cast<OpResult>(source);
  auto producer =
      result ? dyn_cast<linalg::GenericOp>(result.getOwner()) : nullptr;
  if (!producer || !isFreshElementwise(producer) ||
      producer->getBlock() != transpose->getBlock())
    return failure();
  auto sourceType = cast<RankedTensorType>(source.getType());
  auto resultType = cast<RankedTensorType>(transpose.getResult()[0].getType());
  if (!sourceType.hasStaticShape() || !resultType.hasStaticShape())
    return failure();
  ArrayRef<int64_t> perm = transpose.getPermutation();

  // The source dimension each dimension of the transposed (expanded) value
  // is, or -1 for a unit dimension the expansion added.
  SmallVector<int64_t> sourceDimOf(perm.size(), -1);
  if (expand) {
    for (auto [s, group] : llvm::enumerate(expand.getReassociationIndices())) {
      int64_t size = sourceType.getDimSize(s);
      int64_t representative = -1;
      for (int64_t e : group) {
        int64_t expandedSize = expand.getResultType().getDimSize(e);
        if (representative < 0 && expandedSize == size)
          representative = e;
        else if (expandedSize != 1)
          return failure(); // a real split
      }
      if (representative < 0)
        return failure();
      for (auto [i, p] : llvm::enumerate(perm))
        if (p == representative)
          sourceDimOf[i] = s;
    }
  } else {
    for (auto [i, p] : llvm::enumerate(perm))
      sourceDimOf[i] = p;
  }

  // The permutation of the source the transpose is, less the unit
  // dimensions, and how they come back (each joins the group of the
  // dimension next to it).
  SmallVector<int64_t> sourcePerm;
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (auto [i, s] : llvm::enumerate(sourceDimOf)) {
    if (s < 0) {
      if (groups.empty())
        pending.push_back(i);
      else
        groups.back().push_back(i);
      continue;
    }
    sourcePerm.push_back(s);
    ReassociationIndices group = pending;
    pending.clear();
    group.push_back(i);
    groups.push_back(group);
  }
  if (groups.empty())
    return failure();

  AffineMap resultMap = producer.getIndexingMapMatchingResult(result);
  SmallVector<AffineExpr> exprs;
  SmallVector<int64_t> shape;
  for (int64_t s : sourcePerm) {
    exprs.push_back(resultMap.getResult(s));
    shape.push_back(sourceType.getDimSize(s));
  }
  AffineMap map =
      AffineMap::get(producer.getNumLoops(), 0, exprs, rewriter.getContext());

  rewriter.setInsertionPoint(producer);
  Location loc = transpose.getLoc();
  Value init = tensor::EmptyOp::create(rewriter, loc, shape,
                                       sourceType.getElementType());
  linalg::GenericOp combined =
      combine(rewriter, producer.getLoc(), {producer},
              {ExtraResult{result.getResultNumber(), init, map}});
  rewriter.replaceOp(producer, combined.getResults().drop_back());
  Value transposed = combined.getResults().back();
  if (transposed.getType() != resultType) {
    rewriter.setInsertionPoint(transpose);
    transposed = tensor::ExpandShapeOp::create(rewriter, loc, resultType,
                                               transposed, groups);
  }
  rewriter.replaceOp(transpose, transposed);
  return success();
}

/// The values `op` uses: its operands and what its regions capture.
SmallVector<Value> usedValues(Operation *op) {
  SmallVector<Value> values(op->getOperands());
  llvm::SetVector<Value> captured;
  for (Region &region : op->getRegions())
    getUsedValuesDefinedAbove(region, captured);
  llvm::append_range(values, captured);
  return values;
}

/// Whether `later` depends on `earlier` (both in one block, `earlier`
/// first) through the values it uses.
bool dependsOn(Operation *later, Operation *earlier) {
  Block *block = earlier->getBlock();
  SmallVector<Operation *> worklist{later};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Value value : usedValues(op)) {
      Operation *def = value.getDefiningOp();
      if (!def)
        continue;
      def = block->findAncestorOpInBlock(*def);
      if (!def || def->isBeforeInBlock(earlier))
        continue;
      if (def == earlier)
        return true;
      if (seen.insert(def).second)
        worklist.push_back(def);
    }
  }
  return false;
}

/// Whether every user of `op` comes after `point` (same block).
bool usersFollow(Operation *op, Operation *point) {
  Block *block = op->getBlock();
  return llvm::all_of(op->getUsers(), [&](Operation *user) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    return ancestor && point->isBeforeInBlock(ancestor);
  });
}

/// The ops that define what `op` uses after `point` when they can move
/// before it (pure, without regions, their own operands defined before
/// `point`), or failure.
FailureOr<SmallVector<Operation *>> movableBefore(Operation *op,
                                                  Operation *point) {
  Block *block = point->getBlock();
  auto before = [&](Value value) {
    Operation *def = value.getDefiningOp();
    if (!def)
      return true;
    def = block->findAncestorOpInBlock(*def);
    return !def || def->isBeforeInBlock(point);
  };
  SmallVector<Operation *> moves;
  for (Value value : usedValues(op)) {
    if (before(value))
      continue;
    Operation *def = value.getDefiningOp();
    if (def->getBlock() != block || !isPure(def) || def->getNumRegions() ||
        !llvm::all_of(def->getOperands(), before))
      return failure();
    if (!llvm::is_contained(moves, def))
      moves.push_back(def);
  }
  return moves;
}

/// Merges `later` into `earlier` when they are independent and one of
/// them can take the other's place.
LogicalResult mergeSiblings(RewriterBase &rewriter, linalg::GenericOp earlier,
                            linalg::GenericOp later) {
  if (earlier.getStaticLoopRanges() != later.getStaticLoopRanges() ||
      earlier.getIteratorTypesArray() != later.getIteratorTypesArray() ||
      dependsOn(later, earlier))
    return failure();
  if (usersFollow(earlier, later)) {
    rewriter.setInsertionPoint(later);
  } else {
    FailureOr<SmallVector<Operation *>> moves = movableBefore(later, earlier);
    if (failed(moves))
      return failure();
    for (Operation *move : *moves)
      rewriter.moveOpBefore(move, earlier);
    rewriter.setInsertionPoint(earlier);
  }
  linalg::GenericOp merged =
      combine(rewriter, earlier.getLoc(), {earlier, later}, {});
  unsigned split = earlier.getNumResults();
  rewriter.replaceOp(earlier, merged.getResults().take_front(split));
  rewriter.replaceOp(later, merged.getResults().drop_front(split));
  return success();
}

struct FuseHorizontalPass
    : public wrapper::impl::WrapperFuseHorizontalPassBase<FuseHorizontalPass> {
  using Base::Base;

  /// Generics later than an op that a merge looks at.
  static constexpr unsigned kWindow = 32;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::TransposeOp> transposes;
    getOperation().walk(
        [&](linalg::TransposeOp op) { transposes.push_back(op); });
    for (linalg::TransposeOp transpose : transposes)
      (void)absorbTranspose(rewriter, transpose);

    // Results no one reads any more (a generic's own result whose only
    // reader was a transpose).
    if (failed(eraseUnused()))
      return signalPassFailure();

    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks)
      mergeIn(rewriter, *block);
    // Inputs that both merged ops read, once.
    if (failed(eraseUnused()))
      return signalPassFailure();
    unshareEmptyTensors(rewriter);
  }

  LogicalResult eraseUnused() {
    RewritePatternSet patterns(&getContext());
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    return applyPatternsGreedily(getOperation(), std::move(patterns));
  }

  /// An empty or filled tensor per use: CSE (which runs before this pass)
  /// merges equal tensor.empty and linalg.fill ops, and one-shot
  /// bufferization then gives all but one of their users a copy (a buffer
  /// and a copy launch each, and a copy that keeps a reduction out of a
  /// row kernel).
  void unshareEmptyTensors(RewriterBase &rewriter) {
    SmallVector<Operation *> shared;
    getOperation().walk([&](Operation *op) {
      auto fill = dyn_cast<linalg::FillOp>(op);
      bool fresh = isa<tensor::EmptyOp>(op) ||
                   (fill && fill.hasPureTensorSemantics() &&
                    fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>());
      if (fresh && op->getNumResults() == 1 && !op->getResult(0).hasOneUse() &&
          !op->use_empty())
        shared.push_back(op);
    });
    for (Operation *op : shared) {
      SmallVector<OpOperand *> uses = llvm::map_to_vector(
          op->getUses(), [](OpOperand &use) { return &use; });
      for (OpOperand *use : ArrayRef(uses).drop_front()) {
        rewriter.setInsertionPoint(use->getOwner());
        IRMapping mapping;
        if (auto fill = dyn_cast<linalg::FillOp>(op)) {
          Operation *empty = fill.getDpsInits()[0].getDefiningOp();
          mapping.map(empty->getResult(0),
                      rewriter.clone(*empty)->getResult(0));
        }
        Operation *copy = rewriter.clone(*op, mapping);
        rewriter.modifyOpInPlace(use->getOwner(),
                                 [&] { use->set(copy->getResult(0)); });
      }
    }
  }

  void mergeIn(RewriterBase &rewriter, Block &block) {
    bool changed = true;
    while (changed) {
      changed = false;
      SmallVector<linalg::GenericOp> generics;
      for (auto op : block.getOps<linalg::GenericOp>())
        if (isFreshElementwise(op))
          generics.push_back(op);
      for (unsigned i = 0; i < generics.size() && !changed; ++i) {
        for (unsigned j = i + 1; j < generics.size() && j <= i + kWindow; ++j) {
          if (generics[i]->getNumOperands() + generics[j]->getNumOperands() >
              maxOperands)
            continue;
          if (succeeded(mergeSiblings(rewriter, generics[i], generics[j]))) {
            changed = true;
            break;
          }
        }
      }
    }
  }
};
} // namespace
