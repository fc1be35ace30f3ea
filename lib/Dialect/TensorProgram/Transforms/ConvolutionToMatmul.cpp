//===- ConvolutionToMatmul.cpp - convolutions as gathers and products -----===//
//
// Part of the Wrapper project.
//
// Implements --tensor-program-convolution-to-matmul: im2col (a take with a
// constant window index) and one matrix product, so that convolutions run
// in the GEMM kernels instead of a loop nest.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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
struct ConvolutionToMatmul : public OpRewritePattern<ConvolutionOp> {
  ConvolutionToMatmul(MLIRContext *context, int64_t maxIndexElements)
      : OpRewritePattern(context), maxIndexElements(maxIndexElements) {}

  LogicalResult matchAndRewrite(ConvolutionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getInput(), w = op.getWeight();
    auto xType = cast<RankedTensorType>(x.getType());
    auto wType = cast<RankedTensorType>(w.getType());
    RankedTensorType type = op.getType();
    int64_t k = xType.getRank() - 2;
    if (op.getGroups() != 1)
      return rewriter.notifyMatchFailure(op, "grouped convolution");
    if (!wType.hasStaticShape() ||
        llvm::any_of(xType.getShape().drop_front(),
                     [](int64_t s) { return ShapedType::isDynamic(s); }) ||
        llvm::any_of(type.getShape().drop_front(),
                     [](int64_t s) { return ShapedType::isDynamic(s); }))
      return rewriter.notifyMatchFailure(op,
                                         "needs static sizes but the batch");
    Type element = xType.getElementType();
    int64_t channels = xType.getDimSize(1), filters = wType.getDimSize(0);
    ArrayRef<int64_t> stride = op.getStride(), dilation = op.getDilation();
    int64_t positions = 1, window = 1, spatial = 1;
    for (int64_t i = 0; i < k; ++i) {
      positions *= type.getDimSize(2 + i);
      window *= wType.getDimSize(2 + i);
      spatial *= xType.getDimSize(2 + i);
    }
    int64_t depth = channels * window;
    bool pointwise =
        window == 1 && llvm::all_of(stride, [](int64_t s) { return s == 1; });
    if (!pointwise && positions * depth > maxIndexElements)
      return rewriter.notifyMatchFailure(op, "window index too large");

    // The batch, and batch * positions, as sizes.
    bool dynamicBatch = xType.isDynamicDim(0);
    int64_t batch = xType.getDimSize(0);
    Value n, rows;
    if (dynamicBatch) {
      n = tensor::DimOp::create(rewriter, loc, x, 0);
      rows = arith::MulIOp::create(
          rewriter, loc, n,
          arith::ConstantIndexOp::create(rewriter, loc, positions));
    }
    auto dyn = [&](ArrayRef<Value> values) {
      return dynamicBatch ? SmallVector<Value>(values) : SmallVector<Value>();
    };
    int64_t batchSize = dynamicBatch ? ShapedType::kDynamic : batch;
    int64_t rowSize = dynamicBatch ? ShapedType::kDynamic : batch * positions;

    // Rows of the product: one per (image, output position).
    Value lhs;
    if (pointwise) {
      SmallVector<int64_t> perm = {0};
      SmallVector<int64_t> lastShape = {batchSize};
      for (int64_t i = 0; i < k; ++i) {
        perm.push_back(2 + i);
        lastShape.push_back(xType.getDimSize(2 + i));
      }
      perm.push_back(1);
      Value last = PermuteOp::create(rewriter, loc, x, perm);
      lhs = ReshapeOp::create(
          rewriter, loc, RankedTensorType::get({rowSize, channels}, element),
          last, dyn({rows}));
    } else {
      Value flat = ReshapeOp::create(
          rewriter, loc,
          RankedTensorType::get({batchSize, channels * spatial}, element), x,
          dyn({n}));
      // index[p, c * window + kk] = c * spatial + sum((o * s + kk * d) *
      // spatialStride), for output position p (row-major o) and kernel
      // offset kk (row-major).
      SmallVector<int64_t> spatialStride(k, 1);
      for (int64_t i = k - 2; i >= 0; --i)
        spatialStride[i] = spatialStride[i + 1] * xType.getDimSize(3 + i);
      SmallVector<int32_t> index;
      index.reserve(positions * depth);
      SmallVector<int64_t> o(k, 0), kk(k, 0);
      for (int64_t p = 0; p < positions; ++p) {
        for (int64_t c = 0; c < channels; ++c) {
          std::fill(kk.begin(), kk.end(), 0);
          for (int64_t q = 0; q < window; ++q) {
            int64_t at = c * spatial;
            for (int64_t i = 0; i < k; ++i)
              at += (o[i] * stride[i] + kk[i] * dilation[i]) * spatialStride[i];
            index.push_back(static_cast<int32_t>(at));
            for (int64_t i = k - 1; i >= 0; --i) {
              if (++kk[i] < wType.getDimSize(2 + i))
                break;
              kk[i] = 0;
            }
          }
        }
        for (int64_t i = k - 1; i >= 0; --i) {
          if (++o[i] < type.getDimSize(2 + i))
            break;
          o[i] = 0;
        }
      }
      auto indexType =
          RankedTensorType::get({positions, depth}, rewriter.getI32Type());
      Value indices =
          ConstantOp::create(rewriter, loc,
                             cast<ElementsAttr>(DenseElementsAttr::get(
                                 indexType, ArrayRef<int32_t>(index))));
      Value windows = TakeOp::create(
          rewriter, loc,
          RankedTensorType::get({batchSize, positions, depth}, element), flat,
          indices, rewriter.getI64IntegerAttr(1));
      lhs = ReshapeOp::create(rewriter, loc,
                              RankedTensorType::get({rowSize, depth}, element),
                              windows, dyn({rows}));
    }
    // The weight as [C * K, F].
    Value w2 = ReshapeOp::create(
        rewriter, loc, RankedTensorType::get({filters, depth}, element), w,
        ValueRange{});
    Value wt = PermuteOp::create(rewriter, loc, w2, ArrayRef<int64_t>{1, 0});
    Value product = MatmulOp::create(rewriter, loc, lhs, wt);
    if (Value bias = op.getBias())
      product = AddOp::create(rewriter, loc, product, bias);
    // Back to [N, F, O...].
    SmallVector<int64_t> channelsLast = {batchSize};
    SmallVector<int64_t> perm = {0, k + 1};
    for (int64_t i = 0; i < k; ++i) {
      channelsLast.push_back(type.getDimSize(2 + i));
      perm.push_back(1 + i);
    }
    channelsLast.push_back(filters);
    Value unflat = ReshapeOp::create(
        rewriter, loc, RankedTensorType::get(channelsLast, element), product,
        dyn({n}));
    rewriter.replaceOpWithNewOp<PermuteOp>(op, unflat, perm);
    return success();
  }

  int64_t maxIndexElements;
};

struct TensorProgramConvolutionToMatmulPass
    : public tensor_program::impl::TensorProgramConvolutionToMatmulPassBase<
          TensorProgramConvolutionToMatmulPass> {
  using Base::Base;

  void runOnOperation() override {
    int64_t before = 0;
    getOperation()->walk([&](ConvolutionOp) { ++before; });
    RewritePatternSet patterns(&getContext());
    patterns.add<ConvolutionToMatmul>(&getContext(), maxIndexElements);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    int64_t after = 0;
    getOperation()->walk([&](ConvolutionOp) { ++after; });
    numRewritten += before - after;
  }
};
} // namespace
