//===- Indexing.cpp - generators, indexing and scans to linalg ------------===//
//
// Part of the Wrapper project.
//
// iota is a linalg.generic over its result reading linalg.index; take and
// gather are generics over their result that read the index operand
// through an indexing map and the input through tensor.extract (a gather
// the vectorizer knows), with indices clamped into range so that no read
// leaves the input; dynamic_slice and slice_scatter are extract_slice and
// insert_slice; cumsum is an scf.for over the scanned dimension adding one
// slice at a time (linalg has no scan).
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <array>

using namespace mlir;
using namespace mlir::wrapper;
using namespace mlir::wrapper::tp_to_linalg;
namespace tp = mlir::tensor_program;

/// The sizes of `value` (static ones as attributes).
static SmallVector<OpFoldResult> sizesOf(OpBuilder &b, Location loc,
                                         Value value) {
  return tensor::getMixedSizes(b, loc, value);
}

/// The dynamic sizes of `type` taken from `sizes`.
static SmallVector<Value> dynamicOf(RankedTensorType type,
                                    ArrayRef<OpFoldResult> sizes) {
  SmallVector<Value> dynamic;
  for (auto [d, size] : llvm::enumerate(sizes))
    if (type.isDynamicDim(d))
      dynamic.push_back(cast<Value>(size));
  return dynamic;
}

Value tp_to_linalg::clampedIndex(OpBuilder &b, Location loc, Value element,
                                 Value n) {
  Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), element);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, zero);
  Value wrapped = arith::SelectOp::create(
      b, loc, negative, arith::AddIOp::create(b, loc, index, n), index);
  Value last = arith::SubIOp::create(b, loc, n, one);
  Value low = arith::MaxSIOp::create(b, loc, wrapped, zero);
  return arith::MinSIOp::create(b, loc, low, last);
}

bool tp_to_linalg::isRowScatter(Value input, Value index, Value src,
                                int64_t dim) {
  auto indexType = cast<RankedTensorType>(index.getType());
  auto inputType = cast<RankedTensorType>(input.getType());
  bool rows =
      indexType.getDimSize(dim) == 1 &&
      cast<RankedTensorType>(src.getType()).getShape() == indexType.getShape();
  for (int64_t d = 0; d < indexType.getRank() && rows; ++d)
    rows = d == dim || (!indexType.isDynamicDim(d) &&
                        indexType.getDimSize(d) == inputType.getDimSize(d));
  return rows;
}

namespace {
struct LowerIota : public OpRewritePattern<tp::IotaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::IotaOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Value init = createEmpty(rewriter, loc, type, op.getDynamicSizes());
    int64_t dim = static_cast<int64_t>(op.getDim());
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{}, init,
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(type.getRank())},
        iterators, [&](OpBuilder &b, Location l, ValueRange) {
          Value index = linalg::IndexOp::create(b, l, dim);
          Value asInt = arith::IndexCastOp::create(b, l, b.getI64Type(), index);
          linalg::YieldOp::create(
              b, l, convertScalar(b, l, asInt, type.getElementType()));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// Philox4x32-10's first word for key (k0, k1) and counter (c0..c3), in
/// i32 arith ops (include/Wrapper/Support/Philox.h is the reference).
static Value philoxFirstWord(OpBuilder &b, Location loc, Value k0, Value k1,
                             std::array<Value, 4> c) {
  Type i32 = b.getI32Type();
  auto constant = [&](uint32_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(i32, static_cast<int32_t>(v)));
  };
  Value m0 = constant(0xD2511F53u), m1 = constant(0xCD9E8D57u);
  Value w0 = constant(0x9E3779B9u), w1 = constant(0xBB67AE85u);
  for (int round = 0; round < 10; ++round) {
    auto p0 = arith::MulUIExtendedOp::create(b, loc, m0, c[0]);
    auto p1 = arith::MulUIExtendedOp::create(b, loc, m1, c[2]);
    Value x0 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, p1.getHigh(), c[1]), k0);
    Value x2 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, p0.getHigh(), c[3]), k1);
    c = {x0, p1.getLow(), x2, p0.getLow()};
    k0 = arith::AddIOp::create(b, loc, k0, w0);
    k1 = arith::AddIOp::create(b, loc, k1, w1);
  }
  return c[0];
}

