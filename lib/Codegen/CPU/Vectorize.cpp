//===- Vectorize.cpp - linalg ops on buffers to vector loops --------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Vectorization at the MLIR level for every kernel kind the GEMM template
// does not take (elementwise, broadcasts, transposes, casts, row and column
// reductions of any rank): an op is tiled 1 x ... x 1 x lanes with upstream
// tiling, the innermost tile loop is peeled so that its full steps have a
// static tile, that tile goes through upstream linalg vectorization, and the
// remainder is one shorter vector step (static size; power-of-two pieces
// for f16/bf16) or a scalar loop
// (dynamic size). Reads that are the same every step move out of the vector
// loop (hoistInvariantReads), and reductions keep their accumulators in
// vector registers (hoistAccumulator, carryWholeVectors). The rationale (why
// tile and peel on buffers, why not LLVM's loop vectorizer) is in
// docs/Rationale/CPUPath.md, "Vectorization at the MLIR level".
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

using namespace mlir;
using namespace mlir::wrapper;

/// Bits of a scalar type the payload computes with (index as 64 bits), or 0
/// for a type that is not a scalar int, float or index.
static unsigned getScalarBits(Type type) {
  if (type.isIndex())
    return 64;
  if (type.isIntOrFloat())
    return type.getIntOrFloatBitWidth();
  return 0;
}

int64_t mlir::wrapper::getVectorLanes(linalg::LinalgOp op, int64_t f32Lanes) {
  unsigned bits = 8;
  for (Value arg : op.getBlock()->getArguments())
    bits = std::max(bits, getScalarBits(arg.getType()));
  for (Operation &payload : op.getBlock()->without_terminator())
    for (Type type : payload.getResultTypes())
      bits = std::max(bits, getScalarBits(type));
  // bf16 and f16 are computed in f32 registers: their lanes are f32 lanes.
  bits = std::max(bits, 32u);
  // Registers a step: a reduction over the innermost dimension is bound by
  // its combiner's latency (a NaN-propagating max is several instructions)
  // and gets four independent accumulators, anything else two registers.
  int64_t registers =
      op.getIteratorTypesArray().back() == utils::IteratorType::reduction ? 4
                                                                          : 2;
  return std::max<int64_t>(2, registers * f32Lanes * 32 / bits);
}

/// Whether `payload` is an op the vectorizer maps lane by lane.
static bool isVectorizablePayload(Operation &payload) {
  if (isa<linalg::YieldOp, linalg::IndexOp>(payload))
    return true;
  if (!isa<arith::ArithDialect, math::MathDialect>(payload.getDialect()))
    return false;
  if (!OpTrait::hasElementwiseMappableTraits(&payload) &&
      !isa<arith::ConstantOp>(payload))
    return false;
  for (Type type : payload.getResultTypes())
    if (getScalarBits(type) == 0)
      return false;
  return true;
}

std::string mlir::wrapper::checkVectorLoops(linalg::LinalgOp op,
                                            int64_t lanes) {
  if (!op.hasPureBufferSemantics())
    return "not on buffers";
  unsigned numLoops = op.getNumLoops();
  if (numLoops == 0)
    return "no loops";
  if (!op.hasOnlyProjectedPermutations())
    return "an operand is not accessed through a projected permutation";
  if (linalg::isaContractionOpInterface(op))
    return "a contraction";
  for (OpOperand &operand : op->getOpOperands()) {
    Type operandType = operand.get().getType();
    // Scalars (a fill's value) are broadcast.
    if (getScalarBits(operandType) != 0)
      continue;
    auto type = dyn_cast<MemRefType>(operandType);
    if (!type || getScalarBits(type.getElementType()) == 0)
      return "an operand is not a buffer of ints, floats or indices";
    // A buffer of i1 holds a byte per element, a vector of i1 in memory a
    // bit per element (LLVM's layout).
    if (getScalarBits(type.getElementType()) < 8)
      return "an operand is a buffer of sub-byte elements";
  }
  for (Operation &payload : *op.getBlock())
    if (!isVectorizablePayload(payload))
      return "the payload holds '" + payload.getName().getStringRef().str() +
             "', which is not mapped lane by lane";
  int64_t innerSize = op.getStaticLoopRanges().back();
  if (!ShapedType::isDynamic(innerSize) && innerSize < lanes)
    return "the innermost dimension has fewer than " + std::to_string(lanes) +
           " elements";
  // Outputs must hold the innermost dimension last (contiguous vector
  // stores) or not at all (a reduction over it).
  AffineExpr inner = getAffineDimExpr(numLoops - 1, op.getContext());
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (map.isFunctionOfDim(numLoops - 1) &&
        (map.getNumResults() == 0 || map.getResults().back() != inner))
      return "an output does not hold the innermost dimension last";
  }
  return "";
}

