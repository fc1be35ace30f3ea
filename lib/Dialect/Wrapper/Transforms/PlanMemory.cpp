//===- PlanMemory.cpp - reuse and pooling of buffer storage ---------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-plan-memory (strategies none, reuse, pool) and the
// memory profile it reports. docs/Rationale/MemoryPlanning.md states the
// algorithms and why neither raises the peak.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h"

#include "Wrapper/Dialect/Wrapper/IR/WrapperTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERPLANMEMORYPASS
#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper;

/// Alignment of every buffer placed in a pool, in bytes.
static constexpr int64_t kPoolAlignment = 64;

//===----------------------------------------------------------------------===//
// Memory profile
//===----------------------------------------------------------------------===//

namespace {
/// Storage that a planned graph would hold over positions [start, end].
struct ExtraInterval {
  unsigned start, end;
  int64_t bytes;
};
} // namespace

/// The profile of `graph` with the allocations in `excluded` left out and
/// the storage of `extra` added: the profile a plan would have.
static MemoryProfile simulateProfile(GraphOp graph,
                                     const DenseSet<Operation *> &excluded,
                                     ArrayRef<ExtraInterval> extra) {
  MemoryProfile profile;
  // Bytes of each live storage root of static size.
  DenseMap<Value, int64_t> live;
  int64_t current = 0;
  auto add = [&](Value root, MemRefType type) {
    std::optional<int64_t> bytes =
        type.hasStaticShape() ? getStorageBytes(type) : std::nullopt;
    if (!bytes) {
      ++profile.dynamicAllocations;
      return;
    }
    live[root] = *bytes;
    current += *bytes;
    profile.peakBytes = std::max(profile.peakBytes, current);
  };
  auto release = [&](Value root) {
    auto it = live.find(root);
    if (it == live.end())
      return;
    current -= it->second;
    live.erase(it);
  };
  for (auto [index, op] : llvm::enumerate(graph.getBody().front())) {
    for (const ExtraInterval &interval : extra)
      if (interval.start == index) {
        current += interval.bytes;
        ++profile.allocations;
      }
    profile.peakBytes = std::max(profile.peakBytes, current);
    if (excluded.contains(&op)) {
      // Its free is excluded too: nothing to count.
    } else if (auto alloc = dyn_cast<AllocOp>(op)) {
      ++profile.allocations;
      add(alloc.getResult(), alloc.getType());
    } else if (auto alloc = dyn_cast<ExternAllocOp>(op)) {
      ++profile.allocations;
      for (Value result : alloc->getResults())
        if (auto type = dyn_cast<MemRefType>(result.getType()))
          add(result, type);
    } else if (auto reuse = dyn_cast<ReuseOp>(op)) {
      // The storage changes hands; its size stays.
      auto it = live.find(reuse.getOld());
      if (it != live.end()) {
        int64_t bytes = it->second;
        live.erase(it);
        live[reuse.getResult()] = bytes;
      }
    } else if (auto free = dyn_cast<FreeOp>(op)) {
      release(free.getBuffer());
    } else if (auto free = dyn_cast<FreeIfNotReusedOp>(op)) {
      bool reused = llvm::any_of(free.getBuffer().getUsers(),
                                 [](Operation *u) { return isa<ReuseOp>(u); });
      if (!reused)
        release(free.getBuffer());
    }
    for (const ExtraInterval &interval : extra)
      if (interval.end == index)
        current -= interval.bytes;
  }
  return profile;
}

MemoryProfile mlir::wrapper::computeMemoryProfile(GraphOp graph) {
  return simulateProfile(graph, {}, {});
}

//===----------------------------------------------------------------------===//
// Reuse
//===----------------------------------------------------------------------===//

/// The dynamic sizes of the storage `buffer` was allocated with, in order,
/// or nullopt when they are not known here.
static std::optional<SmallVector<Value>> allocatedSizes(Value buffer) {
  if (auto alloc = buffer.getDefiningOp<AllocOp>())
    return SmallVector<Value>(alloc.getDynamicSizes());
  if (auto reuse = buffer.getDefiningOp<ReuseOp>())
    return allocatedSizes(reuse.getOld());
  return std::nullopt;
}

/// A canonical form of a size value: constants by value, `memref.dim` of an
/// allocated buffer by the size it was allocated with, `memref.dim` of an
/// argument by (argument, dimension).
struct CanonicalSize {
  Value value;
  int64_t number = 0;
  bool operator==(const CanonicalSize &other) const {
    return value == other.value && number == other.number;
  }
};

