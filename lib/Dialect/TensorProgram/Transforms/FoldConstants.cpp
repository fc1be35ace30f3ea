//===- FoldConstants.cpp - freezing of constant subgraphs -----------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --tensor-program-fold-constants over the dialect's evaluation
// helper (ConstantEvaluation.h), not the reference interpreter: the
// interpreter stays the integration tests' independent oracle, so a folding
// mistake shows up as a difference between compiled and interpreted runs.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h"

#include "Wrapper/Dialect/TensorProgram/IR/ConstantEvaluation.h"
#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cstring>
#include <limits>

namespace mlir {
namespace tensor_program {
#define GEN_PASS_DEF_TENSORPROGRAMFOLDCONSTANTSPASS
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h.inc"
} // namespace tensor_program
} // namespace mlir

using namespace mlir;
namespace tp = mlir::tensor_program;

/// Reshapes, permutations and flips of dense constants move bytes: done on
/// the raw data (element-by-element evaluation costs seconds on a model's
/// weights). Null when `op` is not such an op or its input is not a plain dense
/// attribute of byte-sized elements.
static DenseElementsAttr foldLayout(Operation *op) {
  if (!isa<tp::ReshapeOp, tp::PermuteOp, tp::FlipOp>(op) ||
      op->getNumOperands() < 1)
    return {};
  auto constant = op->getOperand(0).getDefiningOp<tp::ConstantOp>();
  auto dense = constant ? dyn_cast<DenseElementsAttr>(constant.getValue())
                        : DenseElementsAttr();
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!dense || !type || !type.hasStaticShape())
    return {};
  Type element = type.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return {};
  if (isa<tp::ReshapeOp>(op))
    return dense.reshape(type);
  if (dense.isSplat())
    return DenseElementsAttr::get(type, dense.getSplatValue<Attribute>());
  ArrayRef<int64_t> inShape = dense.getType().getShape();
  ArrayRef<int64_t> outShape = type.getShape();
  int64_t rank = outShape.size();
  // A flip keeps the dimensions in place and walks the flipped ones
  // backwards from their last element.
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  SmallVector<bool> flipped(rank, false);
  if (auto permute = dyn_cast<tp::PermuteOp>(op))
    perm = llvm::to_vector(permute.getPermutation());
  else
    for (int64_t d : cast<tp::FlipOp>(op).getDims())
      flipped[d] = true;
  size_t bytes = element.getIntOrFloatBitWidth() / 8;
  ArrayRef<char> raw = dense.getRawData();
  // Input strides (elements), then the stride of each output dimension.
  SmallVector<int64_t> inStrides(rank, 1), stride(rank);
  for (int64_t d = rank - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * inShape[d + 1];
  int64_t source = 0;
  for (int64_t d = 0; d < rank; ++d) {
    stride[d] = flipped[d] ? -inStrides[d] : inStrides[perm[d]];
    if (flipped[d])
      source += (inShape[d] - 1) * inStrides[d];
  }
  std::vector<char> out(type.getNumElements() * bytes);
  SmallVector<int64_t> index(rank, 0);
  for (int64_t flat = 0, n = type.getNumElements(); flat < n; ++flat) {
    std::memcpy(out.data() + flat * bytes, raw.data() + source * bytes, bytes);
    for (int64_t d = rank - 1; d >= 0; --d) {
      source += stride[d];
      if (++index[d] < outShape[d])
        break;
      source -= stride[d] * outShape[d];
      index[d] = 0;
    }
  }
  return DenseElementsAttr::getFromRawBuffer(type, out);
}

/// The number of values `c` along the channel dimension (1) of a
/// convolution result of rank `rank` with `filters` channels that the
/// constant `value` holds when it varies at most along that dimension
/// (every other dimension, aligned to the right, is 1): 1 or `filters`;
/// nullopt otherwise.
static std::optional<int64_t> perChannelSize(Value value, int64_t rank,
                                             int64_t filters) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || type.getRank() > rank)
    return std::nullopt;
  int64_t channels = 1;
  for (auto [i, size] : llvm::enumerate(type.getShape())) {
    int64_t dim = rank - type.getRank() + static_cast<int64_t>(i);
    if (dim == 1 && (size == filters || size == 1))
      channels = size;
    else if (size != 1)
      return std::nullopt;
  }
  return channels;
}