/// Folds the constant sizes of the subviews in `region` (what peeling left)
/// into static types and the casts of those types into the ops using them,
/// so that the tile inside has a static shape.
static void makeTileStatic(Region &region) {
  MLIRContext *context = region.getContext();
  RewritePatternSet patterns(context);
  memref::SubViewOp::getCanonicalizationPatterns(patterns, context);
  memref::CastOp::getCanonicalizationPatterns(patterns, context);
  affine::AffineMinOp::getCanonicalizationPatterns(patterns, context);
  affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
  (void)applyPatternsGreedily(region, std::move(patterns));
}

/// The linalg op inside `loop`'s body (the tile), if there is one.
static linalg::LinalgOp findTile(scf::ForOp loop) {
  linalg::LinalgOp tile;
  loop.getBody()->walk([&](linalg::LinalgOp op) { tile = op; });
  return tile;
}

/// Lowers `tile` to scalar loops.
static LogicalResult lowerToScalarLoops(RewriterBase &rewriter,
                                        linalg::LinalgOp tile) {
  rewriter.setInsertionPoint(tile);
  if (failed(linalg::linalgOpToLoops(rewriter, tile)))
    return failure();
  rewriter.eraseOp(tile);
  return success();
}

/// Whether `op` reads or writes f16 or bf16 elements.
static bool hasNarrowFloats(linalg::LinalgOp op) {
  return llvm::any_of(op->getOperandTypes(), [](Type type) {
    auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type));
    return element && element.getWidth() < 32;
  });
}

/// Vectorizes the tile `tile`, whose shape is static, or lowers it to
/// scalar loops when it does not vectorize. A tile of f16/bf16 whose width
/// is not a power of two is vectorized in power-of-two pieces (17 as 16 and
/// 1): LLVM's InstCombine narrows f32 arithmetic between extensions and a
/// truncation to bf16 arithmetic, which its x86 backend cannot legalize on
/// vectors of such widths ("Do not know how to soft promote this
/// operator's operand").
static void vectorizeStaticTile(RewriterBase &rewriter, linalg::LinalgOp tile) {
  int64_t width = tile.getStaticLoopRanges().back();
  if (hasNarrowFloats(tile) && width > 1 && !llvm::isPowerOf2_64(width)) {
    SmallVector<int64_t> sizes(tile.getNumLoops(), 0);
    sizes.back() = llvm::bit_floor(static_cast<uint64_t>(width));
    linalg::LinalgTilingOptions options;
    options.setTileSizes(sizes).setLoopType(
        linalg::LinalgTilingLoopType::Loops);
    rewriter.setInsertionPoint(tile);
    FailureOr<linalg::TiledLinalgOp> tiled =
        linalg::tileLinalgOp(rewriter, tile, options);
    if (succeeded(tiled) && tiled->loops.size() == 1) {
      rewriter.eraseOp(tile);
      auto piece = cast<scf::ForOp>(tiled->loops.front());
      scf::ForOp rest;
      if (failed(scf::peelForLoopAndSimplifyBounds(rewriter, piece, rest)))
        rest = nullptr;
      for (scf::ForOp loop : {piece, rest}) {
        if (!loop)
          continue;
        linalg::LinalgOp inner = findTile(loop);
        Region *region = &loop.getRegion();
        if (inner && succeeded(loop.promoteIfSingleIteration(rewriter)))
          region = inner->getParentRegion();
        makeTileStatic(*region);
        if (inner && !inner.hasDynamicShape())
          vectorizeStaticTile(rewriter, inner);
        else if (inner)
          (void)lowerToScalarLoops(rewriter, inner);
      }
      return;
    }
  }
  rewriter.setInsertionPoint(tile);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, tile);
  if (succeeded(vectorized))
    rewriter.replaceOp(tile, vectorized->replacements);
  else
    (void)lowerToScalarLoops(rewriter, tile);
}

