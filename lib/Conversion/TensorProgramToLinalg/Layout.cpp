//===- Layout.cpp - tensor_program layout ops to linalg and tensor --------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "Wrapper/Conversion/TensorProgramToLinalg/TensorProgramToLinalg.h"

#include "Wrapper/Dialect/TensorProgram/IR/ShapeInference.h"
#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::wrapper;
using namespace mlir::wrapper::tp_to_linalg;
namespace tp = mlir::tensor_program;

namespace {
struct LowerPermute : public OpRewritePattern<tp::PermuteOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::PermuteOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    SmallVector<Value> sizes;
    for (auto [dim, source] : llvm::enumerate(op.getPermutation()))
      if (type.isDynamicDim(dim))
        sizes.push_back(
            tensor::DimOp::create(rewriter, loc, op.getInput(), source));
    Value init = createEmpty(rewriter, loc, type, sizes);
    auto transpose = linalg::TransposeOp::create(rewriter, loc, op.getInput(),
                                                 init, op.getPermutation());
    rewriter.replaceOp(op, transpose.getResult());
    return success();
  }
};

/// flip as a generic over the result that reads the input with
/// tensor.extract at `size - 1 - i` along the flipped dimensions (an
/// indexing map with `-d` would be affine, but tiling takes maps as
/// increasing: a tile's slice of the input would be computed wrong).
struct LowerFlip : public OpRewritePattern<tp::FlipOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::FlipOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Value input = op.getInput();
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, input);
    Value init =
        tensor::EmptyOp::create(rewriter, loc, sizes, type.getElementType());
    SmallVector<bool> flipped(type.getRank(), false);
    for (int64_t dim : op.getDims())
      flipped[dim] = true;
    // The last index of each flipped dimension, outside the body.
    SmallVector<Value> last(type.getRank());
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (int64_t dim = 0; dim < type.getRank(); ++dim)
      if (flipped[dim])
        last[dim] = arith::SubIOp::create(
            rewriter, loc,
            getValueOrCreateConstantIndexOp(rewriter, loc, sizes[dim]), one);
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{}, init,
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(type.getRank())},
        iterators, [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> coords;
          for (int64_t dim = 0; dim < type.getRank(); ++dim) {
            Value at = linalg::IndexOp::create(b, l, dim);
            if (flipped[dim])
              at = arith::SubIOp::create(b, l, last[dim], at);
            coords.push_back(at);
          }
          linalg::YieldOp::create(
              b, l, tensor::ExtractOp::create(b, l, input, coords).getResult());
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct LowerBroadcast : public OpRewritePattern<tp::BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    auto inputType = op.getInput().getType();
    Value init = createEmpty(rewriter, loc, type, op.getDynamicSizes());
    SmallVector<AffineMap> maps = {
        getBroadcastMap(inputType, type.getShape(), getContext()),
        rewriter.getMultiDimIdentityMap(type.getRank())};
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, op.getInput(), init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, args[0]);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// Reshapes row-major `input` to `type` (sizes of its dynamic dimensions in
/// `dynamicSizes`) by collapsing to one dimension and expanding to the
/// target: valid for any two shapes with the same element count, and
/// bufferizable without copies when the input is contiguous.
static Value reshapeRowMajor(OpBuilder &b, Location loc, Value input,
                             RankedTensorType type, ValueRange dynamicSizes) {
  auto inputType = cast<RankedTensorType>(input.getType());
  Type element = inputType.getElementType();
  // Two or more dynamic target dimensions would make one expand_shape group
  // with several dynamic sizes, which memref's expand-strided-metadata
  // cannot lower (MLIR 22 crashes on it): use tensor.reshape with the shape
  // as a tensor instead (memref.reshape after bufferization).
  if (type.getNumDynamicDims() >= 2) {
    SmallVector<Value> shape;
    unsigned next = 0;
    for (int64_t size : type.getShape())
      shape.push_back(
          ShapedType::isDynamic(size)
              ? dynamicSizes[next++]
              : arith::ConstantIndexOp::create(b, loc, size).getResult());
    Value shapeTensor = tensor::FromElementsOp::create(b, loc, shape);
    return tensor::ReshapeOp::create(b, loc, type, input, shapeTensor);
  }
  // To one dimension.
  Value flat = input;
  int64_t count = 1;
  for (int64_t size : inputType.getShape())
    count = ShapedType::isDynamic(size) || ShapedType::isDynamic(count)
                ? ShapedType::kDynamic
                : count * size;
  auto flatType = RankedTensorType::get({count}, element);
  if (inputType.getRank() == 0) {
    flat = tensor::ExpandShapeOp::create(
        b, loc, flatType, input, ArrayRef<ReassociationIndices>{},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  } else if (inputType.getRank() > 1) {
    ReassociationIndices all =
        llvm::to_vector(llvm::seq<int64_t>(0, inputType.getRank()));
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, input,
                                           ArrayRef<ReassociationIndices>{all});
  }
  if (type.getRank() == 1) {
    if (flat.getType() == type)
      return flat;
    return tensor::CastOp::create(b, loc, type, flat);
  }
  // A static target from a dynamic input: the count is the target's (the
  // program is only valid then), which expand_shape needs statically.
  if (type.hasStaticShape() && ShapedType::isDynamic(count))
    flat = tensor::CastOp::create(
        b, loc, RankedTensorType::get({type.getNumElements()}, element), flat);
  // From one dimension to the target.
  SmallVector<OpFoldResult> outputShape;
  unsigned next = 0;
  for (int64_t size : type.getShape())
    outputShape.push_back(ShapedType::isDynamic(size)
                              ? OpFoldResult(dynamicSizes[next++])
                              : OpFoldResult(b.getIndexAttr(size)));
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, flat,
                                           ArrayRef<ReassociationIndices>{});
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  return tensor::ExpandShapeOp::create(
      b, loc, type, flat, ArrayRef<ReassociationIndices>{all}, outputShape);
}