/// The low and high 32-bit words of an i64.
static std::pair<Value, Value> splitWords(OpBuilder &b, Location loc, Value v) {
  Type i32 = b.getI32Type();
  Value shift = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32));
  return {arith::TruncIOp::create(b, loc, i32, v),
          arith::TruncIOp::create(b, loc, i32,
                                  arith::ShRUIOp::create(b, loc, v, shift))};
}

struct LowerUniform : public OpRewritePattern<tp::UniformOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::UniformOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    Value init = createEmpty(rewriter, loc, type, op.getDynamicSizes());
    // Row-major strides of the result, as i64 values.
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(arith::IndexCastOp::create(
          rewriter, loc, rewriter.getI64Type(),
          tensor::DimOp::create(rewriter, loc, init, d)));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    uint64_t stream = static_cast<uint64_t>(op.getStream());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{op.getSeed()}, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Type i64 = b.getI64Type();
          Value flat = arith::ConstantOp::create(b, l, b.getI64IntegerAttr(0));
          for (int64_t d = 0; d < rank; ++d) {
            Value index = arith::IndexCastOp::create(
                b, l, i64, linalg::IndexOp::create(b, l, d));
            flat = arith::AddIOp::create(
                b, l, arith::MulIOp::create(b, l, flat, sizes[d]), index);
          }
          auto [k0, k1] = splitWords(b, l, args[0]);
          auto [c0, c1] = splitWords(b, l, flat);
          Type i32 = b.getI32Type();
          Value s0 = arith::ConstantOp::create(
              b, l, b.getIntegerAttr(i32, static_cast<int32_t>(stream)));
          Value s1 = arith::ConstantOp::create(
              b, l, b.getIntegerAttr(i32, static_cast<int32_t>(stream >> 32)));
          Value word = philoxFirstWord(b, l, k0, k1, {c0, c1, s0, s1});
          Value top = arith::ShRUIOp::create(
              b, l, word,
              arith::ConstantOp::create(b, l, b.getIntegerAttr(i32, 8)));
          Value asFloat = arith::UIToFPOp::create(b, l, b.getF32Type(), top);
          Value scaled = arith::MulFOp::create(
              b, l, asFloat,
              arith::ConstantOp::create(b, l,
                                        b.getF32FloatAttr(1.0f / 16777216.0f)));
          linalg::YieldOp::create(
              b, l, convertScalar(b, l, scaled, type.getElementType()));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct LowerFromIndex : public OpRewritePattern<tp::FromIndexOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::FromIndexOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = op.getType().getElementType();
    Value asInt = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getI64Type(), op.getIndex());
    Value scalar = convertScalar(rewriter, loc, asInt, element);
    // A rank-0 fill (not tensor.from_elements, which bufferizes to a bare
    // store): a linalg op that the CUDA path can give a kernel.
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{}, element);
    rewriter.replaceOpWithNewOp<linalg::FillOp>(op, scalar, empty);
    return success();
  }
};

