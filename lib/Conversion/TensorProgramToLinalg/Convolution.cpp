//===- Convolution.cpp - convolution and pooling to linalg ----------------===//
//
// Part of the Wrapper project.
//
// One linalg.generic per op, N-d: convolution iterates [n, f, o..., c, k...]
// with the input read at (n, g * C/groups + c, o * stride + k * dilation)
// (g = f / (F / groups)), accumulating in the compute type from the bias (or
// zero); pooling iterates [lead..., o..., k...] over the padded input, with
// a window-shaped operand that only gives the window loops their bounds (as
// linalg's named pooling ops do). Average pooling divides by a per-position
// count computed from the output indices.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::wrapper;
using namespace mlir::wrapper::tp_to_linalg;
namespace tp = mlir::tensor_program;

/// The number of windows along a dimension of `size` (a value),
/// `(size - span) / stride + 1` clamped at 0.
static Value windowCount(OpBuilder &b, Location loc, Value size, int64_t span,
                         int64_t stride) {
  Value spanValue = arith::ConstantIndexOp::create(b, loc, span);
  Value strideValue = arith::ConstantIndexOp::create(b, loc, stride);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value rest = arith::SubIOp::create(b, loc, size, spanValue);
  Value count = arith::AddIOp::create(
      b, loc, arith::FloorDivSIOp::create(b, loc, rest, strideValue), one);
  return arith::MaxSIOp::create(b, loc, count, zero);
}

namespace {
struct LowerConvolution : public OpRewritePattern<tp::ConvolutionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::ConvolutionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput(), weight = op.getWeight();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto weightType = cast<RankedTensorType>(weight.getType());
    RankedTensorType type = op.getType();
    int64_t k = inputType.getRank() - 2;
    int64_t groups = static_cast<int64_t>(op.getGroups());
    if (groups > 1 && (inputType.isDynamicDim(1) || weightType.isDynamicDim(0)))
      return rewriter.notifyMatchFailure(
          op, "grouped convolution needs static channel and filter counts");
    if (llvm::any_of(weightType.getShape().drop_front(2),
                     ShapedType::isDynamic))
      return rewriter.notifyMatchFailure(op, "kernel sizes must be static");
    int64_t channelsPerGroup =
        groups > 1 ? inputType.getDimSize(1) / groups : 0;
    int64_t filtersPerGroup =
        groups > 1 ? weightType.getDimSize(0) / groups : 0;
    ArrayRef<int64_t> stride = op.getStride(), dilation = op.getDilation();
    MLIRContext *context = getContext();
    Type element = type.getElementType();
    Type compute = getComputeType(element);

