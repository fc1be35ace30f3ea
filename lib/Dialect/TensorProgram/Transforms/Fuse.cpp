//===- Fuse.cpp - group ops into fused regions ----------------------------===//
//
// Part of the Wrapper project.
//
// The greedy algorithm and its rules are described with the pass in
// Passes.td and in docs/Passes.md. In short: ops are visited in program
// order; each joins the latest producer group that accepts it or starts a
// new group; groups become tensor_program.fused ops placed at their last
// op; the block is then re-sorted topologically.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "tensor-program-fuse"

namespace mlir {
namespace tensor_program {
#define GEN_PASS_DEF_TENSORPROGRAMFUSEPASS
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h.inc"
} // namespace tensor_program
} // namespace mlir

using namespace mlir;
using namespace mlir::tensor_program;

namespace {
/// A group of ops that becomes one fused op.
struct Group {
  FusionKind kind = FusionKind::pointwise;
  SmallVector<Operation *> ops; // in program order
  llvm::SmallPtrSet<Operation *, 16> members;
  /// For reduction groups: the shape and dimensions every reduction of the
  /// group must share.
  SmallVector<int64_t> reductionShape, reductionDims;
};

/// Cheap producers that are cloned into every group that uses them instead
/// of becoming inputs: splat or rank-0 constants and tensor.dim (whose
/// tensor becomes an input).
bool isClonable(Operation *op) {
  if (auto constant = dyn_cast<ConstantOp>(op)) {
    auto type = constant.getType();
    return type.getRank() == 0 || isa<SplatElementsAttr>(constant.getValue());
  }
  return isSizeComputation(op);
}

/// The reduction space of a reduction op: its input shape and the dims it
/// reduces.
std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
reductionSpace(Operation *op) {
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  SmallVector<int64_t> dims;
  if (auto argmax = dyn_cast<ArgMaxOp>(op))
    dims.push_back(static_cast<int64_t>(argmax.getDim()));
  else if (auto r = dyn_cast<ReduceSumOp>(op))
    dims = llvm::to_vector(r.getDims());
  else if (auto r = dyn_cast<ReduceMeanOp>(op))
    dims = llvm::to_vector(r.getDims());
  else if (auto r = dyn_cast<ReduceMaxOp>(op))
    dims = llvm::to_vector(r.getDims());
  else if (auto r = dyn_cast<ReduceMinOp>(op))
    dims = llvm::to_vector(r.getDims());
  else if (auto r = dyn_cast<ReduceProdOp>(op))
    dims = llvm::to_vector(r.getDims());
  return {SmallVector<int64_t>(input.getShape()), dims};
}

class Fuser {
public:
  Fuser(const TensorProgramFusePassOptions &options) : options(options) {}

  void run(Block &block);
  unsigned kernels = 0, fusedOps = 0;

private:
  bool isFusible(Operation *op);
  bool accepts(Group &group, Operation *op);
  bool dependsOn(Operation *op, Group &group);
  void materialize(Group &group);

  const TensorProgramFusePassOptions &options;
  std::vector<std::unique_ptr<Group>> groups;
  llvm::DenseMap<Operation *, Group *> groupOf;
  llvm::DenseMap<Operation *, unsigned> position;
};
} // namespace

bool Fuser::isFusible(Operation *op) {
  if (!isa<TensorProgramDialect>(op->getDialect()) || op->getNumResults() != 1)
    return false;
  if (isa<ExternOp, CopyBackOp, FusedOp, ConstantOp>(op))
    return false;
  if (isComposite(op))
    return false; // decompose first
  if (!isElementwise(op) && !isLayout(op) && !isReduction(op) &&
      !isContraction(op) && !isa<FullOp, IotaOp, UniformOp, FromIndexOp>(op))
    return false;
  // Index operands must come from clonable producers.
  for (Value operand : op->getOperands()) {
    if (isa<RankedTensorType>(operand.getType()))
      continue;
    Operation *def = operand.getDefiningOp();
    if (!def || !isClonable(def))
      return false;
  }
  return true;
}

