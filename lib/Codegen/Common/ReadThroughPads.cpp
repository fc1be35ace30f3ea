//===- ReadThroughPads.cpp - reads of padded tensors without the pad ------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-read-through-pads: an elementwise generic that reads
// a padded tensor (through slices, reshapes and transposes) reads the
// tensor underneath instead, with a bounds check where the padding was, so
// that the pads and transposes are never materialized.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/Common/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERREADTHROUGHPADSPASS
#include "Wrapper/Codegen/Common/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
/// The ops an element read looks through: views, and the two that copy
/// (a pad and a transpose), each with a static shape.
bool isLookThrough(Operation *op) {
  if (!op || op->getNumResults() != 1)
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape())
    return false;
  if (auto pad = dyn_cast<tensor::PadOp>(op))
    return pad.getSourceType().hasStaticShape() &&
           pad.getSourceType().getNumElements() > 0 &&
           pad.getConstantPaddingValue();
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
    return slice.getSourceType().hasStaticShape();
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op))
    return expand.getSrcType().hasStaticShape();
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
    return collapse.getSrcType().hasStaticShape();
  return isa<linalg::TransposeOp>(op);
}

/// Whether reading `value` element by element through the ops above would
/// spare a copy: the chain of look-through ops that defines it holds a pad
/// or a transpose.
bool readingThroughSparesACopy(Value value) {
  for (Operation *op = value.getDefiningOp(); isLookThrough(op);
       op = op->getOperand(0).getDefiningOp())
    if (isa<tensor::PadOp, linalg::TransposeOp>(op))
      return true;
  return false;
}

Value constantIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// `tensor.extract` of a look-through op's result, inside a linalg body,
/// as a read of the op's source (and, for a pad, a select of the padding
/// value where the index is outside the source).
struct ExtractThrough : public OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractOp extract,
                                PatternRewriter &rewriter) const override {
    if (!extract->getParentOfType<linalg::GenericOp>() ||
        !readingThroughSparesACopy(extract.getTensor()))
      return failure();
    Operation *def = extract.getTensor().getDefiningOp();
    Location loc = extract.getLoc();
    SmallVector<Value> indices(extract.getIndices());
    if (auto pad = dyn_cast<tensor::PadOp>(def))
      return rewritePad(rewriter, extract, pad, indices);
    SmallVector<Value> inner;
    Value source = def->getOperand(0); // what each op below reads
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def)) {
      llvm::SmallBitVector dropped = slice.getDroppedDims();
      unsigned next = 0;
      for (auto [d, offset] : llvm::enumerate(slice.getMixedOffsets())) {
        Value base = getValueOrCreateConstantIndexOp(rewriter, loc, offset);
        if (dropped.test(d)) {
          inner.push_back(base);
          continue;
        }
        Value stride = getValueOrCreateConstantIndexOp(
            rewriter, loc, slice.getMixedStrides()[d]);
        Value scaled =
            rewriter.createOrFold<arith::MulIOp>(loc, indices[next++], stride);
        inner.push_back(
            rewriter.createOrFold<arith::AddIOp>(loc, base, scaled));
      }
    } else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
      ArrayRef<int64_t> shape = expand.getResultType().getShape();
      for (const ReassociationIndices &group :
           expand.getReassociationIndices()) {
        Value linear = constantIndex(rewriter, loc, 0);
        for (int64_t e : group) {
          Value scaled = rewriter.createOrFold<arith::MulIOp>(
              loc, linear, constantIndex(rewriter, loc, shape[e]));
          linear =
              rewriter.createOrFold<arith::AddIOp>(loc, scaled, indices[e]);
        }
        inner.push_back(linear);
      }
    } else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def)) {
      ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
      for (auto [c, group] :
           llvm::enumerate(collapse.getReassociationIndices())) {
        // Innermost first; the outermost takes what is left.
        SmallVector<Value> parts(group.size());
        Value rest = indices[c];
        for (size_t k = group.size() - 1; k > 0; --k) {
          Value size = constantIndex(rewriter, loc, shape[group[k]]);
          parts[k] = rewriter.createOrFold<arith::RemUIOp>(loc, rest, size);
          rest = rewriter.createOrFold<arith::DivUIOp>(loc, rest, size);
        }
        parts[0] = rest;
        llvm::append_range(inner, parts);
      }
    } else if (auto transpose = dyn_cast<linalg::TransposeOp>(def)) {
      ArrayRef<int64_t> perm = transpose.getPermutation();
      inner.resize(perm.size());
      for (auto [i, p] : llvm::enumerate(perm))
        inner[p] = indices[i];
    } else {
      return failure();
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractOp>(extract, source, inner);
    return success();
  }

  static LogicalResult rewritePad(PatternRewriter &rewriter,
                                  tensor::ExtractOp extract, tensor::PadOp pad,
                                  ArrayRef<Value> indices) {
    Location loc = extract.getLoc();
    RankedTensorType sourceType = pad.getSourceType();
    Value inBounds;
    SmallVector<Value> shifted;
    for (auto [d, low] : llvm::enumerate(pad.getMixedLowPad())) {
      Value lowValue = getValueOrCreateConstantIndexOp(rewriter, loc, low);
      Value index =
          rewriter.createOrFold<arith::SubIOp>(loc, indices[d], lowValue);
      shifted.push_back(index);
      std::optional<int64_t> lowConstant = getConstantIntValue(low);
      std::optional<int64_t> highConstant =
          getConstantIntValue(pad.getMixedHighPad()[d]);
      if (lowConstant == 0 && highConstant == 0)
        continue;
      // Below zero wraps around: one unsigned comparison checks both ends.
      Value inside = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ult, index,
          constantIndex(rewriter, loc, sourceType.getDimSize(d)));
      inBounds = inBounds
                     ? arith::AndIOp::create(rewriter, loc, inBounds, inside)
                           .getResult()
                     : inside;
    }
    if (!inBounds) {
      rewriter.replaceOpWithNewOp<tensor::ExtractOp>(extract, pad.getSource(),
                                                     shifted);
      return success();
    }
    // Outside the source, element 0 is read (and not used).
    Value zero = constantIndex(rewriter, loc, 0);
    for (Value &index : shifted)
      index = arith::SelectOp::create(rewriter, loc, inBounds, index, zero);
    Value read =
        tensor::ExtractOp::create(rewriter, loc, pad.getSource(), shifted);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(extract, inBounds, read,
                                                 pad.getConstantPaddingValue());
    return success();
  }
};