struct LowerTake : public OpRewritePattern<tp::TakeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::TakeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Value input = op.getInput(), index = op.getIndex();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto indexType = cast<RankedTensorType>(index.getType());
    int64_t dim = static_cast<int64_t>(op.getDim());
    int64_t k = indexType.getRank();
    // Result sizes: the input's around `dim`, the index's in its place.
    SmallVector<OpFoldResult> inSizes = sizesOf(rewriter, loc, input);
    SmallVector<OpFoldResult> idxSizes = sizesOf(rewriter, loc, index);
    SmallVector<OpFoldResult> sizes(inSizes.begin(), inSizes.begin() + dim);
    sizes.append(idxSizes.begin(), idxSizes.end());
    sizes.append(inSizes.begin() + dim + 1, inSizes.end());
    Value init = createEmpty(rewriter, loc, type, dynamicOf(type, sizes));
    Value n = tensor::DimOp::create(rewriter, loc, input, dim);

    SmallVector<AffineExpr> indexExprs;
    for (int64_t d = 0; d < k; ++d)
      indexExprs.push_back(rewriter.getAffineDimExpr(dim + d));
    AffineMap indexMap =
        AffineMap::get(type.getRank(), 0, indexExprs, getContext());
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, index, init,
        ArrayRef<AffineMap>{indexMap,
                            rewriter.getMultiDimIdentityMap(type.getRank())},
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> coords;
          for (int64_t d = 0; d < dim; ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d));
          coords.push_back(clampedIndex(b, l, args[0], n));
          for (int64_t d = dim + 1; d < inputType.getRank(); ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d - 1 + k));
          Value element = tensor::ExtractOp::create(b, l, input, coords);
          linalg::YieldOp::create(b, l, element);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct LowerGather : public OpRewritePattern<tp::GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::GatherOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Value input = op.getInput(), index = op.getIndex();
    int64_t dim = static_cast<int64_t>(op.getDim());
    SmallVector<OpFoldResult> sizes = sizesOf(rewriter, loc, index);
    Value init = createEmpty(rewriter, loc, type, dynamicOf(type, sizes));
    Value n = tensor::DimOp::create(rewriter, loc, input, dim);
    AffineMap identity = rewriter.getMultiDimIdentityMap(type.getRank());
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, index, init,
        ArrayRef<AffineMap>{identity, identity}, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> coords;
          for (int64_t d = 0; d < type.getRank(); ++d)
            coords.push_back(
                d == dim ? clampedIndex(b, l, args[0], n)
                         : linalg::IndexOp::create(b, l, d).getResult());
          linalg::YieldOp::create(
              b, l, tensor::ExtractOp::create(b, l, input, coords).getResult());
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct LowerDynamicSlice : public OpRewritePattern<tp::DynamicSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::DynamicSliceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    int64_t dim = static_cast<int64_t>(op.getDim());
    int64_t rank = op.getType().getRank();
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = sizesOf(rewriter, loc, input);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    Value n = tensor::DimOp::create(rewriter, loc, input, dim);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    auto clamp = [&](Value v) -> Value {
      Value low = arith::MaxSIOp::create(rewriter, loc, v, zero);
      return arith::MinSIOp::create(rewriter, loc, low, n);
    };
    Value first = clamp(op.getStart());
    Value last = clamp(op.getEnd());
    Value span = arith::MaxSIOp::create(
        rewriter, loc, arith::SubIOp::create(rewriter, loc, last, first), zero);
    Value step = arith::ConstantIndexOp::create(rewriter, loc, op.getStep());
    offsets[dim] = first;
    sizes[dim] =
        arith::CeilDivSIOp::create(rewriter, loc, span, step).getResult();
    strides[dim] = rewriter.getIndexAttr(op.getStep());
    auto slice = tensor::ExtractSliceOp::create(rewriter, loc, input, offsets,
                                                sizes, strides);
    Value result = slice.getResult();
    if (result.getType() != op.getType())
      result = tensor::CastOp::create(rewriter, loc, op.getType(), result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LowerSliceScatter : public OpRewritePattern<tp::SliceScatterOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::SliceScatterOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = op.getSrc();
    int64_t dim = static_cast<int64_t>(op.getDim());
    int64_t rank = op.getType().getRank();
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = sizesOf(rewriter, loc, src);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    offsets[dim] = rewriter.getIndexAttr(op.getStart());
    strides[dim] = rewriter.getIndexAttr(op.getStep());
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(op, src, op.getInput(),
                                                       offsets, sizes, strides);
    return success();
  }
};