/// Whether `op` (transitively) uses a value produced by `group`. Only ops
/// after the group's first op can. A member of another group stands for
/// its whole group: once fused, each of that group's results needs all of
/// the group's inputs, so a path through any member counts (two groups
/// that each feed the other would make a cycle of fused ops).
bool Fuser::dependsOn(Operation *op, Group &group) {
  unsigned first = position.lookup(group.ops.front());
  SmallVector<Operation *> worklist = {op};
  llvm::SmallPtrSet<Operation *, 32> seen;
  llvm::SmallPtrSet<Group *, 8> expanded;
  while (!worklist.empty()) {
    Operation *current = worklist.pop_back_val();
    if (!seen.insert(current).second)
      continue;
    if (group.members.contains(current))
      return true;
    if (Group *other = groupOf.lookup(current);
        other && other != &group && expanded.insert(other).second)
      llvm::append_range(worklist, other->ops);
    auto it = position.find(current);
    if (it == position.end() || it->second < first)
      continue;
    for (Value operand : current->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
  }
  return false;
}

bool Fuser::accepts(Group &group, Operation *op) {
  if (group.ops.size() >= options.maxGroupSize)
    return false;
  bool elementwise = isElementwise(op) || isLayout(op) ||
                     isa<FullOp, IotaOp, UniformOp, FromIndexOp>(op);
  if (elementwise) {
    if (group.kind == FusionKind::pointwise && !options.fuseElementwise)
      return false;
    if (group.kind == FusionKind::reduction && !options.fuseReductions)
      return false;
    if (group.kind == FusionKind::matmul && !options.fuseMatmulEpilogues)
      return false;
  } else if (isReduction(op)) {
    if (!options.fuseReductions || group.kind == FusionKind::matmul)
      return false;
    if (group.kind == FusionKind::reduction) {
      auto [shape, dims] = reductionSpace(op);
      if (shape != group.reductionShape || dims != group.reductionDims)
        return false;
    }
  } else {
    return false; // contractions start their own group
  }
  // No cycle: the op's other operands must not depend on the group.
  for (Value operand : op->getOperands()) {
    Operation *def = operand.getDefiningOp();
    if (!def || group.members.contains(def) || isClonable(def))
      continue;
    if (dependsOn(def, group))
      return false;
  }
  return true;
}

void Fuser::run(Block &block) {
  unsigned index = 0;
  for (Operation &op : block)
    position[&op] = index++;

  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (!isFusible(&op))
      continue;
    // The latest producer group that accepts the op.
    Group *target = nullptr;
    unsigned latest = 0;
    for (Value operand : op.getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def)
        continue;
      Group *group = groupOf.lookup(def);
      if (!group || (target && position[group->ops.back()] < latest))
        continue;
      if (accepts(*group, &op)) {
        target = group;
        latest = position[group->ops.back()];
      }
    }
    if (!target) {
      groups.push_back(std::make_unique<Group>());
      target = groups.back().get();
      if (isContraction(&op))
        target->kind = FusionKind::matmul;
    }
    if (isReduction(&op) && target->kind == FusionKind::pointwise) {
      target->kind = FusionKind::reduction;
      std::tie(target->reductionShape, target->reductionDims) =
          reductionSpace(&op);
    }
    target->ops.push_back(&op);
    target->members.insert(&op);
    groupOf[&op] = target;
  }

  for (std::unique_ptr<Group> &group : groups)
    materialize(*group);
  // Cheap producers were cloned into the groups; drop the dead originals.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (isClonable(&op) && op.use_empty())
      op.erase();
  sortTopologically(&block);
}

void Fuser::materialize(Group &group) {
  Operation *last = group.ops.back();
  OpBuilder builder(last);
  // Inputs: tensors defined outside the group (in first-use order); cheap
  // producers are cloned instead.
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> clones;
  std::function<void(Value)> addOperand = [&](Value value) {
    Operation *def = value.getDefiningOp();
    if (def && group.members.contains(def))
      return;
    if (def && isClonable(def)) {
      for (Value operand : def->getOperands())
        addOperand(operand);
      clones.insert(def);
      return;
    }
    inputs.insert(value);
  };
  for (Operation *op : group.ops)
    for (Value operand : op->getOperands())
      addOperand(operand);
  // Outputs: results used outside the group. A cheap producer whose users
  // are all members (the tensor.dim of a member that sizes a member's
  // reshape) is cloned into the group and does not count.
  auto usedOutside = [&](Operation *user) {
    if (group.members.contains(user))
      return false;
    return !isClonable(user) || user->use_empty() ||
           llvm::any_of(user->getUsers(), [&](Operation *userOfUser) {
             return !group.members.contains(userOfUser);
           });
  };
  SmallVector<Value> outputs;
  for (Operation *op : group.ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), usedOutside))
        outputs.push_back(result);

  SmallVector<Type> resultTypes;
  for (Value output : outputs)
    resultTypes.push_back(output.getType());
  auto fused = FusedOp::create(builder, last->getLoc(), group.kind, resultTypes,
                               inputs.getArrayRef());
  Block &body = fused.getBody().front();
  IRMapping mapping;
  for (auto [input, arg] : llvm::zip(inputs, body.getArguments()))
    mapping.map(input, arg);
  OpBuilder inner = OpBuilder::atBlockEnd(&body);
  // Clones and members in program order: a clone may use a member (the
  // tensor.dim of a member's result) and a member a clone.
  SmallVector<Operation *> ordered(clones.begin(), clones.end());
  llvm::append_range(ordered, group.ops);
  llvm::sort(ordered,
             [&](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : ordered)
    inner.clone(*op, mapping);
  SmallVector<Value> yielded;
  for (Value output : outputs)
    yielded.push_back(mapping.lookup(output));
  YieldOp::create(inner, last->getLoc(), yielded);

  for (auto [output, result] : llvm::zip(outputs, fused.getResults()))
    output.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !group.members.contains(use.getOwner());
    });
  // Members, and the cheap producers that only they used, latest first.
  for (Operation *op : llvm::reverse(ordered))
    if (group.members.contains(op) || op->use_empty())
      op->erase();
  ++kernels;
  fusedOps += group.ops.size();
}

namespace {
struct TensorProgramFusePass
    : public tensor_program::impl::TensorProgramFusePassBase<
          TensorProgramFusePass> {
  using TensorProgramFusePassBase::TensorProgramFusePassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    TensorProgramFusePassOptions options;
    options.fuseElementwise = fuseElementwise;
    options.fuseReductions = fuseReductions;
    options.fuseMatmulEpilogues = fuseMatmulEpilogues;
    options.maxGroupSize = maxGroupSize;
    Fuser fuser(options);
    fuser.run(func.getBody().front());
    numKernels += fuser.kernels;
    numFusedOps += fuser.fusedOps;
    if (report)
      func.emitRemark() << "fused " << fuser.fusedOps << " ops into "
                        << fuser.kernels << " kernels";
  }
};
} // namespace
