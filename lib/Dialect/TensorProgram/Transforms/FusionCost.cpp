//===- FusionCost.cpp - the cost-driven and horizontal strategies ---------===//
//
// Part of the Wrapper project.
//
// Two fusion strategies (FusionStrategy.h; rules in docs/Fusion.md):
//
// - `cost`: every op starts alone; producer-consumer pairs are merged in
//   order of the memory traffic they save (estimated from the shapes),
//   each merge kept only when the merged group is legal; then pointwise
//   producers whose output is at least as large as their inputs are
//   recomputed in each consumer's kernel instead of written once and read
//   by each, where the traffic saved outweighs the arithmetic repeated
//   (estimated per op from the shapes: broadcasts and casts always, a
//   costly function of a large tensor not).
// - `horizontal`: the greedy grouping, then groups of the same kind and
//   iteration shape that read a common input and do not depend on each
//   other are merged, so that the input is read once.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"
#include "Wrapper/Dialect/TensorProgram/Transforms/FusionStrategy.h"

#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"

#include <queue>

using namespace mlir;
using namespace mlir::tensor_program;

/// The size a dynamic dimension is assumed to have when estimating bytes.
static constexpr int64_t kAssumedDynamicSize = 64;

/// Estimated elements of a value's tensor (dynamic dimensions assumed
/// kAssumedDynamicSize); 0 for non-tensors.
static int64_t estimateElements(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return 0;
  int64_t elements = 1;
  for (int64_t size : type.getShape())
    elements *= ShapedType::isDynamic(size) ? kAssumedDynamicSize : size;
  return elements;
}

/// Estimated bytes of a value's tensor (as estimateElements); 0 for
/// non-tensors and tensors of other element types.
static int64_t estimateBytes(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.getElementType().isIntOrFloat())
    return 0;
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  return estimateElements(value) * std::max<int64_t>(1, bits / 8);
}

/// Arithmetic operations per element of an elementwise op: 1 for the
/// basic ones, more for divisions, roots and the functions libm computes
/// by polynomials (a scalar-code estimate; what counts is the ratio to the
/// bytes an op moves).
static int64_t flopsPerElement(Operation *op) {
  StringRef name = op->getName().stripDialect();
  if (llvm::is_contained(
          {"div", "sqrt", "rsqrt", "floor_div", "fmod", "remainder"}, name))
    return 4;
  if (llvm::is_contained({"exp", "exp2", "expm1", "log", "log2", "log10",
                          "log1p", "sigmoid", "silu"},
                         name))
    return 12;
  if (llvm::is_contained({"tanh", "erf", "gelu", "pow", "sin", "cos", "tan",
                          "asin", "acos", "atan", "atan2", "sinh", "cosh",
                          "asinh", "acosh", "atanh"},
                         name))
    return 24;
  return 1;
}

/// Estimated arithmetic of one op from its shapes: per result element for
/// pointwise ops (layout ops: none), per input element for reductions,
/// 2 M N K for products.
static int64_t estimateFlops(const FusionGraph &graph, Operation *op) {
  switch (graph.classify(op)) {
  case FusionOpClass::Contraction: {
    int64_t k = 1;
    if (auto lhs = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
        lhs && lhs.getRank() > 0 && !lhs.isDynamicDim(lhs.getRank() - 1))
      k = lhs.getShape().back();
    return 2 * k * estimateElements(op->getResult(0));
  }
  case FusionOpClass::Reduction:
    return estimateElements(op->getOperand(0));
  default:
    if (isa<ReshapeOp, PermuteOp, FlipOp, BroadcastOp, SliceOp, ConcatOp,
            PadOp>(op))
      return 0;
    return flopsPerElement(op) * estimateElements(op->getResult(0));
  }
}

/// Arithmetic operations worth one byte of memory traffic: a core does
/// several vector operations in the time one byte comes from memory. Work
/// recomputed is weighed against traffic saved at this rate.
static constexpr int64_t kFlopsPerByte = 4;

