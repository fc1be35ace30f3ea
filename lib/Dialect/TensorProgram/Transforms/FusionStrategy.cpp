//===- FusionStrategy.cpp - the registry, legality and fused ops ----------===//
//
// Part of the Wrapper project.
//
// What every fusion strategy shares: the registry of strategies, the op
// graph they see, the check of their proposals, and the building of the
// tensor_program.fused ops. The strategies themselves live in Fuse.cpp
// (none, greedy) and FusionCost.cpp (cost, horizontal).
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/Transforms/FusionStrategy.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <queue>

using namespace mlir;
using namespace mlir::tensor_program;

FusionStrategy::~FusionStrategy() = default;

//===----------------------------------------------------------------------===//
// Registry
//===----------------------------------------------------------------------===//

namespace {
struct Registered {
  std::string description;
  FusionStrategyFactory factory;
};
struct Registry {
  std::mutex lock;
  llvm::StringMap<Registered> strategies;
};
} // namespace

static Registry &registry() {
  static Registry instance;
  return instance;
}

void tensor_program::registerFusionStrategy(StringRef name,
                                            StringRef description,
                                            FusionStrategyFactory factory) {
  Registry &r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  r.strategies[name] = Registered{description.str(), std::move(factory)};
}

std::unique_ptr<FusionStrategy>
tensor_program::createFusionStrategy(StringRef name) {
  registerBuiltinFusionStrategies();
  Registry &r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  auto it = r.strategies.find(name);
  return it == r.strategies.end() ? nullptr : it->second.factory();
}

SmallVector<std::pair<std::string, std::string>>
tensor_program::getFusionStrategies() {
  registerBuiltinFusionStrategies();
  Registry &r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  SmallVector<std::pair<std::string, std::string>> names;
  for (const auto &entry : r.strategies)
    names.emplace_back(entry.getKey().str(), entry.getValue().description);
  llvm::sort(names);
  return names;
}

//===----------------------------------------------------------------------===//
// The op graph
//===----------------------------------------------------------------------===//

FusionGraph::FusionGraph(Block &block) : block(block) {
  unsigned index = 0;
  for (Operation &op : block) {
    position[&op] = index++;
    if (isFusible(&op))
      ops.push_back(&op);
  }
}

bool FusionGraph::isClonable(Operation *op) {
  if (auto constant = dyn_cast<ConstantOp>(op)) {
    auto type = constant.getType();
    return type.getRank() == 0 || isa<SplatElementsAttr>(constant.getValue());
  }
  return isSizeComputation(op);
}

FusionOpClass FusionGraph::classify(Operation *op) const {
  if (!isa<TensorProgramDialect>(op->getDialect()) || op->getNumResults() != 1)
    return FusionOpClass::Unfusible;
  if (isa<ExternOp, CopyBackOp, FusedOp, ConstantOp>(op) || isComposite(op))
    return FusionOpClass::Unfusible;
  // Index operands must come from clonable producers.
  for (Value operand : op->getOperands()) {
    if (isa<RankedTensorType>(operand.getType()))
      continue;
    Operation *def = operand.getDefiningOp();
    if (!def || !isClonable(def))
      return FusionOpClass::Unfusible;
  }
  if (isContraction(op))
    return FusionOpClass::Contraction;
  if (isReduction(op))
    return FusionOpClass::Reduction;
  if (isElementwise(op) || isLayout(op) ||
      isa<FullOp, IotaOp, UniformOp, FromIndexOp>(op))
    return FusionOpClass::Pointwise;
  return FusionOpClass::Unfusible;
}

Operation *FusionGraph::getTransposedOperandUser(Operation *op) {
  auto permute = dyn_cast<PermuteOp>(op);
  if (!permute || !permute->hasOneUse())
    return nullptr;
  if (!swapsLastTwoDims(permute.getPermutation()))
    return nullptr;
  Operation *user = *permute->user_begin();
  if (!isa<MatmulOp, BatchMatmulOp>(user) || user->getBlock() != op->getBlock())
    return nullptr;
  Type element =
      cast<RankedTensorType>(user->getResult(0).getType()).getElementType();
  if (!(element.isF32() || element.isF16() || element.isBF16()))
    return nullptr;
  return user;
}

