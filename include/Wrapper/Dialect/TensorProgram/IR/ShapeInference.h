//===- ShapeInference.h - tensor_program shape rules ------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
// The shape rules of the tensor_program ops as plain functions on shapes, so
// that verifiers, builders, lowering and tests share one definition. Each
// function returns the result shape or a message saying which operand or
// dimension is wrong. ShapedType::kDynamic marks a dynamic dimension.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_TENSORPROGRAM_IR_SHAPEINFERENCE_H
#define WRAPPER_DIALECT_TENSORPROGRAM_IR_SHAPEINFERENCE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir {
namespace tensor_program {

/// A result shape or the reason there is none.
struct ShapeResult {
  SmallVector<int64_t> shape;
  std::string error;
  bool ok() const { return error.empty(); }
  static ShapeResult failure(std::string message) {
    ShapeResult result;
    result.error = std::move(message);
    return result;
  }
};

/// NumPy broadcasting of several shapes, aligned at the trailing dimension.
/// A static size 1 stretches; a dynamic size meets a static size S != 1 as
/// S (the program is only valid when they agree at run time); two dynamic
/// sizes give a dynamic size.
ShapeResult broadcastShapes(ArrayRef<ArrayRef<int64_t>> shapes);

/// Whether `input` broadcasts to exactly `target` (as broadcast/expand does).
ShapeResult checkBroadcastTo(ArrayRef<int64_t> input, ArrayRef<int64_t> target);

/// The shape after reducing `dims` of `input`, removed or kept as size 1.
ShapeResult reduceShape(ArrayRef<int64_t> input, ArrayRef<int64_t> dims,
                        bool keepDim);

/// The shape of `input` permuted by `permutation`.
ShapeResult permuteShape(ArrayRef<int64_t> input,
                         ArrayRef<int64_t> permutation);

/// The shape of aten.slice(input, dim, start, end, step).
ShapeResult sliceShape(ArrayRef<int64_t> input, int64_t dim, int64_t start,
                       int64_t end, int64_t step);

/// The shape of concatenating `inputs` along `dim`.
ShapeResult concatShape(ArrayRef<ArrayRef<int64_t>> inputs, int64_t dim);

/// The shape of padding `input` by `low` and `high`.
ShapeResult padShape(ArrayRef<int64_t> input, ArrayRef<int64_t> low,
                     ArrayRef<int64_t> high);

/// The shape of torch.matmul for operands of rank >= 2.
ShapeResult matmulShape(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs);

/// The shape of a convolution without padding: input [N, C, D...], weight
/// [F, C / groups, K...] -> [N, F, O...].
ShapeResult convolutionShape(ArrayRef<int64_t> input, ArrayRef<int64_t> weight,
                             ArrayRef<int64_t> stride,
                             ArrayRef<int64_t> dilation, int64_t groups);

/// The shape of pooling the trailing `window.size()` dimensions of `input`
/// (padded by `low`/`high`) with windows of `window` elements spaced
/// `dilation` apart every `stride` elements.
ShapeResult poolShape(ArrayRef<int64_t> input, ArrayRef<int64_t> window,
                      ArrayRef<int64_t> stride, ArrayRef<int64_t> dilation,
                      ArrayRef<int64_t> low, ArrayRef<int64_t> high);

/// The shape of take: dimension `dim` of `input` replaced by `index`'s
/// dimensions.
ShapeResult takeShape(ArrayRef<int64_t> input, ArrayRef<int64_t> index,
                      int64_t dim);

/// The number of elements of a static shape, or nullopt when a dimension is
/// dynamic or the count overflows 63 bits.
std::optional<int64_t> getNumElements(ArrayRef<int64_t> shape);

/// Formats a size for messages: the number, or "?".
std::string formatSize(int64_t size);

} // namespace tensor_program
} // namespace mlir

#endif // WRAPPER_DIALECT_TENSORPROGRAM_IR_SHAPEINFERENCE_H