namespace {
/// Groups being merged: union-find over ops, with each group's members in
/// program order and the checks a merge needs.
class Groups {
public:
  explicit Groups(const FusionGraph &graph) : graph(graph) {
    for (Operation *op : graph.getOps()) {
      leader[op] = op;
      members[op] = {op};
    }
  }

  Operation *find(Operation *op) const {
    while (leader.lookup(op) != op)
      op = leader.lookup(op);
    return op;
  }

  /// Whether merging the groups of `a` and `b` gives a legal group of at
  /// most `limit` ops: checked by the shared legality rules on the merged
  /// group alone, and for cycles by reachability between the two groups.
  bool canMerge(Operation *a, Operation *b, unsigned limit) {
    Operation *ga = find(a), *gb = find(b);
    if (ga == gb)
      return false;
    if (members[ga].size() + members[gb].size() > limit)
      return false;
    FusionPlan single;
    SmallVector<Operation *> merged(members[ga]);
    llvm::append_range(merged, members[gb]);
    single.groups.push_back(merged);
    if (checkFusionPlan(graph, single))
      return false;
    return !reachesThroughOthers(ga, gb) && !reachesThroughOthers(gb, ga);
  }

  void merge(Operation *a, Operation *b) {
    Operation *ga = find(a), *gb = find(b);
    if (members[ga].size() < members[gb].size())
      std::swap(ga, gb);
    leader[gb] = ga;
    llvm::append_range(members[ga], members[gb]);
    members.erase(gb);
  }

  FusionPlan plan() const {
    FusionPlan result;
    for (Operation *op : graph.getOps())
      if (find(op) == op && members.lookup(op).size() > 1)
        result.groups.push_back(members.lookup(op));
    return result;
  }

private:
  /// The op of the block that holds `user` (itself, or its ancestor).
  Operation *inBlock(Operation *user) const {
    while (user && user->getBlock() != &graph.getBlock())
      user = user->getParentOp();
    return user;
  }
  /// The group an op stands for: its leader, or itself when not fusible.
  Operation *nodeOf(Operation *op) const {
    return leader.count(op) ? find(op) : op;
  }

  /// Whether group `from` reaches group `to` through an op outside both
  /// (merging them would then make a cycle); `from`'s direct edges into
  /// `to` are the ones being fused and do not count.
  bool reachesThroughOthers(Operation *from, Operation *to) {
    llvm::SmallPtrSet<Operation *, 32> seen;
    SmallVector<Operation *> worklist;
    for (Operation *op : members[from])
      for (Operation *user : op->getUsers())
        if (Operation *u = inBlock(user)) {
          Operation *node = nodeOf(u);
          if (node != from && node != to && seen.insert(node).second)
            worklist.push_back(node);
        }
    while (!worklist.empty()) {
      Operation *node = worklist.pop_back_val();
      SmallVector<Operation *> ops = {node};
      if (leader.count(node))
        ops = members[node];
      for (Operation *op : ops)
        for (Operation *user : op->getUsers())
          if (Operation *u = inBlock(user)) {
            Operation *next = nodeOf(u);
            if (next == to)
              return true;
            if (next != from && seen.insert(next).second)
              worklist.push_back(next);
          }
    }
    return false;
  }

  const FusionGraph &graph;
  llvm::DenseMap<Operation *, Operation *> leader;
  llvm::DenseMap<Operation *, SmallVector<Operation *>> members;
};

/// `cost`: merges in order of the traffic saved.
struct CostFusion : public FusionStrategy {
  LogicalResult propose(const FusionGraph &graph, const FusionOptions &options,
                        FusionPlan &plan) override;
};

/// `horizontal`: greedy, then siblings sharing an input.
struct HorizontalFusion : public FusionStrategy {
  LogicalResult propose(const FusionGraph &graph, const FusionOptions &options,
                        FusionPlan &plan) override;
};
} // namespace