SmallVector<Operation *> FusionGraph::getProducers(Operation *op) const {
  SmallVector<Operation *> producers;
  for (Value operand : op->getOperands())
    if (Operation *def = operand.getDefiningOp();
        def && def->getBlock() == &block && isFusible(def) &&
        !llvm::is_contained(producers, def))
      producers.push_back(def);
  return producers;
}

std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
FusionGraph::getReductionSpace(Operation *op) {
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

std::optional<int64_t> FusionGraph::getStaticBytes(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, bits / 8);
}

//===----------------------------------------------------------------------===//
// Legality
//===----------------------------------------------------------------------===//

/// "tensor_program.add at loc(...)": an op, for messages.
static std::string describe(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "'" << op->getName() << "' at " << op->getLoc();
  return text;
}

std::optional<std::string>
tensor_program::checkFusionPlan(const FusionGraph &graph,
                                const FusionPlan &plan) {
  llvm::DenseMap<Operation *, unsigned> groupOf;
  for (auto [index, group] : llvm::enumerate(plan.groups)) {
    if (group.empty())
      return "group #" + std::to_string(index) + " is empty";
    unsigned contractions = 0;
    Operation *contraction = nullptr, *reduction = nullptr;
    llvm::SmallPtrSet<Operation *, 16> members(group.begin(), group.end());
    if (members.size() != group.size())
      return "group #" + std::to_string(index) + " names an op twice";
    for (Operation *op : group) {
      if (op->getBlock() != &graph.getBlock())
        return describe(op) + " is not in the block being fused";
      FusionOpClass kind = graph.classify(op);
      if (kind == FusionOpClass::Unfusible)
        return describe(op) + " cannot be fused";
      auto [it, inserted] = groupOf.try_emplace(op, index);
      if (!inserted && !plan.recompute.contains(op))
        return describe(op) + " is in groups #" + std::to_string(it->second) +
               " and #" + std::to_string(index) +
               " but the strategy did not ask to recompute it";
      if (plan.recompute.contains(op) && kind != FusionOpClass::Pointwise)
        return describe(op) +
               " is recomputed, but only elementwise and layout ops may be";
      if (kind == FusionOpClass::Contraction) {
        ++contractions;
        contraction = op;
      } else if (kind == FusionOpClass::Reduction) {
        if (reduction && FusionGraph::getReductionSpace(op) !=
                             FusionGraph::getReductionSpace(reduction))
          return "group #" + std::to_string(index) + " holds " +
                 describe(reduction) + " and " + describe(op) +
                 ", reductions over different shapes or dimensions";
        reduction = op;
      }
    }
    if (contractions > 1)
      return "group #" + std::to_string(index) +
             " holds more than one matrix product";
    if (contraction && reduction)
      return "group #" + std::to_string(index) + " holds a matrix product (" +
             describe(contraction) + ") and a reduction (" +
             describe(reduction) + ")";
    if (contraction) {
      // A product's kernel takes elementwise consumers (an epilogue), not
      // producers: every other member must read the product's result,
      // directly or through members, except transposes of its operands,
      // which it reads in place.
      llvm::SmallPtrSet<Operation *, 16> reached = {contraction};
      for (Operation *op : group)
        if (FusionGraph::getTransposedOperandUser(op) == contraction)
          reached.insert(op);
      bool grew = true;
      while (grew) {
        grew = false;
        for (Operation *op : group)
          if (!reached.contains(op) &&
              llvm::any_of(op->getOperands(), [&](Value operand) {
                Operation *def = operand.getDefiningOp();
                return def && reached.contains(def);
              })) {
            reached.insert(op);
            grew = true;
          }
      }
      for (Operation *op : group)
        if (!reached.contains(op))
          return describe(op) + " is in the group of the matrix product " +
                 describe(contraction) +
                 " but does not consume its result (products take "
                 "epilogues and transposes of their operands only)";
    }
  }

  // No cycle between the fused ops: the graph of nodes (a group, or an op of
  // no group) with an edge from each value's producing node to each of its
  // readers' nodes must be acyclic (Kahn's algorithm). A recomputed op is
  // computed in every group that holds it: a member of such a group reads
  // that group's copy; others read the first group's.
  Block &block = graph.getBlock();
  llvm::DenseMap<Operation *, SmallVector<unsigned, 2>> nodesOf;
  for (auto [index, group] : llvm::enumerate(plan.groups))
    for (Operation *op : group)
      nodesOf[op].push_back(index);
  unsigned numNodes = plan.groups.size();
  for (Operation &op : block)
    if (!nodesOf.count(&op))
      nodesOf[&op].push_back(numNodes++);
  SmallVector<llvm::SmallSetVector<unsigned, 4>> successors(numNodes);
  SmallVector<unsigned> indegree(numNodes, 0);
  // Cheap producers (constants, tensor.dim) are cloned into each group that
  // reads them: they are no nodes; what reads one reads its operands.
  std::function<void(Operation *, SmallVectorImpl<Operation *> &)> addProducer =
      [&](Operation *def, SmallVectorImpl<Operation *> &producers) {
        if (!FusionGraph::isClonable(def)) {
          producers.push_back(def);
          return;
        }
        for (Value operand : def->getOperands())
          if (Operation *inner = operand.getDefiningOp();
              inner && inner->getBlock() == &block)
            addProducer(inner, producers);
      };
  for (Operation &user : block) {
    if (FusionGraph::isClonable(&user))
      continue;
    // Every value the op (and its regions) reads that an op of the block
    // defines.
    SmallVector<Operation *> producers;
    user.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && def->getBlock() == &block && def != &user)
          addProducer(def, producers);
    });
    for (unsigned to : nodesOf[&user])
      for (Operation *def : producers) {
        ArrayRef<unsigned> defNodes = nodesOf[def];
        unsigned from = llvm::is_contained(defNodes, to) ? to : defNodes[0];
        if (from != to && successors[from].insert(to))
          ++indegree[to];
      }
  }
  SmallVector<unsigned> ready;
  for (unsigned i = 0; i < numNodes; ++i)
    if (indegree[i] == 0)
      ready.push_back(i);
  unsigned visited = 0;
  while (!ready.empty()) {
    unsigned current = ready.pop_back_val();
    ++visited;
    for (unsigned next : successors[current])
      if (--indegree[next] == 0)
        ready.push_back(next);
  }
  if (visited != numNodes) {
    for (unsigned i = 0; i < plan.groups.size(); ++i)
      if (indegree[i] != 0)
        return "the groups make a cycle of fused ops (group #" +
               std::to_string(i) + ", holding " +
               describe(plan.groups[i].front()) +
               ", both feeds and needs another group)";
    return std::string("the groups make a cycle of fused ops");
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Building the fused ops
//===----------------------------------------------------------------------===//

namespace {
/// Builds one group's tensor_program.fused op.
class Materializer {
public:
  explicit Materializer(FusionResult &result) : result(result) {}
  void materialize(ArrayRef<Operation *> ops);

private:
  FusionResult &result;
};
} // namespace

/// The fused op's kind: that of its product or reductions, else pointwise.
static FusionKind kindOf(ArrayRef<Operation *> ops) {
  FusionKind kind = FusionKind::pointwise;
  for (Operation *op : ops) {
    if (isContraction(op))
      return FusionKind::matmul;
    if (isReduction(op))
      kind = FusionKind::reduction;
  }
  return kind;
}

void Materializer::materialize(ArrayRef<Operation *> groupOps) {
  SmallVector<Operation *> ops(groupOps);
  llvm::sort(ops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  llvm::SmallPtrSet<Operation *, 16> members(ops.begin(), ops.end());
  Operation *last = ops.back();
  OpBuilder builder(last);
  // Inputs: tensors defined outside the group (in first-use order); cheap
  // producers are cloned instead.
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> clones;
  std::function<void(Value)> addOperand = [&](Value value) {
    Operation *def = value.getDefiningOp();
    if (def && members.contains(def))
      return;
    if (def && FusionGraph::isClonable(def)) {
      for (Value operand : def->getOperands())
        addOperand(operand);
      clones.insert(def);
      return;
    }
    inputs.insert(value);
  };
  for (Operation *op : ops)
    for (Value operand : op->getOperands())
      addOperand(operand);
  // Outputs: results used outside the group. A cheap producer whose users
  // are all members (the tensor.dim of a member that sizes a member's
  // reshape) is cloned into the group and does not count.
  auto usedOutside = [&](Operation *user) {
    if (members.contains(user))
      return false;
    return !FusionGraph::isClonable(user) || user->use_empty() ||
           llvm::any_of(user->getUsers(), [&](Operation *userOfUser) {
             return !members.contains(userOfUser);
           });
  };
  SmallVector<Value> outputs;
  for (Operation *op : ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), usedOutside))
        outputs.push_back(result);

  SmallVector<Type> resultTypes;
  for (Value output : outputs)
    resultTypes.push_back(output.getType());
  auto fused = FusedOp::create(builder, last->getLoc(), kindOf(ops),
                               resultTypes, inputs.getArrayRef());
  Block &body = fused.getBody().front();
  IRMapping mapping;
  for (auto [input, arg] : llvm::zip(inputs, body.getArguments()))
    mapping.map(input, arg);
  OpBuilder inner = OpBuilder::atBlockEnd(&body);
  // Clones and members in program order: a clone may use a member (the
  // tensor.dim of a member's result) and a member a clone.
  SmallVector<Operation *> ordered(clones.begin(), clones.end());
  llvm::append_range(ordered, ops);
  llvm::sort(ordered,
             [&](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : ordered)
    inner.clone(*op, mapping);
  SmallVector<Value> yielded;
  for (Value output : outputs)
    yielded.push_back(mapping.lookup(output));
  YieldOp::create(inner, last->getLoc(), yielded);

  for (auto [output, fusedResult] : llvm::zip(outputs, fused.getResults()))
    output.replaceUsesWithIf(fusedResult, [&](OpOperand &use) {
      return !members.contains(use.getOwner());
    });
  // Members, and the cheap producers that only they used, latest first.
  for (Operation *op : llvm::reverse(ordered))
    if (members.contains(op) || op->use_empty())
      op->erase();
  ++result.kernels;
  result.fusedOps += ops.size();
}

/// The value outside `fused` that a yielded chain of reshapes starts from:
/// an input of `fused`, or another of its results; null when the chain
/// starts from a value only the region has, a reshape of the chain takes
/// sizes computed in the region, or the function returns the result.
static Value getReshapedOutsideValue(FusedOp fused, unsigned resultIndex) {
  Block &body = fused.getBody().front();
  Operation *yield = body.getTerminator();
  // A result the function returns stays: a returned view of another
  // result's buffer would be copied into a buffer of its own, a second pass
  // over memory instead of a second store in this one.
  if (llvm::any_of(fused.getResult(resultIndex).getUsers(),
                   [](Operation *user) {
                     return user->hasTrait<mlir::OpTrait::ReturnLike>();
                   }))
    return {};
  Value value = yield->getOperand(resultIndex);
  bool reshaped = false;
  while (auto reshape = value.getDefiningOp<ReshapeOp>()) {
    if (!reshape.getDynamicSizes().empty())
      return {};
    value = reshape.getInput();
    reshaped = true;
  }
  if (!reshaped)
    return {};
  if (auto arg = dyn_cast<BlockArgument>(value))
    return fused.getInputs()[arg.getArgNumber()];
  for (auto [index, yielded] : llvm::enumerate(yield->getOperands()))
    if (index != resultIndex && yielded == value)
      return fused.getResult(index);
  return {};
}

/// A result of `fused` that is a reshape of one of its inputs or of another
/// of its results is written by the kernel as a copy of what the kernel
/// reads or writes anyway (a forward's activation saved for the backward in
/// one shape and read by the next product in another). Such results become
/// lone reshapes after `fused` instead, views of the buffer that the host
/// graph does not copy; `fused` loses them (and is erased when it keeps no
/// result).
static void splitOffYieldedReshapes(FusedOp fused) {
  if (getLoneReshape(fused))
    return;
  SmallVector<unsigned> kept;
  SmallVector<std::pair<unsigned, Value>> split;
  for (unsigned index = 0; index < fused.getNumResults(); ++index) {
    if (Value source = getReshapedOutsideValue(fused, index))
      split.push_back({index, source});
    else
      kept.push_back(index);
  }
  if (split.empty())
    return;
  OpBuilder builder(fused->getContext());
  builder.setInsertionPointAfter(fused);
  Location loc = fused.getLoc();
  Operation *yield = fused.getBody().front().getTerminator();
  SmallVector<Value> keptValues;
  SmallVector<Type> keptTypes;
  for (unsigned index : kept) {
    keptValues.push_back(yield->getOperand(index));
    keptTypes.push_back(fused.getResult(index).getType());
  }
  auto narrowed = FusedOp::create(builder, loc, fused.getKind(), keptTypes,
                                  fused.getInputs());
  narrowed.getBody().takeBody(fused.getBody());
  yield->setOperands(keptValues);
  // The reshapes only the split results read, the latest first.
  SmallVector<Operation *> reshapes;
  for (Operation &op : narrowed.getBody().front().without_terminator())
    if (isa<ReshapeOp>(op))
      reshapes.push_back(&op);
  for (Operation *op : llvm::reverse(reshapes))
    if (op->use_empty())
      op->erase();
  for (auto [position, index] : llvm::enumerate(kept))
    fused.getResult(index).replaceAllUsesWith(narrowed.getResult(position));
  for (auto [index, source] : split) {
    // A source that was a result of `fused` is now one of `narrowed`.
    if (auto result = dyn_cast<OpResult>(source);
        result && result.getOwner() == fused.getOperation())
      source = narrowed.getResult(llvm::find(kept, result.getResultNumber()) -
                                  kept.begin());
    Type type = fused.getResult(index).getType();
    auto view =
        FusedOp::create(builder, loc, FusionKind::pointwise, {type}, source);
    OpBuilder inner = OpBuilder::atBlockEnd(&view.getBody().front());
    Value reshaped = ReshapeOp::create(
        inner, loc, type, view.getBody().front().getArgument(0), ValueRange{});
    YieldOp::create(inner, loc, reshaped);
    fused.getResult(index).replaceAllUsesWith(view.getResult(0));
  }
  fused.erase();
  if (narrowed.getNumResults() == 0)
    narrowed.erase();
}

/// Sorts the ops of `block` topologically, each as close to where it is as
/// its operands allow: Kahn's algorithm that takes, of the ops whose
/// operands are all defined, the one that comes first now. A fused op sits
/// at its last member, so a consumer of an earlier member's result may come
/// before it; that consumer moves to right after it. (MLIR's
/// sortTopologically moves every op it cannot place in its first sweep, and
/// all their users, behind the ops it could: a backward graph's
/// recomputations and the layout copies of every layer then run first and
/// their results are held across the whole graph.) The terminator stays
/// last; an op in a cycle keeps its place among the rest.
static void sortTopologicallyNearPlace(Block &block) {
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  llvm::DenseMap<Operation *, unsigned> position;
  for (auto [index, op] : llvm::enumerate(ops))
    position[op] = index;
  // Producers in the block of the values each op (or its regions) reads.
  std::vector<unsigned> waiting(ops.size(), 0);
  std::vector<SmallVector<unsigned>> users(ops.size());
  for (auto [index, op] : llvm::enumerate(ops)) {
    llvm::SmallDenseSet<unsigned, 8> producers;
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def)
          continue;
        Operation *top = block.findAncestorOpInBlock(*def);
        if (top && top != op && position.contains(top))
          producers.insert(position[top]);
      }
    });
    waiting[index] = producers.size();
    for (unsigned producer : producers)
      users[producer].push_back(index);
  }
  std::priority_queue<unsigned, std::vector<unsigned>, std::greater<unsigned>>
      ready;
  for (unsigned index = 0; index < ops.size(); ++index)
    if (!waiting[index])
      ready.push(index);
  SmallVector<unsigned> order;
  std::vector<bool> placed(ops.size(), false);
  while (order.size() < ops.size()) {
    if (ready.empty()) {
      // A cycle: the first op not placed goes next.
      unsigned next = 0;
      while (placed[next])
        ++next;
      waiting[next] = 0;
      ready.push(next);
    }
    unsigned index = ready.top();
    ready.pop();
    if (placed[index])
      continue;
    placed[index] = true;
    order.push_back(index);
    for (unsigned user : users[index])
      if (!placed[user] && waiting[user] && --waiting[user] == 0)
        ready.push(user);
  }
  Operation *terminator =
      block.mightHaveTerminator() ? block.getTerminator() : nullptr;
  for (unsigned index : order) {
    if (terminator)
      ops[index]->moveBefore(terminator);
    else
      ops[index]->moveBefore(&block, block.end());
  }
}

