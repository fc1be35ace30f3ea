//===- ShapeTracing.cpp - dynamic output sizes of fused kernels -----------===//
//
// Part of the Wrapper project.
//
// The host allocates a kernel's outputs before calling it, so it needs the
// size of every dynamic output dimension. This file derives each one from
// the kernel's inputs by following the ops of the fused region backwards,
// and builds the host-side computation (memref.dim of the input buffers
// plus index arithmetic).
//
//===----------------------------------------------------------------------===//

#include "ShapeTracing.h"

#include "Wrapper/Conversion/TensorProgramToLinalg/TensorProgramToLinalg.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::wrapper;
namespace tp = mlir::tensor_program;

namespace {
using SizeFn = std::function<Value(OpBuilder &, Location, ValueRange)>;

/// A size read from input buffer `input`, dimension `dim`.
SizeFn inputDim(unsigned input, int64_t dim) {
  return [=](OpBuilder &b, Location loc, ValueRange buffers) -> Value {
    return memref::DimOp::create(b, loc, buffers[input], dim);
  };
}

SizeFn constantSize(int64_t size) {
  return [=](OpBuilder &b, Location loc, ValueRange) -> Value {
    return arith::ConstantIndexOp::create(b, loc, size);
  };
}

/// The size of dimension `dim` of `value` inside the region of `fused`, as a
/// host computation, or null when it cannot be derived.
SizeFn trace(Value value, int64_t dim);

/// The size of an index value inside the region (a dynamic size operand).
SizeFn traceIndex(Value value) {
  if (auto dimOp = value.getDefiningOp<tensor::DimOp>()) {
    std::optional<int64_t> index = dimOp.getConstantIndex();
    if (!index)
      return nullptr;
    return trace(dimOp.getSource(), *index);
  }
  if (auto constant = value.getDefiningOp<arith::ConstantIndexOp>())
    return constantSize(constant.value());
  // Index arithmetic on sizes (an importer's view sizes).
  Operation *op = value.getDefiningOp();
  if (op && op->getNumOperands() == 2 && op->getNumResults() == 1 &&
      isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivSIOp,
          arith::DivUIOp, arith::FloorDivSIOp, arith::CeilDivSIOp,
          arith::RemSIOp, arith::RemUIOp, arith::MinSIOp, arith::MaxSIOp>(op)) {
    SizeFn lhs = traceIndex(op->getOperand(0));
    SizeFn rhs = traceIndex(op->getOperand(1));
    if (!lhs || !rhs)
      return nullptr;
    return [=](OpBuilder &b, Location loc, ValueRange buffers) -> Value {
      Value a = lhs(b, loc, buffers), c = rhs(b, loc, buffers);
      IRMapping mapping;
      mapping.map(op->getOperand(0), a);
      mapping.map(op->getOperand(1), c);
      return b.clone(*op, mapping)->getResult(0);
    };
  }
  return nullptr;
}

/// The number of windows of `span` elements every `stride` in a dimension
/// of `size` (clamped at 0).
static SizeFn windowCount(SizeFn size, int64_t span, int64_t stride) {
  if (!size)
    return nullptr;
  return [=](OpBuilder &b, Location loc, ValueRange buffers) -> Value {
    Value n = size(b, loc, buffers);
    Value rest = arith::SubIOp::create(
        b, loc, n, arith::ConstantIndexOp::create(b, loc, span));
    Value count = arith::AddIOp::create(
        b, loc,
        arith::FloorDivSIOp::create(
            b, loc, rest, arith::ConstantIndexOp::create(b, loc, stride)),
        arith::ConstantIndexOp::create(b, loc, 1));
    return arith::MaxSIOp::create(b, loc, count,
                                  arith::ConstantIndexOp::create(b, loc, 0));
  };
}

SizeFn trace(Value value, int64_t dim) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.isDynamicDim(dim))
    return constantSize(type.getDimSize(dim));
  if (auto arg = dyn_cast<BlockArgument>(value))
    return inputDim(arg.getArgNumber(), dim);
  Operation *op = value.getDefiningOp();
  int64_t rank = type.getRank();
  // The k-th dynamic dimension of a result with dynamic size operands.
  auto fromDynamicSizes = [&](ValueRange sizes) -> SizeFn {
    unsigned k = 0;
    for (int64_t d = 0; d < dim; ++d)
      k += type.isDynamicDim(d);
    return k < sizes.size() ? traceIndex(sizes[k]) : nullptr;
  };
  if (tp::isElementwise(op)) {
    for (Value operand : op->getOperands()) {
      auto operandType = cast<RankedTensorType>(operand.getType());
      int64_t d = dim - (rank - operandType.getRank());
      if (d >= 0 && operandType.isDynamicDim(d))
        return trace(operand, d);
    }
    return nullptr;
  }
  return TypeSwitch<Operation *, SizeFn>(op)
      .Case<tp::ReduceSumOp, tp::ReduceMeanOp, tp::ReduceMaxOp, tp::ReduceMinOp,
            tp::ReduceProdOp>([&](auto r) -> SizeFn {
        // Result dimension `dim` is the dim-th kept input dimension.
        int64_t inputRank = r.getInput().getType().getRank(), seen = 0;
        for (int64_t d = 0; d < inputRank; ++d) {
          bool reduced = llvm::is_contained(r.getDims(), d);
          if (reduced && !r.getKeepdim())
            continue;
          if (seen++ == dim)
            return reduced ? constantSize(1) : trace(r.getInput(), d);
        }
        return nullptr;
      })
      .Case([&](tp::ArgMaxOp a) -> SizeFn {
        int64_t inputRank = a.getInput().getType().getRank(), seen = 0;
        for (int64_t d = 0; d < inputRank; ++d) {
          bool reduced = d == static_cast<int64_t>(a.getDim());
          if (reduced && !a.getKeepdim())
            continue;
          if (seen++ == dim)
            return reduced ? constantSize(1) : trace(a.getInput(), d);
        }
        return nullptr;
      })
      .Case([&](tp::FlipOp f) -> SizeFn { return trace(f.getInput(), dim); })
      .Case([&](tp::PermuteOp p) -> SizeFn {
        return trace(p.getInput(), p.getPermutation()[dim]);
      })
      .Case([&](tp::ReshapeOp r) -> SizeFn {
        return fromDynamicSizes(r.getDynamicSizes());
      })
      .Case([&](tp::BroadcastOp r) -> SizeFn {
        return fromDynamicSizes(r.getDynamicSizes());
      })
      .Case([&](tp::FullOp f) -> SizeFn {
        return fromDynamicSizes(f.getDynamicSizes());
      })
      .Case([&](tp::PadOp p) -> SizeFn {
        SizeFn inner = trace(p.getInput(), dim);
        if (!inner)
          return nullptr;
        int64_t extra = p.getLow()[dim] + p.getHigh()[dim];
        return [=](OpBuilder &b, Location loc, ValueRange buffers) -> Value {
          Value size = inner(b, loc, buffers);
          Value e = arith::ConstantIndexOp::create(b, loc, extra);
          return arith::AddIOp::create(b, loc, size, e);
        };
      })
      .Case([&](tp::SliceOp s) -> SizeFn {
        SizeFn inner = trace(s.getInput(), dim);
        if (!inner || dim != static_cast<int64_t>(s.getDim()))
          return inner;
        int64_t start = s.getStart(), end = s.getEnd(), step = s.getStep();
        return [=](OpBuilder &b, Location loc, ValueRange buffers) -> Value {
          return buildSliceSize(b, loc, inner(b, loc, buffers), start, end,
                                step);
        };
      })
      .Case([&](tp::ConcatOp c) -> SizeFn {
        if (dim != static_cast<int64_t>(c.getDim())) {
          for (Value input : c.getInputs())
            if (cast<RankedTensorType>(input.getType()).isDynamicDim(dim))
              return trace(input, dim);
          return nullptr;
        }
        SmallVector<SizeFn> parts;
        for (Value input : c.getInputs()) {
          SizeFn part = trace(input, dim);
          if (!part)
            return nullptr;
          parts.push_back(part);
        }
        return [=](OpBuilder &b, Location loc, ValueRange buffers) -> Value {
          Value sum = parts.front()(b, loc, buffers);
          for (const SizeFn &part : ArrayRef<SizeFn>(parts).drop_front())
            sum = arith::AddIOp::create(b, loc, sum, part(b, loc, buffers));
          return sum;
        };
      })
      .Case<tp::MatmulOp, tp::BatchMatmulOp>([&](auto m) -> SizeFn {
        auto lhsType = cast<RankedTensorType>(m.getLhs().getType());
        auto rhsType = cast<RankedTensorType>(m.getRhs().getType());
        if (dim == rank - 2)
          return trace(m.getLhs(), lhsType.getRank() - 2);
        if (dim == rank - 1)
          return trace(m.getRhs(), rhsType.getRank() - 1);
        for (Value operand : {m.getLhs(), m.getRhs()}) {
          auto t = cast<RankedTensorType>(operand.getType());
          int64_t d = dim - (rank - t.getRank());
          if (d >= 0 && d < t.getRank() - 2 && t.isDynamicDim(d))
            return trace(operand, d);
        }
        return nullptr;
      })
      .Case([&](tp::IotaOp i) -> SizeFn {
        return fromDynamicSizes(i.getDynamicSizes());
      })
      .Case([&](tp::UniformOp u) -> SizeFn {
        return fromDynamicSizes(u.getDynamicSizes());
      })
      .Case([&](tp::CumsumOp c) -> SizeFn { return trace(c.getInput(), dim); })
      .Case([&](tp::SliceScatterOp s) -> SizeFn {
        return trace(s.getInput(), dim);
      })
      .Case([&](tp::ScatterOp s) -> SizeFn { return trace(s.getInput(), dim); })
      .Case([&](tp::GatherOp g) -> SizeFn { return trace(g.getIndex(), dim); })
      .Case([&](tp::TakeOp t) -> SizeFn {
        int64_t at = static_cast<int64_t>(t.getDim());
        int64_t k = t.getIndex().getType().getRank();
        if (dim < at)
          return trace(t.getInput(), dim);
        if (dim < at + k)
          return trace(t.getIndex(), dim - at);
        return trace(t.getInput(), dim - k + 1);
      })
      .Case([&](tp::DynamicSliceOp s) -> SizeFn {
        SizeFn inner = trace(s.getInput(), dim);
        if (!inner || dim != static_cast<int64_t>(s.getDim()))
          return inner;
        SizeFn start = traceIndex(s.getStart()), end = traceIndex(s.getEnd());
        if (!start || !end)
          return nullptr;
        int64_t step = s.getStep();
        return [=](OpBuilder &b, Location loc, ValueRange buffers) -> Value {
          Value n = inner(b, loc, buffers);
          Value zero = arith::ConstantIndexOp::create(b, loc, 0);
          auto clamp = [&](Value v) -> Value {
            return arith::MinSIOp::create(
                b, loc, arith::MaxSIOp::create(b, loc, v, zero), n);
          };
          Value first = clamp(start(b, loc, buffers));
          Value last = clamp(end(b, loc, buffers));
          Value span = arith::MaxSIOp::create(
              b, loc, arith::SubIOp::create(b, loc, last, first), zero);
          return arith::CeilDivSIOp::create(
              b, loc, span, arith::ConstantIndexOp::create(b, loc, step));
        };
      })
      .Case([&](tp::ConvolutionOp c) -> SizeFn {
        if (dim == 0)
          return trace(c.getInput(), 0);
        if (dim == 1)
          return trace(c.getWeight(), 0);
        int64_t i = dim - 2;
        int64_t kernel = c.getWeight().getType().getDimSize(dim);
        if (ShapedType::isDynamic(kernel))
          return nullptr;
        return windowCount(trace(c.getInput(), dim),
                           c.getDilation()[i] * (kernel - 1) + 1,
                           c.getStride()[i]);
      })
      .Case<tp::MaxPoolOp, tp::AvgPoolOp>([&](auto p) -> SizeFn {
        int64_t k = p.getWindow().size();
        int64_t lead = rank - k;
        if (dim < lead)
          return trace(p.getInput(), dim);
        int64_t i = dim - lead;
        int64_t dilation = 1;
        if constexpr (std::is_same_v<decltype(p), tp::MaxPoolOp>)
          dilation = p.getDilation()[i];
        SizeFn size = trace(p.getInput(), dim);
        if (!size)
          return nullptr;
        int64_t pad = p.getPaddingLow()[i] + p.getPaddingHigh()[i];
        SizeFn padded = [=](OpBuilder &b, Location loc,
                            ValueRange buffers) -> Value {
          return arith::AddIOp::create(
              b, loc, size(b, loc, buffers),
              arith::ConstantIndexOp::create(b, loc, pad));
        };
        return windowCount(padded, dilation * (p.getWindow()[i] - 1) + 1,
                           p.getStride()[i]);
      })
      .Default([](Operation *) -> SizeFn { return nullptr; });
}
} // namespace

FailureOr<SmallVector<Value>>
mlir::wrapper::buildOutputDynamicSizes(OpBuilder &b, Location loc,
                                       Value regionValue, ValueRange buffers) {
  auto type = cast<RankedTensorType>(regionValue.getType());
  SmallVector<Value> sizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    if (!type.isDynamicDim(dim))
      continue;
    SizeFn fn = trace(regionValue, dim);
    if (!fn)
      return failure();
    sizes.push_back(fn(b, loc, buffers));
  }
  return sizes;
}
