//===- RecomputeLayouts.cpp - layout copies recomputed where used late ----===//
//
// Part of the Wrapper project.
//
// Implements --tensor-program-recompute-layouts: a kernel that only moves
// elements (im2col's shifted windows, a transposed copy) and whose result
// is read again long after it was computed is computed again just before
// that late read, from inputs that are smaller or live there anyway, so
// that its result does not stay live in between (a training step's
// forward-to-backward span).
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir {
namespace tensor_program {
#define GEN_PASS_DEF_TENSORPROGRAMRECOMPUTELAYOUTSPASS
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h.inc"
} // namespace tensor_program
} // namespace mlir

using namespace mlir;
namespace tp = mlir::tensor_program;

/// The bytes of a statically shaped tensor value, or nullopt.
static std::optional<int64_t> staticBytes(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  int64_t bits = type.getElementType().getIntOrFloatBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, bits / 8);
}

/// How one result of a fused region is computed from values the region
/// has outside: the region's ops that only move elements on the way from
/// them (layout ops, with their constants and size computations), and
/// the outside values at its leaves (inputs of the region, or other
/// results of it).
struct LayoutTail {
  SmallVector<Operation *> ops; // in region order
  SmallVector<Value> leaves;    // inside the region
  SmallVector<Value> outside;   // what each leaf is outside; null: a
                                // value the region must also return
};

/// The layout tail of result `index` of `fused`: the layout ops (at least
/// one) on the way back from the result to the region's arguments, its
/// other results, or values other ops compute (which the region then has
/// to return too: an im2col matrix fused after a max-pool is recomputed
/// from the pooled values). Nullopt when there is none or a leaf has no
/// static shape.
static std::optional<LayoutTail> getLayoutTail(tp::FusedOp fused,
                                               unsigned index) {
  Block &region = fused.getBody().front();
  Operation *yield = region.getTerminator();
  Value start = yield->getOperand(index);
  // Values the region yields as results other than `index`.
  llvm::DenseMap<Value, unsigned> yielded;
  for (auto [i, value] : llvm::enumerate(yield->getOperands()))
    if (i != index && !yielded.count(value))
      yielded[value] = i;
  LayoutTail tail;
  llvm::SmallPtrSet<Operation *, 16> inTail;
  SmallVector<Value> worklist = {start};
  bool moves = false;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (llvm::is_contained(tail.leaves, value))
      continue;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      tail.leaves.push_back(value);
      tail.outside.push_back(fused.getInputs()[arg.getArgNumber()]);
      continue;
    }
    if (value != start) {
      if (auto it = yielded.find(value); it != yielded.end()) {
        tail.leaves.push_back(value);
        tail.outside.push_back(fused.getResult(it->second));
        continue;
      }
    }
    Operation *def = value.getDefiningOp();
    if (inTail.contains(def))
      continue;
    bool clonable = isa<tp::ConstantOp>(def) || tp::isSizeComputation(def);
    if (!clonable && !tp::isLayout(def)) {
      if (value == start || !staticBytes(value))
        return std::nullopt;
      tail.leaves.push_back(value);
      tail.outside.push_back(Value());
      continue;
    }
    moves |= !clonable;
    inTail.insert(def);
    llvm::append_range(worklist, def->getOperands());
  }
  if (!moves)
    return std::nullopt;
  for (Operation &op : region.without_terminator())
    if (inTail.contains(&op))
      tail.ops.push_back(&op);
  return tail;
}

/// `fused` rebuilt to also return `extra` (values of its region), with
/// the region moved over; the old op's uses go to the new one's first
/// results.
static tp::FusedOp addResults(tp::FusedOp fused, ArrayRef<Value> extra) {
  OpBuilder builder(fused);
  SmallVector<Type> types(fused.getResultTypes());
  for (Value value : extra)
    types.push_back(value.getType());
  OperationState state(fused.getLoc(), fused->getName());
  state.addAttributes(fused->getAttrs());
  state.addOperands(fused.getInputs());
  state.addTypes(types);
  state.addRegion();
  auto rebuilt = cast<tp::FusedOp>(builder.create(state));
  rebuilt.getBody().takeBody(fused.getBody());
  Operation *yield = rebuilt.getBody().front().getTerminator();
  SmallVector<Value> yielded(yield->getOperands());
  llvm::append_range(yielded, extra);
  yield->setOperands(yielded);
  fused->replaceAllUsesWith(
      rebuilt.getResults().take_front(fused.getNumResults()));
  fused->erase();
  return rebuilt;
}

/// A pointwise fused op before `at` computing `tail` from its outside
/// values.
static tp::FusedOp buildTail(const LayoutTail &tail, Type resultType,
                             Value tailResult, Operation *at) {
  OpBuilder builder(at);
  Location loc = tailResult.getLoc();
  auto fused = tp::FusedOp::create(builder, loc, tp::FusionKind::pointwise,
                                   TypeRange{resultType}, tail.outside);
  Block &body = fused.getBody().front();
  IRMapping mapping;
  for (auto [leaf, arg] : llvm::zip(tail.leaves, body.getArguments()))
    mapping.map(leaf, arg);
  OpBuilder inner = OpBuilder::atBlockEnd(&body);
  for (Operation *op : tail.ops)
    inner.clone(*op, mapping);
  tp::YieldOp::create(inner, loc, mapping.lookup(tailResult));
  return fused;
}