/// scatter: a loop nest over the index (scf.for carrying the result
/// tensor), each step writing one value with tensor.insert, in row-major
/// order so that a later write wins; bufferization copies the input once
/// and writes in place. With one index per full row, a parallel select.
struct LowerScatter : public OpRewritePattern<tp::ScatterOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::ScatterOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput(), index = op.getIndex(), src = op.getSrc();
    int64_t dim = static_cast<int64_t>(op.getDim());
    int64_t rank = op.getType().getRank();
    Value n = tensor::DimOp::create(rewriter, loc, input, dim);
    SmallVector<Value> lbs, ubs, steps;
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (int64_t d = 0; d < rank; ++d) {
      lbs.push_back(zero);
      ubs.push_back(tensor::DimOp::create(rewriter, loc, index, d));
      steps.push_back(one);
    }
    tp::ScatterReduce reduce = op.getReduce();
    auto combine = [&](OpBuilder &b, Location l, Value old, Value value) {
      if (reduce == tp::ScatterReduce::none)
        return value;
      ReductionKind kind =
          reduce == tp::ScatterReduce::add   ? ReductionKind::Sum
          : reduce == tp::ScatterReduce::mul ? ReductionKind::Prod
          : reduce == tp::ScatterReduce::max ? ReductionKind::Max
                                             : ReductionKind::Min;
      return reductionCombineImpl(b, l, kind, old, value);
    };

    // One index per row along `dim`, rows as wide as the input's (what
    // nll_loss's backward scatters): each output element is a select of the
    // input and the row's value, one parallel generic with no write
    // conflicts (a GPU kernel on CUDA, where a loop nest would stay on the
    // host).
    if (isRowScatter(input, index, src, dim)) {
      SmallVector<OpFoldResult> sizes = sizesOf(rewriter, loc, input);
      Value init = createEmpty(rewriter, loc, op.getType(),
                               dynamicOf(op.getType(), sizes));
      AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
      AffineMap row =
          identity.replace(rewriter.getAffineDimExpr(dim),
                           rewriter.getAffineConstantExpr(0), rank, 0);
      SmallVector<utils::IteratorType> iterators(rank,
                                                 utils::IteratorType::parallel);
      auto generic = linalg::GenericOp::create(
          rewriter, loc, op.getType(), ValueRange{input, index, src}, init,
          ArrayRef<AffineMap>{identity, row, row, identity}, iterators,
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value at = clampedIndex(b, l, args[1], n);
            Value position = linalg::IndexOp::create(b, l, dim);
            Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                              position, at);
            Value written = combine(b, l, args[0], args[2]);
            linalg::YieldOp::create(
                b, l,
                arith::SelectOp::create(b, l, hit, written, args[0])
                    .getResult());
          });
      rewriter.replaceOp(op, generic.getResults());
      return success();
    }

    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps, ValueRange{input},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange iters) -> scf::ValueVector {
          Value current = iters[0];
          Value at = tensor::ExtractOp::create(b, l, index, ivs);
          Value value = tensor::ExtractOp::create(b, l, src, ivs);
          SmallVector<Value> coords(ivs);
          coords[dim] = clampedIndex(b, l, at, n);
          if (reduce != tp::ScatterReduce::none)
            value = combine(
                b, l, tensor::ExtractOp::create(b, l, current, coords), value);
          return {tensor::InsertOp::create(b, l, value, current, coords)
                      .getResult()};
        });
    rewriter.replaceOp(op, nest.results.empty() ? input : nest.results[0]);
    return success();
  }
};

/// `tensor` with its elements converted to those of `to` (the same shape);
/// `tensor` itself when they already are. cumsum's lowerings accumulate in
/// the compute type and store in the element type.
Value withElementsOf(OpBuilder &b, Location loc, Value tensor,
                     RankedTensorType to) {
  Type element = to.getElementType();
  if (cast<RankedTensorType>(tensor.getType()).getElementType() == element)
    return tensor;
  return mapElements(b, loc, tensor, to,
                     [&](OpBuilder &nb, Location l, Value v) {
                       return convertScalar(nb, l, v, element);
                     });
}

/// cumsum: out[0] = x[0]; out[i] = out[i - 1] + x[i], one slice (all other
/// dimensions) per step, accumulated in the compute type.
struct LowerCumsum : public OpRewritePattern<tp::CumsumOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::CumsumOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    Type compute = getComputeType(element);
    int64_t dim = static_cast<int64_t>(op.getDim());
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> sizes = sizesOf(rewriter, loc, input);
    auto accType = RankedTensorType::get(type.getShape(), compute);
    Value acc = createEmpty(rewriter, loc, accType, dynamicOf(type, sizes));
    // The slice at one position of `dim`, keeping the rank (size 1 there).
    SmallVector<int64_t> sliceShape(type.getShape());
    sliceShape[dim] = 1;
    auto sliceType = RankedTensorType::get(sliceShape, compute);
    auto inSliceType = RankedTensorType::get(sliceShape, element);
    SmallVector<OpFoldResult> sliceSizes = sizes;
    sliceSizes[dim] = rewriter.getIndexAttr(1);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    auto offsetsAt = [&](Value position) {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[dim] = position;
      return offsets;
    };
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value n = tensor::DimOp::create(rewriter, loc, input, dim);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    SmallVector<Value> sliceDynamic = dynamicOf(sliceType, sliceSizes);
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, n, one, ValueRange{acc},
        [&](OpBuilder &b, Location l, Value i, ValueRange iterArgs) {
          Value current = iterArgs[0];
          Value x = tensor::ExtractSliceOp::create(
              b, l, inSliceType, input, offsetsAt(i), sliceSizes, strides);
          // The previous running sum, or zeros at position 0.
          Value previousIndex = arith::MaxSIOp::create(
              b, l, arith::SubIOp::create(b, l, i, one), zero);
          Value previous = tensor::ExtractSliceOp::create(
              b, l, sliceType, current, offsetsAt(previousIndex), sliceSizes,
              strides);
          Value isFirst =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, i, zero);
          Value empty =
              tensor::EmptyOp::create(b, l, sliceShape, compute, sliceDynamic);
          auto sum = linalg::GenericOp::create(
              b, l, sliceType, ValueRange{x, previous}, empty,
              ArrayRef<AffineMap>{identity, identity, identity}, iterators,
              [&](OpBuilder &ib, Location il, ValueRange args) {
                Value value = convertScalar(ib, il, args[0], compute);
                Value prior = arith::SelectOp::create(
                    ib, il, isFirst, scalarConstant(ib, il, compute, 0),
                    args[1]);
                linalg::YieldOp::create(ib, il,
                                        reductionCombineImpl(ib, il,
                                                             ReductionKind::Sum,
                                                             prior, value));
              });
          Value updated =
              tensor::InsertSliceOp::create(b, l, sum.getResult(0), current,
                                            offsetsAt(i), sliceSizes, strides);
          scf::YieldOp::create(b, l, updated);
        });
    rewriter.replaceOp(op,
                       withElementsOf(rewriter, loc, loop.getResult(0), type));
    return success();
  }
};

