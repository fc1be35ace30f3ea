//===- WindowReductions.cpp - pooling and convolution windows as loops ----===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// A window reduction (pooling, a depthwise convolution) reads its input at
// `stride * output + window` indices: no projected permutation, so linalg
// vectorization refuses it, and its loops end in the window's few steps,
// which the loop vectorizer does not take either (scalar code, 1 GB/s). With
// the window position fixed, the same op is elementwise over the output on
// strided views of its inputs. decomposeWindowReduction rewrites it so:
// scf.for loops over the window, in the op's own order (each output element
// accumulates in the same order as before: bitwise the same results), around
// one all-parallel linalg.generic on subviews, which vectorizes along the
// output's rows.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace {
/// An index expression as sum(coefficient * dim) + constant.
struct LinearIndex {
  SmallVector<std::pair<unsigned, int64_t>> terms; // (dim, coefficient)
  int64_t constant = 0;
};
} // namespace

/// `expr` as a linear combination of dims with constant coefficients, or
/// nullopt (symbols, products of dims, divisions, modulos).
static std::optional<LinearIndex> getLinearIndex(AffineExpr expr) {
  LinearIndex index;
  std::function<bool(AffineExpr, int64_t)> visit = [&](AffineExpr e,
                                                       int64_t scale) {
    if (auto dim = dyn_cast<AffineDimExpr>(e)) {
      index.terms.push_back({dim.getPosition(), scale});
      return true;
    }
    if (auto constant = dyn_cast<AffineConstantExpr>(e)) {
      index.constant += scale * constant.getValue();
      return true;
    }
    auto binary = dyn_cast<AffineBinaryOpExpr>(e);
    if (!binary)
      return false;
    if (binary.getKind() == AffineExprKind::Add)
      return visit(binary.getLHS(), scale) && visit(binary.getRHS(), scale);
    if (binary.getKind() == AffineExprKind::Mul) {
      if (auto c = dyn_cast<AffineConstantExpr>(binary.getRHS()))
        return visit(binary.getLHS(), scale * c.getValue());
      if (auto c = dyn_cast<AffineConstantExpr>(binary.getLHS()))
        return visit(binary.getRHS(), scale * c.getValue());
    }
    return false;
  };
  if (!visit(expr, 1))
    return std::nullopt;
  return index;
}