/// Whether the pair (producer `def`, consumer `user`) may be fused at all
/// under the switches of `options` (the legality rules decide the rest).
static bool allowedBySwitches(const FusionGraph &graph,
                              const FusionOptions &options, Operation *def,
                              Operation *user) {
  FusionOpClass from = graph.classify(def), to = graph.classify(user);
  if (from == FusionOpClass::Contraction || to == FusionOpClass::Contraction)
    return options.fuseMatmulEpilogues;
  if (from == FusionOpClass::Reduction || to == FusionOpClass::Reduction)
    return options.fuseReductions;
  return options.fuseElementwise;
}

LogicalResult CostFusion::propose(const FusionGraph &graph,
                                  const FusionOptions &options,
                                  FusionPlan &plan) {
  // Candidate pairs with the bytes fusing them saves: the value is no
  // longer written and read back (2x) when the consumer is its only reader
  // outside the producer's group, or read once less (1x) otherwise.
  struct Candidate {
    int64_t saved;
    unsigned order; // program order of the consumer, to break ties
    Operation *def, *user;
    bool operator<(const Candidate &other) const {
      return saved != other.saved ? saved < other.saved : order > other.order;
    }
  };
  std::priority_queue<Candidate> queue;
  for (Operation *user : graph.getOps())
    for (Operation *def : graph.getProducers(user)) {
      if (!allowedBySwitches(graph, options, def, user))
        continue;
      Value value = def->getResult(0);
      bool only = llvm::all_of(value.getUsers(),
                               [&](Operation *other) { return other == user; });
      int64_t bytes = estimateBytes(value);
      queue.push(
          {only ? 2 * bytes : bytes, graph.getPosition(user), def, user});
    }
  Groups groups(graph);
  while (!queue.empty()) {
    Candidate best = queue.top();
    queue.pop();
    if (groups.canMerge(best.def, best.user, options.maxGroupSize))
      groups.merge(best.def, best.user);
  }
  plan = groups.plan();

  // Recomputation: a pointwise op read by groups other than its own is
  // computed in each of them too, instead of being written once and read
  // by each, when the traffic that saves outweighs the work it repeats
  // (kFlopsPerByte): each reader then reads the op's inputs instead of its
  // output. Broadcasts and casts up (outputs larger than their inputs, no
  // arithmetic) always qualify; a costly function of a large tensor does
  // not. Kept only where legal.
  if (!options.fuseElementwise)
    return success();
  auto groupOf = [&](Operation *op) -> std::optional<unsigned> {
    for (auto [index, group] : llvm::enumerate(plan.groups))
      if (llvm::is_contained(group, op))
        return index;
    return std::nullopt;
  };
  for (Operation *op : graph.getOps()) {
    if (graph.classify(op) != FusionOpClass::Pointwise)
      continue;
    int64_t in = 0;
    for (Value operand : op->getOperands())
      in += estimateBytes(operand);
    int64_t out = estimateBytes(op->getResult(0));
    if (out < in)
      continue; // reading the inputs per reader would cost more
    std::optional<unsigned> own = groupOf(op);
    // The other groups that read it: every reader must be a fusible op (one
    // alone becomes a group of its own here).
    SmallVector<unsigned> targets;
    SmallVector<Operation *> lone; // readers in no group yet
    bool allFusible = true;
    for (Operation *user : op->getResult(0).getUsers()) {
      std::optional<unsigned> index = groupOf(user);
      if (!index && !graph.isFusible(user)) {
        allFusible = false;
        break;
      }
      if (!index) {
        if (!llvm::is_contained(lone, user))
          lone.push_back(user);
      } else if (index != own && !llvm::is_contained(targets, *index)) {
        targets.push_back(*index);
      }
    }
    int64_t readers = targets.size() + lone.size();
    if (!allFusible || readers == 0 || (!own && readers < 2))
      continue;
    // Traffic: today the output is written once and read by each reader;
    // recomputed, it is not written (every reader computes it) and each
    // reader reads the inputs instead; an op alone also no longer reads
    // its inputs in a kernel of its own. Work: the op runs once more per
    // reader (once less in all when it had no group of its own).
    int64_t savedBytes = out + (own ? 0 : in) + readers * (out - in);
    int64_t extraFlops =
        (own ? readers : readers - 1) * estimateFlops(graph, op);
    if (savedBytes * kFlopsPerByte < extraFlops)
      continue;
    // The plan is copied only for a recomputation worth trying.
    FusionPlan trial = plan;
    trial.recompute.insert(op);
    for (unsigned index : targets)
      trial.groups[index].push_back(op);
    for (Operation *user : lone)
      trial.groups.push_back({user, op});
    if (!checkFusionPlan(graph, trial))
      plan = std::move(trial);
  }
  return success();
}

