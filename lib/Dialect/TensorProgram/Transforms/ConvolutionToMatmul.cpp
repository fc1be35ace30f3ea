//===- ConvolutionToMatmul.cpp - convolutions as gathers and products -----===//
//
// Part of the Wrapper project.
//
// Implements --tensor-program-convolution-to-matmul: the column matrix of
// strided slices of the input and one matrix product with the weight on
// the left, so that convolutions run in the GEMM kernels instead of a loop
// nest.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSwitch.h"

#define DEBUG_TYPE "tensor-program-convolution-to-matmul"

namespace mlir {
namespace tensor_program {
#define GEN_PASS_DEF_TENSORPROGRAMCONVOLUTIONTOMATMULPASS
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h.inc"
} // namespace tensor_program
} // namespace mlir

using namespace mlir;
using namespace mlir::tensor_program;

namespace {
/// Which convolutions take one product per image (the pass's per-image).
enum class PerImage { none, pointwise, all };

struct ConvolutionToMatmul : public OpRewritePattern<ConvolutionOp> {
  ConvolutionToMatmul(MLIRContext *context, int64_t maxColumnElements,
                      PerImage perImage, llvm::Statistic &numPerImage)
      : OpRewritePattern(context), maxColumnElements(maxColumnElements),
        perImage(perImage), numPerImage(numPerImage) {}