FusionResult tensor_program::applyFusionPlan(FusionGraph &graph,
                                             FusionPlan plan) {
  FusionResult result;
  // Recomputed ops: each group after the first that holds one gets a clone
  // of its own (placed right after the original), which its members read.
  llvm::DenseMap<Operation *, unsigned> first;
  for (unsigned index = 0; index < plan.groups.size(); ++index) {
    SmallVector<Operation *> &group = plan.groups[index];
    for (Operation *&op : group) {
      if (!plan.recompute.contains(op))
        continue;
      if (first.try_emplace(op, index).second)
        continue;
      OpBuilder builder(op->getContext());
      builder.setInsertionPointAfter(op);
      Operation *copy = builder.clone(*op);
      llvm::SmallPtrSet<Operation *, 16> members(group.begin(), group.end());
      for (auto [from, to] : llvm::zip(op->getResults(), copy->getResults()))
        from.replaceUsesWithIf(to, [&](OpOperand &use) {
          return members.contains(use.getOwner());
        });
      op = copy;
      ++result.recomputedOps;
    }
  }
  // Every fusible op of no group is a kernel of its own.
  llvm::SmallPtrSet<Operation *, 32> grouped;
  for (const SmallVector<Operation *> &group : plan.groups)
    grouped.insert(group.begin(), group.end());
  for (Operation &op : graph.getBlock())
    if (graph.isFusible(&op) && !grouped.contains(&op))
      plan.groups.push_back({&op});
  // The recomputed originals' own group keeps them; a recomputed op no
  // group kept (all its users got clones) goes with the dead cheap ones.
  Materializer materializer(result);
  for (const SmallVector<Operation *> &group : plan.groups)
    materializer.materialize(group);
  for (FusedOp fused :
       llvm::make_early_inc_range(graph.getBlock().getOps<FusedOp>()))
    splitOffYieldedReshapes(fused);
  // Cheap producers were cloned into the groups; drop the dead originals.
  for (Operation &op :
       llvm::make_early_inc_range(llvm::reverse(graph.getBlock())))
    if (FusionGraph::isClonable(&op) && op.use_empty())
      op.erase();
  sortTopologicallyNearPlace(graph.getBlock());
  return result;
}