struct LowerReshape : public OpRewritePattern<tp::ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeRowMajor(rewriter, op.getLoc(), op.getInput(),
                                           op.getType(), op.getDynamicSizes()));
    return success();
  }
};

/// slice: tensor.extract_slice with start and end clamped to the size.
struct LowerSlice : public OpRewritePattern<tp::SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::SliceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t dim = static_cast<int64_t>(op.getDim());
    int64_t start = static_cast<int64_t>(op.getStart());
    int64_t end = static_cast<int64_t>(op.getEnd());
    int64_t step = static_cast<int64_t>(op.getStep());
    int64_t rank = inputType.getRank();
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    RankedTensorType type = op.getType();
    // A step over a result of one element reads that element alone: stride
    // 1, so that the views tiling makes of it never carry a non-unit stride
    // on a unit dimension (MLIR 22's SubViewOp::getDroppedDims crashes when
    // a rank-reducing view of such a slice has to tell which unit
    // dimension it dropped).
    if (type.getDimSize(dim) != 1)
      strides[dim] = rewriter.getIndexAttr(step);
    if (!inputType.isDynamicDim(dim)) {
      int64_t size = inputType.getDimSize(dim);
      offsets[dim] = rewriter.getIndexAttr(std::min(start, size));
      sizes[dim] = rewriter.getIndexAttr(type.getDimSize(dim));
    } else {
      Value n = cast<Value>(sizes[dim]);
      offsets[dim] =
          arith::MinSIOp::create(
              rewriter, loc,
              arith::ConstantIndexOp::create(rewriter, loc, start), n)
              .getResult();
      sizes[dim] = buildSliceSize(rewriter, loc, n, start, end, step);
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, input, offsets, sizes, strides);
    return success();
  }
};

struct LowerConcat : public OpRewritePattern<tp::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::ConcatOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<tensor::ConcatOp>(
        op, op.getType(), static_cast<int64_t>(op.getDim()), op.getInputs());
    return success();
  }
};

struct LowerPad : public OpRewritePattern<tp::PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::PadOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Value value = scalarConstant(rewriter, loc, type.getElementType(),
                                 op.getValue().convertToDouble());
    SmallVector<OpFoldResult> low, high;
    for (int64_t v : op.getLow())
      low.push_back(rewriter.getIndexAttr(v));
    for (int64_t v : op.getHigh())
      high.push_back(rewriter.getIndexAttr(v));
    auto pad = tensor::PadOp::create(rewriter, loc, type, op.getInput(), low,
                                     high, value);
    rewriter.replaceOp(op, pad.getResult());
    return success();
  }
};

/// as_strided: flatten the input, then gather each result element from
/// offset + sum(index[d] * stride[d]).
struct LowerAsStrided : public OpRewritePattern<tp::AsStridedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::AsStridedOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    // Flatten to one dimension.
    std::optional<int64_t> staticCount =
        tp::getNumElements(inputType.getShape());
    auto flatType = RankedTensorType::get(
        {staticCount ? *staticCount : ShapedType::kDynamic},
        inputType.getElementType());
    SmallVector<Value> flatSizes;
    if (!staticCount) {
      Value count = arith::ConstantIndexOp::create(rewriter, loc, 1);
      for (int64_t dim = 0; dim < inputType.getRank(); ++dim)
        count = arith::MulIOp::create(
            rewriter, loc, count,
            tensor::DimOp::create(rewriter, loc, input, dim));
      flatSizes.push_back(count);
    }
    Value flat = reshapeRowMajor(rewriter, loc, input, flatType, flatSizes);

    RankedTensorType type = op.getType();
    Value init = createEmpty(rewriter, loc, type, {});
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    ArrayRef<int64_t> strides = op.getStrides();
    int64_t offset = static_cast<int64_t>(op.getOffset());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{}, init,
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(type.getRank())},
        iterators, [&](OpBuilder &b, Location l, ValueRange) {
          Value position = arith::ConstantIndexOp::create(b, l, offset);
          for (auto [dim, stride] : llvm::enumerate(strides)) {
            Value index = linalg::IndexOp::create(b, l, dim);
            Value s = arith::ConstantIndexOp::create(b, l, stride);
            Value term = arith::MulIOp::create(b, l, index, s);
            position = arith::AddIOp::create(b, l, position, term);
          }
          Value element = tensor::ExtractOp::create(b, l, flat, position);
          linalg::YieldOp::create(b, l, element);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};
} // namespace

void tp_to_linalg::populateLayoutPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerPermute, LowerFlip, LowerBroadcast, LowerReshape,
               LowerSlice, LowerConcat, LowerPad, LowerAsStrided>(
      patterns.getContext());
}

Value mlir::wrapper::buildSliceSize(OpBuilder &b, Location loc, Value size,
                                    int64_t start, int64_t end, int64_t step) {
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value first = arith::MinSIOp::create(b, loc, index(start), size);
  Value last = arith::MinSIOp::create(b, loc, index(end), size);
  Value span = arith::SubIOp::create(b, loc, last, first);
  Value clamped = arith::MaxSIOp::create(b, loc, span, index(0));
  return arith::CeilDivSIOp::create(b, loc, clamped, index(step));
}