    // Groups as dimensions of their own (a floordiv in an indexing map
    // would not survive tiling): input [N, G, C/G, D...], weight
    // [G, F/G, C/G, K...], result [N, G, F/G, O...]. Loops: n, g, f,
    // o_1..o_k (parallel), c, w_1..w_k (reduction).
    int64_t g = groups;
    int64_t cg = groups > 1 ? channelsPerGroup : inputType.getDimSize(1);
    int64_t fg = groups > 1 ? filtersPerGroup : weightType.getDimSize(0);
    auto split = [&](Value value, int64_t groupsSize, int64_t per, int64_t at) {
      // [.., X, ..] -> [.., G, X/G, ..] at dimension `at`.
      auto t = cast<RankedTensorType>(value.getType());
      SmallVector<int64_t> shape(t.getShape());
      shape[at] = per;
      shape.insert(shape.begin() + at, groupsSize);
      SmallVector<ReassociationIndices> groupsOf;
      for (int64_t d = 0, r = t.getRank(); d < r; ++d) {
        if (d < at)
          groupsOf.push_back({d});
        else if (d == at)
          groupsOf.push_back({d, d + 1});
        else
          groupsOf.push_back({d + 1});
      }
      SmallVector<OpFoldResult> sizes;
      for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
        sizes.push_back(
            ShapedType::isDynamic(shape[d])
                ? OpFoldResult(tensor::DimOp::create(rewriter, loc, value,
                                                     d > at ? d - 1 : d)
                                   .getResult())
                : OpFoldResult(rewriter.getIndexAttr(shape[d])));
      return tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(shape, t.getElementType()),
          value, groupsOf, sizes);
    };
    Value groupedInput = split(input, g, cg, 1);
    Value groupedWeight = split(weight, g, fg, 0);
    int64_t loops = 3 + k + 1 + k;
    auto dim = [&](int64_t i) { return getAffineDimExpr(i, context); };
    AffineExpr n = dim(0), gr = dim(1), f = dim(2), c = dim(3 + k);
    SmallVector<AffineExpr> inputExprs = {n, gr, c};
    SmallVector<AffineExpr> weightExprs = {gr, f, c};
    SmallVector<AffineExpr> outputExprs = {n, gr, f};
    for (int64_t i = 0; i < k; ++i) {
      AffineExpr o = dim(3 + i), w = dim(4 + k + i);
      inputExprs.push_back(o * stride[i] + w * dilation[i]);
      weightExprs.push_back(w);
      outputExprs.push_back(o);
    }
    SmallVector<AffineMap> maps = {
        AffineMap::get(loops, 0, inputExprs, context),
        AffineMap::get(loops, 0, weightExprs, context),
        AffineMap::get(loops, 0, outputExprs, context)};
    SmallVector<utils::IteratorType> iterators(3 + k,
                                               utils::IteratorType::parallel);
    iterators.append(1 + k, utils::IteratorType::reduction);

    // Output sizes; the accumulator starts at the bias (or zero).
    SmallVector<int64_t> groupedShape = {type.getDimSize(0), g, fg};
    SmallVector<Value> dynamic;
    if (type.isDynamicDim(0))
      dynamic.push_back(tensor::DimOp::create(rewriter, loc, input, 0));
    for (int64_t i = 0; i < k; ++i) {
      groupedShape.push_back(type.getDimSize(2 + i));
      if (!type.isDynamicDim(2 + i))
        continue;
      int64_t span = dilation[i] * (weightType.getDimSize(2 + i) - 1) + 1;
      dynamic.push_back(windowCount(
          rewriter, loc, tensor::DimOp::create(rewriter, loc, input, 2 + i),
          span, stride[i]));
    }
    if (ShapedType::isDynamic(fg))
      return rewriter.notifyMatchFailure(op, "filter count must be static");
    auto accType = RankedTensorType::get(groupedShape, compute);
    int64_t accRank = accType.getRank();
    Value init;
    if (Value bias = op.getBias()) {
      Value empty = createEmpty(rewriter, loc, accType, dynamic);
      Value groupedBias = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get(
              {g, fg}, cast<RankedTensorType>(bias.getType()).getElementType()),
          bias, ArrayRef<ReassociationIndices>{{0, 1}});
      SmallVector<AffineExpr> biasExpr = {getAffineDimExpr(1, context),
                                          getAffineDimExpr(2, context)};
      auto fill = linalg::GenericOp::create(
          rewriter, loc, accType, groupedBias, empty,
          ArrayRef<AffineMap>{AffineMap::get(accRank, 0, biasExpr, context),
                              rewriter.getMultiDimIdentityMap(accRank)},
          SmallVector<utils::IteratorType>(accRank,
                                           utils::IteratorType::parallel),
          [&](OpBuilder &b, Location l, ValueRange args) {
            linalg::YieldOp::create(b, l,
                                    convertScalar(b, l, args[0], compute));
          });
      init = fill.getResult(0);
    } else {
      init = createFilled(rewriter, loc, accType, dynamic, compute,
                          scalarConstant(rewriter, loc, compute, 0));
    }
    auto generic = linalg::GenericOp::create(
        rewriter, loc, accType, ValueRange{groupedInput, groupedWeight}, init,
        maps, iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = convertScalar(b, l, args[0], compute);
          Value w = convertScalar(b, l, args[1], compute);
          Value product = arith::MulFOp::create(b, l, x, w);
          linalg::YieldOp::create(
              b, l, arith::AddFOp::create(b, l, args[2], product).getResult());
        });
    // [N, G, F/G, O...] -> [N, F, O...].
    SmallVector<ReassociationIndices> merge = {{0}, {1, 2}};
    for (int64_t i = 0; i < k; ++i)
      merge.push_back({3 + i});
    Value merged = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get(type.getShape(), compute),
        generic.getResult(0), merge);
    Value result = merged;
    if (compute != element)
      result = mapElements(rewriter, loc, result, type,
                           [&](OpBuilder &b, Location l, Value v) {
                             return convertScalar(b, l, v, element);
                           });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The smallest value of `type` (-inf for floats), padding of max pooling.