/// Static scans up to this long are one prefix sum per element instead of
/// steps.
constexpr int64_t kMaxTriangularScan = 1024;

/// The cumsum of `input` (already in the accumulator type `accType`) along
/// `dim` as one elementwise generic whose element i adds up positions 0..i
/// in a loop of its own: n^2 / 2 additions per row but one kernel (GPT-2's
/// mask over 128 positions was seven step kernels), summed in the
/// sequential loop's order.
static Value buildPrefixSums(OpBuilder &b, Location loc, Value input,
                             RankedTensorType accType, int64_t dim,
                             ValueRange dynamic) {
  int64_t rank = accType.getRank();
  Type compute = accType.getElementType();
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto body = [&](OpBuilder &gb, Location l, ValueRange) {
    SmallVector<Value> coords;
    for (int64_t d = 0; d < rank; ++d)
      coords.push_back(linalg::IndexOp::create(gb, l, d));
    Value zero = arith::ConstantIndexOp::create(gb, l, 0);
    Value one = arith::ConstantIndexOp::create(gb, l, 1);
    Value end = arith::AddIOp::create(gb, l, coords[dim], one);
    auto loop = scf::ForOp::create(
        gb, l, zero, end, one, ValueRange{scalarConstant(gb, l, compute, 0)},
        [&](OpBuilder &fb, Location fl, Value j, ValueRange sums) {
          SmallVector<Value> at = coords;
          at[dim] = j;
          Value x = tensor::ExtractOp::create(fb, fl, input, at);
          scf::YieldOp::create(
              fb, fl,
              reductionCombineImpl(fb, fl, ReductionKind::Sum, sums[0], x));
        });
    linalg::YieldOp::create(gb, l, loop.getResult(0));
  };
  return linalg::GenericOp::create(
             b, loc, accType, ValueRange{},
             createEmpty(b, loc, accType, dynamic),
             ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank)}, iterators,
             body)
      .getResult(0);
}

