//===- FoldConstants.cpp - freezing of constant subgraphs -----------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --tensor-program-fold-constants with the reference interpreter
// as the evaluator, so that folding computes exactly what the oracle of the
// integration tests computes.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"
#include "Wrapper/Interpreter/Interpreter.h"

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

/// The value of a constant op as a host tensor, or nullopt.
static std::optional<wrapper::HostTensor> constantValue(Operation *op,
                                                        std::string &error) {
  if (!isa_and_nonnull<tp::ConstantOp>(op))
    return std::nullopt;
  FailureOr<SmallVector<wrapper::HostTensor>> values =
      wrapper::evaluateOperation(op, {}, error);
  if (failed(values) || values->size() != 1)
    return std::nullopt;
  return values->front();
}

/// `tensor` as the elements attribute of `type`, or null.
static DenseElementsAttr toAttribute(const wrapper::HostTensor &tensor,
                                     RankedTensorType type) {
  Type element = type.getElementType();
  if (auto floatType = dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> values;
    values.reserve(tensor.values.size());
    for (double v : tensor.values) {
      APFloat value(v);
      bool lost = false;
      value.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                    &lost);
      values.push_back(value);
    }
    return DenseElementsAttr::get(type, values);
  }
  if (auto intType = dyn_cast<IntegerType>(element)) {
    SmallVector<APInt> values;
    values.reserve(tensor.values.size());
    for (double v : tensor.values)
      values.push_back(APInt(intType.getWidth(), static_cast<int64_t>(v),
                             /*isSigned=*/true, /*implicitTrunc=*/true));
    return DenseElementsAttr::get(type, values);
  }
  return {};
}

/// Reshapes and permutations of dense constants move bytes: done on the raw
/// data (the interpreter's element-by-element evaluation in double costs
/// seconds on a model's weights). Null when `op` is not such an op or its
/// input is not a plain dense attribute of byte-sized elements.
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
    std::memcpy(out.data() + flat * bytes, raw.data() + source * bytes,
                bytes);
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
    // Values of constants, computed once each.
    DenseMap<Operation *, wrapper::HostTensor> known;
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
      std::string error;
      SmallVector<wrapper::HostTensor> operands;
      bool allConstant = true;
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        auto it = def ? known.find(def) : known.end();
        if (it == known.end()) {
          std::optional<wrapper::HostTensor> value = constantValue(def, error);
          if (!value) {
            allConstant = false;
            break;
          }
          it = known.try_emplace(def, std::move(*value)).first;
        }
        operands.push_back(it->second);
      }
      if (!allConstant)
        continue;
      FailureOr<SmallVector<wrapper::HostTensor>> results =
          wrapper::evaluateOperation(op, operands, error);
      if (failed(results))
        continue; // Not evaluable here: it stays and is compiled.
      OpBuilder b(op);
      SmallVector<Value> replacements;
      for (auto [result, value] : llvm::zip(op->getResults(), *results)) {
        auto type = cast<RankedTensorType>(result.getType());
        DenseElementsAttr attr = toAttribute(value, type);
        if (!attr)
          break;
        auto constant = tp::ConstantOp::create(b, op->getLoc(), attr);
        known.try_emplace(constant, value);
        replacements.push_back(constant);
      }
      if (replacements.size() != op->getNumResults()) {
        for (Value v : replacements) {
          known.erase(v.getDefiningOp());
          v.getDefiningOp()->erase();
        }
        continue;
      }
      op->replaceAllUsesWith(replacements);
      op->erase();
      ++folded;
    }
    // Constants nothing uses any more.
    for (auto constant :
         llvm::make_early_inc_range(func.getOps<tp::ConstantOp>()))
      if (constant->use_empty()) {
        known.erase(constant);
        constant->erase();
      }
    if (report)
      emitRemark(func.getLoc())
          << "tensor-program-fold-constants: folded " << folded << " ops";
  }

  /// Whether `op` may be replaced by its value.
  bool isFoldable(Operation *op) {
    if (!isa<tp::TensorProgramDialect>(op->getDialect()) ||
        isa<tp::ConstantOp, tp::FusedOp, tp::ExternOp, tp::CopyBackOp,
            tp::YieldOp>(op) ||
        op->getNumRegions() != 0 || op->getNumResults() == 0)
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