  LogicalResult matchAndRewrite(ConvolutionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getInput(), w = op.getWeight();
    auto xType = cast<RankedTensorType>(x.getType());
    auto wType = cast<RankedTensorType>(w.getType());
    RankedTensorType type = op.getType();
    int64_t k = xType.getRank() - 2;
    int64_t groups = op.getGroups();
    // One input channel per group (depthwise, and channel multipliers): a
    // product one channel deep; the window-loop lowering serves those.
    if (groups != 1 && wType.getDimSize(1) == 1)
      return rewriter.notifyMatchFailure(op, "one input channel per group");
    if (!wType.hasStaticShape() ||
        llvm::any_of(xType.getShape().drop_front(), ShapedType::isDynamic) ||
        llvm::any_of(type.getShape().drop_front(), ShapedType::isDynamic))
      return rewriter.notifyMatchFailure(op,
                                         "needs static sizes but the batch");
    Type element = xType.getElementType();
    int64_t channels = xType.getDimSize(1), filters = wType.getDimSize(0);
    ArrayRef<int64_t> stride = op.getStride(), dilation = op.getDilation();
    int64_t positions = 1, window = 1;
    for (int64_t i = 0; i < k; ++i) {
      positions *= type.getDimSize(2 + i);
      window *= wType.getDimSize(2 + i);
    }
    int64_t depth = channels * window;
    bool dynamicBatch = xType.isDynamicDim(0);
    int64_t batch = xType.getDimSize(0);
    if (depth * positions * (dynamicBatch ? 1 : batch) > maxColumnElements)
      return rewriter.notifyMatchFailure(op, "column matrix too large");

    // The batch, and batch * positions (the product's columns), as sizes.
    int64_t columns = dynamicBatch ? ShapedType::kDynamic : batch * positions;
    Value n, cols;
    if (dynamicBatch) {
      n = tensor::DimOp::create(rewriter, loc, x, 0);
      cols = arith::MulIOp::create(
          rewriter, loc, n,
          arith::ConstantIndexOp::create(rewriter, loc, positions));
    }
    // The column matrix [C * K, N * P]: row (c, kk) holds input channel c
    // at kernel offset kk for every image and output position.
    bool single = !dynamicBatch && batch == 1;
    SmallVector<int64_t> swap = {1, 0};
    for (int64_t i = 0; i < k; ++i)
      swap.push_back(2 + i);
    Value column;
    bool pointwise =
        window == 1 && llvm::all_of(stride, [](int64_t s) { return s == 1; });
    if (!single && !dynamicBatch && groups == 1 && positions >= 256 &&
        (perImage == PerImage::all ||
         (perImage == PerImage::pointwise && pointwise))) {
      rewritePerImage(op, rewriter, pointwise, depth, positions);
      return success();
    }
    if (single && pointwise) {
      // One image, a 1x1 kernel, stride 1: the input itself.
      column = ReshapeOp::create(
          rewriter, loc, RankedTensorType::get({depth, columns}, element), x,
          ValueRange{});
    } else if (!dynamicBatch) {
      // One strided view of the input, dimensions [C, K..., N, O...]:
      // element (c, kk, n, o) is x[n, c, o * stride + kk * dilation].
      Value view = windowView(op, rewriter, /*batchFirst=*/false);
      column = ReshapeOp::create(
          rewriter, loc, RankedTensorType::get({depth, columns}, element), view,
          ValueRange{});
    } else {
      // A dynamic batch: the images side by side ([C, N, S...]), then a
      // strided slice of them per kernel offset, concatenated.
      Value images = PermuteOp::create(rewriter, loc, x, swap);
      SmallVector<Value> pieces;
      SmallVector<int64_t> offset(k, 0);
      for (int64_t q = 0; q < window; ++q) {
        Value piece = images;
        for (int64_t i = 0; i < k; ++i) {
          int64_t start = offset[i] * dilation[i];
          int64_t count = type.getDimSize(2 + i);
          int64_t end = start + (count - 1) * stride[i] + 1;
          if (start == 0 && stride[i] == 1 && count == xType.getDimSize(2 + i))
            continue;
          piece = SliceOp::create(rewriter, loc, piece, 2 + i, start, end,
                                  stride[i]);
        }
        pieces.push_back(ReshapeOp::create(
            rewriter, loc,
            RankedTensorType::get({channels, 1, columns}, element), piece,
            ValueRange{cols}));
        for (int64_t i = k - 1; i >= 0; --i) {
          if (++offset[i] < wType.getDimSize(2 + i))
            break;
          offset[i] = 0;
        }
      }
      Value stacked = pieces.size() == 1
                          ? pieces.front()
                          : ConcatOp::create(rewriter, loc, pieces, 1);
      column = ReshapeOp::create(
          rewriter, loc, RankedTensorType::get({depth, columns}, element),
          stacked, ValueRange{cols});
    }

    // [F, C * K] (the weight's own layout) times the columns. Grouped: per
    // group g, the weight's [F / G, C / G * K] rows g times the column
    // rows of the group's channels (the column matrix's leading rows are
    // channel-major): one batched product over the groups, whose result
    // [G, F / G, N * P] is [F, N * P] as it lies.
    Value product;
    if (groups == 1) {
      Value w2 = ReshapeOp::create(
          rewriter, loc, RankedTensorType::get({filters, depth}, element), w,
          ValueRange{});
      product = MatmulOp::create(rewriter, loc, w2, column);
      product.getDefiningOp()->setAttr(kConvolutionProductAttr,
                                       rewriter.getUnitAttr());
    } else {
      int64_t groupDepth = depth / groups, groupFilters = filters / groups;
      Value w3 = ReshapeOp::create(
          rewriter, loc,
          RankedTensorType::get({groups, groupFilters, groupDepth}, element), w,
          ValueRange{});
      Value c3 = ReshapeOp::create(
          rewriter, loc,
          RankedTensorType::get({groups, groupDepth, columns}, element), column,
          dynamicBatch ? ValueRange{cols} : ValueRange{});
      Operation *groupedProduct = BatchMatmulOp::create(rewriter, loc, w3, c3);
      groupedProduct->setAttr(kConvolutionProductAttr, rewriter.getUnitAttr());
      Value grouped = groupedProduct->getResult(0);
      product = ReshapeOp::create(
          rewriter, loc, RankedTensorType::get({filters, columns}, element),
          grouped, dynamicBatch ? ValueRange{cols} : ValueRange{});
    }
    if (Value bias = op.getBias()) {
      Value b2 = ReshapeOp::create(rewriter, loc,
                                   RankedTensorType::get({filters, 1}, element),
                                   bias, ValueRange{});
      product = AddOp::create(rewriter, loc, product, b2);
    }
    // Back to [N, F, O...].
    SmallVector<int64_t> filtersFirst = {filters, batch};
    for (int64_t i = 0; i < k; ++i)
      filtersFirst.push_back(type.getDimSize(2 + i));
    if (single) {
      rewriter.replaceOpWithNewOp<ReshapeOp>(op, type, product, ValueRange{});
      return success();
    }
    Value unflat = ReshapeOp::create(
        rewriter, loc, RankedTensorType::get(filtersFirst, element), product,
        dynamicBatch ? ValueRange{n} : ValueRange{});
    rewriter.replaceOpWithNewOp<PermuteOp>(op, unflat, swap);
    return success();
  }

