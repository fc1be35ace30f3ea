//===- ShapeInference.cpp - tensor_program shape rules --------------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/IR/ShapeInference.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tensor_program;

static bool isDynamic(int64_t size) { return ShapedType::isDynamic(size); }

std::string mlir::tensor_program::formatSize(int64_t size) {
  return isDynamic(size) ? std::string("?") : std::to_string(size);
}

static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text = "[";
  llvm::interleave(
      shape, [&](int64_t size) { text += formatSize(size); },
      [&] { text += ", "; });
  return text + "]";
}

ShapeResult
mlir::tensor_program::broadcastShapes(ArrayRef<ArrayRef<int64_t>> shapes) {
  size_t rank = 0;
  for (ArrayRef<int64_t> shape : shapes)
    rank = std::max(rank, shape.size());
  ShapeResult result;
  result.shape.assign(rank, 1);
  // The operand that fixed each result dimension, for messages.
  SmallVector<int> owner(rank, -1);
  for (auto [operand, shape] : llvm::enumerate(shapes)) {
    size_t lead = rank - shape.size();
    for (auto [dim, size] : llvm::enumerate(shape)) {
      int64_t &out = result.shape[lead + dim];
      if (size == 1 || size == out)
        continue;
      if (out == 1 || (isDynamic(out) && !isDynamic(size))) {
        out = size;
        owner[lead + dim] = operand;
        continue;
      }
      if (isDynamic(size))
        continue;
      // Both static, different, neither 1.
      return ShapeResult::failure(
          "operand #" + std::to_string(operand) + " dimension " +
          std::to_string(dim) + " has size " + std::to_string(size) +
          ", which does not broadcast with size " + std::to_string(out) +
          " of operand #" + std::to_string(owner[lead + dim]) + " " +
          formatShape(shapes[owner[lead + dim]]));
    }
  }
  return result;
}

ShapeResult mlir::tensor_program::checkBroadcastTo(ArrayRef<int64_t> input,
                                                   ArrayRef<int64_t> target) {
  if (input.size() > target.size())
    return ShapeResult::failure(
        "input of rank " + std::to_string(input.size()) +
        " cannot broadcast to rank " + std::to_string(target.size()));
  size_t lead = target.size() - input.size();
  for (auto [dim, size] : llvm::enumerate(input)) {
    int64_t out = target[lead + dim];
    if (size == 1 || size == out || isDynamic(size))
      continue;
    if (isDynamic(out))
      return ShapeResult::failure(
          "input dimension " + std::to_string(dim) + " has static size " +
          std::to_string(size) +
          ", which cannot broadcast to a dynamic result dimension");
    return ShapeResult::failure("input dimension " + std::to_string(dim) +
                                " has size " + std::to_string(size) +
                                ", which does not broadcast to size " +
                                std::to_string(out) + " of result dimension " +
                                std::to_string(lead + dim));
  }
  ShapeResult result;
  result.shape.assign(target.begin(), target.end());
  return result;
}

/// Checks that `dims` are distinct and in [0, rank).
static std::string checkDims(ArrayRef<int64_t> dims, size_t rank,
                             StringRef what) {
  llvm::SmallBitVector seen(rank);
  for (int64_t dim : dims) {
    if (dim < 0 || dim >= static_cast<int64_t>(rank))
      return (what + " " + std::to_string(dim) + " is out of range [0, " +
              std::to_string(rank) + ")")
          .str();
    if (seen.test(dim))
      return (what + " " + std::to_string(dim) + " appears twice").str();
    seen.set(dim);
  }
  return {};
}

ShapeResult mlir::tensor_program::reduceShape(ArrayRef<int64_t> input,
                                              ArrayRef<int64_t> dims,
                                              bool keepDim) {
  if (dims.empty())
    return ShapeResult::failure("needs at least one dimension to reduce");
  std::string error = checkDims(dims, input.size(), "dimension");
  if (!error.empty())
    return ShapeResult::failure(error);
  ShapeResult result;
  for (auto [dim, size] : llvm::enumerate(input)) {
    if (!llvm::is_contained(dims, static_cast<int64_t>(dim)))
      result.shape.push_back(size);
    else if (keepDim)
      result.shape.push_back(1);
  }
  return result;
}

ShapeResult mlir::tensor_program::permuteShape(ArrayRef<int64_t> input,
                                               ArrayRef<int64_t> permutation) {
  if (permutation.size() != input.size())
    return ShapeResult::failure(
        "permutation has " + std::to_string(permutation.size()) +
        " entries, but the input has rank " + std::to_string(input.size()));
  std::string error = checkDims(permutation, input.size(), "permutation entry");
  if (!error.empty())
    return ShapeResult::failure(error);
  ShapeResult result;
  for (int64_t dim : permutation)
    result.shape.push_back(input[dim]);
  return result;
}

