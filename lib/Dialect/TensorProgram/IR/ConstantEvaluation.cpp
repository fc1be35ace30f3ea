//===- ConstantEvaluation.cpp - tensor_program ops on constants -----------===//
//
// Part of the Wrapper project.
//
// Each op kind becomes one scalar or index rule, chosen once per op and
// applied to every element: floats in double, integers in int64_t with
// two's-complement wrap-around (computed on uint64_t), i1 as 0 and 1.
// Written from the ops' definitions in TensorProgramOps.td, not from the
// reference interpreter, which stays the independent oracle.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/IR/ConstantEvaluation.h"

#include "ConstantEvaluationRules.h"
#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

using namespace mlir;
using namespace mlir::tensor_program;
using namespace mlir::tensor_program::detail;

namespace {
/// A constant being evaluated: row-major elements of `type`, as doubles
/// (float element types) or int64_t (integers; i1 as 0 and 1).
struct Values {
  RankedTensorType type;
  std::vector<double> floats;
  std::vector<int64_t> ints;

  bool isFloat() const { return isa<FloatType>(type.getElementType()); }
  int64_t size() const { return type.getNumElements(); }
};

constexpr int64_t kMaxExpandedSplat = int64_t(1) << 24;

/// Multiply-adds above which a product of constants is not evaluated.
constexpr int64_t kMaxProductWork = int64_t(1) << 26;

Values fromAttribute(DenseElementsAttr attr) {
  Values v;
  v.type = cast<RankedTensorType>(attr.getType());
  Type element = v.type.getElementType();
  if (element.isF32()) {
    auto range = attr.getValues<float>();
    v.floats.assign(range.begin(), range.end());
  } else if (element.isF64()) {
    auto range = attr.getValues<double>();
    v.floats.assign(range.begin(), range.end());
  } else if (isa<FloatType>(element)) {
    v.floats.reserve(v.size());
    for (const APFloat &value : attr.getValues<APFloat>())
      v.floats.push_back(value.convertToDouble()); // exact for f16, bf16
  } else if (element.isInteger(1)) {
    v.ints.reserve(v.size());
    for (bool value : attr.getValues<bool>())
      v.ints.push_back(value ? 1 : 0);
  } else {
    v.ints.reserve(v.size());
    for (const APInt &value : attr.getValues<APInt>())
      v.ints.push_back(value.getSExtValue());
  }
  return v;
}

DenseElementsAttr toAttribute(const Values &v) {
  Type element = v.type.getElementType();
  if (element.isF32()) {
    SmallVector<float> data(v.floats.begin(), v.floats.end());
    return DenseElementsAttr::get(v.type, ArrayRef<float>(data));
  }
  if (element.isF64())
    return DenseElementsAttr::get(v.type, ArrayRef<double>(v.floats));
  if (auto floatType = dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> data;
    data.reserve(v.floats.size());
    for (double x : v.floats) {
      APFloat value(x);
      bool lost = false;
      value.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                    &lost);
      data.push_back(value);
    }
    return DenseElementsAttr::get(v.type, data);
  }
  if (element.isInteger(1)) {
    SmallVector<bool> data;
    data.reserve(v.ints.size());
    for (int64_t x : v.ints)
      data.push_back(x != 0);
    return DenseElementsAttr::get(v.type, data);
  }
  unsigned width = element.getIntOrFloatBitWidth();
  SmallVector<APInt> data;
  data.reserve(v.ints.size());
  for (int64_t x : v.ints)
    data.push_back(APInt(width, x, /*isSigned=*/true, /*implicitTrunc=*/true));
  return DenseElementsAttr::get(v.type, data);
}

Values make(RankedTensorType type) {
  Values v;
  v.type = type;
  if (v.isFloat())
    v.floats.assign(v.size(), 0.0);
  else
    v.ints.assign(v.size(), 0);
  return v;
}

SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Calls `body(index, flat)` for every multi-index of `shape` in row-major
/// order.
void forEachIndex(ArrayRef<int64_t> shape,
                  function_ref<void(ArrayRef<int64_t>, int64_t)> body) {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t flat = 0; flat < count; ++flat) {
    body(index, flat);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

/// Strides that read `shape` broadcast (NumPy rules, trailing alignment) to
/// a result of rank `rank`: 0 for size-1 and missing leading dimensions.
SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> shape, size_t rank) {
  SmallVector<int64_t> strides = stridesOf(shape);
  SmallVector<int64_t> result(rank, 0);
  size_t lead = rank - shape.size();
  for (size_t d = 0; d < shape.size(); ++d)
    result[lead + d] = shape[d] == 1 ? 0 : strides[d];
  return result;
}

/// out[index] = in[source(index)], or `fill` where source is negative.
Values remap(const Values &in, RankedTensorType type,
             function_ref<int64_t(ArrayRef<int64_t>)> source, double fill) {
  Values out = make(type);
  forEachIndex(type.getShape(), [&](ArrayRef<int64_t> index, int64_t flat) {
    int64_t from = source(index);
    if (out.isFloat())
      out.floats[flat] = from < 0 ? fill : in.floats[from];
    else
      out.ints[flat] = from < 0 ? static_cast<int64_t>(fill) : in.ints[from];
  });
  return out;
}

FailureOr<Values> evaluateElementwise(Operation *op, ArrayRef<Values> in,
                                      RankedTensorType type) {
  SmallVector<bool> operandFloat;
  for (const Values &v : in)
    operandFloat.push_back(v.isFloat());
  Rule rule = elementwiseRule(op, operandFloat, type.getElementType());
  if (!rule)
    return failure();
  size_t rank = type.getRank();
  SmallVector<SmallVector<int64_t>> strides;
  for (const Values &v : in) {
    if (v.type.getRank() > static_cast<int64_t>(rank))
      return failure();
    strides.push_back(broadcastStrides(v.type.getShape(), rank));
  }
  Values out = make(type);
  bool ok = true;
  SmallVector<Scalar, 3> x(in.size());
  forEachIndex(type.getShape(), [&](ArrayRef<int64_t> index, int64_t flat) {
    if (!ok)
      return;
    for (size_t k = 0; k < in.size(); ++k) {
      int64_t at = 0;
      for (size_t d = 0; d < rank; ++d)
        at += index[d] * strides[k][d];
      if (in[k].isFloat())
        x[k].f = in[k].floats[at];
      else
        x[k].i = in[k].ints[at];
    }
    Scalar r;
    if (!rule(x, r)) {
      ok = false;
      return;
    }
    if (out.isFloat())
      out.floats[flat] = r.f;
    else
      out.ints[flat] = r.i;
  });
  if (!ok)
    return failure();
  return out;
}

//===----------------------------------------------------------------------===//
// Reductions, generators, layout
//===----------------------------------------------------------------------===//