//===----------------------------------------------------------------------===//
// Accumulators in registers
//===----------------------------------------------------------------------===//

/// The arith combiner of `kind` on floats or on integers (XOR shares OR's
/// identity, 0, which is all that it is used for here).
static arith::AtomicRMWKind getAtomicKind(vector::CombiningKind kind,
                                          bool isFloat) {
  using arith::AtomicRMWKind;
  using vector::CombiningKind;
  switch (kind) {
  case CombiningKind::ADD:
    return isFloat ? AtomicRMWKind::addf : AtomicRMWKind::addi;
  case CombiningKind::MUL:
    return isFloat ? AtomicRMWKind::mulf : AtomicRMWKind::muli;
  case CombiningKind::MINUI:
    return AtomicRMWKind::minu;
  case CombiningKind::MINSI:
    return AtomicRMWKind::mins;
  case CombiningKind::MAXUI:
    return AtomicRMWKind::maxu;
  case CombiningKind::MAXSI:
    return AtomicRMWKind::maxs;
  case CombiningKind::MINNUMF:
    return AtomicRMWKind::minnumf;
  case CombiningKind::MAXNUMF:
    return AtomicRMWKind::maxnumf;
  case CombiningKind::MINIMUMF:
    return AtomicRMWKind::minimumf;
  case CombiningKind::MAXIMUMF:
    return AtomicRMWKind::maximumf;
  case CombiningKind::AND:
    return AtomicRMWKind::andi;
  case CombiningKind::OR:
  case CombiningKind::XOR:
    return AtomicRMWKind::ori;
  }
  llvm_unreachable("unknown combining kind");
}

/// The neutral element of `kind` for elements of `type`, if known.
static std::optional<TypedAttr> getNeutralElement(vector::CombiningKind kind,
                                                  Type type, OpBuilder &builder,
                                                  Location loc) {
  bool isFloat = isa<FloatType>(type);
  if (!isFloat && !type.isIntOrIndex())
    return std::nullopt;
  // -0.0 is the exact identity of a float sum (-0.0 + -0.0 is -0.0).
  if (kind == vector::CombiningKind::ADD && isFloat)
    return builder.getFloatAttr(type, -0.0);
  return arith::getIdentityValueAttr(getAtomicKind(kind, isFloat), type,
                                     builder, loc);
}

/// Whether `reduction` reduces a vector that `loop` computes anew each step
/// into the loop-carried accumulator `acc`, which nothing else in the loop
/// uses, and yields the result as the next accumulator.
static bool isCarriedReduction(scf::ForOp loop, BlockArgument acc,
                               vector::MultiDimReductionOp reduction) {
  if (!acc.hasOneUse() || reduction.getAcc() != acc ||
      !reduction.getResult().hasOneUse())
    return false;
  auto yield = dyn_cast<scf::YieldOp>(*reduction.getResult().user_begin());
  return yield && yield->getParentOp() == loop &&
         yield.getOperand(acc.getArgNumber() - loop.getNumInductionVars()) ==
             reduction.getResult();
}

