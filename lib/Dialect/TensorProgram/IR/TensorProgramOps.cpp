//===- TensorProgramOps.cpp - tensor_program operations -------------------===//
//
// Part of the Wrapper project.
//
// Result type inference and verification. Shape rules live in
// ShapeInference.cpp; folders and canonicalizations in
// TensorProgramOpFolders.cpp; the generators, indexing ops, convolution and
// pooling in TensorProgramIndexingOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"
#include "OpVerification.h"
#include "Wrapper/Dialect/TensorProgram/IR/ShapeInference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::tensor_program;

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramDialect.cpp.inc"
#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramEnums.cpp.inc"

void TensorProgramDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.cpp.inc"
      >();
}

Operation *TensorProgramDialect::materializeConstant(OpBuilder &builder,
                                                     Attribute value, Type type,
                                                     Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type || !isa<RankedTensorType>(type))
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

bool mlir::tensor_program::isSizeComputation(Operation *op) {
  if (isa<tensor::DimOp, arith::ConstantIndexOp>(op))
    return true;
  return op->getNumResults() == 1 && op->getNumOperands() == 2 &&
         op->getResult(0).getType().isIndex() &&
         isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivSIOp,
             arith::DivUIOp, arith::FloorDivSIOp, arith::CeilDivSIOp,
             arith::RemSIOp, arith::RemUIOp, arith::MinSIOp, arith::MaxSIOp>(
             op);
}

ReshapeOp mlir::tensor_program::getLoneReshape(FusedOp fused) {
  Block &region = fused.getBody().front();
  ReshapeOp reshape;
  for (Operation &op : region.without_terminator()) {
    if (isSizeComputation(&op))
      continue;
    if (reshape || !isa<ReshapeOp>(op))
      return {};
    reshape = cast<ReshapeOp>(op);
  }
  if (!reshape || !isa<BlockArgument>(reshape.getInput()) ||
      fused.getNumResults() != 1 ||
      region.getTerminator()->getOperand(0) != reshape.getResult())
    return {};
  return reshape;
}

bool mlir::tensor_program::mayViewInput(Operation *op) {
  if (isa<ReshapeOp>(op))
    return true;
  auto fused = dyn_cast<FusedOp>(op);
  return fused && getLoneReshape(fused);
}

void mlir::tensor_program::collectStorageReaders(
    Value value, SmallVectorImpl<Operation *> &readers) {
  SmallVector<Value> worklist = {value};
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    for (Operation *user : current.getUsers()) {
      if (isa<tensor::DimOp>(user) || !seen.insert(user).second)
        continue;
      readers.push_back(user);
      if (mayViewInput(user))
        llvm::append_range(worklist, user->getResults());
    }
  }
}

using namespace mlir::tensor_program::detail;

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

#define TP_INFER_BINARY(OP)                                                    \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &results) {                                        \
    FailureOr<Type> element =                                                  \
        commonElementType<OP>(loc, adaptor.getOperands());                     \
    if (failed(element))                                                       \
      return failure();                                                        \
    return inferBroadcast<OP>(loc, adaptor.getOperands(), *element, results);  \
  }
TP_INFER_BINARY(AddOp)
TP_INFER_BINARY(SubOp)
TP_INFER_BINARY(MulOp)
TP_INFER_BINARY(DivOp)
TP_INFER_BINARY(MaxOp)
TP_INFER_BINARY(MinOp)
TP_INFER_BINARY(PowOp)
TP_INFER_BINARY(AndOp)
TP_INFER_BINARY(OrOp)
TP_INFER_BINARY(XorOp)
TP_INFER_BINARY(FloorDivOp)
TP_INFER_BINARY(FmodOp)
TP_INFER_BINARY(RemainderOp)
TP_INFER_BINARY(Atan2Op)
#undef TP_INFER_BINARY

// Unary ops: SameOperandsAndResultType makes ODS generate the inference.

LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  FailureOr<Type> element = commonElementType<WhereOp>(
      loc, ValueRange{adaptor.getOnTrue(), adaptor.getOnFalse()},
      /*firstOperand=*/1);
  if (failed(element))
    return failure();
  return inferBroadcast<WhereOp>(loc, adaptor.getOperands(), *element, results);
}

LogicalResult CompareOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  if (failed(commonElementType<CompareOp>(loc, adaptor.getOperands())))
    return failure();
  return inferBroadcast<CompareOp>(loc, adaptor.getOperands(),
                                   IntegerType::get(context, 1), results);
}

LogicalResult CastOp::verify() {
  if (getInput().getType().getShape() != getType().getShape())
    return emitOpError() << "result shape " << formatShape(getType().getShape())
                         << " does not match input shape "
                         << formatShape(getInput().getType().getShape());
  return success();
}

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &results) {
  auto type = dyn_cast<RankedTensorType>(adaptor.getValue().getType());
  if (!type)
    return inferError<ConstantOp>(loc, "value must have a ranked tensor type");
  results.push_back(type);
  return success();
}

void ConstantOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "cst");
}

LogicalResult FullOp::verify() {
  if (failed(verifyDynamicSizes(*this, getType(), getDynamicSizes())))
    return failure();
  Type element = getType().getElementType();
  double value = getValue().convertToDouble();
  if (auto integer = dyn_cast<IntegerType>(element)) {
    bool exact = std::isfinite(value) && value == std::trunc(value);
    if (integer.getWidth() == 1)
      exact &= value == 0 || value == 1;
    else if (integer.getWidth() < 64)
      exact &= std::fabs(value) <= std::ldexp(1.0, integer.getWidth() - 1);
    if (!exact)
      return emitOpError() << "value " << value
                           << " is not exactly representable in " << element;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

template <typename OpTy>
static LogicalResult inferReduce(std::optional<Location> loc, Value input,
                                 ArrayRef<int64_t> dims, bool keepDim,
                                 Type element, SmallVectorImpl<Type> &results) {
  ShapeResult shape = reduceShape(tensorType(input).getShape(), dims, keepDim);
  if (!shape.ok())
    return inferError<OpTy>(loc, shape.error);
  results.push_back(RankedTensorType::get(shape.shape, element));
  return success();
}

#define TP_INFER_REDUCE(OP)                                                    \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &results) {                                        \
    return inferReduce<OP>(                                                    \
        loc, adaptor.getInput(), adaptor.getDims(), adaptor.getKeepdim(),      \
        tensorType(adaptor.getInput()).getElementType(), results);             \
  }
TP_INFER_REDUCE(ReduceSumOp)
TP_INFER_REDUCE(ReduceMeanOp)
TP_INFER_REDUCE(ReduceMaxOp)
TP_INFER_REDUCE(ReduceMinOp)
TP_INFER_REDUCE(ReduceProdOp)
#undef TP_INFER_REDUCE

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  int64_t dim = static_cast<int64_t>(adaptor.getDim());
  return inferReduce<ArgMaxOp>(loc, adaptor.getInput(), {dim},
                               adaptor.getKeepdim(),
                               IntegerType::get(context, 64), results);
}

//===----------------------------------------------------------------------===//
// Layout ops
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType inputType = getInput().getType();
  RankedTensorType resultType = getType();
  if (failed(verifyDynamicSizes(*this, resultType, getDynamicSizes())))
    return failure();
  if (inputType.getElementType() != resultType.getElementType())
    return emitOpError() << "result element type "
                         << resultType.getElementType()
                         << " does not match input element type "
                         << inputType.getElementType();
  if (llvm::any_of(resultType.getShape(), [](int64_t s) {
        return !ShapedType::isDynamic(s) && s < 0;
      }))
    return emitOpError() << "result sizes must be non-negative";
  std::optional<int64_t> in = getNumElements(inputType.getShape());
  std::optional<int64_t> out = getNumElements(resultType.getShape());
  if (in && out && *in != *out)
    return emitOpError() << "cannot reshape " << *in << " elements "
                         << formatShape(inputType.getShape()) << " into "
                         << *out << " elements "
                         << formatShape(resultType.getShape());
  return success();
}