/// Inference batch norm folded into the convolution before it: `conv * s`
/// and `conv + t` with constant per-channel `s`, `t` (what batch_norm in
/// eval mode decomposes into) and a constant weight become one convolution
/// with weight `w * s` and bias `b * s + t`, as tensor_program ops on
/// constants that the folding then evaluates. Returns whether it rewrote.
static bool foldIntoConvolution(Operation *op) {
  if (!isa<tp::MulOp, tp::AddOp>(op) || op->getNumOperands() != 2)
    return false;
  bool scale = isa<tp::MulOp>(op);
  for (int side = 0; side < 2; ++side) {
    auto conv = op->getOperand(side).getDefiningOp<tp::ConvolutionOp>();
    Value constant = op->getOperand(1 - side);
    if (!conv || !conv->hasOneUse() ||
        !constant.getDefiningOp<tp::ConstantOp>() ||
        !conv.getWeight().getDefiningOp<tp::ConstantOp>() ||
        (conv.getBias() && !conv.getBias().getDefiningOp<tp::ConstantOp>()) ||
        op->getResult(0).getType() != conv.getType())
      continue;
    RankedTensorType type = conv.getType();
    auto weightType = cast<RankedTensorType>(conv.getWeight().getType());
    Type element = type.getElementType();
    if (getElementTypeOrSelf(constant.getType()) != element ||
        !weightType.hasStaticShape())
      continue;
    int64_t filters = weightType.getDimSize(0);
    std::optional<int64_t> channels =
        perChannelSize(constant, type.getRank(), filters);
    if (!channels)
      continue;
    OpBuilder b(conv);
    Location loc = op->getLoc();
    // The constant as [c] (for the bias) and as [c, 1, ...] (for the
    // weight).
    auto asBias = tp::ReshapeOp::create(
        b, loc, RankedTensorType::get({*channels}, element), constant,
        ValueRange{});
    SmallVector<int64_t> weightShape(weightType.getRank(), 1);
    weightShape[0] = *channels;
    Value weight = conv.getWeight(), bias = conv.getBias();
    if (scale) {
      auto asWeight = tp::ReshapeOp::create(
          b, loc, RankedTensorType::get(weightShape, element), constant,
          ValueRange{});
      weight = tp::MulOp::create(b, loc, weightType, weight, asWeight);
      if (bias)
        bias = tp::MulOp::create(b, loc, bias.getType(), bias, asBias);
    } else {
      auto biasType = RankedTensorType::get({filters}, element);
      if (!bias)
        bias = tp::ConstantOp::create(
            b, loc, DenseElementsAttr::get(biasType, b.getZeroAttr(element)));
      bias = tp::AddOp::create(b, loc, biasType, bias, asBias);
    }
    auto folded = tp::ConvolutionOp::create(
        b, loc, type, conv.getInput(), weight, bias, conv.getStrideAttr(),
        conv.getDilationAttr(), conv.getGroupsAttr());
    op->getResult(0).replaceAllUsesWith(folded.getResult());
    op->erase();
    conv->erase();
    return true;
  }
  return false;
}

namespace {
struct TensorProgramFoldConstantsPass
    : public tp::impl::TensorProgramFoldConstantsPassBase<
          TensorProgramFoldConstantsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    int64_t folded = 0, normalizations = 0;
    foldConstants(func, folded);
    // Batch norms into the convolutions before them, whose new weights and
    // biases (ops on constants) are folded in turn.
    bool changed = true;
    while (changed) {
      changed = false;
      SmallVector<Operation *> ops;
      func.walk([&](Operation *op) {
        if (op->getParentOp() == func && isa<tp::MulOp, tp::AddOp>(op))
          ops.push_back(op);
      });
      for (Operation *op : ops)
        if (foldIntoConvolution(op)) {
          ++normalizations;
          changed = true;
        }
      if (changed)
        foldConstants(func, folded);
    }
    // Constants nothing uses any more.
    for (auto constant :
         llvm::make_early_inc_range(func.getOps<tp::ConstantOp>()))
      if (constant->use_empty())
        constant->erase();
    if (report)
      emitRemark(func.getLoc())
          << "tensor-program-fold-constants: folded " << folded << " ops, "
          << normalizations << " scales and shifts into convolutions";
  }

  /// One pass over the function's ops in order: every op whose operands
  /// are all constants is replaced by its value.
  void foldConstants(func::FuncOp func, int64_t &folded) {
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      if (op->getParentOp() == func)
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      if (!isFoldable(op))
        continue;
      // Every operand must be a constant before any is read (reading a
      // large weight costs time; most ops next to one are not foldable).
      if (!llvm::all_of(op->getOperands(), [](Value operand) {
            return isa_and_nonnull<tp::ConstantOp>(operand.getDefiningOp());
          }))
        continue;
      if (DenseElementsAttr moved = foldLayout(op)) {
        OpBuilder b(op);
        auto constant = tp::ConstantOp::create(b, op->getLoc(), moved);
        op->getResult(0).replaceAllUsesWith(constant.getResult());
        op->erase();
        ++folded;
        continue;
      }
      SmallVector<DenseElementsAttr> operands;
      for (Value operand : op->getOperands())
        operands.push_back(dyn_cast<DenseElementsAttr>(
            operand.getDefiningOp<tp::ConstantOp>().getValue()));
      FailureOr<SmallVector<DenseElementsAttr>> results =
          tp::evaluateConstantOp(op, operands);
      if (failed(results))
        continue; // Not evaluable here: it stays and is compiled.
      OpBuilder b(op);
      SmallVector<Value> replacements;
      for (DenseElementsAttr value : *results)
        replacements.push_back(tp::ConstantOp::create(b, op->getLoc(), value));
      op->replaceAllUsesWith(replacements);
      op->erase();
      ++folded;
    }
  }

  /// Whether `op` may be replaced by its value. Reshapes and permutations
  /// never make weights larger and are folded at any size, on the raw
  /// bytes (foldLayout): the transpose of a linear layer's 100M-element
  /// weight would otherwise run on every call.
  bool isFoldable(Operation *op) {
    if (isa<tp::ReshapeOp, tp::PermuteOp, tp::FlipOp>(op))
      return tp::canPrecomputeOp(op, std::numeric_limits<int64_t>::max());
    return tp::canPrecomputeOp(op, maxElements);
  }
};
} // namespace