ShapeResult mlir::tensor_program::sliceShape(ArrayRef<int64_t> input,
                                             int64_t dim, int64_t start,
                                             int64_t end, int64_t step) {
  if (dim < 0 || dim >= static_cast<int64_t>(input.size()))
    return ShapeResult::failure("dimension " + std::to_string(dim) +
                                " is out of range [0, " +
                                std::to_string(input.size()) + ")");
  if (start < 0 || end < 0)
    return ShapeResult::failure("start and end must be non-negative, got " +
                                std::to_string(start) + " and " +
                                std::to_string(end));
  if (step <= 0)
    return ShapeResult::failure("step must be positive, got " +
                                std::to_string(step));
  ShapeResult result;
  result.shape.assign(input.begin(), input.end());
  int64_t size = input[dim];
  if (isDynamic(size)) {
    // Unknown extent: the slice is static only if it is empty.
    result.shape[dim] = end <= start ? 0 : ShapedType::kDynamic;
    return result;
  }
  int64_t first = std::min(start, size);
  int64_t last = std::min(end, size);
  result.shape[dim] = last <= first ? 0 : llvm::divideCeil(last - first, step);
  return result;
}

ShapeResult
mlir::tensor_program::concatShape(ArrayRef<ArrayRef<int64_t>> inputs,
                                  int64_t dim) {
  if (inputs.empty())
    return ShapeResult::failure("needs at least one input");
  size_t rank = inputs.front().size();
  if (dim < 0 || dim >= static_cast<int64_t>(rank))
    return ShapeResult::failure("dimension " + std::to_string(dim) +
                                " is out of range [0, " + std::to_string(rank) +
                                ")");
  ShapeResult result;
  result.shape.assign(inputs.front().begin(), inputs.front().end());
  for (auto [index, shape] : llvm::enumerate(inputs.drop_front())) {
    size_t operand = index + 1;
    if (shape.size() != rank)
      return ShapeResult::failure("input #" + std::to_string(operand) +
                                  " has rank " + std::to_string(shape.size()) +
                                  ", but input #0 has rank " +
                                  std::to_string(rank));
    for (auto [d, size] : llvm::enumerate(shape)) {
      int64_t &out = result.shape[d];
      if (static_cast<int64_t>(d) == dim) {
        if (isDynamic(out) || isDynamic(size))
          out = ShapedType::kDynamic;
        else if (llvm::AddOverflow(out, size, out))
          return ShapeResult::failure("concatenated size of dimension " +
                                      std::to_string(d) +
                                      " overflows a 64-bit count");
        continue;
      }
      if (isDynamic(size) || size == out)
        continue;
      if (isDynamic(out)) {
        out = size;
        continue;
      }
      return ShapeResult::failure(
          "input #" + std::to_string(operand) + " dimension " +
          std::to_string(d) + " has size " + std::to_string(size) +
          ", but the other inputs have size " + std::to_string(out));
    }
  }
  return result;
}

ShapeResult mlir::tensor_program::padShape(ArrayRef<int64_t> input,
                                           ArrayRef<int64_t> low,
                                           ArrayRef<int64_t> high) {
  if (low.size() != input.size() || high.size() != input.size())
    return ShapeResult::failure("low and high need one entry per dimension (" +
                                std::to_string(input.size()) + "), got " +
                                std::to_string(low.size()) + " and " +
                                std::to_string(high.size()));
  ShapeResult result;
  for (auto [dim, size] : llvm::enumerate(input)) {
    if (low[dim] < 0 || high[dim] < 0)
      return ShapeResult::failure("padding of dimension " +
                                  std::to_string(dim) +
                                  " must be non-negative");
    int64_t padded = size;
    if (!isDynamic(size) && (llvm::AddOverflow(padded, low[dim], padded) ||
                             llvm::AddOverflow(padded, high[dim], padded)))
      return ShapeResult::failure("padded size of dimension " +
                                  std::to_string(dim) +
                                  " overflows a 64-bit count");
    result.shape.push_back(padded);
  }
  return result;
}

ShapeResult mlir::tensor_program::matmulShape(ArrayRef<int64_t> lhs,
                                              ArrayRef<int64_t> rhs) {
  if (lhs.size() < 2 || rhs.size() < 2)
    return ShapeResult::failure(
        "operands must have rank 2 or more, got ranks " +
        std::to_string(lhs.size()) + " and " + std::to_string(rhs.size()));
  int64_t k1 = lhs[lhs.size() - 1], k2 = rhs[rhs.size() - 2];
  if (!isDynamic(k1) && !isDynamic(k2) && k1 != k2)
    return ShapeResult::failure("contracting dimension of the lhs has size " +
                                std::to_string(k1) + ", but the rhs has " +
                                std::to_string(k2));
  ShapeResult batch = broadcastShapes({lhs.drop_back(2), rhs.drop_back(2)});
  if (!batch.ok())
    return ShapeResult::failure("batch dimensions: " + batch.error);
  batch.shape.push_back(lhs[lhs.size() - 2]);
  batch.shape.push_back(rhs[rhs.size() - 1]);
  return batch;
}

/// The number of windows along one dimension, or kDynamic.
static int64_t windowCount(int64_t size, int64_t window, int64_t stride,
                           int64_t dilation, int64_t padding) {
  if (isDynamic(size))
    return ShapedType::kDynamic;
  int64_t span = dilation * (window - 1) + 1;
  int64_t available = size + padding;
  if (available < span)
    return 0;
  return (available - span) / stride + 1;
}