LogicalResult PermuteOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  RankedTensorType input = tensorType(adaptor.getInput());
  ShapeResult shape = permuteShape(input.getShape(), adaptor.getPermutation());
  if (!shape.ok())
    return inferError<PermuteOp>(loc, shape.error);
  results.push_back(RankedTensorType::get(shape.shape, input.getElementType()));
  return success();
}

LogicalResult FlipOp::verify() {
  int64_t rank = getType().getRank();
  SmallVector<bool> seen(rank, false);
  for (int64_t dim : getDims()) {
    if (dim < 0 || dim >= rank)
      return emitOpError() << "dimension " << dim
                           << " is out of range for rank " << rank;
    if (seen[dim])
      return emitOpError() << "dimension " << dim << " is flipped twice";
    seen[dim] = true;
  }
  return success();
}

LogicalResult BroadcastOp::verify() {
  RankedTensorType inputType = getInput().getType();
  RankedTensorType resultType = getType();
  if (failed(verifyDynamicSizes(*this, resultType, getDynamicSizes())))
    return failure();
  if (inputType.getElementType() != resultType.getElementType())
    return emitOpError() << "result element type "
                         << resultType.getElementType()
                         << " does not match input element type "
                         << inputType.getElementType();
  ShapeResult shape =
      checkBroadcastTo(inputType.getShape(), resultType.getShape());
  if (!shape.ok())
    return emitOpError() << shape.error;
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  RankedTensorType input = tensorType(adaptor.getInput());
  ShapeResult shape =
      sliceShape(input.getShape(), static_cast<int64_t>(adaptor.getDim()),
                 static_cast<int64_t>(adaptor.getStart()),
                 static_cast<int64_t>(adaptor.getEnd()),
                 static_cast<int64_t>(adaptor.getStep()));
  if (!shape.ok())
    return inferError<SliceOp>(loc, shape.error);
  results.push_back(RankedTensorType::get(shape.shape, input.getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  if (adaptor.getInputs().empty())
    return inferError<ConcatOp>(loc, "needs at least one input");
  FailureOr<Type> element =
      commonElementType<ConcatOp>(loc, adaptor.getInputs());
  if (failed(element))
    return failure();
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value input : adaptor.getInputs())
    shapes.push_back(tensorType(input).getShape());
  ShapeResult shape =
      concatShape(shapes, static_cast<int64_t>(adaptor.getDim()));
  if (!shape.ok())
    return inferError<ConcatOp>(loc, shape.error);
  results.push_back(RankedTensorType::get(shape.shape, *element));
  return success();
}

bool ConcatOp::isCompatibleReturnTypes(TypeRange inferred, TypeRange actual) {
  if (inferred.size() != 1 || actual.size() != 1)
    return false;
  auto from = dyn_cast<RankedTensorType>(inferred.front());
  auto to = dyn_cast<RankedTensorType>(actual.front());
  if (!from || !to || from.getElementType() != to.getElementType() ||
      from.getRank() != to.getRank())
    return false;
  // Equal, or static where the inputs could not tell.
  for (auto [a, b] : llvm::zip(from.getShape(), to.getShape()))
    if (a != b && !ShapedType::isDynamic(a))
      return false;
  return true;
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  RankedTensorType input = tensorType(adaptor.getInput());
  ShapeResult shape =
      padShape(input.getShape(), adaptor.getLow(), adaptor.getHigh());
  if (!shape.ok())
    return inferError<PadOp>(loc, shape.error);
  results.push_back(RankedTensorType::get(shape.shape, input.getElementType()));
  return success();
}

LogicalResult AsStridedOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  RankedTensorType input = tensorType(adaptor.getInput());
  ArrayRef<int64_t> sizes = adaptor.getSizes();
  ArrayRef<int64_t> strides = adaptor.getStrides();
  int64_t offset = static_cast<int64_t>(adaptor.getOffset());
  if (sizes.size() != strides.size())
    return inferError<AsStridedOp>(loc, "has " + Twine(sizes.size()) +
                                            " sizes but " +
                                            Twine(strides.size()) + " strides");
  if (offset < 0 || llvm::any_of(sizes, [](int64_t s) { return s < 0; }) ||
      llvm::any_of(strides, [](int64_t s) { return s < 0; }))
    return inferError<AsStridedOp>(
        loc, "sizes, strides and offset must be non-negative");
  std::optional<int64_t> available = getNumElements(input.getShape());
  if (available && !llvm::is_contained(sizes, 0)) {
    int64_t reach = offset;
    bool overflow = false;
    for (auto [size, stride] : llvm::zip_equal(sizes, strides)) {
      int64_t term;
      overflow |= llvm::MulOverflow(size - 1, stride, term);
      overflow |= llvm::AddOverflow(reach, term, reach);
    }
    if (overflow || reach >= *available)
      return inferError<AsStridedOp>(
          loc,
          "reaches element " +
              (overflow ? std::string("beyond 2^63") : std::to_string(reach)) +
              ", but the input has " + Twine(*available) + " elements");
  }
  results.push_back(RankedTensorType::get(sizes, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  FailureOr<Type> element =
      commonElementType<MatmulOp>(loc, adaptor.getOperands());
  if (failed(element))
    return failure();
  ShapeResult shape = matmulShape(tensorType(adaptor.getLhs()).getShape(),
                                  tensorType(adaptor.getRhs()).getShape());
  if (!shape.ok())
    return inferError<MatmulOp>(loc, shape.error);
  results.push_back(RankedTensorType::get(shape.shape, *element));
  return success();
}

LogicalResult BatchMatmulOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &results) {
  FailureOr<Type> element =
      commonElementType<BatchMatmulOp>(loc, adaptor.getOperands());
  if (failed(element))
    return failure();
  ArrayRef<int64_t> lhs = tensorType(adaptor.getLhs()).getShape();
  ArrayRef<int64_t> rhs = tensorType(adaptor.getRhs()).getShape();
  if (lhs.size() != 3 || rhs.size() != 3)
    return inferError<BatchMatmulOp>(
        loc, "operands must have rank 3, got ranks " + Twine(lhs.size()) +
                 " and " + Twine(rhs.size()));
  if (!ShapedType::isDynamic(lhs[0]) && !ShapedType::isDynamic(rhs[0]) &&
      lhs[0] != rhs[0])
    return inferError<BatchMatmulOp>(
        loc, "batch sizes differ: " + Twine(lhs[0]) + " and " + Twine(rhs[0]));
  ShapeResult shape = matmulShape(lhs, rhs);
  if (!shape.ok())
    return inferError<BatchMatmulOp>(loc, shape.error);
  results.push_back(RankedTensorType::get(shape.shape, *element));
  return success();
}

LogicalResult LinearOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  FailureOr<Type> element =
      commonElementType<LinearOp>(loc, adaptor.getOperands());
  if (failed(element))
    return failure();
  ArrayRef<int64_t> input = tensorType(adaptor.getInput()).getShape();
  ArrayRef<int64_t> weight = tensorType(adaptor.getWeight()).getShape();
  if (input.empty())
    return inferError<LinearOp>(loc, "input must have rank 1 or more");
  if (weight.size() != 2)
    return inferError<LinearOp>(loc, "weight must have rank 2 ([out, in]), "
                                     "got rank " +
                                         Twine(weight.size()));
  int64_t k = input.back();
  if (!ShapedType::isDynamic(k) && !ShapedType::isDynamic(weight[1]) &&
      k != weight[1])
    return inferError<LinearOp>(loc, "input has " + Twine(k) +
                                         " features, but the weight expects " +
                                         Twine(weight[1]));
  if (Value bias = adaptor.getBias()) {
    ArrayRef<int64_t> b = tensorType(bias).getShape();
    if (b.size() != 1 ||
        (!ShapedType::isDynamic(b[0]) && !ShapedType::isDynamic(weight[0]) &&
         b[0] != weight[0]))
      return inferError<LinearOp>(loc, "bias shape " + formatShape(b) +
                                           " must be [" +
                                           formatSize(weight[0]) + "]");
  }
  SmallVector<int64_t> shape(input.drop_back());
  shape.push_back(weight[0]);
  results.push_back(RankedTensorType::get(shape, *element));
  return success();
}

