//===- RowKernels.cpp - one block per row for row reductions -------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-cuda-row-kernels: runs of linalg ops on buffers that
// share their leading ("row") dimensions and reduce over the innermost one
// (softmax, layer_norm, rms_norm, sums over the last dimension) become one
// gpu.launch with one block per row. Upstream's path (linalg to parallel
// loops to gpu) gives a reduction one thread per row: the threads of a warp
// then read addresses a row apart and each thread walks its row alone. Here
// the block's threads share the row (neighbouring threads on neighbouring
// elements, 128-bit accesses where aligned) and combine their partial
// results with gpu.all_reduce. See docs/Rationale/CUDAPath.md.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CUDA/Passes.h"

#include "RowKernels.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERCUDAROWKERNELSPASS
#include "Wrapper/Codegen/CUDA/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper::row_kernels;

namespace {
struct WrapperCUDARowKernelsPass
    : public wrapper::impl::WrapperCUDARowKernelsPassBase<
          WrapperCUDARowKernelsPass> {
  using Base::Base;

  /// The longest run starting at `ops[start]` under the row shape of the
  /// first reduction found from there; without a reduction, a lone
  /// elementwise op with long aligned rows (a row per block, 128-bit
  /// accesses); otherwise empty.
  SmallVector<Member> formRun(ArrayRef<Operation *> ops, size_t start,
                              RowShape &shape, size_t &end) {
    std::optional<RowShape> found;
    for (size_t i = start; i < ops.size() && !found; ++i) {
      if (auto generic = dyn_cast<linalg::GenericOp>(ops[i]))
        found = rowShapeOf(generic);
      else if (!isMovable(ops[i]))
        break;
    }
    if (!found)
      return elementwiseRun(cast<linalg::GenericOp>(ops[start]), shape, start,
                            end);
    shape = *found;
    SmallVector<Member> members;
    for (size_t i = start; i < ops.size(); ++i) {
      auto generic = dyn_cast<linalg::GenericOp>(ops[i]);
      if (!generic) {
        if (isMovable(ops[i]))
          continue;
        break;
      }
      std::optional<Member> member = classify(generic, shape);
      if (!member)
        break;
      members.push_back(*member);
      if (!rowsIndependent(members, shape.rowRank())) {
        members.pop_back();
        break;
      }
      end = i + 1;
    }
    if (llvm::none_of(members,
                      [](const Member &m) { return m.kind == Kind::Reduce; }))
      return {};
    return members;
  }

  /// Rows of at least this many elements make an elementwise op of more
  /// than one row a row kernel (shorter ones keep the parallel-loop
  /// mapping).
  static constexpr int64_t kMinElementwiseRow = 512;

  SmallVector<Member> elementwiseRun(linalg::GenericOp op, RowShape &shape,
                                     size_t start, size_t &end) {
    if (!vectorize || !op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
        op.getNumParallelLoops() != op.getNumLoops())
      return {};
    FailureOr<SmallVector<LoopSize>> sizes = loopSizes(op);
    if (failed(sizes) || sizes->back().fixed < kMinElementwiseRow)
      return {};
    // A single row would be one block: the parallel-loop mapping spreads
    // it over the GPU, and fuses it with its neighbours (the zero fill and
    // the scaling around a per-channel sum of batch norm's backward).
    if (llvm::all_of(ArrayRef(*sizes).drop_back(),
                     [](const LoopSize &size) { return size.isOne(); }))
      return {};
    shape.rows.assign(sizes->begin(), sizes->end() - 1);
    shape.length = sizes->back();
    std::optional<Member> member = classify(op, shape);
    if (!member || member->kind != Kind::Row ||
        !rowsIndependent(*member, shape.rowRank()) ||
        vectorWidth(*member, shape) == 1)
      return {};
    end = start + 1;
    return {*member};
  }

  void materialize(ArrayRef<Operation *> ops, size_t start, size_t end,
                   MutableArrayRef<Member> members, const RowShape &shape) {
    Operation *first = members.front().op;
    SmallPtrSet<Operation *, 8> isMember;
    for (const Member &m : members)
      isMember.insert(m.op);
    SmallVector<Operation *> frees;
    for (Operation *op : ops.slice(start, end - start)) {
      if (isMember.contains(op))
        continue;
      if (isa<memref::DeallocOp>(op))
        frees.push_back(op);
      else if (op->isBeforeInBlock(first))
        continue;
      else
        op->moveBefore(first);
    }

    int64_t lanes = 1;
    for (Member &m : members) {
      m.vector = vectorize ? vectorWidth(m, shape) : 1;
      lanes = std::max(lanes, m.vector);
    }
    int64_t threadCount = blockSize;
    if (threadCount <= 0) {
      threadCount = 256;
      if (shape.length.fixed != ShapedType::kDynamic)
        threadCount = std::clamp<int64_t>(
            llvm::PowerOf2Ceil(llvm::divideCeil(shape.length.fixed, lanes * 4)),
            64, 1024);
      // An elementwise row: one vector per thread, as few idle as may be.
      if (members.size() == 1 && members.front().kind == Kind::Row)
        threadCount = std::clamp<int64_t>(
            static_cast<int64_t>(llvm::bit_floor(
                static_cast<uint64_t>(shape.length.fixed / lanes))),
            64, 1024);
    }

    OpBuilder b(first);
    Location loc = first->getLoc();
    // Sizes from the first reduction (all members agree on them).
    auto reference = llvm::find_if(
        members, [](const Member &m) { return m.kind == Kind::Reduce; });
    if (reference == members.end())
      reference = members.begin();
    SmallVector<Range> ranges =
        cast<linalg::LinalgOp>(reference->op.getOperation())
            .createLoopRanges(b, loc);
    unsigned rank = shape.rowRank();
    SmallVector<Value> rowSizes;
    Value rowCount = arith::ConstantIndexOp::create(b, loc, 1);
    for (unsigned k = 0; k < rank; ++k) {
      rowSizes.push_back(
          getValueOrCreateConstantIndexOp(b, loc, ranges[k].size));
      rowCount = arith::MulIOp::create(b, loc, rowCount, rowSizes.back());
    }
    Value length = getValueOrCreateConstantIndexOp(b, loc, ranges[rank].size);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value threads = arith::ConstantIndexOp::create(b, loc, threadCount);
    auto launch =
        gpu::LaunchOp::create(b, loc, rowCount, one, one, threads, one, one);
    Block &body = launch.getBody().front();
    b.setInsertionPointToStart(&body);
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(&body);
    // The block's row: its index delinearized over the row sizes.
    SmallVector<Value> rowIndex =
        delinearize(b, loc, launch.getBlockIds().x, rowSizes);
    RowKernelContext context;
    context.rank = rank;
    context.thread = launch.getThreadIds().x;
    context.threads = launch.getBlockSize().x;
    context.length = length;
    context.rowIndex = rowIndex;
    if (shape.length.fixed != ShapedType::kDynamic) {
      context.staticLength = shape.length.fixed;
      context.threadCount = threadCount;
      for (const Member &m : members)
        for (Value init : m.op.getDpsInits())
          context.written.push_back(rootBuffer(init));
    }
    emitRowKernelBody(b, loc, context, members);
    for (Operation *op : llvm::reverse(frees))
      op->moveAfter(launch);
    for (Member &m : members)
      m.op.erase();
  }

  void runOnOperation() override {
    if (blockSize > 1024) {
      getOperation().emitError()
          << "wrapper-cuda-row-kernels: block-size "
          << static_cast<int64_t>(blockSize)
          << " exceeds the 1024 threads a CUDA block may have";
      return signalPassFailure();
    }
    // Fills take part as the generic ops they are.
    SmallVector<linalg::FillOp> fills;
    getOperation().walk([&](linalg::FillOp fill) {
      if (fill.hasPureBufferSemantics() &&
          !fill->getParentOfType<gpu::LaunchOp>())
        fills.push_back(fill);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::FillOp fill : fills) {
      rewriter.setInsertionPoint(fill);
      if (failed(linalg::generalizeNamedOp(rewriter, fill)))
        return signalPassFailure();
    }

    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp op : generics)
      collapseInnerReductions(op, rewriter);

    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) {
      if (!block->getParentOp()->getParentOfType<gpu::LaunchOp>() &&
          !isa<gpu::LaunchOp, linalg::GenericOp>(block->getParentOp()))
        blocks.push_back(block);
    });
    for (Block *block : blocks) {
      SmallVector<Operation *> ops =
          llvm::map_to_vector(*block, [](Operation &op) { return &op; });
      for (size_t i = 0; i < ops.size();) {
        RowShape shape;
        size_t end = i + 1;
        SmallVector<Member> members;
        if (isa<linalg::GenericOp>(ops[i]))
          members = formRun(ops, i, shape, end);
        if (members.empty()) {
          ++i;
          continue;
        }
        materialize(ops, i, end, members, shape);
        i = end;
      }
    }
  }
};
} // namespace
