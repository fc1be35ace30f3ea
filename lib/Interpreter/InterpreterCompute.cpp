//===- InterpreterCompute.cpp - products, convolutions, composites --------===//
//
// Part of the Wrapper project.
//
// The interpreter's rules for convolution, pooling, the products and the
// composites (softmax, layer_norm, rms_norm), each from its definition.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::wrapper;
using namespace mlir::wrapper::detail;
namespace tp = mlir::tensor_program;

std::optional<LogicalResult> Interpreter::evaluateCompute(Operation *op) {
  return TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
      .Case([&](tp::ConvolutionOp c) -> LogicalResult {
        const HostTensor &input = get(c.getInput());
        const HostTensor &weight = get(c.getWeight());
        int64_t k = input.shape.size() - 2;
        int64_t groups = static_cast<int64_t>(c.getGroups());
        int64_t channels = input.shape[1], filters = weight.shape[0];
        if (channels != weight.shape[1] * groups || filters % groups)
          return fail(op, "channel counts do not fit the groups at run time");
        int64_t cg = channels / groups, fg = filters / groups;
        Shape shape = {input.shape[0], filters};
        for (int64_t i = 0; i < k; ++i) {
          int64_t span = c.getDilation()[i] * (weight.shape[2 + i] - 1) + 1;
          int64_t size = input.shape[2 + i];
          shape.push_back(size < span ? 0
                                      : (size - span) / c.getStride()[i] + 1);
        }
        HostTensor out = make(op, shape);
        Shape inStrides = stridesOf(input.shape);
        Shape wStrides = stridesOf(weight.shape);
        Shape window(weight.shape.begin() + 2, weight.shape.end());
        int64_t windowCount = 1;
        for (int64_t w : window)
          windowCount *= w;
        const HostTensor *bias = c.getBias() ? &get(c.getBias()) : nullptr;
        for (int64_t flat = 0; flat < out.numel(); ++flat) {
          Shape o = unflatten(flat, shape);
          int64_t n = o[0], f = o[1], g = f / fg;
          double sum = bias ? bias->values[f] : 0;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t wflat = 0; wflat < windowCount; ++wflat) {
              Shape w = unflatten(wflat, window);
              int64_t src = n * inStrides[0] + (g * cg + ci) * inStrides[1];
              int64_t wsrc = f * wStrides[0] + ci * wStrides[1];
              for (int64_t i = 0; i < k; ++i) {
                src +=
                    (o[2 + i] * c.getStride()[i] + w[i] * c.getDilation()[i]) *
                    inStrides[2 + i];
                wsrc += w[i] * wStrides[2 + i];
              }
              sum += input.values[src] * weight.values[wsrc];
            }
          out.values[flat] = sum;
        }
        set(c.getResult(), std::move(out));
        return success();
      })
      .Case<tp::MaxPoolOp, tp::AvgPoolOp>([&](auto pool) -> LogicalResult {
        const HostTensor &input = get(pool.getInput());
        bool isMax = isa<tp::MaxPoolOp>(op);
        ArrayRef<int64_t> window = pool.getWindow();
        ArrayRef<int64_t> stride = pool.getStride();
        ArrayRef<int64_t> low = pool.getPaddingLow();
        ArrayRef<int64_t> high = pool.getPaddingHigh();
        int64_t k = window.size();
        int64_t lead = input.shape.size() - k;
        SmallVector<int64_t> dilation(k, 1);
        if (auto max = dyn_cast<tp::MaxPoolOp>(op))
          dilation.assign(max.getDilation().begin(), max.getDilation().end());
        Shape shape(input.shape.begin(), input.shape.begin() + lead);
        for (int64_t i = 0; i < k; ++i) {
          int64_t span = dilation[i] * (window[i] - 1) + 1;
          int64_t size = input.shape[lead + i] + low[i] + high[i];
          shape.push_back(size < span ? 0 : (size - span) / stride[i] + 1);
        }
        HostTensor out = make(op, shape);
        Shape inStrides = stridesOf(input.shape);
        Shape windowShape(window.begin(), window.end());
        int64_t windowCount = 1;
        for (int64_t w : window)
          windowCount *= w;
        for (int64_t flat = 0; flat < out.numel(); ++flat) {
          Shape o = unflatten(flat, shape);
          int64_t base = 0;
          for (int64_t d = 0; d < lead; ++d)
            base += o[d] * inStrides[d];
          double acc = isMax ? -INFINITY : 0;
          bool nan = false;
          for (int64_t wflat = 0; wflat < windowCount; ++wflat) {
            Shape w = unflatten(wflat, windowShape);
            int64_t src = base;
            bool inside = true;
            for (int64_t i = 0; i < k; ++i) {
              int64_t at =
                  o[lead + i] * stride[i] + w[i] * dilation[i] - low[i];
              inside &= at >= 0 && at < input.shape[lead + i];
              src += at * inStrides[lead + i];
            }
            if (!inside)
              continue; // padding: -inf for max, 0 for the sum
            double v = input.values[src];
            nan |= std::isnan(v);
            acc = isMax ? std::max(acc, v) : acc + v;
          }
          if (isMax) {
            out.values[flat] = nan ? NAN : acc;
            continue;
          }
          auto avg = cast<tp::AvgPoolOp>(op);
          double divisor = 1;
          if (std::optional<uint64_t> d = avg.getDivisor()) {
            divisor = static_cast<double>(*d);
          } else {
            std::optional<ArrayRef<int64_t>> count = avg.getCountPadding();
            for (int64_t i = 0; i < k; ++i) {
              int64_t start = o[lead + i] * stride[i] - low[i];
              int64_t end = start + window[i];
              int64_t pad = count ? (*count)[i] : 0;
              int64_t first = std::max<int64_t>(start, -pad);
              int64_t last =
                  std::min<int64_t>(end, input.shape[lead + i] + pad);
              divisor *=
                  static_cast<double>(std::max<int64_t>(last - first, 0));
            }
          }
          out.values[flat] = acc / divisor;
        }
        set(pool.getResult(), std::move(out));
        return success();
      })
      .Case<tp::MatmulOp, tp::BatchMatmulOp>([&](auto m) -> LogicalResult {
        const HostTensor &lhs = get(m.getLhs());
        const HostTensor &rhs = get(m.getRhs());
        size_t lr = lhs.shape.size(), rr = rhs.shape.size();
        int64_t M = lhs.shape[lr - 2], K = lhs.shape[lr - 1];
        int64_t N = rhs.shape[rr - 1];
        if (rhs.shape[rr - 2] != K)
          return fail(op, "contraction sizes differ at run time");
        size_t batchRank = std::max(lr, rr) - 2;
        Shape shape(batchRank, 1);
        for (const HostTensor *t : {&lhs, &rhs}) {
          size_t tb = t->shape.size() - 2, lead = batchRank - tb;
          for (size_t d = 0; d < tb; ++d)
            if (t->shape[d] != 1)
              shape[lead + d] = t->shape[d];
        }
        shape.push_back(M);
        shape.push_back(N);
        HostTensor out = make(op, shape);
        Shape lStrides = stridesOf(lhs.shape), rStrides = stridesOf(rhs.shape);
        for (int64_t flat = 0; flat < out.numel(); ++flat) {
          Shape index = unflatten(flat, shape);
          auto batchOffset = [&](const HostTensor &t, ArrayRef<int64_t> st) {
            size_t tb = t.shape.size() - 2, lead = batchRank - tb;
            int64_t off = 0;
            for (size_t d = 0; d < tb; ++d)
              if (t.shape[d] != 1)
                off += index[lead + d] * st[d];
            return off;
          };
          int64_t lo = batchOffset(lhs, lStrides),
                  ro = batchOffset(rhs, rStrides);
          int64_t i = index[batchRank], j = index[batchRank + 1];
          double acc = 0;
          for (int64_t k = 0; k < K; ++k)
            acc += lhs.values[lo + i * K + k] * rhs.values[ro + k * N + j];
          out.values[flat] = acc;
        }
        set(m.getResult(), std::move(out));
        return success();
      })
      .Case([&](tp::LinearOp l) -> LogicalResult {
        const HostTensor &x = get(l.getInput());
        const HostTensor &w = get(l.getWeight());
        int64_t K = x.shape.back(), N = w.shape[0];
        Shape shape(x.shape.begin(), x.shape.end() - 1);
        shape.push_back(N);
        HostTensor out = make(op, shape);
        const HostTensor *bias = l.getBias() ? &get(l.getBias()) : nullptr;
        int64_t rows = out.numel() / std::max<int64_t>(N, 1);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t n = 0; n < N; ++n) {
            double acc = bias ? bias->values[n] : 0;
            for (int64_t k = 0; k < K; ++k)
              acc += x.values[r * K + k] * w.values[n * K + k];
            out.values[r * N + n] = acc;
          }
        set(l.getResult(), std::move(out));
        return success();
      })
      .Case<tp::SoftmaxOp, tp::LogSoftmaxOp>([&](auto s) -> LogicalResult {
        const HostTensor &x = get(s.getInput());
        int64_t dim = static_cast<int64_t>(s.getDim());
        bool log = isa<tp::LogSoftmaxOp>(op);
        HostTensor out = make(op, x.shape);
        Shape strides = stridesOf(x.shape);
        int64_t n = x.shape[dim], stride = strides[dim];
        for (int64_t flat = 0; flat < x.numel(); ++flat) {
          if (unflatten(flat, x.shape)[dim] != 0)
            continue; // visit each row once, from its first element
          double max = -INFINITY;
          for (int64_t k = 0; k < n; ++k)
            max = nanMax(max, x.values[flat + k * stride]);
          double sum = 0;
          for (int64_t k = 0; k < n; ++k)
            sum += std::exp(x.values[flat + k * stride] - max);
          for (int64_t k = 0; k < n; ++k) {
            double v = x.values[flat + k * stride] - max;
            out.values[flat + k * stride] =
                log ? v - std::log(sum) : std::exp(v) / sum;
          }
        }
        set(s.getResult(), std::move(out));
        return success();
      })
      .Case<tp::LayerNormOp, tp::RmsNormOp>([&](auto norm) -> LogicalResult {
        const HostTensor &x = get(norm.getInput());
        bool rms = isa<tp::RmsNormOp>(op);
        int64_t k = 1;
        if (auto ln = dyn_cast<tp::LayerNormOp>(op))
          k = static_cast<int64_t>(ln.getNormalizedRank());
        int64_t inner = 1;
        for (size_t d = x.shape.size() - k; d < x.shape.size(); ++d)
          inner *= x.shape[d];
        HostTensor out = make(op, x.shape);
        const HostTensor *weight =
            norm.getWeight() ? &get(norm.getWeight()) : nullptr;
        const HostTensor *bias = nullptr;
        if (auto ln = dyn_cast<tp::LayerNormOp>(op))
          bias = ln.getBias() ? &get(ln.getBias()) : nullptr;
        double eps = norm.getEps().convertToDouble();
        for (int64_t row = 0; row * inner < x.numel(); ++row) {
          const double *v = &x.values[row * inner];
          double mean = 0, var = 0;
          for (int64_t i = 0; i < inner; ++i)
            mean += v[i];
          mean /= inner;
          for (int64_t i = 0; i < inner; ++i) {
            double c = rms ? v[i] : v[i] - mean;
            var += c * c;
          }
          var /= inner;
          double scale = 1.0 / std::sqrt(var + eps);
          for (int64_t i = 0; i < inner; ++i) {
            double y = (rms ? v[i] : v[i] - mean) * scale;
            if (weight)
              y *= weight->values[i];
            if (bias)
              y += bias->values[i];
            out.values[row * inner + i] = y;
          }
        }
        set(norm.getResult(), std::move(out));
        return success();
      })
      .Default([](Operation *) { return std::nullopt; });
}