static Value lowest(OpBuilder &b, Location loc, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc, type,
        b.getFloatAttr(type, APFloat::getInf(floatType.getFloatSemantics(),
                                             /*Negative=*/true)));
  unsigned width = type.getIntOrFloatBitWidth();
  return arith::ConstantOp::create(
      b, loc, type, b.getIntegerAttr(type, APInt::getSignedMinValue(width)));
}

/// Pooling: pads the input, then one generic reducing each window.
template <typename OpTy> struct LowerPool : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    constexpr bool isMax = std::is_same_v<OpTy, tp::MaxPoolOp>;
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    Type compute = getComputeType(element);
    ArrayRef<int64_t> window = op.getWindow(), stride = op.getStride();
    ArrayRef<int64_t> low = op.getPaddingLow(), high = op.getPaddingHigh();
    int64_t k = window.size();
    int64_t rank = inputType.getRank(), lead = rank - k;
    SmallVector<int64_t> dilation(k, 1);
    if constexpr (isMax)
      dilation.assign(op.getDilation().begin(), op.getDilation().end());
    MLIRContext *context = rewriter.getContext();

    // Padded input (the pad value never wins a max, adds 0 to a sum).
    Value padded = input;
    if (llvm::any_of(low, [](int64_t p) { return p; }) ||
        llvm::any_of(high, [](int64_t p) { return p; })) {
      SmallVector<OpFoldResult> lows(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> highs(rank, rewriter.getIndexAttr(0));
      SmallVector<int64_t> paddedShape(inputType.getShape());
      for (int64_t i = 0; i < k; ++i) {
        lows[lead + i] = rewriter.getIndexAttr(low[i]);
        highs[lead + i] = rewriter.getIndexAttr(high[i]);
        if (!inputType.isDynamicDim(lead + i))
          paddedShape[lead + i] += low[i] + high[i];
      }
      Value padValue = isMax ? lowest(rewriter, loc, element)
                             : scalarConstant(rewriter, loc, element, 0);
      padded = tensor::PadOp::create(
          rewriter, loc, RankedTensorType::get(paddedShape, element), input,
          lows, highs, padValue);
    }

    // Loops: lead..., o_1..o_k (parallel), w_1..w_k (reduction).
    int64_t loops = lead + 2 * k;
    SmallVector<AffineExpr> inputExprs, windowExprs, outputExprs;
    for (int64_t d = 0; d < lead; ++d) {
      inputExprs.push_back(getAffineDimExpr(d, context));
      outputExprs.push_back(getAffineDimExpr(d, context));
    }
    for (int64_t i = 0; i < k; ++i) {
      AffineExpr o = getAffineDimExpr(lead + i, context);
      AffineExpr w = getAffineDimExpr(lead + k + i, context);
      inputExprs.push_back(o * stride[i] + w * dilation[i]);
      windowExprs.push_back(w);
      outputExprs.push_back(o);
    }
    SmallVector<Value> dynamic;
    for (int64_t d = 0; d < rank; ++d) {
      if (!type.isDynamicDim(d))
        continue;
      Value size = tensor::DimOp::create(rewriter, loc, padded, d);
      if (d < lead) {
        dynamic.push_back(size);
        continue;
      }
      int64_t i = d - lead;
      dynamic.push_back(windowCount(
          rewriter, loc, size, dilation[i] * (window[i] - 1) + 1, stride[i]));
    }
    Value shapeOnly = tensor::EmptyOp::create(rewriter, loc, window, compute);
    auto accType = RankedTensorType::get(type.getShape(), compute);
    Value identity = isMax ? lowest(rewriter, loc, compute)
                           : scalarConstant(rewriter, loc, compute, 0);
    Value init =
        createFilled(rewriter, loc, accType, dynamic, compute, identity);
    SmallVector<utils::IteratorType> iterators(lead + k,
                                               utils::IteratorType::parallel);
    iterators.append(k, utils::IteratorType::reduction);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, accType, ValueRange{padded, shapeOnly}, init,
        ArrayRef<AffineMap>{AffineMap::get(loops, 0, inputExprs, context),
                            AffineMap::get(loops, 0, windowExprs, context),
                            AffineMap::get(loops, 0, outputExprs, context)},
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = convertScalar(b, l, args[0], compute);
          ReductionKind kind = isMax ? ReductionKind::Max : ReductionKind::Sum;
          linalg::YieldOp::create(b, l,
                                  reductionCombineImpl(b, l, kind, args[2], x));
        });
    Value result = generic.getResult(0);
    if constexpr (!isMax)
      result = divide(rewriter, loc, op, result, inputType, lead);
    if (compute != element)
      result = mapElements(rewriter, loc, result, type,
                           [&](OpBuilder &b, Location l, Value v) {
                             return convertScalar(b, l, v, element);
                           });
    rewriter.replaceOp(op, result);
    return success();
  }

  /// The window sums divided by each window's count (average pooling).
  static Value divide(OpBuilder &b, Location loc, tp::AvgPoolOp op, Value sums,
                      RankedTensorType inputType, int64_t lead) {
    auto type = cast<RankedTensorType>(sums.getType());
    Type compute = type.getElementType();
    ArrayRef<int64_t> window = op.getWindow(), stride = op.getStride();
    ArrayRef<int64_t> low = op.getPaddingLow();
    std::optional<ArrayRef<int64_t>> countPadding = op.getCountPadding();
    std::optional<uint64_t> divisor = op.getDivisor();
    int64_t k = window.size();
    SmallVector<Value> inputSizes;
    for (int64_t i = 0; i < k; ++i)
      inputSizes.push_back(
          tensor::DimOp::create(b, loc, op.getInput(), lead + i));
    AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
    SmallVector<Value> dynamic;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        dynamic.push_back(tensor::DimOp::create(b, loc, sums, d));
    Value empty = createEmpty(b, loc, type, dynamic);
    auto generic = linalg::GenericOp::create(
        b, loc, type, sums, empty, ArrayRef<AffineMap>{identity, identity},
        SmallVector<utils::IteratorType>(type.getRank(),
                                         utils::IteratorType::parallel),
        [&](OpBuilder &ib, Location l, ValueRange args) {
          Value count;
          if (divisor) {
            count =
                scalarConstant(ib, l, compute, static_cast<double>(*divisor));
          } else {
            Value total = arith::ConstantIndexOp::create(ib, l, 1);
            for (int64_t i = 0; i < k; ++i) {
              Value o = linalg::IndexOp::create(ib, l, lead + i);
              int64_t pad = countPadding ? (*countPadding)[i] : 0;
              // start = o * stride - low; first = max(start, -pad);
              // last = min(start + window, size + pad).
              Value start = arith::SubIOp::create(
                  ib, l,
                  arith::MulIOp::create(
                      ib, l, o,
                      arith::ConstantIndexOp::create(ib, l, stride[i])),
                  arith::ConstantIndexOp::create(ib, l, low[i]));
              Value first = arith::MaxSIOp::create(
                  ib, l, start, arith::ConstantIndexOp::create(ib, l, -pad));
              Value end = arith::AddIOp::create(
                  ib, l, start,
                  arith::ConstantIndexOp::create(ib, l, window[i]));
              Value limit = arith::AddIOp::create(
                  ib, l, inputSizes[i],
                  arith::ConstantIndexOp::create(ib, l, pad));
              Value last = arith::MinSIOp::create(ib, l, end, limit);
              Value span = arith::MaxSIOp::create(
                  ib, l, arith::SubIOp::create(ib, l, last, first),
                  arith::ConstantIndexOp::create(ib, l, 0));
              total = arith::MulIOp::create(ib, l, total, span);
            }
            Value asInt =
                arith::IndexCastOp::create(ib, l, ib.getI64Type(), total);
            count = arith::SIToFPOp::create(ib, l, compute, asInt);
          }
          linalg::YieldOp::create(
              ib, l, arith::DivFOp::create(ib, l, args[0], count).getResult());
        });
    return generic.getResult(0);
  }
  static Value divide(OpBuilder &, Location, tp::MaxPoolOp, Value sums,
                      RankedTensorType, int64_t) {
    return sums;
  }
};
} // namespace

void tp_to_linalg::populateConvolutionPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerConvolution, LowerPool<tp::MaxPoolOp>,
               LowerPool<tp::AvgPoolOp>>(patterns.getContext());
}
