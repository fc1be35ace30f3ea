//===- Fuse.cpp - group ops into fused regions ----------------------------===//
//
// Part of the Wrapper project.
//
// --tensor-program-fuse: asks the strategy named by `strategy` for groups
// (FusionStrategy.h), checks them and builds the fused ops. This file holds
// the pass and the strategies `none` and `greedy`; FusionCost.cpp holds
// `cost` and `horizontal`. The rules of each are described with the pass
// in Passes.td and in docs/Fusion.md.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"
#include "Wrapper/Dialect/TensorProgram/Transforms/FusionStrategy.h"
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLExtras.h"

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
/// `none`: every fusible op is a kernel of its own (the baseline every
/// other strategy is measured against).
struct NoFusion : public FusionStrategy {
  LogicalResult propose(const FusionGraph &, const FusionOptions &,
                        FusionPlan &) override {
    return success();
  }
};

/// `greedy`: in program order, an op joins the group of the latest of its
/// producers that accepts it, or starts a group (the rules are in
/// Passes.td).
class Greedy : public FusionStrategy {
public:
  LogicalResult propose(const FusionGraph &graph, const FusionOptions &options,
                        FusionPlan &plan) override;

private:
  struct Group {
    FusionKind kind = FusionKind::pointwise;
    SmallVector<Operation *> ops; // in program order
    llvm::SmallPtrSet<Operation *, 16> members;
    /// For reduction groups: the space every reduction must share.
    SmallVector<int64_t> reductionShape, reductionDims;
  };

  bool accepts(const FusionGraph &graph, const FusionOptions &options,
               Group &group, Operation *op);
  bool dependsOn(const FusionGraph &graph, Operation *op, Group &group);

  std::vector<std::unique_ptr<Group>> groups;
  llvm::DenseMap<Operation *, Group *> groupOf;
};
} // namespace

/// Whether `op` (transitively) uses a value produced by `group`. Only ops
/// after the group's first op can. A member of another group stands for
/// its whole group: once fused, each of that group's results needs all of
/// the group's inputs, so a path through any member counts (two groups
/// that each feed the other would make a cycle of fused ops).
bool Greedy::dependsOn(const FusionGraph &graph, Operation *op, Group &group) {
  unsigned first = graph.getPosition(group.ops.front());
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
    if (current->getBlock() != &graph.getBlock() ||
        graph.getPosition(current) < first)
      continue;
    for (Value operand : current->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
  }
  return false;
}

bool Greedy::accepts(const FusionGraph &graph, const FusionOptions &options,
                     Group &group, Operation *op) {
  if (group.ops.size() >= options.maxGroupSize)
    return false;
  FusionOpClass kind = graph.classify(op);
  if (kind == FusionOpClass::Pointwise) {
    if (group.kind == FusionKind::pointwise && !options.fuseElementwise)
      return false;
    if (group.kind == FusionKind::reduction && !options.fuseReductions)
      return false;
    if (group.kind == FusionKind::matmul && !options.fuseMatmulEpilogues)
      return false;
  } else if (kind == FusionOpClass::Reduction) {
    if (!options.fuseReductions || group.kind == FusionKind::matmul)
      return false;
    if (group.kind == FusionKind::reduction) {
      auto [shape, dims] = FusionGraph::getReductionSpace(op);
      if (shape != group.reductionShape || dims != group.reductionDims)
        return false;
    }
  } else {
    return false; // contractions start their own group
  }
  // No cycle: the op's other operands must not depend on the group.
  for (Value operand : op->getOperands()) {
    Operation *def = operand.getDefiningOp();
    if (!def || group.members.contains(def) || FusionGraph::isClonable(def))
      continue;
    if (dependsOn(graph, def, group))
      return false;
  }
  return true;
}

