//===- TensorProgramOpFolders.cpp - folders and canonicalizations ---------===//
//
// Part of the Wrapper project.
//
// Only exact identities: x + (-0.0), x - 0.0, x * 1, x / 1 fold for floats
// (x + 0.0 does not, since -0.0 + 0.0 is +0.0); no-op layout ops fold to
// their input; chains of reshapes and permutes collapse; splat constants
// fold through add, sub and mul.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::tensor_program;

/// The splat value of a constant operand, if it is one.
static std::optional<Attribute> getSplat(Attribute attr) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!splat)
    return std::nullopt;
  return splat.getSplatValue<Attribute>();
}

/// Whether `attr` is a splat of exactly `value` (for floats, bit-exact, so
/// that -0.0 and 0.0 differ).
static bool isSplatOf(Attribute attr, double value) {
  std::optional<Attribute> splat = getSplat(attr);
  if (!splat)
    return false;
  if (auto f = dyn_cast<FloatAttr>(*splat)) {
    APFloat expected(value);
    bool losesInfo;
    expected.convert(f.getValue().getSemantics(), APFloat::rmNearestTiesToEven,
                     &losesInfo);
    return f.getValue().bitwiseIsEqual(expected);
  }
  if (auto i = dyn_cast<IntegerAttr>(*splat))
    return i.getValue().getSExtValue() == static_cast<int64_t>(value) &&
           value == static_cast<double>(static_cast<int64_t>(value));
  return false;
}

/// Folds `lhs op rhs` to `lhs` when rhs is the identity splat and the result
/// type is lhs's (no broadcasting happens).
static OpFoldResult foldRightIdentity(Operation *op, Value lhs, Attribute rhs,
                                      double floatIdentity,
                                      double intIdentity) {
  if (lhs.getType() != op->getResult(0).getType())
    return {};
  Type element = cast<RankedTensorType>(lhs.getType()).getElementType();
  double identity = isa<FloatType>(element) ? floatIdentity : intIdentity;
  return isSplatOf(rhs, identity) ? OpFoldResult(lhs) : OpFoldResult();
}

/// Folds two splat operands with `floatFn` / `intFn` into a splat of the
/// result type.
static OpFoldResult foldSplats(Operation *op, Attribute lhs, Attribute rhs,
                               function_ref<APFloat(APFloat, APFloat)> floatFn,
                               function_ref<APInt(APInt, APInt)> intFn) {
  std::optional<Attribute> a = getSplat(lhs), b = getSplat(rhs);
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!a || !b || !resultType || !resultType.hasStaticShape())
    return {};
  if (auto fa = dyn_cast<FloatAttr>(*a)) {
    auto fb = cast<FloatAttr>(*b);
    return SplatElementsAttr::get(resultType,
                                  floatFn(fa.getValue(), fb.getValue()));
  }
  if (auto ia = dyn_cast<IntegerAttr>(*a)) {
    auto ib = cast<IntegerAttr>(*b);
    return SplatElementsAttr::get(resultType,
                                  intFn(ia.getValue(), ib.getValue()));
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult splat = foldSplats(
          *this, adaptor.getLhs(), adaptor.getRhs(),
          [](APFloat a, APFloat b) { return a + b; },
          [](APInt a, APInt b) { return a + b; }))
    return splat;
  return foldRightIdentity(*this, getLhs(), adaptor.getRhs(), -0.0, 0);
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult splat = foldSplats(
          *this, adaptor.getLhs(), adaptor.getRhs(),
          [](APFloat a, APFloat b) { return a - b; },
          [](APInt a, APInt b) { return a - b; }))
    return splat;
  return foldRightIdentity(*this, getLhs(), adaptor.getRhs(), 0.0, 0);
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult splat = foldSplats(
          *this, adaptor.getLhs(), adaptor.getRhs(),
          [](APFloat a, APFloat b) { return a * b; },
          [](APInt a, APInt b) { return a * b; }))
    return splat;
  return foldRightIdentity(*this, getLhs(), adaptor.getRhs(), 1.0, 1);
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  return foldRightIdentity(*this, getLhs(), adaptor.getRhs(), 1.0, 1);
}

OpFoldResult NegOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  return {};
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

namespace {
/// full with a static shape is a splat constant.
struct FullToSplat : public OpRewritePattern<FullOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FullOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    if (!type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "shape is dynamic");
    Type element = type.getElementType();
    Attribute value;
    if (auto f = dyn_cast<FloatType>(element)) {
      APFloat v(op.getValue().convertToDouble());
      bool losesInfo;
      v.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &losesInfo);
      value = FloatAttr::get(element, v);
    } else {
      value = IntegerAttr::get(
          element, static_cast<int64_t>(op.getValue().convertToDouble()));
    }
    rewriter.replaceOpWithNewOp<ConstantOp>(
        op, SplatElementsAttr::get(type, value));
    return success();
  }
};
} // namespace

void FullOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<FullToSplat>(context);
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

