//===- BucketCollectives.cpp - all_reduce buckets and overlap -------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-bucket-collectives: all_reduces merged into buckets
// (by concatenation or coalesced), then starts raised and waits sunk. The
// rules that make each move safe are in docs/Rationale/Distributed.md.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h"

#include "Wrapper/Dialect/Wrapper/IR/WrapperTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERBUCKETCOLLECTIVESPASS
#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper;

namespace {
/// One all_reduce of a bucket.
struct Member {
  CollectiveStartOp start;
  CollectiveWaitOp wait;
};

/// All_reduces merged into one.
struct Bucket {
  SmallVector<Member> members;
  int64_t bytes = 0;
  /// The earliest wait of the members and its position.
  CollectiveWaitOp firstWait;
  unsigned firstWaitPosition = ~0u;
};

/// What collectives must share to be merged.
using BucketKey = std::tuple<StringRef, StringRef, Attribute, Type>;

struct WrapperBucketCollectivesPass
    : public wrapper::impl::WrapperBucketCollectivesPassBase<
          WrapperBucketCollectivesPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  LogicalResult bucketGraph(GraphOp graph);
  void mergeCoalesced(Bucket &bucket);
  void mergeConcatenated(Bucket &bucket);
  /// `wrapper.call` of a new kernel that copies `source` into `target`.
  void copy(OpBuilder &b, Location loc, Value source, Value target);

  OpBuilder *moduleBuilder = nullptr;
  DenseSet<StringRef> names;
  unsigned kernels = 0;
};
} // namespace

/// The element type of every output of an all_reduce whose outputs all have
/// static sizes, the same element type, and identity layouts; null
/// otherwise.
static Type getBucketableElementType(CollectiveStartOp start) {
  Type element;
  for (Value output : start.getOutputs()) {
    auto type = cast<MemRefType>(output.getType());
    if (!type.hasStaticShape() || (element && element != type.getElementType()))
      return {};
    element = type.getElementType();
  }
  return element;
}

static int64_t getBytes(CollectiveStartOp start) {
  int64_t bytes = 0;
  for (Value output : start.getOutputs())
    bytes += getStorageBytes(cast<MemRefType>(output.getType())).value_or(0);
  return bytes;
}

void WrapperBucketCollectivesPass::copy(OpBuilder &b, Location loc,
                                        Value source, Value target) {
  std::string name;
  do {
    name = "collective_bucket_copy_" + std::to_string(kernels++);
  } while (names.contains(name) || names.contains(name + "_impl"));
  MLIRContext *context = b.getContext();
  auto impl = func::FuncOp::create(
      *moduleBuilder, loc, name + "_impl",
      FunctionType::get(context, {source.getType(), target.getType()}, {}));
  impl.setPrivate();
  OpBuilder body = OpBuilder::atBlockEnd(impl.addEntryBlock());
  memref::CopyOp::create(body, loc, impl.getArgument(0), impl.getArgument(1));
  func::ReturnOp::create(body, loc);
  auto kind =
      moduleBuilder->getNamedAttr("kind", moduleBuilder->getStringAttr("copy"));
  auto kernel =
      KernelOp::create(*moduleBuilder, loc, name, SymbolRefAttr::get(impl),
                       DeviceAttr(), moduleBuilder->getDictionaryAttr(kind));
  CallOp::create(b, loc, kernel.getSymName(), ValueRange{source, target},
                 ValueRange{}, ValueRange{});
}

void WrapperBucketCollectivesPass::mergeCoalesced(Bucket &bucket) {
  CollectiveStartOp last = bucket.members.back().start;
  SmallVector<Value> outputs;
  for (Member &member : bucket.members)
    llvm::append_range(outputs, member.start.getOutputs());
  OpBuilder b(last);
  auto merged = CollectiveStartOp::create(
      b, last.getLoc(), b.getType<WorkType>(), last.getCollectiveAttr(),
      ValueRange{}, outputs, last.getGroupAttr(), last.getReduceOpAttr(),
      IntegerAttr());
  b.setInsertionPoint(bucket.firstWait);
  CollectiveWaitOp::create(b, bucket.firstWait.getLoc(), merged.getWork());
  for (Member &member : bucket.members) {
    member.wait.erase();
    member.start.erase();
  }
}