static CanonicalSize canonicalize(Value size, unsigned depth = 0) {
  if (std::optional<int64_t> constant = getConstantIntValue(size))
    return {Value(), *constant};
  auto dim = size.getDefiningOp<memref::DimOp>();
  std::optional<int64_t> index =
      dim ? getConstantIntValue(dim.getIndex()) : std::nullopt;
  if (!dim || !index || depth > 64)
    return {size, -1};
  Value source = dim.getSource();
  auto type = cast<MemRefType>(source.getType());
  if (*index < 0 || *index >= type.getRank())
    return {size, -1};
  if (!type.isDynamicDim(*index))
    return {Value(), type.getDimSize(*index)};
  if (std::optional<SmallVector<Value>> sizes = allocatedSizes(source)) {
    unsigned position = type.getDynamicDimIndex(*index);
    if (position < sizes->size())
      return canonicalize((*sizes)[position], depth + 1);
  }
  // An argument (or a value of unknown origin): the dimension of it.
  return {source, *index};
}

/// Whether the storage of `old` can be taken by a buffer allocated by
/// `alloc` without changing the bytes in use.
static bool canTakeStorage(Value old, AllocOp alloc) {
  auto oldType = cast<MemRefType>(old.getType());
  MemRefType newType = alloc.getType();
  if (getBufferDevice(oldType) != getBufferDevice(newType) ||
      oldType.getElementType() != newType.getElementType())
    return false;
  if (oldType.hasStaticShape() && newType.hasStaticShape()) {
    std::optional<int64_t> oldBytes = getStorageBytes(oldType);
    std::optional<int64_t> newBytes = getStorageBytes(newType);
    return oldBytes && newBytes && *oldBytes == *newBytes;
  }
  if (oldType != newType)
    return false;
  std::optional<SmallVector<Value>> oldSizes = allocatedSizes(old);
  if (!oldSizes || oldSizes->size() != alloc.getDynamicSizes().size())
    return false;
  for (auto [a, b] : llvm::zip(*oldSizes, alloc.getDynamicSizes()))
    if (!(canonicalize(a) == canonicalize(b)))
      return false;
  return true;
}

/// Whether `op` may create storage (ends every reuse window).
static bool mayAllocate(Operation &op) {
  if (isa<FreeOp, FreeIfNotReusedOp, CallOp, CommentOp, ReinterpretOp, ViewOp,
          ReuseOp, GetConstantOp, ReturnOp>(op))
    return false;
  // Index arithmetic and dims on the host.
  if (isa<arith::ArithDialect>(op.getDialect()) || isa<memref::DimOp>(op))
    return false;
  return true;
}

/// Rewrites allocations into reuses of freed storage; returns the count.
static int64_t planReuse(GraphOp graph) {
  int64_t reused = 0;
  // Frees whose storage may still be taken, oldest first.
  SmallVector<FreeOp> pending;
  Block &block = graph.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (auto free = dyn_cast<FreeOp>(op)) {
      Value buffer = free.getBuffer();
      if (isa<MemRefType>(buffer.getType()) &&
          isa_and_nonnull<AllocOp, ReuseOp>(buffer.getDefiningOp()))
        pending.push_back(free);
      continue;
    }
    auto alloc = dyn_cast<AllocOp>(op);
    if (!alloc) {
      if (mayAllocate(op))
        pending.clear();
      continue;
    }
    // Most recently freed first.
    auto match = llvm::find_if(llvm::reverse(pending), [&](FreeOp free) {
      return canTakeStorage(free.getBuffer(), alloc);
    });
    if (match == pending.rend()) {
      pending.clear();
      continue;
    }
    FreeOp free = *match;
    OpBuilder b(alloc);
    auto reuse = ReuseOp::create(b, alloc.getLoc(), alloc.getType(),
                                 free.getBuffer(), alloc.getNameAttr());
    alloc.getResult().replaceAllUsesWith(reuse.getResult());
    alloc.erase();
    pending.erase(std::prev(match.base()));
    free.erase();
    ++reused;
  }
  return reused;
}

//===----------------------------------------------------------------------===//
// Pool
//===----------------------------------------------------------------------===//

namespace {
/// A buffer to place in a pool: its allocation, its free and their
/// positions in the graph.
struct PoolBuffer {
  AllocOp alloc;
  FreeOp free;
  unsigned start, end;
  int64_t bytes;
  int64_t offset = -1;
};

/// The plan of one device's pool.
struct PoolPlan {
  SmallVector<PoolBuffer> buffers;
  int64_t size = 0;
  /// Most bytes of the pool's buffers live at one time.
  int64_t maxLive = 0;
};
} // namespace