FailureOr<linalg::GenericOp>
mlir::wrapper::decomposeWindowReduction(RewriterBase &rewriter,
                                        linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() == 0 || linalg::isaContractionOpInterface(op) ||
      !op.getBody()->getOps<linalg::IndexOp>().empty())
    return failure();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned numLoops = op.getNumLoops();
  auto isReduction = [&](unsigned d) {
    return iterators[d] == utils::IteratorType::reduction;
  };
  // The output is indexed by parallel dims only.
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap initMap = op.getMatchingIndexingMap(init);
  if (!initMap.isProjectedPermutation() ||
      llvm::any_of(initMap.getResults(), [&](AffineExpr e) {
        return isReduction(cast<AffineDimExpr>(e).getPosition());
      }))
    return failure();
  // Static window extents.
  SmallVector<unsigned> window;
  for (unsigned d = 0; d < numLoops; ++d)
    if (isReduction(d)) {
      if (ShapedType::isDynamic(ranges[d]))
        return failure();
      window.push_back(d);
    }
  // Every input index: parallel dims with a coefficient (at most one per
  // index, each at most once per operand), window dims, constants; and at
  // least one index mixes a parallel and a window dim (a real window, not
  // a row reduction).
  bool slides = false;
  SmallVector<SmallVector<LinearIndex>> indices;
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!isa<MemRefType>(input->get().getType()))
      return failure();
    SmallVector<LinearIndex> operandIndices;
    llvm::SmallDenseSet<unsigned> parallelSeen;
    for (AffineExpr expr : op.getMatchingIndexingMap(input).getResults()) {
      std::optional<LinearIndex> index = getLinearIndex(expr);
      if (!index)
        return failure();
      int parallelTerms = 0;
      bool windowTerm = false;
      for (auto [dim, coefficient] : index->terms) {
        if (isReduction(dim)) {
          windowTerm = true;
          continue;
        }
        if (coefficient <= 0 || !parallelSeen.insert(dim).second)
          return failure();
        ++parallelTerms;
      }
      if (parallelTerms > 1)
        return failure();
      slides |= parallelTerms == 1 && windowTerm;
      operandIndices.push_back(*index);
    }
    indices.push_back(std::move(operandIndices));
  }
  if (!slides)
    return failure();

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Range, 4> loopRanges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(rewriter, loc);
  // The window loops, outermost first in the op's order.
  SmallVector<Value> windowIvs(numLoops);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  for (unsigned d : window) {
    auto loop = scf::ForOp::create(
        rewriter, loc, zero,
        arith::ConstantIndexOp::create(rewriter, loc, ranges[d]), one);
    rewriter.setInsertionPoint(loop.getBody()->getTerminator());
    windowIvs[d] = loop.getInductionVar();
  }
  // The parallel dims renumbered for the new op.
  SmallVector<unsigned> newDim(numLoops, 0);
  SmallVector<utils::IteratorType> newIterators;
  for (unsigned d = 0, next = 0; d < numLoops; ++d)
    if (!isReduction(d)) {
      newDim[d] = next++;
      newIterators.push_back(utils::IteratorType::parallel);
    }
  MLIRContext *context = op.getContext();
  unsigned newLoops = newIterators.size();
  SmallVector<Value> newInputs;
  SmallVector<AffineMap> newMaps;
  for (auto [input, operandIndices] :
       llvm::zip(op.getDpsInputOperands(), indices)) {
    Value source = input->get();
    SmallVector<OpFoldResult> offsets, sizes, strides;
    SmallVector<AffineExpr> results;
    for (const LinearIndex &index : operandIndices) {
      // Offset: the constant plus the window dims' part at this position.
      Value offset =
          arith::ConstantIndexOp::create(rewriter, loc, index.constant);
      std::optional<std::pair<unsigned, int64_t>> slide;
      for (auto [dim, coefficient] : index.terms) {
        if (!isReduction(dim)) {
          slide = {dim, coefficient};
          continue;
        }
        Value scaled = arith::MulIOp::create(
            rewriter, loc, windowIvs[dim],
            arith::ConstantIndexOp::create(rewriter, loc, coefficient));
        offset = arith::AddIOp::create(rewriter, loc, offset, scaled);
      }
      offsets.push_back(offset);
      if (slide) {
        // The parallel dim's range with its coefficient as the stride
        // (the loop ranges start at 0 on a linalg op).
        sizes.push_back(loopRanges[slide->first].size);
        strides.push_back(rewriter.getIndexAttr(slide->second));
        results.push_back(getAffineDimExpr(newDim[slide->first], context));
      } else {
        // Dropped from the view (a rank-reducing subview): the maps stay
        // projected permutations.
        sizes.push_back(rewriter.getIndexAttr(1));
        strides.push_back(rewriter.getIndexAttr(1));
      }
    }
    SmallVector<int64_t> viewShape;
    for (auto [index, size] : llvm::zip(operandIndices, sizes))
      if (llvm::any_of(index.terms,
                       [&](auto term) { return !isReduction(term.first); }))
        viewShape.push_back(
            getConstantIntValue(size).value_or(ShapedType::kDynamic));
    auto viewType = memref::SubViewOp::inferRankReducedResultType(
        viewShape, cast<MemRefType>(source.getType()), offsets, sizes, strides);
    Value view =
        memref::SubViewOp::create(rewriter, loc, cast<MemRefType>(viewType),
                                  source, offsets, sizes, strides);
    newInputs.push_back(view);
    newMaps.push_back(AffineMap::get(newLoops, 0, results, context));
  }
  SmallVector<AffineExpr> initResults;
  for (AffineExpr e : initMap.getResults())
    initResults.push_back(getAffineDimExpr(
        newDim[cast<AffineDimExpr>(e).getPosition()], context));
  newMaps.push_back(AffineMap::get(newLoops, 0, initResults, context));
  auto generic =
      linalg::GenericOp::create(rewriter, loc, TypeRange{}, newInputs,
                                ValueRange{init->get()}, newMaps, newIterators);
  rewriter.inlineRegionBefore(op.getRegion(), generic.getRegion(),
                              generic.getRegion().begin());
  rewriter.eraseOp(op);
  return generic;
}