//===----------------------------------------------------------------------===//
// Composites
//===----------------------------------------------------------------------===//

template <typename OpTy>
static LogicalResult inferSoftmaxLike(std::optional<Location> loc, Value input,
                                      int64_t dim,
                                      SmallVectorImpl<Type> &results) {
  RankedTensorType type = tensorType(input);
  if (dim < 0 || dim >= type.getRank())
    return inferError<OpTy>(loc, "dimension " + Twine(dim) +
                                     " is out of range [0, " +
                                     Twine(type.getRank()) + ")");
  results.push_back(type);
  return success();
}

LogicalResult SoftmaxOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  return inferSoftmaxLike<SoftmaxOp>(
      loc, adaptor.getInput(), static_cast<int64_t>(adaptor.getDim()), results);
}

LogicalResult LogSoftmaxOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  return inferSoftmaxLike<LogSoftmaxOp>(
      loc, adaptor.getInput(), static_cast<int64_t>(adaptor.getDim()), results);
}

/// Checks an optional affine parameter (weight, bias) of a normalization:
/// its shape must be `expected` and its element type the input's.
template <typename OpTy>
static LogicalResult
checkNormParameter(std::optional<Location> loc, Value param, StringRef name,
                   RankedTensorType input, ArrayRef<int64_t> expected) {
  if (!param)
    return success();
  RankedTensorType type = tensorType(param);
  if (type.getElementType() != input.getElementType())
    return inferError<OpTy>(loc, name + " element type " +
                                     typeString(type.getElementType()) +
                                     " does not match the input's " +
                                     typeString(input.getElementType()));
  bool compatible = type.getRank() == static_cast<int64_t>(expected.size());
  for (size_t i = 0; compatible && i < expected.size(); ++i)
    compatible = ShapedType::isDynamic(type.getDimSize(i)) ||
                 ShapedType::isDynamic(expected[i]) ||
                 type.getDimSize(i) == expected[i];
  if (!compatible)
    return inferError<OpTy>(loc, name + " shape " +
                                     formatShape(type.getShape()) +
                                     " does not match the normalized shape " +
                                     formatShape(expected));
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  RankedTensorType input = tensorType(adaptor.getInput());
  int64_t rank = static_cast<int64_t>(adaptor.getNormalizedRank());
  if (rank < 1 || rank > input.getRank())
    return inferError<LayerNormOp>(loc, "normalized_rank " + Twine(rank) +
                                            " must be in [1, " +
                                            Twine(input.getRank()) + "]");
  ArrayRef<int64_t> normalized = input.getShape().take_back(rank);
  if (failed(checkNormParameter<LayerNormOp>(loc, adaptor.getWeight(), "weight",
                                             input, normalized)) ||
      failed(checkNormParameter<LayerNormOp>(loc, adaptor.getBias(), "bias",
                                             input, normalized)))
    return failure();
  if (adaptor.getEps().convertToDouble() < 0)
    return inferError<LayerNormOp>(loc, "eps must be non-negative");
  results.push_back(input);
  return success();
}

