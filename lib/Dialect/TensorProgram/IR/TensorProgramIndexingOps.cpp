//===- TensorProgramIndexingOps.cpp - generators, indexing, convolution ---===//
//
// Part of the Wrapper project.
//
// Verification and result type inference of the generators (iota, cumsum),
// the indexing ops (dynamic_slice, slice_scatter, take, gather, scatter),
// convolution and pooling. The other ops are in TensorProgramOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "OpVerification.h"
#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::tensor_program;
using namespace mlir::tensor_program::detail;

//===----------------------------------------------------------------------===//
// Generators, scans, indexing
//===----------------------------------------------------------------------===//

/// Checks that `dim` indexes a dimension of a tensor of `rank`.
static LogicalResult verifyDim(Operation *op, int64_t dim, int64_t rank,
                               StringRef what = "dim") {
  if (dim < 0 || dim >= rank)
    return op->emitOpError()
           << what << " " << dim << " is out of range [0, " << rank << ")";
  return success();
}

/// Whether two sizes may be equal (equal, or one dynamic).
static bool compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Checks `actual` against the shape the op computes.
static LogicalResult verifyShape(Operation *op, ArrayRef<int64_t> expected,
                                 RankedTensorType actual) {
  if (expected.size() != static_cast<size_t>(actual.getRank()))
    return op->emitOpError()
           << "result has rank " << actual.getRank() << ", expected "
           << expected.size() << " (" << formatShape(expected) << ")";
  for (auto [d, pair] : llvm::enumerate(llvm::zip(expected, actual.getShape())))
    if (!compatible(std::get<0>(pair), std::get<1>(pair)))
      return op->emitOpError()
             << "result dimension " << d << " is " << std::get<1>(pair)
             << ", expected " << formatSize(std::get<0>(pair)) << " ("
             << formatShape(expected) << ")";
  return success();
}

LogicalResult IotaOp::verify() {
  if (failed(verifyDynamicSizes(*this, getType(), getDynamicSizes())))
    return failure();
  return verifyDim(*this, static_cast<int64_t>(getDim()), getType().getRank());
}

LogicalResult UniformOp::verify() {
  return verifyDynamicSizes(*this, getType(), getDynamicSizes());
}

LogicalResult CumsumOp::verify() {
  return verifyDim(*this, static_cast<int64_t>(getDim()),
                   getInput().getType().getRank());
}

LogicalResult DynamicSliceOp::verify() {
  RankedTensorType input = getInput().getType(), result = getType();
  int64_t dim = static_cast<int64_t>(getDim());
  if (failed(verifyDim(*this, dim, input.getRank())))
    return failure();
  if (getStep() < 1)
    return emitOpError() << "step must be positive, got " << getStep();
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "result element type " << result.getElementType()
                         << " differs from the input's "
                         << input.getElementType();
  SmallVector<int64_t> expected(input.getShape());
  expected[dim] = ShapedType::kDynamic;
  return verifyShape(*this, expected, result);
}

LogicalResult SliceScatterOp::verify() {
  RankedTensorType input = getInput().getType(), src = getSrc().getType();
  int64_t dim = static_cast<int64_t>(getDim());
  if (failed(verifyDim(*this, dim, input.getRank())))
    return failure();
  if (src.getElementType() != input.getElementType() || getType() != input)
    return emitOpError() << "the source, the input and the result must "
                            "share an element type, and the result has the "
                            "input's type";
  if (input.isDynamicDim(dim))
    return emitOpError() << "dimension " << dim
                         << " of the input must be static";
  int64_t size = input.getDimSize(dim);
  int64_t start = getStart(), end = getEnd(), step = getStep();
  if (step < 1 || start < 0 || end < start || end > size)
    return emitOpError() << "needs 0 <= start <= end <= " << size
                         << " and a positive step, got start " << start
                         << " end " << end << " step " << step;
  ShapeResult slice = sliceShape(input.getShape(), dim, start, end, step);
  if (src.getRank() != input.getRank())
    return emitOpError() << "source has rank " << src.getRank()
                         << ", but the input has rank " << input.getRank();
  for (auto [d, pair] : llvm::enumerate(llvm::zip(slice.shape, src.getShape())))
    if (!compatible(std::get<0>(pair), std::get<1>(pair)))
      return emitOpError() << "source dimension " << d << " is "
                           << formatSize(std::get<1>(pair))
                           << ", but the slice has "
                           << formatSize(std::get<0>(pair));
  return success();
}

LogicalResult TakeOp::verify() {
  RankedTensorType input = getInput().getType();
  int64_t dim = static_cast<int64_t>(getDim());
  if (failed(verifyDim(*this, dim, input.getRank())))
    return failure();
  if (input.getElementType() != getType().getElementType())
    return emitOpError() << "result element type " << getType().getElementType()
                         << " differs from the input's "
                         << input.getElementType();
  ShapeResult shape =
      takeShape(input.getShape(), getIndex().getType().getShape(), dim);
  return verifyShape(*this, shape.shape, getType());
}