void WrapperBucketCollectivesPass::mergeConcatenated(Bucket &bucket) {
  CollectiveStartOp last = bucket.members.back().start;
  Location loc = last.getLoc();
  auto first = cast<MemRefType>(last.getOutputs()[0].getType());
  int64_t total = 0;
  for (Member &member : bucket.members)
    for (Value output : member.start.getOutputs())
      total += cast<MemRefType>(output.getType()).getNumElements();
  auto bucketType =
      MemRefType::get({total}, first.getElementType(),
                      MemRefLayoutAttrInterface(), first.getMemorySpace());
  OpBuilder b(last);
  Value concatenated = AllocOp::create(b, loc, bucketType, ValueRange{});
  // Each output's place in the bucket: a row-major view at its offset.
  SmallVector<std::pair<Value, Value>> places;
  int64_t offset = 0;
  for (Member &member : bucket.members)
    for (Value output : member.start.getOutputs()) {
      auto type = cast<MemRefType>(output.getType());
      SmallVector<int64_t> strides(type.getRank(), 1);
      for (int64_t d = type.getRank() - 2; d >= 0; --d)
        strides[d] = strides[d + 1] * type.getDimSize(d + 1);
      auto viewType = MemRefType::get(
          type.getShape(), type.getElementType(),
          StridedLayoutAttr::get(b.getContext(), offset, strides),
          type.getMemorySpace());
      Value view = ReinterpretOp::create(
          b, loc, viewType, concatenated, ValueRange{}, ValueRange{},
          ValueRange{}, b.getDenseI64ArrayAttr({offset}),
          b.getDenseI64ArrayAttr(type.getShape()),
          b.getDenseI64ArrayAttr(strides));
      copy(b, loc, output, view);
      places.push_back({output, view});
      offset += type.getNumElements();
    }
  auto merged = CollectiveStartOp::create(
      b, loc, b.getType<WorkType>(), last.getCollectiveAttr(), ValueRange{},
      ValueRange{concatenated}, last.getGroupAttr(), last.getReduceOpAttr(),
      IntegerAttr());
  b.setInsertionPoint(bucket.firstWait);
  Location waitLoc = bucket.firstWait.getLoc();
  CollectiveWaitOp::create(b, waitLoc, merged.getWork());
  for (auto [output, view] : places)
    copy(b, waitLoc, view, output);
  FreeOp::create(b, waitLoc, concatenated);
  for (Member &member : bucket.members) {
    member.wait.erase();
    member.start.erase();
  }
}

/// The storage roots of the buffers of `start`.
static llvm::SmallPtrSet<Value, 8> getRoots(CollectiveStartOp start) {
  llvm::SmallPtrSet<Value, 8> roots;
  for (Value operand : start->getOperands())
    roots.insert(getStorageRoot(operand));
  return roots;
}