LogicalResult RmsNormOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  RankedTensorType input = tensorType(adaptor.getInput());
  if (input.getRank() < 1)
    return inferError<RmsNormOp>(loc, "input must have rank 1 or more");
  if (failed(checkNormParameter<RmsNormOp>(loc, adaptor.getWeight(), "weight",
                                           input,
                                           input.getShape().take_back(1))))
    return failure();
  if (adaptor.getEps().convertToDouble() < 0)
    return inferError<RmsNormOp>(loc, "eps must be non-negative");
  results.push_back(input);
  return success();
}

// Extern and input mutation
//===----------------------------------------------------------------------===//

LogicalResult ExternOp::verify() {
  if (getCallee().empty())
    return emitOpError() << "callee name must not be empty";
  if (llvm::any_of(getCallee(), [](char c) { return isspace(c); }))
    return emitOpError() << "callee name '" << getCallee()
                         << "' must not contain whitespace";
  for (auto [index, input] : llvm::enumerate(getInputs()))
    if (!isa<RankedTensorType, IndexType, IntegerType, FloatType>(
            input.getType()))
      return emitOpError() << "input #" << index
                           << " must be a ranked tensor or a scalar, got "
                           << input.getType();
  if (std::optional<StringRef> schema = getSchema())
    if (!schema->contains("->"))
      return emitOpError() << "schema '" << *schema
                           << "' must have the form 'name(args) -> results'";
  return success();
}