namespace {
struct RecomputeLayoutsPass
    : public tp::impl::TensorProgramRecomputeLayoutsPassBase<
          RecomputeLayoutsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &block = func.getBody().front();
    llvm::DenseMap<Operation *, int64_t> position;
    int64_t next = 0;
    for (Operation &op : block)
      position[&op] = next++;
    SmallVector<tp::FusedOp> candidates;
    for (Operation &op : block)
      if (auto fused = dyn_cast<tp::FusedOp>(op);
          fused && !tp::getLoneReshape(fused))
        candidates.push_back(fused);
    for (tp::FusedOp fused : candidates) {
      unsigned results = fused.getNumResults();
      for (unsigned index = 0; index < results; ++index)
        recompute(block, fused, index, position);
    }
  }

private:
  /// Whether computing `fused` again just before `at` costs no memory:
  /// its result is larger than twice its computed inputs, or those are
  /// read at or after `at` anyway.
  /// Whether returning `pending` as well costs less than keeping
  /// `result`: at most half its bytes.
  static bool pendingPays(Value result, ArrayRef<Value> pending) {
    std::optional<int64_t> resultBytes = staticBytes(result);
    if (!resultBytes)
      return false;
    int64_t bytes = 0;
    for (Value value : pending)
      bytes += staticBytes(value).value_or(*resultBytes);
    return 2 * bytes < *resultBytes;
  }

  static bool pays(Block &block, Value result, ArrayRef<Value> inputs,
                   Operation *at,
                   llvm::DenseMap<Operation *, int64_t> &position) {
    std::optional<int64_t> resultBytes = staticBytes(result);
    if (!resultBytes)
      return false;
    int64_t inputBytes = 0;
    bool liveAnyway = true;
    Operation *producer = result.getDefiningOp();
    for (Value input : inputs) {
      if (!input)
        continue; // a value the region is to return (pendingPays)
      Operation *def = input.getDefiningOp();
      if (!def || def->getBlock() != &block)
        continue; // an argument: live throughout
      std::optional<int64_t> bytes = staticBytes(input);
      if (!bytes)
        return false;
      inputBytes += *bytes;
      liveAnyway &= llvm::any_of(input.getUsers(), [&](Operation *user) {
        Operation *ancestor = block.findAncestorOpInBlock(*user);
        return ancestor && ancestor != producer &&
               position.lookup(ancestor) >= position.lookup(at);
      });
    }
    return liveAnyway || *resultBytes > 2 * inputBytes;
  }

  /// Gives late uses of result `index` of `fused` their own copies;
  /// `fused` may be rebuilt with more results (updated).
  void recompute(Block &block, tp::FusedOp &fused, unsigned index,
                 llvm::DenseMap<Operation *, int64_t> &position) {
    Value result = fused.getResult(index);
    // The users in program order (each op once).
    SmallVector<Operation *> users;
    for (Operation *user : result.getUsers())
      if (Operation *ancestor = block.findAncestorOpInBlock(*user);
          ancestor && !llvm::is_contained(users, ancestor))
        users.push_back(ancestor);
    llvm::sort(users, [&](Operation *a, Operation *b) {
      return position.lookup(a) < position.lookup(b);
    });
    std::optional<LayoutTail> tail;
    Value current = result;
    int64_t lastUse = position.lookup(fused);
    for (Operation *user : users) {
      int64_t at = position.lookup(user);
      // A returned value is held to the end anyway.
      if (at - lastUse >= minDistance && !isa<func::ReturnOp>(user)) {
        if (!tail)
          tail = getLayoutTail(fused, index);
        if (!tail)
          return;
        // Values the tail reads that the region does not return yet
        // cost their bytes from the region on (as its result did).
        SmallVector<Value> pending;
        for (auto [leaf, outside] : llvm::zip(tail->leaves, tail->outside))
          if (!outside)
            pending.push_back(leaf);
        if (!pending.empty() && !pendingPays(result, pending))
          return;
        if (pays(block, result, tail->outside, user, position)) {
          if (!pending.empty()) {
            unsigned first = fused.getNumResults();
            int64_t rank = position.lookup(fused);
            fused = addResults(fused, pending);
            position[fused] = rank;
            unsigned next = first;
            for (Value &outside : tail->outside)
              if (!outside)
                outside = fused.getResult(next++);
            result = fused.getResult(index);
          }
          Value yielded =
              fused.getBody().front().getTerminator()->getOperand(index);
          tp::FusedOp clone = buildTail(*tail, result.getType(), yielded, user);
          position[clone] = at; // just before the user: its rank suffices
          current = clone.getResult(0);
          ++numRecomputed;
        }
      }
      user->replaceUsesOfWith(result, current);
      lastUse = at;
    }
  }
};
} // namespace
