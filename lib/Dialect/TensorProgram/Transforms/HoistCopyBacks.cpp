//===- HoistCopyBacks.cpp - argument updates as early as possible ---------===//
//
// Part of the Wrapper project.
//
// Implements --tensor-program-hoist-copy-backs: each copy_back and the op
// computing its value move up to just after that op's operands and the
// target's other readers, so that the values an update consumes die at it
// and the update can be computed into the argument's buffer.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace tensor_program {
#define GEN_PASS_DEF_TENSORPROGRAMHOISTCOPYBACKSPASS
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h.inc"
} // namespace tensor_program
} // namespace mlir

using namespace mlir;
namespace tp = mlir::tensor_program;

namespace {
struct HoistCopyBacksPass
    : public tp::impl::TensorProgramHoistCopyBacksPassBase<HoistCopyBacksPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// The latest of `ops` in `block` (ancestors in it), or null.
  static Operation *latest(Block &block, ArrayRef<Operation *> ops);
  /// The ops in `block` that define `op`'s operands.
  static SmallVector<Operation *> operandDefs(Block &block, Operation *op);
  bool isSmall(Operation *op) const;
  /// Moves `op` up to just after the latest of its operands' definitions
  /// and of `alsoAfter`; down to there only with `mayMoveDown` and when
  /// every user of its results but write-backs (placed after it later)
  /// follows that point.
  static void place(Block &block, Operation *op,
                    ArrayRef<Operation *> alsoAfter, bool mayMoveDown,
                    ArrayRef<Operation *> ignored = {});
  /// The producers of `op`'s operands that read only arguments and small
  /// values and whose results only `op` reads (AdamW's weight decay of the
  /// parameter, which fusion leaves apart from the update): they go right
  /// before `op`, so that their full-size results do not live from the
  /// program's start to the update.
  SmallVector<Operation *> getSinkableProducers(Block &block,
                                                Operation *op) const;
  /// Moves the small side-effect-free producers `op` needs up, first their
  /// own.
  void hoistSmallProducers(Block &block, Operation *op);
};
} // namespace

Operation *HoistCopyBacksPass::latest(Block &block, ArrayRef<Operation *> ops) {
  Operation *last = nullptr;
  for (Operation *op : ops) {
    Operation *ancestor = block.findAncestorOpInBlock(*op);
    if (ancestor && (!last || last->isBeforeInBlock(ancestor)))
      last = ancestor;
  }
  return last;
}

SmallVector<Operation *> HoistCopyBacksPass::operandDefs(Block &block,
                                                         Operation *op) {
  SmallVector<Operation *> defs;
  for (Value operand : op->getOperands())
    if (Operation *def = operand.getDefiningOp();
        def && def->getBlock() == &block)
      defs.push_back(def);
  return defs;
}

bool HoistCopyBacksPass::isSmall(Operation *op) const {
  return op->getNumResults() > 0 &&
         llvm::all_of(op->getResultTypes(), [&](Type type) {
           auto tensor = dyn_cast<RankedTensorType>(type);
           return tensor && tensor.hasStaticShape() &&
                  tensor.getNumElements() <= smallElements;
         });
}

SmallVector<Operation *>
HoistCopyBacksPass::getSinkableProducers(Block &block, Operation *op) const {
  SmallVector<Operation *> sinkable;
  for (Operation *def : operandDefs(block, op)) {
    if (llvm::is_contained(sinkable, def) || isSmall(def) ||
        !isMemoryEffectFree(def) || isa<tp::ExternOp>(def) ||
        tp::isSizeComputation(def))
      continue;
    bool onlyUser = llvm::all_of(def->getUsers(),
                                 [&](Operation *user) { return user == op; });
    bool readsArguments = llvm::all_of(def->getOperands(), [&](Value value) {
      Operation *inner = value.getDefiningOp();
      return !inner || inner->getBlock() != &block || isSmall(inner) ||
             tp::isSizeComputation(inner);
    });
    if (onlyUser && readsArguments)
      sinkable.push_back(def);
  }
  return sinkable;
}

void HoistCopyBacksPass::place(Block &block, Operation *op,
                               ArrayRef<Operation *> alsoAfter,
                               bool mayMoveDown,
                               ArrayRef<Operation *> ignored) {
  SmallVector<Operation *> after = operandDefs(block, op);
  llvm::append_range(after, alsoAfter);
  llvm::erase_if(after, [&](Operation *other) {
    return llvm::is_contained(ignored, other);
  });
  Operation *last = latest(block, after);
  if (!last) {
    // Arguments only: before the first op that is not a size computation
    // (which stay first, as the programs write them).
    Operation *first = &block.front();
    while (first != op && tp::isSizeComputation(first))
      first = first->getNextNode();
    if (first != op)
      op->moveBefore(first);
    return;
  }
  if (last == op)
    return;
  if (last->isBeforeInBlock(op)) {
    op->moveAfter(last);
    return;
  }
  // Down, past readers of the old values it overwrites (fusion may have
  // ordered a reader after the update).
  bool usersFollow = llvm::all_of(op->getUsers(), [&](Operation *user) {
    Operation *ancestor = block.findAncestorOpInBlock(*user);
    return isa<tp::CopyBackOp>(user) ||
           (ancestor && last->isBeforeInBlock(ancestor));
  });
  if (mayMoveDown && usersFollow)
    op->moveAfter(last);
}

void HoistCopyBacksPass::hoistSmallProducers(Block &block, Operation *op) {
  for (Operation *def : operandDefs(block, op)) {
    if (!isSmall(def) || !isMemoryEffectFree(def) ||
        isa<tp::CopyBackOp, tp::ExternOp>(def))
      continue;
    hoistSmallProducers(block, def);
    place(block, def, {}, /*mayMoveDown=*/false);
  }
}

void HoistCopyBacksPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  Block &block = func.getBody().front();
  SmallVector<tp::CopyBackOp> copies;
  for (Operation &op : block)
    if (auto copy = dyn_cast<tp::CopyBackOp>(op))
      copies.push_back(copy);
  for (tp::CopyBackOp copy : copies) {
    // The target's other readers: the write-back follows them all.
    SmallVector<Operation *> readers;
    tp::collectStorageReaders(copy.getTarget(), readers);
    llvm::erase(readers, copy.getOperation());
    Operation *producer = copy.getValue().getDefiningOp();
    if (producer && producer->getBlock() != &block)
      producer = nullptr;
    if (producer && isMemoryEffectFree(producer) &&
        !isa<tp::ExternOp>(producer)) {
      // After the readers of every argument the producer's results are
      // written back to (so that it may write them in place).
      SmallVector<Operation *> targetReaders;
      for (Value result : producer->getResults())
        for (Operation *user : result.getUsers())
          if (auto other = dyn_cast<tp::CopyBackOp>(user))
            tp::collectStorageReaders(other.getTarget(), targetReaders);
      llvm::erase_if(targetReaders, [&](Operation *reader) {
        return reader == producer || isa<tp::CopyBackOp>(reader);
      });
      hoistSmallProducers(block, producer);
      SmallVector<Operation *> sinkable = getSinkableProducers(block, producer);
      for (Operation *def : sinkable)
        hoistSmallProducers(block, def);
      place(block, producer, targetReaders, /*mayMoveDown=*/true, sinkable);
      for (Operation *def : sinkable)
        def->moveBefore(producer);
    }
    SmallVector<Operation *> after(readers);
    if (producer)
      after.push_back(producer);
    if (Operation *last = latest(block, after))
      copy->moveAfter(last);
  }
}