LogicalResult GatherOp::verify() {
  RankedTensorType input = getInput().getType(), index = getIndex().getType();
  int64_t dim = static_cast<int64_t>(getDim());
  if (failed(verifyDim(*this, dim, input.getRank())))
    return failure();
  if (index.getRank() != input.getRank())
    return emitOpError() << "index has rank " << index.getRank()
                         << ", but the input has rank " << input.getRank();
  for (int64_t d = 0; d < input.getRank(); ++d)
    if (d != dim && !index.isDynamicDim(d) && !input.isDynamicDim(d) &&
        index.getDimSize(d) > input.getDimSize(d))
      return emitOpError() << "index dimension " << d << " has size "
                           << index.getDimSize(d)
                           << ", larger than the input's "
                           << input.getDimSize(d);
  if (input.getElementType() != getType().getElementType())
    return emitOpError() << "result element type " << getType().getElementType()
                         << " differs from the input's "
                         << input.getElementType();
  return verifyShape(*this, index.getShape(), getType());
}

LogicalResult ScatterOp::verify() {
  RankedTensorType input = getInput().getType(), index = getIndex().getType();
  RankedTensorType src = getSrc().getType();
  int64_t dim = static_cast<int64_t>(getDim());
  if (failed(verifyDim(*this, dim, input.getRank())))
    return failure();
  if (getType() != input)
    return emitOpError() << "result type " << getType()
                         << " differs from the input's " << input;
  if (src.getElementType() != input.getElementType())
    return emitOpError() << "source element type " << src.getElementType()
                         << " differs from the input's "
                         << input.getElementType();
  if (index.getRank() != input.getRank() || src.getRank() != input.getRank())
    return emitOpError() << "index and source need the input's rank ("
                         << input.getRank() << "), got " << index.getRank()
                         << " and " << src.getRank();
  for (int64_t d = 0; d < input.getRank(); ++d) {
    int64_t i = index.getDimSize(d);
    if (ShapedType::isDynamic(i))
      continue;
    if (!src.isDynamicDim(d) && i > src.getDimSize(d))
      return emitOpError() << "index dimension " << d << " has size " << i
                           << ", larger than the source's "
                           << src.getDimSize(d);
    if (d != dim && !input.isDynamicDim(d) && i > input.getDimSize(d))
      return emitOpError() << "index dimension " << d << " has size " << i
                           << ", larger than the input's "
                           << input.getDimSize(d);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

LogicalResult ConvolutionOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &results) {
  SmallVector<Value> operands = {adaptor.getInput(), adaptor.getWeight()};
  if (adaptor.getBias())
    operands.push_back(adaptor.getBias());
  FailureOr<Type> element = commonElementType<ConvolutionOp>(loc, operands);
  if (failed(element))
    return failure();
  ArrayRef<int64_t> weight = tensorType(adaptor.getWeight()).getShape();
  ShapeResult shape = convolutionShape(
      tensorType(adaptor.getInput()).getShape(), weight, adaptor.getStride(),
      adaptor.getDilation(), static_cast<int64_t>(adaptor.getGroups()));
  if (!shape.ok())
    return inferError<ConvolutionOp>(loc, shape.error);
  if (Value bias = adaptor.getBias()) {
    ArrayRef<int64_t> b = tensorType(bias).getShape();
    if (b.size() != 1 || !compatible(b[0], weight[0]))
      return inferError<ConvolutionOp>(
          loc, "bias must have one value per filter ([" +
                   formatSize(weight[0]) + "]), got " + formatShape(b));
  }
  results.push_back(RankedTensorType::get(shape.shape, *element));
  return success();
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  RankedTensorType input = tensorType(adaptor.getInput());
  ShapeResult shape = poolShape(
      input.getShape(), adaptor.getWindow(), adaptor.getStride(),
      adaptor.getDilation(), adaptor.getPaddingLow(), adaptor.getPaddingHigh());
  if (!shape.ok())
    return inferError<MaxPoolOp>(loc, shape.error);
  results.push_back(RankedTensorType::get(shape.shape, input.getElementType()));
  return success();
}

LogicalResult AvgPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  RankedTensorType input = tensorType(adaptor.getInput());
  size_t k = adaptor.getWindow().size();
  SmallVector<int64_t> ones(k, 1);
  ShapeResult shape =
      poolShape(input.getShape(), adaptor.getWindow(), adaptor.getStride(),
                ones, adaptor.getPaddingLow(), adaptor.getPaddingHigh());
  if (!shape.ok())
    return inferError<AvgPoolOp>(loc, shape.error);
  if (std::optional<ArrayRef<int64_t>> count = adaptor.getCountPadding()) {
    if (count->size() != k)
      return inferError<AvgPoolOp>(loc, "count_padding has " +
                                            Twine(count->size()) +
                                            " entries, expected " + Twine(k));
    if (llvm::any_of(*count, [](int64_t p) { return p < 0; }))
      return inferError<AvgPoolOp>(loc, "count_padding must be non-negative");
  }
  if (std::optional<uint64_t> divisor = adaptor.getDivisor())
    if (static_cast<int64_t>(*divisor) < 1)
      return inferError<AvgPoolOp>(loc, "divisor must be positive");
  results.push_back(RankedTensorType::get(shape.shape, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
