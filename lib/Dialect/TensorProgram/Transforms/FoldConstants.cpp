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

namespace mlir {
namespace tensor_program {
#define GEN_PASS_DEF_TENSORPROGRAMFOLDCONSTANTSPASS
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h.inc"
} // namespace tensor_program
} // namespace mlir

using namespace mlir;
namespace tp = mlir::tensor_program;

/// Reshapes and permutations of dense constants move bytes: done on the raw
/// data (element-by-element evaluation costs seconds on a model's weights).
/// Null when `op` is not such an op or its input is not a plain dense attribute
/// of byte-sized elements.
static DenseElementsAttr foldLayout(Operation *op) {
  if (!isa<tp::ReshapeOp, tp::PermuteOp>(op) || op->getNumOperands() < 1)
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
  auto permute = cast<tp::PermuteOp>(op);
  ArrayRef<int64_t> perm = permute.getPermutation();
  ArrayRef<int64_t> inShape = dense.getType().getShape();
  ArrayRef<int64_t> outShape = type.getShape();
  int64_t rank = outShape.size();
  size_t bytes = element.getIntOrFloatBitWidth() / 8;
  ArrayRef<char> raw = dense.getRawData();
  // Input strides (elements), then the stride of each output dimension.
  SmallVector<int64_t> inStrides(rank, 1), stride(rank);
  for (int64_t d = rank - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * inShape[d + 1];
  for (int64_t d = 0; d < rank; ++d)
    stride[d] = inStrides[perm[d]];
  std::vector<char> out(type.getNumElements() * bytes);
  SmallVector<int64_t> index(rank, 0);
  int64_t source = 0;
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

namespace {
struct TensorProgramFoldConstantsPass
    : public tp::impl::TensorProgramFoldConstantsPassBase<
          TensorProgramFoldConstantsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    int64_t folded = 0;
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
    // Constants nothing uses any more.
    for (auto constant :
         llvm::make_early_inc_range(func.getOps<tp::ConstantOp>()))
      if (constant->use_empty())
        constant->erase();
    if (report)
      emitRemark(func.getLoc())
          << "tensor-program-fold-constants: folded " << folded << " ops";
  }

  /// Whether `op` may be replaced by its value.
  bool isFoldable(Operation *op) {
    if (!tp::canEvaluateConstantOp(op))
      return false;
    for (Type type : op->getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || !tensor.hasStaticShape() ||
          tensor.getNumElements() > maxElements)
        return false;
    }
    return true;
  }
};
} // namespace