static std::string checkWindowAttrs(size_t k, ArrayRef<int64_t> window,
                                    ArrayRef<int64_t> stride,
                                    ArrayRef<int64_t> dilation,
                                    ArrayRef<int64_t> low,
                                    ArrayRef<int64_t> high) {
  auto count = [&](ArrayRef<int64_t> values, StringRef name) -> std::string {
    if (values.size() != k)
      return (name + " has " + Twine(values.size()) + " entries, expected " +
              Twine(k) + " (one per window dimension)")
          .str();
    return {};
  };
  for (auto [values, name] :
       {std::pair{window, "window"}, std::pair{stride, "stride"},
        std::pair{dilation, "dilation"}, std::pair{low, "padding_low"},
        std::pair{high, "padding_high"}}) {
    std::string error = count(values, name);
    if (!error.empty())
      return error;
  }
  for (size_t i = 0; i < k; ++i) {
    if (window[i] < 1 || stride[i] < 1 || dilation[i] < 1)
      return "window, stride and dilation must be positive";
    if (low[i] < 0 || high[i] < 0)
      return "padding must be non-negative";
  }
  return {};
}

ShapeResult mlir::tensor_program::convolutionShape(ArrayRef<int64_t> input,
                                                   ArrayRef<int64_t> weight,
                                                   ArrayRef<int64_t> stride,
                                                   ArrayRef<int64_t> dilation,
                                                   int64_t groups) {
  if (input.size() < 3)
    return ShapeResult::failure("input must have rank 3 or more ([N, C, "
                                "spatial...]), got rank " +
                                std::to_string(input.size()));
  if (weight.size() != input.size())
    return ShapeResult::failure(
        "weight has rank " + std::to_string(weight.size()) +
        ", but the input has rank " + std::to_string(input.size()));
  size_t k = input.size() - 2;
  if (stride.size() != k || dilation.size() != k)
    return ShapeResult::failure("stride and dilation need " +
                                std::to_string(k) +
                                " entries (one per spatial dimension)");
  for (size_t i = 0; i < k; ++i)
    if (stride[i] < 1 || dilation[i] < 1)
      return ShapeResult::failure("stride and dilation must be positive");
  if (groups < 1)
    return ShapeResult::failure("groups must be positive");
  int64_t channels = input[1], filters = weight[0];
  if (!isDynamic(channels) && !isDynamic(weight[1]) &&
      channels != weight[1] * groups)
    return ShapeResult::failure(
        "input has " + std::to_string(channels) +
        " channels, but the weight expects " + std::to_string(weight[1]) +
        " x " + std::to_string(groups) + " groups");
  if (!isDynamic(filters) && filters % groups != 0)
    return ShapeResult::failure("weight has " + std::to_string(filters) +
                                " filters, not a multiple of " +
                                std::to_string(groups) + " groups");
  ShapeResult result;
  result.shape = {input[0], filters};
  for (size_t i = 0; i < k; ++i) {
    int64_t window = weight[2 + i];
    result.shape.push_back(
        isDynamic(window)
            ? ShapedType::kDynamic
            : windowCount(input[2 + i], window, stride[i], dilation[i], 0));
  }
  return result;
}

ShapeResult mlir::tensor_program::poolShape(
    ArrayRef<int64_t> input, ArrayRef<int64_t> window, ArrayRef<int64_t> stride,
    ArrayRef<int64_t> dilation, ArrayRef<int64_t> low, ArrayRef<int64_t> high) {
  size_t k = window.size();
  if (k == 0 || input.size() < k)
    return ShapeResult::failure("a window of " + std::to_string(k) +
                                " dimensions needs an input of rank " +
                                std::to_string(std::max<size_t>(k, 1)) +
                                " or more, got rank " +
                                std::to_string(input.size()));
  std::string error = checkWindowAttrs(k, window, stride, dilation, low, high);
  if (!error.empty())
    return ShapeResult::failure(error);
  ShapeResult result;
  size_t lead = input.size() - k;
  result.shape.assign(input.begin(), input.begin() + lead);
  for (size_t i = 0; i < k; ++i)
    result.shape.push_back(windowCount(input[lead + i], window[i], stride[i],
                                       dilation[i], low[i] + high[i]));
  return result;
}

ShapeResult mlir::tensor_program::takeShape(ArrayRef<int64_t> input,
                                            ArrayRef<int64_t> index,
                                            int64_t dim) {
  if (dim < 0 || dim >= static_cast<int64_t>(input.size()))
    return ShapeResult::failure("dimension " + std::to_string(dim) +
                                " is out of range [0, " +
                                std::to_string(input.size()) + ")");
  ShapeResult result;
  result.shape.assign(input.begin(), input.begin() + dim);
  result.shape.append(index.begin(), index.end());
  result.shape.append(input.begin() + dim + 1, input.end());
  return result;
}

std::optional<int64_t>
mlir::tensor_program::getNumElements(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t size : shape) {
    if (isDynamic(size) || size < 0 || llvm::MulOverflow(count, size, count))
      return std::nullopt;
  }
  return count;
}