/// Places `buffers` (greedy by size) and returns the pool size.
static int64_t packBySize(MutableArrayRef<PoolBuffer> buffers) {
  SmallVector<PoolBuffer *> order;
  for (PoolBuffer &buffer : buffers)
    order.push_back(&buffer);
  llvm::stable_sort(order, [](PoolBuffer *a, PoolBuffer *b) {
    if (a->bytes != b->bytes)
      return a->bytes > b->bytes;
    return a->start < b->start;
  });
  int64_t size = 0;
  SmallVector<PoolBuffer *> placed;
  for (PoolBuffer *buffer : order) {
    SmallVector<PoolBuffer *> overlapping;
    for (PoolBuffer *other : placed)
      if (other->start <= buffer->end && buffer->start <= other->end)
        overlapping.push_back(other);
    llvm::sort(overlapping, [](PoolBuffer *a, PoolBuffer *b) {
      return a->offset < b->offset;
    });
    int64_t offset = 0;
    for (PoolBuffer *other : overlapping) {
      if (offset + buffer->bytes <= other->offset)
        break;
      offset =
          std::max(offset, static_cast<int64_t>(llvm::alignTo(
                               other->offset + other->bytes, kPoolAlignment)));
    }
    buffer->offset = offset;
    size = std::max(size, offset + buffer->bytes);
    placed.push_back(buffer);
  }
  return llvm::alignTo(size, kPoolAlignment);
}

/// Collects the buffers of `graph` that can live in a pool, per device.
static llvm::MapVector<Attribute, PoolPlan> collectPoolBuffers(GraphOp graph) {
  llvm::MapVector<Attribute, PoolPlan> plans;
  Block &block = graph.getBody().front();
  DenseMap<Operation *, unsigned> position;
  for (auto [index, op] : llvm::enumerate(block))
    position[&op] = index;
  for (auto alloc : block.getOps<AllocOp>()) {
    MemRefType type = alloc.getType();
    std::optional<int64_t> bytes =
        type.hasStaticShape() ? getStorageBytes(type) : std::nullopt;
    if (!bytes || *bytes == 0)
      continue;
    // Exactly one user that frees it at top level; every other use is an
    // ordinary use (not a reuse, a free_if_not_reused or a return).
    FreeOp free;
    bool poolable = true;
    for (Operation *user : alloc->getUsers()) {
      if (auto f = dyn_cast<FreeOp>(user)) {
        if (free || f->getBlock() != &block)
          poolable = false;
        free = f;
      } else if (isa<ReuseOp, FreeIfNotReusedOp, ReturnOp>(user)) {
        poolable = false;
      }
    }
    if (!poolable || !free)
      continue;
    // The last use (of the buffer or a view of it) is before the free: the
    // free's position bounds the lifetime.
    PoolPlan &plan = plans[type.getMemorySpace()];
    plan.buffers.push_back(
        {alloc, free, position[alloc], position[free], *bytes});
  }
  return plans;
}

/// Most bytes of `buffers` live at one time.
static int64_t maxLiveBytes(ArrayRef<PoolBuffer> buffers) {
  int64_t best = 0;
  for (const PoolBuffer &at : buffers) {
    int64_t live = 0;
    for (const PoolBuffer &other : buffers)
      if (other.start <= at.start && at.start <= other.end)
        live += other.bytes;
    best = std::max(best, live);
  }
  return best;
}