  /// The strided view of `op`'s input (static sizes but the batch's) whose
  /// element (n, c, kk, o) is x[n, c, o * stride + kk * dilation], its
  /// dimensions [N, C, K..., O...] when `batchFirst`, else [C, K..., N,
  /// O...].
  static Value windowView(ConvolutionOp op, PatternRewriter &rewriter,
                          bool batchFirst) {
    Value x = op.getInput();
    auto xType = cast<RankedTensorType>(x.getType());
    auto wType = cast<RankedTensorType>(op.getWeight().getType());
    RankedTensorType type = op.getType();
    ArrayRef<int64_t> stride = op.getStride(), dilation = op.getDilation();
    int64_t k = xType.getRank() - 2, channels = xType.getDimSize(1);
    SmallVector<int64_t> spatialStride(k, 1);
    for (int64_t i = k - 2; i >= 0; --i)
      spatialStride[i] = spatialStride[i + 1] * xType.getDimSize(3 + i);
    int64_t spatial = spatialStride.front() * xType.getDimSize(2);
    SmallVector<int64_t> sizes, strides;
    auto addBatch = [&] {
      sizes.push_back(xType.getDimSize(0));
      strides.push_back(channels * spatial);
    };
    if (batchFirst)
      addBatch();
    sizes.push_back(channels);
    strides.push_back(spatial);
    for (int64_t i = 0; i < k; ++i) {
      sizes.push_back(wType.getDimSize(2 + i));
      strides.push_back(dilation[i] * spatialStride[i]);
    }
    if (!batchFirst)
      addBatch();
    for (int64_t i = 0; i < k; ++i) {
      sizes.push_back(type.getDimSize(2 + i));
      strides.push_back(stride[i] * spatialStride[i]);
    }
    return AsStridedOp::create(
        rewriter, op.getLoc(),
        RankedTensorType::get(sizes, xType.getElementType()), x,
        rewriter.getDenseI64ArrayAttr(sizes),
        rewriter.getDenseI64ArrayAttr(strides), rewriter.getI64IntegerAttr(0));
  }

  /// One product per image: the weight [F, C * K] by the columns
  /// [N, C * K, P] (the input itself, reshaped, when `pointwise`; else a
  /// strided view [N, C, K..., O...] of it), giving [N, F, P], which is
  /// the result's layout.
  void rewritePerImage(ConvolutionOp op, PatternRewriter &rewriter,
                       bool pointwise, int64_t depth, int64_t positions) const {
    Location loc = op.getLoc();
    Value x = op.getInput(), w = op.getWeight();
    auto xType = cast<RankedTensorType>(x.getType());
    auto wType = cast<RankedTensorType>(w.getType());
    RankedTensorType type = op.getType();
    Type element = xType.getElementType();
    int64_t batch = xType.getDimSize(0), filters = wType.getDimSize(0);
    Value images =
        pointwise ? x : windowView(op, rewriter, /*batchFirst=*/true);
    Value columns = ReshapeOp::create(
        rewriter, loc,
        RankedTensorType::get({batch, depth, positions}, element), images,
        ValueRange{});
    Value w2 = ReshapeOp::create(
        rewriter, loc, RankedTensorType::get({filters, depth}, element), w,
        ValueRange{});
    Operation *productOp = MatmulOp::create(rewriter, loc, w2, columns);
    productOp->setAttr(kConvolutionProductAttr, rewriter.getUnitAttr());
    Value product = productOp->getResult(0);
    if (Value bias = op.getBias()) {
      Value b2 = ReshapeOp::create(rewriter, loc,
                                   RankedTensorType::get({filters, 1}, element),
                                   bias, ValueRange{});
      product = AddOp::create(rewriter, loc, product, b2);
    }
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, type, product, ValueRange{});
    ++numPerImage;
  }

  int64_t maxColumnElements;
  PerImage perImage;
  llvm::Statistic &numPerImage;
};

struct TensorProgramConvolutionToMatmulPass
    : public tensor_program::impl::TensorProgramConvolutionToMatmulPassBase<
          TensorProgramConvolutionToMatmulPass> {
  using Base::Base;

  void runOnOperation() override {
    int64_t before = 0;
    getOperation()->walk([&](ConvolutionOp) { ++before; });
    std::optional<PerImage> which =
        llvm::StringSwitch<std::optional<PerImage>>(perImage)
            .Case("none", PerImage::none)
            .Case("pointwise", PerImage::pointwise)
            .Case("all", PerImage::all)
            .Default(std::nullopt);
    if (!which) {
      emitError(getOperation()->getLoc())
          << "--tensor-program-convolution-to-matmul: per-image must be "
             "none, pointwise or all, got '"
          << perImage << "'";
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<ConvolutionToMatmul>(&getContext(), maxColumnElements, *which,
                                      numPerImage);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    int64_t after = 0;
    getOperation()->walk([&](ConvolutionOp) { ++after; });
    numRewritten += before - after;
  }
};
} // namespace
