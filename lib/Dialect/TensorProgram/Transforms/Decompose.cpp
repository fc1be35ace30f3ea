//===- Decompose.cpp - expand composites into primitives ------------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "tensor-program-decompose"

namespace mlir {
namespace tensor_program {
#define GEN_PASS_DEF_TENSORPROGRAMDECOMPOSEPASS
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h.inc"
} // namespace tensor_program
} // namespace mlir

using namespace mlir;
using namespace mlir::tensor_program;

/// A rank-0 constant of `x`'s element type, which broadcasts against `x`.
static Value scalar(OpBuilder &b, Location loc, Value x, double value) {
  Type element = cast<RankedTensorType>(x.getType()).getElementType();
  auto type = RankedTensorType::get({}, element);
  Attribute attr;
  if (auto f = dyn_cast<FloatType>(element)) {
    APFloat v(value);
    bool losesInfo;
    v.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
    attr = DenseElementsAttr::get(type, v);
  } else {
    attr = DenseElementsAttr::get(type, APInt(element.getIntOrFloatBitWidth(),
                                              static_cast<int64_t>(value),
                                              /*isSigned=*/true));
  }
  return ConstantOp::create(b, loc, cast<ElementsAttr>(attr));
}

/// The trailing `count` dimensions of `x`.
static SmallVector<int64_t> trailingDims(Value x, int64_t count) {
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  return llvm::to_vector(llvm::seq<int64_t>(rank - count, rank));
}

/// The max-subtracted input of a softmax along `dim` and its exponential:
/// (x - max(x), exp(x - max(x))).
static std::pair<Value, Value> centredExp(PatternRewriter &rewriter,
                                          Location loc, Value x, int64_t dim) {
  SmallVector<int64_t> dims = {dim};
  Value max = ReduceMaxOp::create(rewriter, loc, x, dims, true);
  Value centred = SubOp::create(rewriter, loc, x, max);
  return {centred, ExpOp::create(rewriter, loc, centred)};
}

/// x * rsqrt(mean(x * x, dims) + eps) [* weight]: the scaling shared by
/// layer_norm (on the centred input) and rms_norm.
static Value normalize(PatternRewriter &rewriter, Location loc, Value x,
                       ArrayRef<int64_t> dims, APFloat epsilon, Value weight) {
  Value square = MulOp::create(rewriter, loc, x, x);
  Value meanSquare = ReduceMeanOp::create(rewriter, loc, square, dims, true);
  Value eps = scalar(rewriter, loc, x, epsilon.convertToDouble());
  Value shifted = AddOp::create(rewriter, loc, meanSquare, eps);
  Value inv = RsqrtOp::create(rewriter, loc, shifted);
  Value y = MulOp::create(rewriter, loc, x, inv);
  if (weight)
    y = MulOp::create(rewriter, loc, y, weight);
  return y;
}

namespace {
struct DecomposeSoftmax : public OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t dim = static_cast<int64_t>(op.getDim());
    auto [centred, exp] = centredExp(rewriter, loc, op.getInput(), dim);
    Value sum =
        ReduceSumOp::create(rewriter, loc, exp, ArrayRef<int64_t>{dim}, true);
    // One division per row and a multiplication per element: a division
    // per element costs several times more (vdivps) and is what keeps the
    // kernel from streaming at memory speed; the result differs by at most
    // one rounding.
    Value one = scalar(rewriter, loc, sum, 1.0);
    Value inverse = DivOp::create(rewriter, loc, one, sum);
    rewriter.replaceOpWithNewOp<MulOp>(op, exp, inverse);
    return success();
  }
};

struct DecomposeLogSoftmax : public OpRewritePattern<LogSoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LogSoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t dim = static_cast<int64_t>(op.getDim());
    auto [centred, exp] = centredExp(rewriter, loc, op.getInput(), dim);
    Value sum =
        ReduceSumOp::create(rewriter, loc, exp, ArrayRef<int64_t>{dim}, true);
    Value log = LogOp::create(rewriter, loc, sum);
    rewriter.replaceOpWithNewOp<SubOp>(op, centred, log);
    return success();
  }
};

struct DecomposeLayerNorm : public OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    SmallVector<int64_t> dims =
        trailingDims(x, static_cast<int64_t>(op.getNormalizedRank()));
    Value mean = ReduceMeanOp::create(rewriter, loc, x, dims, true);
    Value centred = SubOp::create(rewriter, loc, x, mean);
    Value y =
        normalize(rewriter, loc, centred, dims, op.getEps(), op.getWeight());
    if (Value bias = op.getBias())
      y = AddOp::create(rewriter, loc, y, bias);
    rewriter.replaceOp(op, y);
    return success();
  }
};

struct DecomposeRmsNorm : public OpRewritePattern<RmsNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RmsNormOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getInput();
    rewriter.replaceOp(op,
                       normalize(rewriter, op.getLoc(), x, trailingDims(x, 1),
                                 op.getEps(), op.getWeight()));
    return success();
  }
};