/// Carries the accumulator that `reduction` (see isCarriedReduction) updates
/// as a vector of its source's shape, started at the neutral element:
/// each step combines lane by lane, and one reduction after the loop folds
/// the vector into the original accumulator. Returns the loop that replaces
/// `loop`, or null when the kind has no known neutral element.
static scf::ForOp carryWholeVector(RewriterBase &rewriter, scf::ForOp loop,
                                   BlockArgument acc,
                                   vector::MultiDimReductionOp reduction) {
  auto sourceType = cast<VectorType>(reduction.getSourceVectorType());
  Location loc = reduction.getLoc();
  vector::CombiningKind kind = reduction.getKind();
  SmallVector<bool> reducedDims = reduction.getReductionMask();
  rewriter.setInsertionPoint(loop);
  std::optional<TypedAttr> neutral =
      getNeutralElement(kind, sourceType.getElementType(), rewriter, loc);
  if (!neutral)
    return nullptr;
  Value start = arith::ConstantOp::create(
      rewriter, loc, sourceType, DenseElementsAttr::get(sourceType, *neutral));
  unsigned index = acc.getArgNumber() - loop.getNumInductionVars();
  Value init = loop.getInitArgs()[index];

  // The new accumulator, combined where the old one was reduced; the old
  // one is yielded unchanged (the canonicalizer removes it).
  FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
      rewriter, ValueRange{start}, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &builder, Location, ArrayRef<BlockArgument> newArgs) {
        builder.setInsertionPoint(reduction);
        Value combined = vector::makeArithReduction(
            builder, loc, kind, reduction.getSource(), newArgs.front());
        return SmallVector<Value>{combined};
      });
  if (failed(grown))
    return nullptr;
  auto newLoop = cast<scf::ForOp>(grown->getOperation());
  BlockArgument oldAcc = newLoop.getRegionIterArgs()[index];
  rewriter.replaceOp(reduction, oldAcc);

  rewriter.setInsertionPointAfter(newLoop);
  Value whole = newLoop.getResults().back();
  // (`reduction` is erased: its mask and kind were read before.)
  auto reduced = vector::MultiDimReductionOp::create(rewriter, loc, whole, init,
                                                     reducedDims, kind);
  rewriter.replaceAllUsesWith(newLoop.getResult(index), reduced.getResult());
  return newLoop;
}

/// Whether `op` (in `loop`) reads or writes memory other than through
/// vector transfers of buffers other than `buffer` (the accumulator).
static bool mayTouch(Operation *op, Value buffer) {
  if (auto transfer = dyn_cast<VectorTransferOpInterface>(op))
    return transfer.getBase() == buffer;
  return !isMemoryEffectFree(op);
}

/// The buffer `value` is a view of (through subviews, casts, ...).
static Value getRootBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// Moves the reads of `loop` (the full steps of a vector tile loop) that
/// are the same every step (a row's statistic broadcast over the row) out
/// of it, with what they feed: the reads are of buffers the loop does not
/// write (LLVM cannot hoist them: the aligned pointers of allocations lose
/// their provenance, so it cannot prove the loop's stores do not alias).
static void hoistInvariantReads(scf::ForOp loop) {
  auto loopLike = cast<LoopLikeOpInterface>(loop.getOperation());
  moveLoopInvariantCode(loopLike);
  llvm::SmallPtrSet<Value, 4> written;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto write = dyn_cast<vector::TransferWriteOp>(op))
      written.insert(getRootBuffer(write.getBase()));
    else if (!isa<vector::TransferReadOp>(op) && !isMemoryEffectFree(&op))
      return;
  }
  for (auto read : llvm::make_early_inc_range(
           loop.getBody()->getOps<vector::TransferReadOp>())) {
    if (read.getMask() || !loop.isDefinedOutsideOfLoop(read.getBase()) ||
        !llvm::all_of(
            read.getIndices(),
            [&](Value index) { return loop.isDefinedOutsideOfLoop(index); }) ||
        written.contains(getRootBuffer(read.getBase())))
      continue;
    read->moveBefore(loop);
  }
  moveLoopInvariantCode(loopLike);
}