/// Whether `op` uses storage among `roots` (directly or in nested ops).
static bool touches(Operation *op, const llvm::SmallPtrSet<Value, 8> &roots) {
  bool found = false;
  op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (isa<MemRefType>(operand.getType()) &&
          roots.contains(getStorageRoot(operand)))
        found = true;
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

/// Moves the start of each collective up as far as its buffers allow and
/// its wait down as far as their uses allow. Collectives may pass each
/// other: every rank compiles the same graph with the same passes, so all
/// ranks still issue them in one order.
static void schedule(GraphOp graph) {
  Block &block = graph.getBody().front();
  SmallVector<CollectiveStartOp> starts(block.getOps<CollectiveStartOp>());
  for (CollectiveStartOp start : starts) {
    CollectiveWaitOp wait = start.getWait();
    if (!wait)
      continue;
    llvm::SmallPtrSet<Value, 8> roots = getRoots(start);
    Operation *above = start->getPrevNode();
    while (above && above->getNumRegions() == 0 && !touches(above, roots) &&
           llvm::none_of(above->getResults(), [&](Value result) {
             return llvm::is_contained(start->getOperands(), result);
           }))
      above = above->getPrevNode();
    if (above != start->getPrevNode()) {
      if (above)
        start->moveAfter(above);
      else
        start->moveBefore(&block.front());
    }
    Operation *below = wait->getNextNode();
    while (below && !below->hasTrait<OpTrait::IsTerminator>() &&
           below->getNumRegions() == 0 && !touches(below, roots))
      below = below->getNextNode();
    if (below && below != wait->getNextNode())
      wait->moveBefore(below);
  }
}

/// Moves the kernel calls and frees that consume what collectives produced
/// (and, transitively, what those calls touch) as late as the ops after
/// them allow, last first: an optimizer update placed right after its
/// gradient's reduction would otherwise need the wait at once, and cut
/// every bucket there.
static void sinkConsumers(GraphOp graph) {
  Block &block = graph.getBody().front();
  llvm::SmallPtrSet<Value, 8> cone;
  SmallVector<Operation *> members;
  for (Operation &op : block) {
    if (auto wait = dyn_cast<CollectiveWaitOp>(op)) {
      if (CollectiveStartOp start = wait.getStart())
        for (Value output : start.getOutputs())
          cone.insert(getStorageRoot(output));
      continue;
    }
    if (!isa<CallOp, FreeOp>(op) || !touches(&op, cone))
      continue;
    members.push_back(&op);
    if (isa<CallOp>(op))
      for (Value operand : op.getOperands())
        if (isa<MemRefType>(operand.getType()))
          cone.insert(getStorageRoot(operand));
  }
  // Members keep their order among themselves.
  llvm::SmallPtrSet<Operation *, 32> moving(members.begin(), members.end());
  for (Operation *op : llvm::reverse(members)) {
    llvm::SmallPtrSet<Value, 8> roots;
    for (Value operand : op->getOperands())
      if (isa<MemRefType>(operand.getType()))
        roots.insert(getStorageRoot(operand));
    Operation *below = op->getNextNode();
    while (below && !below->hasTrait<OpTrait::IsTerminator>() &&
           below->getNumRegions() == 0 && !moving.contains(below) &&
           !touches(below, roots))
      below = below->getNextNode();
    if (below && below != op->getNextNode())
      op->moveBefore(below);
  }
}

LogicalResult WrapperBucketCollectivesPass::bucketGraph(GraphOp graph) {
  // Scheduled first, the starts are in the order their buffers become ready
  // and the waits after them: buckets fill in that order (as DDP's fill in
  // the order backward produces gradients).
  if (schedule &&
      !graph.getBody().front().getOps<CollectiveStartOp>().empty()) {
    sinkConsumers(graph);
    ::schedule(graph);
  }
  Block &block = graph.getBody().front();
  DenseMap<Operation *, unsigned> position;
  for (auto [index, op] : llvm::enumerate(block))
    position[&op] = index;

  SmallVector<Bucket> done;
  llvm::MapVector<BucketKey, Bucket> open;
  // The kinds whose first bucket was closed (the later ones take
  // bucket-bytes).
  llvm::DenseSet<BucketKey> started;
  unsigned candidates = 0;
  for (CollectiveStartOp start : block.getOps<CollectiveStartOp>()) {
    if (start.getCollective() == "all_reduce")
      ++candidates;
    CollectiveWaitOp wait = start.getWait();
    Type element = getBucketableElementType(start);
    if (!wait || start.getCollective() != "all_reduce" || !element)
      continue;
    auto device =
        getBufferDevice(cast<MemRefType>(start.getOutputs()[0].getType()));
    BucketKey key{start.getGroup(), start.getReduceOp().value_or(""), device,
                  element};
    int64_t bytes = getBytes(start);
    auto it = open.find(key);
    int64_t cap = started.contains(key)
                      ? static_cast<int64_t>(bucketBytes)
                      : std::min<int64_t>(bucketBytes, firstBucketBytes);
    if (it != open.end() && (it->second.bytes + bytes > cap ||
                             it->second.firstWaitPosition < position[start])) {
      done.push_back(std::move(it->second));
      open.erase(it);
      it = open.end();
      started.insert(key);
    }
    Bucket &bucket = open[key];
    bucket.members.push_back({start, wait});
    bucket.bytes += bytes;
    if (position[wait] < bucket.firstWaitPosition) {
      bucket.firstWaitPosition = position[wait];
      bucket.firstWait = wait;
    }
  }
  for (auto &entry : open)
    done.push_back(std::move(entry.second));

  unsigned formed = 0, merged = 0;
  for (Bucket &bucket : done) {
    if (bucket.members.size() < 2)
      continue;
    ++formed;
    merged += bucket.members.size();
    if (mode == "coalesced")
      mergeCoalesced(bucket);
    else
      mergeConcatenated(bucket);
  }
  numBuckets += formed;
  numMerged += merged;
  if (report)
    graph.emitRemark() << "collective buckets: " << formed << " merging "
                       << merged << " of " << candidates << " all_reduces ("
                       << std::string(mode) << ", at most "
                       << static_cast<int64_t>(bucketBytes) << " bytes each)";
  if (schedule)
    ::schedule(graph);
  return success();
}

void WrapperBucketCollectivesPass::runOnOperation() {
  if (mode != "concat" && mode != "coalesced") {
    getOperation().emitError() << "--wrapper-bucket-collectives: unknown mode '"
                               << mode << "'; expected 'concat' or 'coalesced'";
    return signalPassFailure();
  }
  if (bucketBytes < 0 || firstBucketBytes < 0) {
    getOperation().emitError()
        << "--wrapper-bucket-collectives: bucket-bytes and first-bucket-bytes "
           "must not be negative, got "
        << static_cast<int64_t>(bucketBytes) << " and "
        << static_cast<int64_t>(firstBucketBytes);
    return signalPassFailure();
  }
  ModuleOp module = getOperation();
  for (Operation &op : *module.getBody())
    if (auto symbol = dyn_cast<SymbolOpInterface>(op))
      names.insert(symbol.getName());
  for (GraphOp graph : llvm::make_early_inc_range(module.getOps<GraphOp>())) {
    OpBuilder builder(graph);
    moduleBuilder = &builder;
    if (failed(bucketGraph(graph)))
      return signalPassFailure();
  }
}