/// Rewrites the pooled buffers into views of one pool per device.
static void applyPool(GraphOp graph,
                      llvm::MapVector<Attribute, PoolPlan> &plans) {
  MLIRContext *context = graph.getContext();
  for (auto &[space, plan] : plans) {
    if (plan.buffers.empty())
      continue;
    PoolBuffer *first = &plan.buffers.front(), *last = first;
    for (PoolBuffer &buffer : plan.buffers) {
      if (buffer.start < first->start)
        first = &buffer;
      if (buffer.end > last->end)
        last = &buffer;
    }
    OpBuilder b(first->alloc);
    auto poolType = MemRefType::get({plan.size}, IntegerType::get(context, 8),
                                    MemRefLayoutAttrInterface(), space);
    auto pool = AllocOp::create(b, first->alloc.getLoc(), poolType,
                                ValueRange{}, b.getStringAttr("pool"));
    b.setInsertionPointAfter(last->free);
    FreeOp::create(b, last->free.getLoc(), pool.getResult());
    for (PoolBuffer &buffer : plan.buffers) {
      OpBuilder at(buffer.alloc);
      auto view = ViewOp::create(
          at, buffer.alloc.getLoc(), buffer.alloc.getType(), pool.getResult(),
          at.getI64IntegerAttr(buffer.offset), buffer.alloc.getNameAttr());
      buffer.alloc.getResult().replaceAllUsesExcept(view.getResult(),
                                                    buffer.free);
      buffer.free.erase();
      buffer.alloc.erase();
    }
  }
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct WrapperPlanMemoryPass
    : public wrapper::impl::WrapperPlanMemoryPassBase<WrapperPlanMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    GraphOp graph = getOperation();
    if (graph.getBody().getBlocks().size() != 1) {
      graph.emitError("wrapper-plan-memory: expected a graph with one block");
      return signalPassFailure();
    }
    MemoryProfile before = computeMemoryProfile(graph);
    std::string detail;
    int64_t reused = 0;
    switch (strategy) {
    case MemoryPlanStrategy::None:
      break;
    case MemoryPlanStrategy::Reuse:
      reused = planReuse(graph);
      break;
    case MemoryPlanStrategy::Pool:
      detail = planPool(graph, before, reused);
      break;
    }
    if (!report)
      return;
    MemoryProfile after = computeMemoryProfile(graph);
    InFlightDiagnostic remark = emitRemark(graph.getLoc());
    remark << "wrapper-plan-memory (" << stringifyMemoryPlanStrategy(strategy)
           << "): allocations " << before.allocations << " -> "
           << after.allocations << ", static peak " << before.peakBytes
           << " -> " << after.peakBytes << " bytes";
    if (strategy == MemoryPlanStrategy::Reuse || reused)
      remark << ", " << reused << " reused";
    if (after.dynamicAllocations)
      remark << ", " << after.dynamicAllocations
             << " of dynamic size not counted";
    remark << detail;
  }

  /// Plans pools; falls back to reuse when a pool would raise the peak.
  std::string planPool(GraphOp graph, const MemoryProfile &before,
                       int64_t &reused) {
    llvm::MapVector<Attribute, PoolPlan> plans = collectPoolBuffers(graph);
    int64_t poolBytes = 0, liveBytes = 0;
    unsigned pooled = 0;
    for (auto &[space, plan] : plans) {
      plan.size = packBySize(plan.buffers);
      plan.maxLive = maxLiveBytes(plan.buffers);
      poolBytes += plan.size;
      liveBytes += plan.maxLive;
      pooled += plan.buffers.size();
    }
    if (pooled == 0) {
      reused = planReuse(graph);
      return ", nothing to pool (planned with reuse)";
    }
    // Keep the pool only if the peak does not rise: the pooled buffers'
    // allocations give way to each pool, live from its first buffer's
    // allocation to its last buffer's free.
    DenseSet<Operation *> excluded;
    SmallVector<ExtraInterval> pools;
    for (auto &[space, plan] : plans) {
      unsigned start = ~0u, end = 0;
      for (PoolBuffer &buffer : plan.buffers) {
        excluded.insert(buffer.alloc);
        start = std::min(start, buffer.start);
        end = std::max(end, buffer.end);
      }
      pools.push_back({start, end, plan.size});
    }
    int64_t pooledPeak = simulateProfile(graph, excluded, pools).peakBytes;
    if (pooledPeak > before.peakBytes) {
      reused = planReuse(graph);
      return (", a pool of " + Twine(poolBytes) + " bytes would raise the " +
              "static peak to " + Twine(pooledPeak) + " (planned with reuse)")
          .str();
    }
    applyPool(graph, plans);
    int64_t fragmentation =
        poolBytes == 0 ? 0 : (100 * (poolBytes - liveBytes)) / poolBytes;
    return (", " + Twine(pooled) + " buffers in pools of " + Twine(poolBytes) +
            " bytes, fragmentation " + Twine(fragmentation) + "%")
        .str();
  }
};
} // namespace

StringRef
mlir::wrapper::stringifyMemoryPlanStrategy(MemoryPlanStrategy strategy) {
  switch (strategy) {
  case MemoryPlanStrategy::None:
    return "none";
  case MemoryPlanStrategy::Reuse:
    return "reuse";
  case MemoryPlanStrategy::Pool:
    return "pool";
  }
  llvm_unreachable("unknown MemoryPlanStrategy");
}

llvm::raw_ostream &mlir::wrapper::operator<<(llvm::raw_ostream &os,
                                             MemoryPlanStrategy strategy) {
  return os << stringifyMemoryPlanStrategy(strategy);
}