LogicalResult CopyBackOp::verify() {
  auto arg = dyn_cast<BlockArgument>(getTarget());
  auto func = (*this)->getParentOfType<FunctionOpInterface>();
  if (!arg || !func || arg.getOwner() != &func.getFunctionBody().front())
    return emitOpError()
           << "target must be an argument of the enclosing function";
  for (Operation *user : getTarget().getUsers()) {
    auto other = dyn_cast<CopyBackOp>(user);
    if (!other || other == *this || other.getTarget() != getTarget())
      continue;
    if (other->getBlock() == (*this)->getBlock() &&
        other->isBeforeInBlock(*this)) {
      InFlightDiagnostic diag = emitOpError()
                                << "writes back argument #"
                                << arg.getArgNumber() << " a second time";
      diag.attachNote(other.getLoc()) << "first written back here";
      return diag;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// FusedOp
//===----------------------------------------------------------------------===//

void FusedOp::build(OpBuilder &builder, OperationState &state, FusionKind kind,
                    TypeRange resultTypes, ValueRange inputs) {
  state.addAttribute(getKindAttrName(state.name),
                     FusionKindAttr::get(builder.getContext(), kind));
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value input : inputs)
    block->addArgument(input.getType(), input.getLoc());
}

LogicalResult FusedOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "region has " << body.getNumArguments()
                         << " arguments, but the op has " << getInputs().size()
                         << " inputs";
  for (auto [index, pair] : llvm::enumerate(
           llvm::zip_equal(body.getArgumentTypes(), getInputs().getTypes())))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emitOpError() << "region argument #" << index << " has type "
                           << std::get<0>(pair) << ", but input #" << index
                           << " has type " << std::get<1>(pair);
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError() << "region must end in 'tensor_program.yield'";
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError() << "yields " << yield.getValues().getTypes()
                         << ", but the op returns " << getResultTypes();

  unsigned reductions = 0, contractions = 0;
  for (Operation &op : body.without_terminator()) {
    if (isa<ConstantOp, arith::ConstantOp>(op) || isSizeComputation(&op))
      continue;
    if (op.getDialect() != (*this)->getDialect())
      return op.emitOpError() << "is not allowed in a fused region";
    if (isa<FusedOp, ExternOp, CopyBackOp>(op))
      return op.emitOpError() << "is not allowed in a fused region";
    if (isComposite(&op) && !isContraction(&op))
      return op.emitOpError() << "is a composite; decompose it before fusion";
    reductions += isReduction(&op);
    contractions += isContraction(&op);
  }
  switch (getKind()) {
  case FusionKind::pointwise:
    if (reductions || contractions)
      return emitOpError() << "of kind 'pointwise' may only contain "
                              "elementwise and layout ops";
    break;
  case FusionKind::reduction:
    if (!reductions)
      return emitOpError() << "of kind 'reduction' must contain a reduction";
    if (contractions)
      return emitOpError()
             << "of kind 'reduction' cannot contain a matrix product";
    break;
  case FusionKind::matmul:
    if (contractions != 1)
      return emitOpError() << "of kind 'matmul' must contain exactly one "
                              "matrix product, found "
                           << contractions;
    if (reductions)
      return emitOpError() << "of kind 'matmul' cannot contain a reduction";
    break;
  }
  return success();
}

#define GET_OP_CLASSES
#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.cpp.inc"
