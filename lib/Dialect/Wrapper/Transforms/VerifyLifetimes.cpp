//===- VerifyLifetimes.cpp - independent check of buffer lifetimes --------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-verify-lifetimes. It shares nothing with the planner
// beyond the op definitions: storage is tracked by its root (views resolved
// through ViewLikeOpInterface), in program order.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h"

#include "Wrapper/Dialect/Wrapper/IR/WrapperTypes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERVERIFYLIFETIMESPASS
#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper;

namespace {
/// Where a storage stands at a point of the graph.
struct StorageState {
  enum Kind { Live, Freed, MaybeFreed, Reused } kind = Live;
  /// The op that created the storage.
  Operation *creator = nullptr;
  /// The op that ended it (free, free_if_not_reused, reuse).
  Operation *ender = nullptr;
};

/// A view of a pool and the positions of its creation and last use.
struct PoolView {
  ViewOp view;
  int64_t begin, end;
  size_t first, last;
};

struct WrapperVerifyLifetimesPass
    : public wrapper::impl::WrapperVerifyLifetimesPassBase<
          WrapperVerifyLifetimesPass> {
  void runOnOperation() override {
    GraphOp graph = getOperation();
    Block &block = graph.getBody().front();
    llvm::MapVector<Value, StorageState> storage;
    DenseMap<Value, SmallVector<PoolView>> pools;
    DenseMap<Operation *, size_t> position;
    bool failed = false;

    auto describe = [](StorageState::Kind kind) {
      switch (kind) {
      case StorageState::Freed:
        return "freed";
      case StorageState::MaybeFreed:
        return "marked free (free_if_not_reused)";
      case StorageState::Reused:
        return "handed to a reuse";
      case StorageState::Live:
        return "live";
      }
      return "live";
    };
    auto useOf = [&](Operation *user, Value value) {
      Value root = getStorageRoot(value);
      auto it = storage.find(root);
      if (it == storage.end() || it->second.kind == StorageState::Live)
        return;
      InFlightDiagnostic diag = user->emitError()
                                << "uses storage after it was "
                                << describe(it->second.kind);
      diag.attachNote(it->second.ender->getLoc()) << "the storage ends here";
      failed = true;
    };

    // Storage that a collective in flight holds: its start, and whether it
    // only reads it (an input of a gather or scatter).
    llvm::MapVector<Value, std::pair<CollectiveStartOp, bool>> inFlight;
    auto checkInFlight = [&](Operation *user, Value operand) {
      auto it = inFlight.find(getStorageRoot(operand));
      if (it == inFlight.end() || it->second.first == user)
        return;
      // Others may read what the collective only reads.
      if (it->second.second) {
        auto effects = dyn_cast<MemoryEffectOpInterface>(user);
        if (effects &&
            !effects.getEffectOnValue<MemoryEffects::Write>(operand)
                 .has_value() &&
            !effects.getEffectOnValue<MemoryEffects::Free>(operand).has_value())
          return;
      }
      InFlightDiagnostic diag =
          user->emitError()
          << "uses storage while a collective on it is in flight";
      diag.attachNote(it->second.first.getLoc())
          << "the collective starts here; wait for it first";
      failed = true;
    };

    for (auto [index, opRef] : llvm::enumerate(block)) {
      Operation *op = &opRef;
      position[op] = index;
      if (auto wait = dyn_cast<CollectiveWaitOp>(op)) {
        if (CollectiveStartOp start = wait.getStart())
          for (Value operand : start->getOperands())
            inFlight.erase(getStorageRoot(operand));
        continue;
      }
      if (!isa<CollectiveStartOp>(op))
        for (Value operand : op->getOperands())
          if (isa<MemRefType>(operand.getType()))
            checkInFlight(op, operand);
      if (auto start = dyn_cast<CollectiveStartOp>(op)) {
        for (Value operand : start->getOperands())
          useOf(op, operand);
        for (auto [operands, reads] :
             {std::make_pair(start.getInputs(), true),
              std::make_pair(start.getOutputs(), false)})
          for (Value operand : operands) {
            Value root = getStorageRoot(operand);
            auto [it, inserted] = inFlight.insert({root, {start, reads}});
            if (!inserted && it->second.first != start) {
              InFlightDiagnostic diag =
                  start.emitError() << "starts a collective on storage that "
                                       "another collective in flight holds";
              diag.attachNote(it->second.first.getLoc())
                  << "that collective starts here";
              failed = true;
            } else if (!inserted && !reads) {
              it->second.second = false;
            }
          }
        continue;
      }
      if (auto free = dyn_cast<FreeOp>(op)) {
        end(free, free.getBuffer(), StorageState::Freed, storage, failed);
        continue;
      }
      if (auto free = dyn_cast<FreeIfNotReusedOp>(op)) {
        end(free, free.getBuffer(), StorageState::MaybeFreed, storage, failed);
        continue;
      }
      if (auto reuse = dyn_cast<ReuseOp>(op)) {
        Value old = reuse.getOld();
        auto it = storage.find(old);
        if (it != storage.end() && it->second.kind == StorageState::Freed) {
          InFlightDiagnostic diag = reuse.emitError()
                                    << "reuses storage that was already freed";
          diag.attachNote(it->second.ender->getLoc()) << "it was freed here";
          failed = true;
        } else if (it != storage.end() &&
                   it->second.kind == StorageState::Reused) {
          InFlightDiagnostic diag = reuse.emitError()
                                    << "reuses storage that another reuse "
                                       "already took";
          diag.attachNote(it->second.ender->getLoc()) << "taken here";
          failed = true;
        } else if (it != storage.end()) {
          it->second.kind = StorageState::Reused;
          it->second.ender = reuse;
        }
        storage[reuse.getResult()] = {StorageState::Live, reuse, nullptr};
        continue;
      }
      // Every other op uses its operands (and those of nested ops).
      op->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          if (isa<MemRefType>(operand.getType()) ||
              !operand.getType().isIntOrIndexOrFloat())
            useOf(op, operand);
      });
      if (auto view = dyn_cast<ViewOp>(op)) {
        std::optional<int64_t> bytes = getStorageBytes(view.getType());
        int64_t begin = static_cast<int64_t>(view.getByteOffset());
        pools[view.getPool()].push_back(
            {view, begin, begin + bytes.value_or(0), index, index});
      }
      if (isa<AllocOp, ExternAllocOp, MultiOutputOp, DescriptorBufferOp>(op))
        for (Value result : op->getResults())
          storage[result] = {StorageState::Live, op, nullptr};
    }