FailureOr<Values> reduce(Operation *op, const Values &in,
                         ArrayRef<int64_t> dims, RankedTensorType type) {
  int64_t rank = in.type.getRank();
  SmallVector<bool> reduced(rank, false);
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0)
      d += rank;
    if (d < 0 || d >= rank)
      return failure();
    reduced[d] = true;
    count *= in.type.getDimSize(d);
  }
  // Output position of each input element: the kept dimensions' indices.
  SmallVector<int64_t> kept;
  for (int64_t d = 0; d < rank; ++d)
    kept.push_back(reduced[d] ? 1 : in.type.getDimSize(d));
  SmallVector<int64_t> keptStrides = stridesOf(kept);
  for (int64_t d = 0; d < rank; ++d)
    if (reduced[d])
      keptStrides[d] = 0;
  bool isMean = isa<ReduceMeanOp>(op);
  Values out = make(type);
  if (out.size() * count != in.size())
    return failure();
  if (in.isFloat()) {
    double identity = TypeSwitch<Operation *, double>(op)
                          .Case([](ReduceProdOp) { return 1.0; })
                          .Case([](ReduceMaxOp) { return -INFINITY; })
                          .Case([](ReduceMinOp) { return INFINITY; })
                          .Default([](Operation *) { return 0.0; });
    std::fill(out.floats.begin(), out.floats.end(), identity);
    forEachIndex(
        in.type.getShape(), [&](ArrayRef<int64_t> index, int64_t flat) {
          int64_t o = 0;
          for (int64_t d = 0; d < rank; ++d)
            o += index[d] * keptStrides[d];
          double &acc = out.floats[o];
          double x = in.floats[flat];
          TypeSwitch<Operation *>(op)
              .Case<ReduceSumOp, ReduceMeanOp>([&](auto) { acc += x; })
              .Case([&](ReduceProdOp) { acc *= x; })
              .Case([&](ReduceMaxOp) {
                acc = std::isnan(acc) || std::isnan(x) ? NAN : std::max(acc, x);
              })
              .Case([&](ReduceMinOp) {
                acc = std::isnan(acc) || std::isnan(x) ? NAN : std::min(acc, x);
              });
        });
    if (isMean)
      for (double &v : out.floats)
        v /= static_cast<double>(count);
    return out;
  }
  if (isMean)
    return failure(); // torch.mean takes floats only.
  int64_t identity =
      TypeSwitch<Operation *, int64_t>(op)
          .Case([](ReduceProdOp) { return int64_t(1); })
          .Case([](ReduceMaxOp) { return std::numeric_limits<int64_t>::min(); })
          .Case([](ReduceMinOp) { return std::numeric_limits<int64_t>::max(); })
          .Default([](Operation *) { return int64_t(0); });
  std::fill(out.ints.begin(), out.ints.end(), identity);
  forEachIndex(in.type.getShape(), [&](ArrayRef<int64_t> index, int64_t flat) {
    int64_t o = 0;
    for (int64_t d = 0; d < rank; ++d)
      o += index[d] * keptStrides[d];
    int64_t &acc = out.ints[o];
    int64_t x = in.ints[flat];
    TypeSwitch<Operation *>(op)
        .Case([&](ReduceSumOp) { acc = wrap(bits(acc) + bits(x)); })
        .Case([&](ReduceProdOp) { acc = wrap(bits(acc) * bits(x)); })
        .Case([&](ReduceMaxOp) { acc = std::max(acc, x); })
        .Case([&](ReduceMinOp) { acc = std::min(acc, x); });
  });
  return out;
}

/// torch.matmul (and bmm): `[..., M, K] x [..., K, N] -> [..., M, N]`, the
/// batch dimensions broadcast; sums in double (floats) or wrapping int64.
FailureOr<Values> product(const Values &lhs, const Values &rhs,
                          RankedTensorType type) {
  int64_t rank = type.getRank();
  if (lhs.type.getRank() < 2 || rhs.type.getRank() < 2 || rank < 2 ||
      lhs.isFloat() != rhs.isFloat())
    return failure();
  int64_t m = lhs.type.getDimSize(lhs.type.getRank() - 2);
  int64_t k = lhs.type.getDimSize(lhs.type.getRank() - 1);
  int64_t n = rhs.type.getDimSize(rhs.type.getRank() - 1);
  if (rhs.type.getDimSize(rhs.type.getRank() - 2) != k ||
      type.getDimSize(rank - 2) != m || type.getDimSize(rank - 1) != n)
    return failure();
  // Element strides of each operand's batch dimensions, broadcast to the
  // result's (0 where an operand has size 1 or lacks the dimension).
  ArrayRef<int64_t> batch = type.getShape().drop_back(2);
  auto batchStrides = [&](const Values &v) {
    ArrayRef<int64_t> shape = v.type.getShape();
    SmallVector<int64_t> strides =
        broadcastStrides(shape.drop_back(2), batch.size());
    for (int64_t &stride : strides)
      stride *= shape[shape.size() - 2] * shape.back();
    return strides;
  };
  SmallVector<int64_t> lhsStrides = batchStrides(lhs),
                       rhsStrides = batchStrides(rhs);
  Values out = make(type);
  forEachIndex(batch, [&](ArrayRef<int64_t> index, int64_t flat) {
    int64_t a = 0, b = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      a += index[d] * lhsStrides[d];
      b += index[d] * rhsStrides[d];
    }
    int64_t c = flat * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        if (lhs.isFloat()) {
          double sum = 0;
          for (int64_t l = 0; l < k; ++l)
            sum += lhs.floats[a + i * k + l] * rhs.floats[b + l * n + j];
          out.floats[c + i * n + j] = sum;
        } else {
          uint64_t sum = 0;
          for (int64_t l = 0; l < k; ++l)
            sum +=
                bits(lhs.ints[a + i * k + l]) * bits(rhs.ints[b + l * n + j]);
          out.ints[c + i * n + j] = wrap(sum);
        }
      }
  });
  return out;
}