/// The inputs of an elementwise generic whose reads would spare a copy,
/// read inside the body with tensor.extract instead (which ExtractThrough
/// then moves to the tensor underneath).
struct InputsAsExtracts : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() ||
        op.getNumParallelLoops() != op.getNumLoops())
      return failure();
    SmallVector<OpOperand *> read;
    for (OpOperand *input : op.getDpsInputOperands())
      if (readingThroughSparesACopy(input->get()))
        read.push_back(input);
    if (read.empty())
      return failure();

    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : op.getDpsInputOperands()) {
      if (llvm::is_contained(read, input))
        continue;
      inputs.push_back(input->get());
      maps.push_back(op.getMatchingIndexingMap(input));
    }
    for (OpOperand &init : op.getDpsInitsMutable())
      maps.push_back(op.getMatchingIndexingMap(&init));
    Block &body = op.getRegion().front();
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), op.getResultTypes(), inputs, op.getDpsInits(),
        maps, op.getIteratorTypesArray(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          SmallVector<OpFoldResult> loops;
          for (unsigned d = 0; d < op.getNumLoops(); ++d)
            loops.push_back(linalg::IndexOp::create(b, loc, d).getResult());
          IRMapping mapping;
          unsigned next = 0;
          for (OpOperand &operand : op->getOpOperands()) {
            BlockArgument arg = body.getArgument(operand.getOperandNumber());
            if (!llvm::is_contained(read, &operand)) {
              mapping.map(arg, args[next++]);
              continue;
            }
            AffineMap map = op.getMatchingIndexingMap(&operand);
            SmallVector<Value> indices;
            for (unsigned r = 0; r < map.getNumResults(); ++r)
              indices.push_back(getValueOrCreateConstantIndexOp(
                  b, loc,
                  affine::makeComposedFoldedAffineApply(
                      b, loc, map.getSubMap({r}), loops)));
            mapping.map(
                arg, tensor::ExtractOp::create(b, loc, operand.get(), indices));
          }
          for (Operation &inner : body)
            b.clone(inner, mapping);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// Whether `use` reads its value element by element, so that the pad above
/// is never built: an input of an elementwise generic (InputsAsExtracts), a
/// tensor.extract (ExtractThrough), or a look-through op whose own users
/// all do.
bool readsElements(OpOperand &use) {
  Operation *owner = use.getOwner();
  if (isa<tensor::ExtractOp>(owner))
    return true;
  if (auto generic = dyn_cast<linalg::GenericOp>(owner))
    return generic.hasPureTensorSemantics() &&
           generic.getNumParallelLoops() == generic.getNumLoops() &&
           generic.isDpsInput(&use);
  if (isLookThrough(owner) && use.getOperandNumber() == 0)
    return llvm::all_of(owner->getResult(0).getUses(),
                        [](OpOperand &next) { return readsElements(next); });
  return false;
}

/// A pad that other ops read whole (a product, a reduction, an insert, the
/// function's result) would be a buffer filled with the padding value and a
/// copy of the source into it: two kernels on a GPU, writing the padded
/// size twice. Those uses read an identity generic over the pad instead,
/// which InputsAsExtracts and ExtractThrough turn into one pass that reads
/// the source where it is and selects the padding value elsewhere.
/// Readers of elements keep reading the pad (through it, themselves).
struct PadAsOneGeneric : public OpRewritePattern<tensor::PadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::PadOp pad,
                                PatternRewriter &rewriter) const override {
    if (!isLookThrough(pad))
      return failure();
    SmallVector<OpOperand *> whole;
    for (OpOperand &use : pad.getResult().getUses())
      if (!readsElements(use))
        whole.push_back(&use);
    if (whole.empty())
      return failure();
    Location loc = pad.getLoc();
    RankedTensorType type = pad.getResultType();
    rewriter.setInsertionPointAfter(pad);
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                          type.getElementType());
    AffineMap identity = rewriter.getMultiDimIdentityMap(type.getRank());
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    auto copy = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{pad.getResult()}, ValueRange{empty},
        ArrayRef<AffineMap>{identity, identity}, iterators,
        [](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, args[0]);
        });
    rewriter.replaceUsesWithIf(
        pad.getResult(), copy.getResult(0),
        [&](OpOperand &use) { return llvm::is_contained(whole, &use); });
    return success();
  }
};

struct ReadThroughPadsPass
    : public wrapper::impl::WrapperReadThroughPadsPassBase<
          ReadThroughPadsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<PadAsOneGeneric, InputsAsExtracts, ExtractThrough>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