LogicalResult Greedy::propose(const FusionGraph &graph,
                              const FusionOptions &options, FusionPlan &plan) {
  for (Operation *op : graph.getOps()) {
    // A transpose of a product's operand waits for its product, whose group
    // takes it (below).
    if (options.fuseOperandTransposes &&
        FusionGraph::getTransposedOperandUser(op))
      continue;
    // The latest producer group that accepts the op.
    Group *target = nullptr;
    unsigned latest = 0;
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def)
        continue;
      Group *group = groupOf.lookup(def);
      if (!group || (target && graph.getPosition(group->ops.back()) < latest))
        continue;
      if (accepts(graph, options, *group, op)) {
        target = group;
        latest = graph.getPosition(group->ops.back());
      }
    }
    if (!target) {
      groups.push_back(std::make_unique<Group>());
      target = groups.back().get();
      if (graph.classify(op) == FusionOpClass::Contraction) {
        target->kind = FusionKind::matmul;
        // The transposes of its operands first, in program order.
        SmallVector<Operation *> transposes;
        if (options.fuseOperandTransposes)
          for (Value operand : op->getOperands())
            if (Operation *def = operand.getDefiningOp();
                def && FusionGraph::getTransposedOperandUser(def) == op &&
                !llvm::is_contained(transposes, def))
              transposes.push_back(def);
        llvm::sort(transposes, [&](Operation *a, Operation *b) {
          return a->isBeforeInBlock(b);
        });
        for (Operation *transpose : transposes) {
          target->ops.push_back(transpose);
          target->members.insert(transpose);
          groupOf[transpose] = target;
        }
      }
    }
    if (graph.classify(op) == FusionOpClass::Reduction &&
        target->kind == FusionKind::pointwise) {
      target->kind = FusionKind::reduction;
      std::tie(target->reductionShape, target->reductionDims) =
          FusionGraph::getReductionSpace(op);
    }
    target->ops.push_back(op);
    target->members.insert(op);
    groupOf[op] = target;
  }
  for (const std::unique_ptr<Group> &group : groups)
    plan.groups.push_back(group->ops);
  return success();
}

namespace mlir {
namespace tensor_program {
void registerCostFusionStrategies(); // FusionCost.cpp
} // namespace tensor_program
} // namespace mlir

void tensor_program::registerBuiltinFusionStrategies() {
  static bool once = [] {
    registerFusionStrategy("none",
                           "every op a kernel of its own (the baseline)",
                           [] { return std::make_unique<NoFusion>(); });
    registerFusionStrategy(
        "greedy", "producer-consumer groups in program order (the default)",
        [] { return std::make_unique<Greedy>(); });
    registerCostFusionStrategies();
    return true;
  }();
  (void)once;
}

namespace {
struct TensorProgramFusePass
    : public tensor_program::impl::TensorProgramFusePassBase<
          TensorProgramFusePass> {
  using TensorProgramFusePassBase::TensorProgramFusePassBase;

  LogicalResult initialize(MLIRContext *context) override {
    // An unknown strategy is an error before any function is touched.
    if (!createFusionStrategy(strategy)) {
      std::string names;
      for (const auto &[name, description] : getFusionStrategies())
        names += (names.empty() ? "" : ", ") + name;
      return emitError(UnknownLoc::get(context))
             << "--tensor-program-fuse: unknown strategy '" << strategy
             << "'; the registered strategies are " << names;
    }
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    FusionOptions options;
    options.fuseElementwise = fuseElementwise;
    options.fuseReductions = fuseReductions;
    options.fuseMatmulEpilogues = fuseMatmulEpilogues;
    options.fuseOperandTransposes = fuseOperandTransposes;
    options.maxGroupSize = maxGroupSize;
    std::unique_ptr<FusionStrategy> chosen = createFusionStrategy(strategy);
    FusionGraph graph(func.getBody().front());
    FusionPlan plan;
    if (failed(chosen->propose(graph, options, plan)))
      return signalPassFailure();
    if (std::optional<std::string> problem = checkFusionPlan(graph, plan)) {
      func.emitError() << "fusion strategy '" << strategy
                       << "' proposed an illegal grouping: " << *problem;
      return signalPassFailure();
    }
    FusionResult result = applyFusionPlan(graph, std::move(plan));
    numKernels += result.kernels;
    numFusedOps += result.fusedOps;
    if (report) {
      InFlightDiagnostic remark = func.emitRemark();
      remark << "fused " << result.fusedOps << " ops into " << result.kernels
             << " kernels";
      if (strategy != "greedy")
        remark << " (strategy '" << strategy << "')";
      if (result.recomputedOps)
        remark << ", " << result.recomputedOps << " ops recomputed";
    }
  }
};
} // namespace