/// reduce_mean over static dimensions: reduce_sum / N.
struct DecomposeMean : public OpRewritePattern<ReduceMeanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceMeanOp op,
                                PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> shape = op.getInput().getType().getShape();
    int64_t count = 1;
    for (int64_t dim : op.getDims()) {
      if (ShapedType::isDynamic(shape[dim]))
        return rewriter.notifyMatchFailure(op,
                                           "a reduced dimension is dynamic");
      count *= shape[dim];
    }
    Location loc = op.getLoc();
    Value sum = ReduceSumOp::create(rewriter, loc, op.getInput(), op.getDims(),
                                    op.getKeepdim());
    Value n = scalar(rewriter, loc, sum, static_cast<double>(count));
    rewriter.replaceOpWithNewOp<DivOp>(op, sum, n);
    return success();
  }
};

struct DecomposeSilu : public OpRewritePattern<SiluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SiluOp op,
                                PatternRewriter &rewriter) const override {
    Value sig = SigmoidOp::create(rewriter, op.getLoc(), op.getInput());
    rewriter.replaceOpWithNewOp<MulOp>(op, op.getInput(), sig);
    return success();
  }
};

/// gelu, exact: 0.5 * x * (1 + erf(x / sqrt(2))); with the tanh
/// approximation: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
struct DecomposeGelu : public OpRewritePattern<GeluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GeluOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    Value inner;
    if (op.getApproximate() == GeluApproximation::none) {
      Value scaled = MulOp::create(
          rewriter, loc, x,
          scalar(rewriter, loc, x, 0.7071067811865476 /* 1/sqrt(2) */));
      inner = ErfOp::create(rewriter, loc, scaled);
    } else {
      Value x2 = MulOp::create(rewriter, loc, x, x);
      Value x3 = MulOp::create(rewriter, loc, x2, x);
      Value cubic =
          MulOp::create(rewriter, loc, x3, scalar(rewriter, loc, x, 0.044715));
      Value sum = AddOp::create(rewriter, loc, x, cubic);
      Value scaled = MulOp::create(
          rewriter, loc, sum,
          scalar(rewriter, loc, x, 0.7978845608028654 /* sqrt(2/pi) */));
      inner = TanhOp::create(rewriter, loc, scaled);
    }
    Value onePlus =
        AddOp::create(rewriter, loc, inner, scalar(rewriter, loc, x, 1));
    Value half = MulOp::create(rewriter, loc, x, scalar(rewriter, loc, x, 0.5));
    rewriter.replaceOpWithNewOp<MulOp>(op, half, onePlus);
    return success();
  }
};

/// linear(x, w, b) = matmul(x, permute(w, [1, 0])) + b, with a rank-1 input
/// reshaped to one row and back.
struct DecomposeLinear : public OpRewritePattern<LinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LinearOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    Value w = op.getWeight();
    auto xType = cast<RankedTensorType>(x.getType());
    auto wType = cast<RankedTensorType>(w.getType());
    Value wT = PermuteOp::create(rewriter, loc, w, ArrayRef<int64_t>{1, 0});
    Value y;
    if (xType.getRank() == 1) {
      auto rowType = RankedTensorType::get({1, xType.getDimSize(0)},
                                           xType.getElementType());
      SmallVector<Value> rowSizes;
      if (xType.isDynamicDim(0))
        rowSizes.push_back(tensor::DimOp::create(rewriter, loc, x, 0));
      Value row = ReshapeOp::create(rewriter, loc, rowType, x, rowSizes);
      Value product = MatmulOp::create(rewriter, loc, row, wT);
      SmallVector<Value> outSizes;
      if (wType.isDynamicDim(0))
        outSizes.push_back(tensor::DimOp::create(rewriter, loc, w, 0));
      y = ReshapeOp::create(rewriter, loc, op.getType(), product, outSizes);
    } else {
      y = MatmulOp::create(rewriter, loc, x, wT);
    }
    if (Value bias = op.getBias())
      y = AddOp::create(rewriter, loc, y, bias);
    rewriter.replaceOp(op, y);
    return success();
  }
};

struct TensorProgramDecomposePass
    : public tensor_program::impl::TensorProgramDecomposePassBase<
          TensorProgramDecomposePass> {
  using TensorProgramDecomposePassBase::TensorProgramDecomposePassBase;

  void runOnOperation() override {
    // Counts the ops the patterns replace.
    struct Counter : public RewriterBase::Listener {
      unsigned replaced = 0;
      void notifyOperationReplaced(Operation *op, ValueRange) override {
        // Not the constants the driver deduplicates.
        replaced += !isa<ConstantOp>(op);
      }
    } counter;
    RewritePatternSet patterns(&getContext());
    DecomposeOptions options;
    options.activations = decomposeActivations;
    options.linear = decomposeLinear;
    populateDecomposePatterns(patterns, options);
    // Only the new ops are visited again; folding is left to canonicalize.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    config.setListener(&counter);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    numDecomposed += counter.replaced;
    if (report)
      getOperation()->emitRemark()
          << "decomposed " << counter.replaced << " composite ops";
  }
};
} // namespace

void mlir::tensor_program::populateDecomposePatterns(
    RewritePatternSet &patterns, const DecomposeOptions &options) {
  patterns.add<DecomposeSoftmax, DecomposeLogSoftmax, DecomposeLayerNorm,
               DecomposeRmsNorm, DecomposeMean>(patterns.getContext());
  if (options.activations)
    patterns.add<DecomposeSilu, DecomposeGelu>(patterns.getContext());
  if (options.linear)
    patterns.add<DecomposeLinear>(patterns.getContext());
}
