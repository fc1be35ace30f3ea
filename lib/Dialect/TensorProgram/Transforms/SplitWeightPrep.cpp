//===- SplitWeightPrep.cpp - weight computation into a prepare function ---===//
//
// Part of the Wrapper project.
//
// Implements --tensor-program-split-weight-prep: the ops of a function that
// depend only on its weight arguments (and constants) move into
// @F_prepare, whose results @F takes as arguments (swappable packages run
// the prepare function once per set of weights).
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h"

#include "Wrapper/Dialect/TensorProgram/IR/ConstantEvaluation.h"
#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace tensor_program {
#define GEN_PASS_DEF_TENSORPROGRAMSPLITWEIGHTPREPPASS
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h.inc"
} // namespace tensor_program
} // namespace mlir

using namespace mlir;
namespace tp = mlir::tensor_program;

namespace {
constexpr StringLiteral kWeight = "tensor_program.weight";
constexpr StringLiteral kPrepared = "tensor_program.prepared";

struct SplitWeightPrepPass
    : public tp::impl::TensorProgramSplitWeightPrepPassBase<
          SplitWeightPrepPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp func = findEntry(module);
    if (!func)
      return signalPassFailure();
    std::string name = (func.getSymName() + "_prepare").str();
    if (module.lookupSymbol(name)) {
      func.emitError("cannot split the weight computation: @")
          << name << " exists already";
      return signalPassFailure();
    }
    Block &body = func.getBody().front();

    // Values that depend only on weights: the weight arguments, the
    // results of movable ops whose operands are such values or constants
    // (at least one a weight value: constants alone are the folder's).
    llvm::SetVector<Value> weightValues;
    for (BlockArgument arg : body.getArguments())
      if (func.getArgAttr(arg.getArgNumber(), kWeight))
        weightValues.insert(arg);
    if (weightValues.empty())
      return;
    SmallVector<Operation *> moved;
    llvm::SetVector<Operation *> constants;
    for (Operation &op : body.without_terminator()) {
      if (!isMovable(&op))
        continue;
      bool fromWeights = false, onlyPrepared = true;
      for (Value operand : op.getOperands()) {
        if (weightValues.contains(operand))
          fromWeights = true;
        else if (!operand.getDefiningOp<tp::ConstantOp>())
          onlyPrepared = false;
      }
      if (!fromWeights || !onlyPrepared)
        continue;
      moved.push_back(&op);
      for (Value operand : op.getOperands())
        if (auto constant = operand.getDefiningOp<tp::ConstantOp>())
          constants.insert(constant);
      weightValues.insert(op.result_begin(), op.result_end());
    }
    if (moved.empty())
      return;

    // The results of moved ops that stay in use in @F, in order: the
    // prepare function's results.
    llvm::SetVector<Operation *> movedSet(moved.begin(), moved.end());
    SmallVector<Value> prepared;
    for (Operation *op : moved)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !movedSet.contains(user);
            }))
          prepared.push_back(result);
    // The weight arguments the moved ops read.
    SmallVector<BlockArgument> inputs;
    for (BlockArgument arg : body.getArguments())
      if (func.getArgAttr(arg.getArgNumber(), kWeight) &&
          llvm::any_of(arg.getUsers(), [&](Operation *user) {
            return movedSet.contains(user);
          }))
        inputs.push_back(arg);

    // @F_prepare: the moved ops and the constants they read, cloned.
    OpBuilder builder(module.getContext());
    builder.setInsertionPointAfter(func);
    SmallVector<Type> inputTypes, resultTypes;
    for (BlockArgument arg : inputs)
      inputTypes.push_back(arg.getType());
    for (Value value : prepared)
      resultTypes.push_back(value.getType());
    auto prepare =
        func::FuncOp::create(builder, func.getLoc(), name,
                             builder.getFunctionType(inputTypes, resultTypes));
    for (auto [i, arg] : llvm::enumerate(inputs))
      prepare.setArgAttrs(i, func.getArgAttrDict(arg.getArgNumber()));
    Block *entry = prepare.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    IRMapping mapping;
    for (auto [arg, clone] : llvm::zip(inputs, entry->getArguments()))
      mapping.map(arg, clone);
    for (Operation &op : body.without_terminator())
      if (constants.contains(&op) || movedSet.contains(&op))
        builder.clone(op, mapping);
    SmallVector<Value> returned;
    for (Value value : prepared)
      returned.push_back(mapping.lookup(value));
    func::ReturnOp::create(builder, func.getLoc(), returned);

    // @F: the prepared values as new arguments, the moved ops and the
    // weight arguments left unused gone.
    unsigned first = func.getNumArguments();
    for (auto [k, value] : llvm::enumerate(prepared)) {
      NamedAttrList attributes;
      attributes.set(kPrepared, builder.getI64IntegerAttr(k));
      if (failed(func.insertArgument(
              first + k, value.getType(),
              attributes.getDictionary(module.getContext()), value.getLoc())))
        return signalPassFailure();
      value.replaceAllUsesWith(body.getArgument(first + k));
    }
    for (Operation *op : llvm::reverse(moved))
      op->erase();
    for (Operation *constant : constants)
      if (constant->use_empty())
        constant->erase();
    llvm::BitVector unused(func.getNumArguments());
    for (BlockArgument arg : body.getArguments())
      if (func.getArgAttr(arg.getArgNumber(), kWeight) && arg.use_empty())
        unused.set(arg.getArgNumber());
    if (failed(func.eraseArguments(unused)))
      return signalPassFailure();
    numMoved += moved.size();
    numPrepared += prepared.size();
  }

  func::FuncOp findEntry(ModuleOp module) {
    if (!entry.empty()) {
      auto func = module.lookupSymbol<func::FuncOp>(entry);
      if (!func || func.isExternal())
        module.emitError("no function @") << entry << " with a body to split";
      return func && !func.isExternal() ? func : func::FuncOp();
    }
    func::FuncOp found;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isPrivate() || func.isExternal())
        continue;
      if (found) {
        module.emitError("several public functions: name the one to split "
                         "with the entry option");
        return {};
      }
      found = func;
    }
    if (!found)
      module.emitError("no public function with a body to split");
    return found;
  }

  bool isMovable(Operation *op) {
    return !isa<tp::ConstantOp>(op) && tp::canPrecomputeOp(op, maxElements);
  }
};
} // namespace