namespace {
/// A product whose operand is a matrix broadcast over leading (batch)
/// dimensions becomes a matmul by the matrix itself, when the result keeps
/// its type (see the ops' descriptions).
template <typename ProductOp>
struct ProductOfBroadcastMatrix : public OpRewritePattern<ProductOp> {
  using OpRewritePattern<ProductOp>::OpRewritePattern;

  /// The matrix `value` broadcasts, if it is a broadcast that only adds
  /// leading dimensions to a rank-2 value.
  static Value broadcastMatrix(Value value) {
    auto broadcast = value.template getDefiningOp<BroadcastOp>();
    if (!broadcast)
      return {};
    auto input = cast<RankedTensorType>(broadcast.getInput().getType());
    auto result = cast<RankedTensorType>(broadcast.getType());
    if (input.getRank() != 2 || result.getRank() <= 2 ||
        input.getShape() != result.getShape().take_back(2))
      return {};
    return broadcast.getInput();
  }

  LogicalResult matchAndRewrite(ProductOp op,
                                PatternRewriter &rewriter) const override {
    Value lhs = op.getLhs(), rhs = op.getRhs();
    if (Value matrix = broadcastMatrix(rhs))
      rhs = matrix;
    else if (Value matrix = broadcastMatrix(lhs))
      lhs = matrix;
    else
      return rewriter.notifyMatchFailure(op,
                                         "no operand is a broadcast matrix");
    SmallVector<Type> inferred;
    if (failed(MatmulOp::inferReturnTypes(
            op.getContext(), op.getLoc(), ValueRange{lhs, rhs},
            op->getAttrDictionary(), op->getPropertiesStorage(),
            op->getRegions(), inferred)) ||
        inferred.size() != 1 || inferred.front() != op.getType())
      return rewriter.notifyMatchFailure(op, "the result would change type");
    rewriter.replaceOpWithNewOp<MatmulOp>(op, op.getType(), lhs, rhs);
    return success();
  }
};
} // namespace

void MatmulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<ProductOfBroadcastMatrix<MatmulOp>>(context);
}

void BatchMatmulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                MLIRContext *context) {
  results.add<ProductOfBroadcastMatrix<BatchMatmulOp>>(context);
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType() && getType().hasStaticShape())
    return getInput();
  // reshape(reshape(x)) = reshape(x): only the final shape matters.
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

namespace {
/// reshape(permute(x, swap of the last two)) = permute(reshape'(x), swap of
/// the last two), when the reshape keeps the last two dimensions and only
/// regroups the others (which the permute leaves in place), and the permute
/// has no other user. A product then reads the transpose directly (in place,
/// through transposed indexing maps) rather than a reshape of it.
struct ReshapeOfLastTwoTranspose : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto permute = op.getInput().getDefiningOp<PermuteOp>();
    if (!permute || !permute->hasOneUse())
      return rewriter.notifyMatchFailure(op, "the input is not a permute");
    ArrayRef<int64_t> perm = permute.getPermutation();
    int64_t rank = perm.size();
    RankedTensorType type = op.getType();
    int64_t resultRank = type.getRank();
    if (rank < 3 || resultRank < 2 || !swapsLastTwoDims(perm))
      return rewriter.notifyMatchFailure(
          op, "the permute does not swap only the last two dimensions");
    auto inputType = cast<RankedTensorType>(permute.getType());
    ArrayRef<int64_t> kept = inputType.getShape().take_back(2);
    if (type.getShape().take_back(2) != kept ||
        ShapedType::isDynamic(kept[0]) || ShapedType::isDynamic(kept[1]))
      return rewriter.notifyMatchFailure(
          op, "the reshape changes the last two (static) dimensions");
    SmallVector<int64_t> shape(type.getShape());
    std::swap(shape[resultRank - 2], shape[resultRank - 1]);
    // The last two dimensions are static: the dynamic sizes are the leading
    // ones', in the same order.
    Value reshaped =
        ReshapeOp::create(rewriter, op.getLoc(),
                          RankedTensorType::get(shape, type.getElementType()),
                          permute.getInput(), op.getDynamicSizes());
    SmallVector<int64_t> swap =
        llvm::to_vector(llvm::seq<int64_t>(0, resultRank));
    std::swap(swap[resultRank - 2], swap[resultRank - 1]);
    rewriter.replaceOpWithNewOp<PermuteOp>(op, reshaped, swap);
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ReshapeOfLastTwoTranspose>(context);
}

OpFoldResult PermuteOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getInput();
  // permute(permute(x, p), q) = permute(x, p[q[i]]).
  if (auto inner = getInput().getDefiningOp<PermuteOp>()) {
    SmallVector<int64_t> composed;
    for (int64_t dim : perm)
      composed.push_back(inner.getPermutation()[dim]);
    getInputMutable().assign(inner.getInput());
    setPermutation(composed);
    return getResult();
  }
  return {};
}