LogicalResult HorizontalFusion::propose(const FusionGraph &graph,
                                        const FusionOptions &options,
                                        FusionPlan &plan) {
  std::unique_ptr<FusionStrategy> greedy = createFusionStrategy("greedy");
  if (failed(greedy->propose(graph, options, plan)))
    return failure();
  if (!options.fuseElementwise)
    return success();
  // Group index of every grouped op; ops alone are groups of their own.
  auto groupIndex = [&](Operation *op) -> std::optional<unsigned> {
    for (auto [index, group] : llvm::enumerate(plan.groups))
      if (llvm::is_contained(group, op))
        return index;
    return std::nullopt;
  };
  for (Operation *op : graph.getOps())
    if (!groupIndex(op))
      plan.groups.push_back({op});
  // The iteration space of a pointwise group: the shape of its last op's
  // result (a reduction group's: its reduction space).
  auto space = [&](const SmallVector<Operation *> &group)
      -> std::optional<SmallVector<int64_t>> {
    for (Operation *op : group)
      if (graph.classify(op) != FusionOpClass::Pointwise)
        return std::nullopt; // products and reductions stay as they are
    Operation *last =
        *llvm::max_element(group, [&](Operation *a, Operation *b) {
          return graph.getPosition(a) < graph.getPosition(b);
        });
    auto type = dyn_cast<RankedTensorType>(last->getResult(0).getType());
    if (!type || !type.hasStaticShape())
      return std::nullopt;
    return SmallVector<int64_t>(type.getShape());
  };
  // Siblings: for each value read by several pointwise groups of one
  // iteration space, merge them when the result stays legal.
  llvm::SetVector<Value> shared;
  for (Operation *op : graph.getOps())
    for (Value operand : op->getOperands())
      if (isa<RankedTensorType>(operand.getType()))
        shared.insert(operand);
  for (Value value : shared) {
    SmallVector<unsigned> readers;
    for (Operation *user : value.getUsers())
      if (std::optional<unsigned> index = groupIndex(user);
          index && !llvm::is_contained(readers, *index))
        readers.push_back(*index);
    for (unsigned i = 0; i < readers.size(); ++i)
      for (unsigned j = i + 1; j < readers.size(); ++j) {
        auto &a = plan.groups[readers[i]], &b = plan.groups[readers[j]];
        if (a.empty() || b.empty() ||
            a.size() + b.size() > options.maxGroupSize)
          continue;
        std::optional<SmallVector<int64_t>> sa = space(a), sb = space(b);
        if (!sa || !sb || *sa != *sb)
          continue;
        FusionPlan trial = plan;
        llvm::append_range(trial.groups[readers[i]], b);
        trial.groups[readers[j]].clear();
        llvm::erase_if(trial.groups, [](const auto &g) { return g.empty(); });
        if (checkFusionPlan(graph, trial))
          continue;
        llvm::append_range(a, b);
        b.clear();
      }
    llvm::erase_if(plan.groups, [](const auto &g) { return g.empty(); });
  }
  return success();
}

namespace mlir {
namespace tensor_program {
void registerCostFusionStrategies() {
  registerFusionStrategy(
      "cost",
      "pairs merged in order of the bytes they save; cheap broadcasts "
      "recomputed per consumer",
      [] { return std::make_unique<CostFusion>(); });
  registerFusionStrategy(
      "horizontal",
      "greedy, then independent pointwise groups sharing an input merged",
      [] { return std::make_unique<HorizontalFusion>(); });
}
} // namespace tensor_program
} // namespace mlir