/// A value of `type` whose every element is `value` converted as full does.
Values filled(RankedTensorType type, double value) {
  Values out = make(type);
  if (out.isFloat())
    std::fill(out.floats.begin(), out.floats.end(), value);
  else
    std::fill(out.ints.begin(), out.ints.end(),
              type.getElementType().isInteger(1)
                  ? static_cast<int64_t>(value != 0)
                  : static_cast<int64_t>(value));
  return out;
}

FailureOr<Values> evaluateLayout(Operation *op, ArrayRef<Values> in,
                                 RankedTensorType type) {
  ArrayRef<int64_t> outShape = type.getShape();
  return TypeSwitch<Operation *, FailureOr<Values>>(op)
      .Case([&](ReshapeOp) -> FailureOr<Values> {
        Values out = in[0];
        out.type = type;
        return out;
      })
      .Case([&](PermuteOp permute) -> FailureOr<Values> {
        ArrayRef<int64_t> perm = permute.getPermutation();
        SmallVector<int64_t> strides = stridesOf(in[0].type.getShape());
        return remap(
            in[0], type,
            [&](ArrayRef<int64_t> index) {
              int64_t at = 0;
              for (size_t d = 0; d < index.size(); ++d)
                at += index[d] * strides[perm[d]];
              return at;
            },
            0);
      })
      .Case([&](FlipOp flip) -> FailureOr<Values> {
        ArrayRef<int64_t> shape = in[0].type.getShape();
        SmallVector<int64_t> strides = stridesOf(shape);
        SmallVector<bool> flipped(shape.size(), false);
        for (int64_t d : flip.getDims())
          flipped[d] = true;
        return remap(
            in[0], type,
            [&](ArrayRef<int64_t> index) {
              int64_t at = 0;
              for (size_t d = 0; d < index.size(); ++d)
                at += (flipped[d] ? shape[d] - 1 - index[d] : index[d]) *
                      strides[d];
              return at;
            },
            0);
      })
      .Case([&](BroadcastOp) -> FailureOr<Values> {
        if (in[0].type.getRank() > type.getRank())
          return failure();
        SmallVector<int64_t> strides =
            broadcastStrides(in[0].type.getShape(), type.getRank());
        return remap(
            in[0], type,
            [&](ArrayRef<int64_t> index) {
              int64_t at = 0;
              for (size_t d = 0; d < index.size(); ++d)
                at += index[d] * strides[d];
              return at;
            },
            0);
      })
      .Case([&](SliceOp slice) -> FailureOr<Values> {
        int64_t dim = slice.getDim();
        int64_t start = slice.getStart(), step = slice.getStep();
        if (dim < 0 || dim >= type.getRank() || start < 0 || step < 1)
          return failure();
        SmallVector<int64_t> strides = stridesOf(in[0].type.getShape());
        int64_t size = in[0].type.getDimSize(dim);
        if (outShape[dim] > 0 && start + (outShape[dim] - 1) * step >= size)
          return failure();
        return remap(
            in[0], type,
            [&](ArrayRef<int64_t> index) {
              int64_t at = 0;
              for (size_t d = 0; d < index.size(); ++d)
                at += (static_cast<int64_t>(d) == dim ? start + index[d] * step
                                                      : index[d]) *
                      strides[d];
              return at;
            },
            0);
      })
      .Case([&](PadOp pad) -> FailureOr<Values> {
        ArrayRef<int64_t> low = pad.getLow();
        if (llvm::any_of(low, [](int64_t v) { return v < 0; }) ||
            llvm::any_of(pad.getHigh(), [](int64_t v) { return v < 0; }))
          return failure(); // Cropping pads stay.
        ArrayRef<int64_t> inShape = in[0].type.getShape();
        SmallVector<int64_t> strides = stridesOf(inShape);
        double value = pad.getValue().convertToDouble();
        if (!type.getElementType().isInteger(1) &&
            !isa<FloatType>(type.getElementType()))
          value = std::trunc(value);
        return remap(
            in[0], type,
            [&](ArrayRef<int64_t> index) -> int64_t {
              int64_t at = 0;
              for (size_t d = 0; d < index.size(); ++d) {
                int64_t i = index[d] - low[d];
                if (i < 0 || i >= inShape[d])
                  return -1;
                at += i * strides[d];
              }
              return at;
            },
            value);
      })
      .Case([&](TakeOp take) -> FailureOr<Values> {
        // result[a..., i..., b...] = input[a..., index[i...], b...], the
        // index wrapped once when negative and clamped (the op's rules).
        ArrayRef<int64_t> inShape = in[0].type.getShape();
        int64_t dim = take.getDim();
        int64_t indexRank = in[1].type.getRank();
        if (dim < 0 || dim >= in[0].type.getRank() || inShape[dim] == 0)
          return failure();
        SmallVector<int64_t> strides = stridesOf(inShape);
        SmallVector<int64_t> indexStrides = stridesOf(in[1].type.getShape());
        int64_t size = inShape[dim];
        return remap(
            in[0], type,
            [&](ArrayRef<int64_t> index) {
              int64_t at = 0, where = 0;
              for (int64_t d = 0; d < indexRank; ++d)
                where += index[dim + d] * indexStrides[d];
              int64_t i = in[1].ints[where];
              if (i < 0)
                i += size;
              i = std::clamp<int64_t>(i, 0, size - 1);
              for (int64_t d = 0; d < static_cast<int64_t>(inShape.size());
                   ++d) {
                int64_t position = d < dim    ? index[d]
                                   : d == dim ? i
                                              : index[d - 1 + indexRank];
                at += position * strides[d];
              }
              return at;
            },
            0);
      })
      .Case([&](ConcatOp concat) -> FailureOr<Values> {
        int64_t dim = concat.getDim();
        if (dim < 0 || dim >= type.getRank())
          return failure();
        // The input each position along `dim` comes from.
        SmallVector<int64_t> owner, offset;
        for (auto [k, v] : llvm::enumerate(in))
          for (int64_t i = 0; i < v.type.getDimSize(dim); ++i) {
            owner.push_back(k);
            offset.push_back(i);
          }
        if (static_cast<int64_t>(owner.size()) != outShape[dim])
          return failure();
        SmallVector<SmallVector<int64_t>> strides;
        for (const Values &v : in)
          strides.push_back(stridesOf(v.type.getShape()));
        Values out = make(type);
        forEachIndex(outShape, [&](ArrayRef<int64_t> index, int64_t flat) {
          int64_t k = owner[index[dim]];
          int64_t at = 0;
          for (size_t d = 0; d < index.size(); ++d)
            at += (static_cast<int64_t>(d) == dim ? offset[index[dim]]
                                                  : index[d]) *
                  strides[k][d];
          if (out.isFloat())
            out.floats[flat] = in[k].floats[at];
          else
            out.ints[flat] = in[k].ints[at];
        });
        return out;
      })
      .Default([](Operation *) { return failure(); });
}
} // namespace