namespace {
/// permute(slice(x), p) = slice'(permute(x, p)) when `x` is, through
/// slices nothing else reads, a permute the moved one then composes with
/// (PermuteOp::fold), and nothing else reads that permute either unless
/// the two cancel. A convolution lowered to a product transposes the
/// product to NCHW; a weight gradient slices that and transposes it back:
/// two copies of the weight's size became none.
struct PermuteOfSlicedPermute : public OpRewritePattern<PermuteOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PermuteOp op,
                                PatternRewriter &rewriter) const override {
    auto slice = op.getInput().getDefiningOp<SliceOp>();
    if (!slice || !slice->hasOneUse())
      return rewriter.notifyMatchFailure(op, "not a slice read once");
    Value source = slice.getInput();
    while (auto inner = source.getDefiningOp<SliceOp>()) {
      if (!inner->hasOneUse())
        return rewriter.notifyMatchFailure(op, "a slice read twice");
      source = inner.getInput();
    }
    auto below = source.getDefiningOp<PermuteOp>();
    if (!below)
      return rewriter.notifyMatchFailure(op, "no permute below the slices");
    ArrayRef<int64_t> perm = op.getPermutation();
    bool cancels = llvm::all_of(llvm::enumerate(perm), [&](auto entry) {
      return below.getPermutation()[entry.value()] ==
             static_cast<int64_t>(entry.index());
    });
    if (!cancels && !below->hasOneUse())
      return rewriter.notifyMatchFailure(op, "the permute below is shared");
    // Result dimension i is the slice's dimension perm[i].
    int64_t dim = llvm::find(perm, slice.getDim()) - perm.begin();
    Value permuted =
        PermuteOp::create(rewriter, op.getLoc(), slice.getInput(), perm);
    rewriter.replaceOpWithNewOp<SliceOp>(op, permuted, dim, slice.getStart(),
                                         slice.getEnd(), slice.getStep());
    return success();
  }
};
} // namespace

void PermuteOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<PermuteOfSlicedPermute>(context);
}

OpFoldResult FlipOp::fold(FoldAdaptor) {
  // Flipping dimensions of size 1 (or none) changes nothing; flipping the
  // same dimensions twice is the input.
  RankedTensorType type = getType();
  if (llvm::all_of(getDims(),
                   [&](int64_t dim) { return type.getDimSize(dim) == 1; }))
    return getInput();
  if (auto inner = getInput().getDefiningOp<FlipOp>()) {
    llvm::SmallDenseSet<int64_t> outer(getDims().begin(), getDims().end());
    llvm::SmallDenseSet<int64_t> first(inner.getDims().begin(),
                                       inner.getDims().end());
    if (outer == first)
      return inner.getInput();
  }
  return {};
}

OpFoldResult BroadcastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType() && getType().hasStaticShape())
    return getInput();
  return {};
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  int64_t size = getInput().getType().getDimSize(getDim());
  if (getStart() == 0 && getStep() == 1 && !ShapedType::isDynamic(size) &&
      static_cast<int64_t>(getEnd()) >= size &&
      getInput().getType() == getType())
    return getInput();
  return {};
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs().front().getType() == getType())
    return getInputs().front();
  return {};
}

OpFoldResult PadOp::fold(FoldAdaptor) {
  auto isZero = [](int64_t v) { return v == 0; };
  if (llvm::all_of(getLow(), isZero) && llvm::all_of(getHigh(), isZero) &&
      getInput().getType() == getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// Dialect-wide patterns
//===----------------------------------------------------------------------===//

namespace {
/// An elementwise op broadcasts its operands (NumPy rules) itself, so an
/// operand that is a static `broadcast` can be the broadcast's input when
/// the op's result type stays the same: the broadcast is then not
/// materialized by a kernel of its own (an attention mask broadcast over the
/// heads was a tensor of its own, held across a whole backward graph).
/// Broadcasts with dynamic sizes are kept: the other operands' dynamic sizes
/// might be 1 where the broadcast stretches.
struct ElementwiseOfBroadcast : public RewritePattern {
  ElementwiseOfBroadcast(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto infer = dyn_cast<InferTypeOpInterface>(op);
    if (!infer || !op->hasTrait<tensor_program::OpTrait::ElementwiseOp>())
      return failure();
    SmallVector<Value> operands(op->getOperands());
    bool changed = false;
    for (Value &operand : operands) {
      auto broadcast = operand.getDefiningOp<BroadcastOp>();
      if (!broadcast || !broadcast.getDynamicSizes().empty())
        continue;
      Value previous = operand;
      operand = broadcast.getInput();
      SmallVector<Type> inferred;
      if (failed(infer.inferReturnTypes(op->getContext(), op->getLoc(),
                                        operands, op->getRawDictionaryAttrs(),
                                        op->getPropertiesStorage(),
                                        op->getRegions(), inferred)) ||
          TypeRange(inferred) != op->getResultTypes()) {
        operand = previous;
        continue;
      }
      changed = true;
    }
    if (!changed)
      return failure();
    rewriter.modifyOpInPlace(op, [&] { op->setOperands(operands); });
    return success();
  }
};
} // namespace

void TensorProgramDialect::getCanonicalizationPatterns(
    RewritePatternSet &results) const {
  results.add<ElementwiseOfBroadcast>(getContext());
}