    // Leaks: storage still live at the end that is not returned.
    Operation *terminator = block.getTerminator();
    DenseSet<Value> returned;
    for (Value value : terminator->getOperands())
      returned.insert(getStorageRoot(value));
    for (auto &[root, state] : storage) {
      if (state.kind != StorageState::Live || returned.contains(root))
        continue;
      // An element taken out of a container is freed with it.
      if (isa<MultiOutputOp>(state.creator))
        continue;
      InFlightDiagnostic diag =
          state.creator->emitError()
          << "storage is neither freed nor returned (a leak)";
      diag.attachNote(terminator->getLoc()) << "the graph ends here";
      failed = true;
    }

    // Pools: two views whose bytes overlap must not be live together.
    for (auto &[pool, views] : pools) {
      for (PoolView &view : views)
        for (Operation *user : view.view->getUsers()) {
          // A view in flight is live until its collective's wait.
          if (auto start = dyn_cast<CollectiveStartOp>(user))
            if (CollectiveWaitOp wait = start.getWait())
              user = wait;
          Operation *ancestor = block.findAncestorOpInBlock(*user);
          if (ancestor)
            view.last = std::max(view.last, position[ancestor]);
        }
      for (unsigned i = 0; i < views.size(); ++i)
        for (unsigned j = i + 1; j < views.size(); ++j) {
          PoolView &a = views[i], &b = views[j];
          bool bytes = a.begin < b.end && b.begin < a.end;
          bool times = a.first <= b.last && b.first <= a.last;
          if (!bytes || !times)
            continue;
          InFlightDiagnostic diag =
              b.view.emitError()
              << "bytes [" << b.begin << ", " << b.end
              << ") of the pool overlap a view that is still live";
          diag.attachNote(a.view.getLoc())
              << "bytes [" << a.begin << ", " << a.end << ") viewed here";
          failed = true;
        }
    }
    if (failed)
      signalPassFailure();
  }

  /// Ends the storage of `buffer` at `op`, reporting a second end.
  static void end(Operation *op, Value buffer, StorageState::Kind kind,
                  llvm::MapVector<Value, StorageState> &storage, bool &failed) {
    auto it = storage.find(buffer);
    if (it == storage.end())
      return;
    if (it->second.kind != StorageState::Live) {
      InFlightDiagnostic diag = op->emitError()
                                << (it->second.kind == StorageState::Reused
                                        ? "frees storage that a reuse took"
                                        : "frees storage a second time");
      diag.attachNote(it->second.ender->getLoc()) << "it ended here";
      failed = true;
      return;
    }
    it->second.kind = kind;
    it->second.ender = op;
  }
};
} // namespace