bool mlir::tensor_program::canPrecomputeOp(Operation *op, int64_t maxElements) {
  if (!canEvaluateConstantOp(op))
    return false;
  return llvm::all_of(op->getResultTypes(), [&](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.hasStaticShape() &&
           tensor.getNumElements() <= maxElements;
  });
}

bool mlir::tensor_program::canEvaluateConstantOp(Operation *op) {
  return (isElementwise(op) && !isa<ConstantOp>(op)) ||
         isa<FullOp, IotaOp, ReshapeOp, PermuteOp, FlipOp, BroadcastOp, SliceOp,
             ConcatOp, PadOp, TakeOp, CumsumOp, ReduceSumOp, ReduceProdOp,
             ReduceMaxOp, ReduceMinOp, ReduceMeanOp, MatmulOp, BatchMatmulOp>(
             op);
}

FailureOr<SmallVector<DenseElementsAttr>>
mlir::tensor_program::evaluateConstantOp(Operation *op,
                                         ArrayRef<DenseElementsAttr> operands) {
  if (!canEvaluateConstantOp(op) || op->getNumResults() != 1 ||
      operands.size() != op->getNumOperands())
    return failure();
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return failure();
  for (DenseElementsAttr operand : operands)
    if (!operand || !cast<ShapedType>(operand.getType()).hasStaticShape())
      return failure();

  // Splat operands of elementwise and pure layout ops: one element
  // computed, a splat result.
  bool allSplat =
      llvm::all_of(operands, [](DenseElementsAttr a) { return a.isSplat(); });
  bool splatKeeping =
      isElementwise(op) ||
      isa<ReshapeOp, PermuteOp, FlipOp, BroadcastOp, SliceOp>(op);
  if (allSplat && splatKeeping && !operands.empty()) {
    SmallVector<Values> scalars;
    for (DenseElementsAttr a : operands)
      scalars.push_back(fromAttribute(
          DenseElementsAttr::get(RankedTensorType::get({}, a.getElementType()),
                                 a.getSplatValue<Attribute>())));
    auto scalarType = RankedTensorType::get({}, type.getElementType());
    FailureOr<Values> one = isElementwise(op)
                                ? evaluateElementwise(op, scalars, scalarType)
                                : FailureOr<Values>(scalars[0]);
    if (failed(one))
      return failure();
    DenseElementsAttr value = toAttribute(*one);
    return SmallVector<DenseElementsAttr>{
        DenseElementsAttr::get(type, value.getSplatValue<Attribute>())};
  }

  SmallVector<Values> in;
  for (DenseElementsAttr a : operands) {
    if (a.isSplat() && a.getNumElements() > kMaxExpandedSplat)
      return failure();
    in.push_back(fromAttribute(a));
  }
  FailureOr<Values> result =
      TypeSwitch<Operation *, FailureOr<Values>>(op)
          .Case([&](FullOp full) -> FailureOr<Values> {
            return filled(type, full.getValue().convertToDouble());
          })
          .Case([&](IotaOp iota) -> FailureOr<Values> {
            int64_t dim = iota.getDim();
            if (dim < 0 || dim >= type.getRank())
              return failure();
            Values out = make(type);
            forEachIndex(type.getShape(),
                         [&](ArrayRef<int64_t> index, int64_t flat) {
                           if (out.isFloat())
                             out.floats[flat] = index[dim];
                           else
                             out.ints[flat] = index[dim];
                         });
            return out;
          })
          .Case<ReduceSumOp, ReduceProdOp, ReduceMaxOp, ReduceMinOp,
                ReduceMeanOp>([&](auto r) -> FailureOr<Values> {
            return reduce(op, in[0], r.getDims(), type);
          })
          .Case([&](CumsumOp cumsum) -> FailureOr<Values> {
            // Running sums along `dim` in the op's accumulator: int64_t
            // (wrapped to the element width when stored), f64 for f64,
            // f32 for the other float types.
            int64_t dim = cumsum.getDim();
            if (dim < 0 || dim >= type.getRank())
              return failure();
            Values out = make(type);
            int64_t stride = stridesOf(type.getShape())[dim];
            bool wide = type.getElementType().isF64();
            forEachIndex(
                type.getShape(), [&](ArrayRef<int64_t> index, int64_t flat) {
                  bool first = index[dim] == 0;
                  if (!out.isFloat()) {
                    out.ints[flat] =
                        wrap(bits(in[0].ints[flat]) +
                             bits(first ? 0 : out.ints[flat - stride]));
                    return;
                  }
                  double previous = first ? 0.0 : out.floats[flat - stride];
                  double sum = previous + in[0].floats[flat];
                  out.floats[flat] = wide ? sum : static_cast<float>(sum);
                });
            return out;
          })
          .Case<MatmulOp, BatchMatmulOp>([&](auto) -> FailureOr<Values> {
            // Products of large constants stay (their cost is the
            // compiled kernel's business, not the compiler's).
            if (type.getNumElements() *
                    in[0].type.getDimSize(in[0].type.getRank() - 1) >
                kMaxProductWork)
              return failure();
            return product(in[0], in[1], type);
          })
          .Default([&](Operation *) -> FailureOr<Values> {
            if (isElementwise(op))
              return evaluateElementwise(op, in, type);
            return evaluateLayout(op, in, type);
          });
  if (failed(result) || result->size() != type.getNumElements())
    return failure();
  return SmallVector<DenseElementsAttr>{toAttribute(*result)};
}