/// Carries the accumulator that `loop` (the full steps of a vector tile
/// loop) reads and writes at fixed indices of a buffer defined outside it:
/// the read moves before the loop, the write after it, the value becomes a
/// loop-carried vector. The tile's inputs are other buffers, which a linalg
/// op's outputs do not alias (its vectorized tile already assumes so).
/// Returns the grown loop, or the loop itself when there is nothing to
/// carry. Runs after hoistInvariantReads, whose code motion put the
/// accumulator's view outside the loop.
static scf::ForOp hoistAccumulator(RewriterBase &rewriter, scf::ForOp loop) {
  for (auto write : loop.getBody()->getOps<vector::TransferWriteOp>()) {
    Value buffer = write.getBase();
    if (!loop.isDefinedOutsideOfLoop(buffer) ||
        !llvm::all_of(write.getIndices(), [&](Value index) {
          return loop.isDefinedOutsideOfLoop(index);
        }))
      continue;
    vector::TransferReadOp read;
    bool other = false;
    for (Operation &op : loop.getBody()->without_terminator()) {
      auto candidate = dyn_cast<vector::TransferReadOp>(op);
      if (candidate && candidate.getBase() == buffer && !read &&
          candidate->isBeforeInBlock(write) &&
          llvm::equal(candidate.getIndices(), write.getIndices(),
                      isEqualConstantIntOrValue) &&
          candidate.getVectorType() == write.getVectorType() &&
          candidate.getPermutationMap() == write.getPermutationMap() &&
          !candidate.getMask() && !write.getMask())
        read = candidate;
      else if (&op != write.getOperation() && mayTouch(&op, buffer))
        other = true;
    }
    if (!read || other)
      continue;
    read->moveBefore(loop);
    write->moveAfter(loop);
    FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
        rewriter, read.getVector(), /*replaceInitOperandUsesInLoop=*/true,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
          return SmallVector<Value>{write.getVector()};
        });
    if (failed(grown))
      return loop;
    auto newLoop = cast<scf::ForOp>(grown->getOperation());
    write.getValueToStoreMutable().assign(newLoop.getResults().back());
    return hoistAccumulator(rewriter, newLoop);
  }
  return loop;
}

/// Carries each accumulator of `loop` that is reduced horizontally every
/// step as a whole vector instead (see carryWholeVector). Returns the loop
/// that replaced `loop`, or `loop`.
static scf::ForOp carryWholeVectors(RewriterBase &rewriter, scf::ForOp loop) {
  for (bool changed = true; changed;) {
    changed = false;
    for (auto reduction :
         loop.getBody()->getOps<vector::MultiDimReductionOp>()) {
      auto acc = dyn_cast<BlockArgument>(reduction.getAcc());
      if (!acc || acc.getOwner() != loop.getBody() ||
          acc.getArgNumber() < loop.getNumInductionVars() ||
          !isCarriedReduction(loop, acc, reduction))
        continue;
      if (scf::ForOp grown = carryWholeVector(rewriter, loop, acc, reduction)) {
        loop = grown;
        changed = true;
        break;
      }
    }
  }
  return loop;
}

//===----------------------------------------------------------------------===//
// Transposes: square tiles
//===----------------------------------------------------------------------===//

static FailureOr<SmallVector<Operation *>>
lowerToVectorLoopsAlongInner(RewriterBase &rewriter, linalg::LinalgOp op,
                             int64_t lanes);

std::optional<unsigned>
mlir::wrapper::getTransposedLoop(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  if (loops < 2 || op.getNumReductionLoops() != 0)
    return std::nullopt;
  unsigned inner = loops - 1;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.getNumResults() < 2 || !map.isFunctionOfDim(inner))
      continue;
    auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (last && last.getPosition() != inner)
      return last.getPosition();
  }
  return std::nullopt;
}