/// cumsum for parallel targets. A static scan of at most kMaxTriangularScan
/// positions is one prefix sum per element (buildPrefixSums); longer and
/// dynamic ones take ceil(log2 n) parallel steps (Hillis and Steele's
/// scan): step k adds to each position the running sum 2^k places before
/// it, every position at once. For targets where each step of LowerCumsum's
/// loop is a kernel launch (CUDA: a scan over 128 positions was 256
/// launches); the work grows to n log n, the launches to log n. Sums are
/// associated differently from the sequential loop (floating-point results
/// may differ in the last bits; integers are exact).
struct LowerCumsumInSteps : public OpRewritePattern<tp::CumsumOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tp::CumsumOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    Type compute = getComputeType(element);
    int64_t dim = static_cast<int64_t>(op.getDim());
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> sizes = sizesOf(rewriter, loc, input);
    auto accType = RankedTensorType::get(type.getShape(), compute);
    SmallVector<Value> dynamic = dynamicOf(type, sizes);
    Value acc = withElementsOf(rewriter, loc, input, accType);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    // One step: previous[i] + (i >= shift ? previous[i - shift] : 0) along
    // `dim`, into a new tensor.
    auto step = [&](OpBuilder &b, Location l, Value previous, Value shift) {
      return linalg::GenericOp::create(
                 b, l, accType, ValueRange{previous},
                 createEmpty(b, l, accType, dynamic),
                 ArrayRef<AffineMap>{identity, identity}, iterators,
                 [&](OpBuilder &ib, Location il, ValueRange args) {
                   SmallVector<Value> coords;
                   for (int64_t d = 0; d < rank; ++d)
                     coords.push_back(linalg::IndexOp::create(ib, il, d));
                   Value position = coords[dim];
                   Value zero = arith::ConstantIndexOp::create(ib, il, 0);
                   Value inRange = arith::CmpIOp::create(
                       ib, il, arith::CmpIPredicate::sge, position, shift);
                   coords[dim] = arith::MaxSIOp::create(
                       ib, il, arith::SubIOp::create(ib, il, position, shift),
                       zero);
                   Value before =
                       tensor::ExtractOp::create(ib, il, previous, coords);
                   Value addend = arith::SelectOp::create(
                       ib, il, inRange, before,
                       scalarConstant(ib, il, compute, 0));
                   linalg::YieldOp::create(
                       ib, il,
                       reductionCombineImpl(ib, il, ReductionKind::Sum, args[0],
                                            addend));
                 })
          .getResult(0);
    };
    int64_t n = type.getDimSize(dim);
    if (!ShapedType::isDynamic(n) && n <= kMaxTriangularScan) {
      acc = buildPrefixSums(rewriter, loc, acc, accType, dim, dynamic);
    } else if (!ShapedType::isDynamic(n)) {
      // Static: the steps unrolled (shift 1, 2, 4, ... below n).
      for (int64_t shift = 1; shift < n; shift *= 2)
        acc = step(rewriter, loc, acc,
                   arith::ConstantIndexOp::create(rewriter, loc, shift));
    } else {
      // Dynamic: a loop of bitwidth(n - 1) steps, shift 1 << k. Each step's
      // sums go back into the running ones (an insert_slice of the whole
      // tensor), so that the loop's value stays one buffer: bufferization
      // wants the yielded value equivalent to the iteration argument.
      Value size = tensor::DimOp::create(rewriter, loc, input, dim);
      Type i64 = rewriter.getI64Type();
      Value size64 = arith::IndexCastOp::create(rewriter, loc, i64, size);
      Value one64 = arith::ConstantIntOp::create(rewriter, loc, i64, 1);
      Value zero64 = arith::ConstantIntOp::create(rewriter, loc, i64, 0);
      Value last = arith::MaxSIOp::create(
          rewriter, loc, arith::SubIOp::create(rewriter, loc, size64, one64),
          zero64);
      Value bits = arith::SubIOp::create(
          rewriter, loc, arith::ConstantIntOp::create(rewriter, loc, i64, 64),
          math::CountLeadingZerosOp::create(rewriter, loc, last));
      Value steps = arith::IndexCastOp::create(rewriter, loc,
                                               rewriter.getIndexType(), bits);
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      auto loop = scf::ForOp::create(
          rewriter, loc, zero, steps, one, ValueRange{acc},
          [&](OpBuilder &b, Location l, Value k, ValueRange iterArgs) {
            Value shift = arith::ShLIOp::create(b, l, one, k);
            Value sums = step(b, l, iterArgs[0], shift);
            SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
            SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
            scf::YieldOp::create(
                b, l,
                tensor::InsertSliceOp::create(b, l, sums, iterArgs[0], offsets,
                                              sizes, strides)
                    .getResult());
          });
      acc = loop.getResult(0);
    }
    rewriter.replaceOp(op, withElementsOf(rewriter, loc, acc, type));
    return success();
  }
};
} // namespace

void tp_to_linalg::populateIndexingPatterns(RewritePatternSet &patterns,
                                            bool parallelScans) {
  patterns.add<LowerIota, LowerUniform, LowerFromIndex, LowerTake, LowerGather,
               LowerDynamicSlice, LowerSliceScatter, LowerScatter>(
      patterns.getContext());
  if (parallelScans)
    patterns.add<LowerCumsumInSteps>(patterns.getContext());
  else
    patterns.add<LowerCumsum>(patterns.getContext());
}