/// Lowers the parts of a tiled transpose that are not a full square tile:
/// the usual vector loops (lanes from the tile's own innermost size), or
/// scalar loops.
static void lowerTransposeRemainder(RewriterBase &rewriter,
                                    linalg::LinalgOp tile, int64_t lanes) {
  int64_t inner = tile.getStaticLoopRanges().back();
  while (lanes > 2 && !ShapedType::isDynamic(inner) && inner < lanes)
    lanes /= 2;
  rewriter.setInsertionPoint(tile);
  if (!wrapper::checkVectorLoops(tile, lanes).empty() ||
      failed(lowerToVectorLoopsAlongInner(rewriter, tile, lanes)))
    (void)lowerToScalarLoops(rewriter, tile);
}

/// A transpose in square tiles of `size` x `size` along the loop that
/// reads its input contiguously (`across`) and the innermost loop: each
/// full tile reads `size` contiguous vectors of the input, transposes them
/// in registers and writes `size` contiguous vectors of the output (before,
/// every output vector gathered its elements a row of the input apart).
/// Partial tiles take the usual vector loops. Returns the loops (outermost
/// first), or failure when tiling fails (nothing changed then).
static FailureOr<SmallVector<Operation *>>
lowerTransposeToSquareTiles(RewriterBase &rewriter, linalg::LinalgOp op,
                            unsigned across, int64_t size, int64_t lanes) {
  // Named ops (linalg.transpose) as generics: the casts peeling leaves on
  // a full tile's views fold into a generic (makeTileStatic), not into
  // every named op.
  if (!isa<linalg::GenericOp>(op.getOperation())) {
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::GenericOp> generic =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generic))
      return failure();
    op = *generic;
  }
  unsigned inner = op.getNumLoops() - 1;
  SmallVector<int64_t> sizes(op.getNumLoops(), 1);
  sizes[across] = size;
  sizes[inner] = size;
  linalg::LinalgTilingOptions options;
  options.setTileSizes(sizes).setLoopType(linalg::LinalgTilingLoopType::Loops);
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::TiledLinalgOp> tiled =
      linalg::tileLinalgOp(rewriter, op, options);
  if (failed(tiled) || tiled->loops.size() != op.getNumLoops())
    return failure();
  rewriter.eraseOp(op);
  SmallVector<Operation *> loops(tiled->loops.begin(), tiled->loops.end());
  auto acrossLoop = cast<scf::ForOp>(loops[across]);
  auto innerLoop = cast<scf::ForOp>(loops[inner]);
  // Peel the innermost loop inside the `across` loop, then the `across`
  // loop (its remainder is a copy of its whole body).
  scf::ForOp innerRest, acrossRest;
  if (failed(scf::peelForLoopAndSimplifyBounds(rewriter, innerLoop, innerRest)))
    innerRest = nullptr;
  if (failed(
          scf::peelForLoopAndSimplifyBounds(rewriter, acrossLoop, acrossRest)))
    acrossRest = nullptr;
  makeTileStatic(acrossLoop.getRegion());
  if (acrossRest)
    makeTileStatic(acrossRest.getRegion());
  // The full tiles: in the `across` loop, outside the innermost remainder.
  SmallVector<linalg::LinalgOp> tiles;
  for (scf::ForOp loop : {acrossLoop, acrossRest})
    if (loop)
      loop.getBody()->walk([&](linalg::LinalgOp tile) { tiles.push_back(tile); });
  for (linalg::LinalgOp tile : tiles) {
    SmallVector<int64_t> ranges = tile.getStaticLoopRanges();
    bool full = ranges[across] == size && ranges[inner] == size;
    if (!full) {
      lowerTransposeRemainder(rewriter, tile, lanes);
      continue;
    }
    rewriter.setInsertionPoint(tile);
    FailureOr<linalg::VectorizationResult> vectorized =
        linalg::vectorize(rewriter, tile);
    if (succeeded(vectorized))
      rewriter.replaceOp(tile, vectorized->replacements);
    else
      lowerTransposeRemainder(rewriter, tile, lanes);
  }
  return loops;
}

FailureOr<SmallVector<Operation *>>
mlir::wrapper::lowerLinalgOpToVectorLoops(RewriterBase &rewriter,
                                          linalg::LinalgOp op, int64_t lanes) {
  if (!checkVectorLoops(op, lanes).empty())
    return failure();
  // A transpose: square tiles of one register's lanes (lanes is two
  // registers' worth), when both loops have a full tile.
  if (std::optional<unsigned> across = wrapper::getTransposedLoop(op)) {
    int64_t size = std::max<int64_t>(2, lanes / 2);
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    auto fits = [&](int64_t range) {
      return ShapedType::isDynamic(range) || range >= size;
    };
    if (fits(ranges[*across]) && fits(ranges.back())) {
      FailureOr<SmallVector<Operation *>> loops =
          lowerTransposeToSquareTiles(rewriter, op, *across, size, lanes);
      if (succeeded(loops))
        return loops;
    }
  }
  return lowerToVectorLoopsAlongInner(rewriter, op, lanes);
}

/// The vector loops of an op checkVectorLoops accepts: tiles of 1 x ... x 1
/// x `lanes`, peeled, the full ones vectorized.
static FailureOr<SmallVector<Operation *>>
lowerToVectorLoopsAlongInner(RewriterBase &rewriter, linalg::LinalgOp op,
                             int64_t lanes) {
  SmallVector<int64_t> sizes(op.getNumLoops(), 1);
  sizes.back() = lanes;
  linalg::LinalgTilingOptions options;
  options.setTileSizes(sizes).setLoopType(linalg::LinalgTilingLoopType::Loops);
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::TiledLinalgOp> tiled =
      linalg::tileLinalgOp(rewriter, op, options);
  if (failed(tiled) || tiled->loops.empty())
    return failure();
  rewriter.eraseOp(op);
  SmallVector<Operation *> loops(tiled->loops.begin(), tiled->loops.end());

  // Full steps and the remainder. Peeling fails when there is no remainder
  // (the size is a static multiple of the lanes): every step is full.
  auto main = cast<scf::ForOp>(loops.back());
  scf::ForOp remainder;
  if (failed(scf::peelForLoopAndSimplifyBounds(rewriter, main, remainder)))
    remainder = nullptr;
  makeTileStatic(main.getRegion());

  // From here on `op` is gone: a tile that cannot be lowered is left in
  // its loop (the pass reports it), never a failure.
  linalg::LinalgOp tile = findTile(main);
  if (!tile)
    return loops;
  rewriter.setInsertionPoint(tile);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, tile);
  if (succeeded(vectorized)) {
    rewriter.replaceOp(tile, vectorized->replacements);
    // Accumulators in registers (the peeled loop keeps its position, so
    // the remainder still sees the final accumulator in memory).
    hoistInvariantReads(main);
    scf::ForOp carried =
        carryWholeVectors(rewriter, hoistAccumulator(rewriter, main));
    if (loops.front() == loops.back())
      loops.front() = carried;
    loops.back() = carried;
  } else {
    (void)lowerToScalarLoops(rewriter, tile);
  }
  // A remainder of static size is one shorter vector step; a dynamic one
  // a scalar loop.
  if (remainder) {
    linalg::LinalgOp rest = findTile(remainder);
    // One remainder step (a static size) runs at the constant start of the
    // remainder, which makes its tile static.
    if (rest && succeeded(remainder.promoteIfSingleIteration(rewriter))) {
      remainder = nullptr;
      makeTileStatic(*rest->getParentRegion());
    } else {
      makeTileStatic(remainder.getRegion());
    }
    if (rest && !rest.hasDynamicShape())
      vectorizeStaticTile(rewriter, rest);
    else if (rest)
      (void)lowerToScalarLoops(rewriter, rest);
  }
  return loops;
}
