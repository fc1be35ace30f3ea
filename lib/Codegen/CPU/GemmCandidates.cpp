//===- GemmCandidates.cpp - the products the GEMM template takes ----------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Which linalg products the GEMM template (GemmTemplate.cpp) takes: 2-D
// matmuls with the default maps or transposed operands, batched products
// that --wrapper-specialize-contractions splits into them; and how a
// transposed operand becomes a memref.transpose view the template packs
// from.
//
//===----------------------------------------------------------------------===//

#include "GemmTemplate.h"

#include "Wrapper/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::wrapper;

Operation *wrapper::gemm::previousEffectfulOp(Operation *op) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode())
    if (!isMemoryEffectFree(prev))
      return prev;
  return nullptr;
}

/// Whether `op` only allocates a fresh buffer (memref.alloc): nothing it
/// does can touch memory another op reads or writes.
static bool onlyAllocates(Operation *op) {
  return op->getNumResults() == 1 &&
         hasSingleEffect<MemoryEffects::Allocate>(op, op->getResult(0));
}

Operation *wrapper::gemm::nextEffectfulOp(Operation *op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (!isMemoryEffectFree(next) && !onlyAllocates(next))
      return next;
  return nullptr;
}

std::optional<int64_t> wrapper::getBatchedMatmulDims(Operation *op) {
  if (std::optional<BatchedMatmul> product = matchBatchedMatmul(op))
    return product->batch;
  return std::nullopt;
}

std::optional<wrapper::BatchedMatmul>
wrapper::matchBatchedMatmul(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumLoops() < 4 ||
      !linalg::isaContractionOpInterface(generic))
    return std::nullopt;
  int64_t batch = generic.getNumLoops() - 3;
  MLIRContext *context = op->getContext();
  auto map = [&](std::initializer_list<int64_t> inner, bool batched) {
    SmallVector<AffineExpr> results;
    for (int64_t d = 0; batched && d < batch; ++d)
      results.push_back(getAffineDimExpr(d, context));
    for (int64_t d : inner)
      results.push_back(getAffineDimExpr(batch + d, context));
    return AffineMap::get(batch + 3, 0, results, context);
  };
  // (b..., m, k), (b..., k, n) -> (b..., m, n) over loops (b..., m, n, k);
  // one operand may be the same matrix for every batch element (a
  // convolution's weights: (m, k)); either may be read transposed
  // ((b..., k, m), (b..., n, k)).
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (maps[2] != map({0, 1}, true))
    return std::nullopt;
  BatchedMatmul product;
  product.batch = batch;
  auto match = [&](AffineMap actual, std::initializer_list<int64_t> plain,
                   std::initializer_list<int64_t> swapped, bool &batched,
                   bool &transposed) {
    for (bool b : {true, false})
      for (bool t : {false, true})
        if (actual == map(t ? swapped : plain, b)) {
          batched = b;
          transposed = t;
          return true;
        }
    return false;
  };
  if (!match(maps[0], {0, 2}, {2, 0}, product.aBatched, product.aTransposed) ||
      !match(maps[1], {2, 1}, {1, 2}, product.bBatched, product.bTransposed) ||
      (!product.aBatched && !product.bBatched))
    return std::nullopt;
  return product;
}

std::optional<std::pair<bool, bool>>
wrapper::gemm::getProductTransposes(ArrayRef<AffineMap> maps) {
  if (maps.size() != 3)
    return std::nullopt;
  MLIRContext *context = maps.front().getContext();
  AffineExpr m = getAffineDimExpr(0, context), n = getAffineDimExpr(1, context),
             k = getAffineDimExpr(2, context);
  auto map = [&](AffineExpr x, AffineExpr y) {
    return AffineMap::get(3, 0, {x, y}, context);
  };
  bool transposeA = maps[0] == map(k, m), transposeB = maps[1] == map(n, k);
  if ((!transposeA && maps[0] != map(m, k)) ||
      (!transposeB && maps[1] != map(k, n)) || maps[2] != map(m, n))
    return std::nullopt;
  return std::make_pair(transposeA, transposeB);
}

Value wrapper::gemm::transposeLastTwo(OpBuilder &b, Location loc,
                                      Value source) {
  int64_t rank = cast<MemRefType>(source.getType()).getRank();
  SmallVector<unsigned> permutation =
      llvm::to_vector(llvm::seq<unsigned>(0, rank));
  std::swap(permutation[rank - 2], permutation[rank - 1]);
  return memref::TransposeOp::create(
      b, loc, source,
      AffineMapAttr::get(
          AffineMap::getPermutationMap(permutation, b.getContext())));
}

std::optional<std::pair<bool, bool>>
wrapper::getMatmulTransposes(linalg::MatmulOp matmul) {
  if (!matmul.hasUserDefinedMaps())
    return std::make_pair(false, false);
  return gemm::getProductTransposes(matmul.getIndexingMapsArray());
}

linalg::MatmulOp wrapper::viewTransposedOperands(RewriterBase &rewriter,
                                                 linalg::MatmulOp matmul) {
  std::optional<std::pair<bool, bool>> transposes = getMatmulTransposes(matmul);
  if (!transposes || (!transposes->first && !transposes->second) ||
      !matmul.hasPureBufferSemantics())
    return matmul;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(matmul);
  Location loc = matmul.getLoc();
  auto view = [&](Value operand, bool transposed) -> Value {
    return transposed ? gemm::transposeLastTwo(rewriter, loc, operand)
                      : operand;
  };
  auto plain = linalg::MatmulOp::create(
      rewriter, loc,
      ValueRange{view(matmul.getInputs()[0], transposes->first),
                 view(matmul.getInputs()[1], transposes->second)},
      matmul.getOutputs());
  // The recorded blocking and other discardable attributes.
  for (NamedAttribute attr : matmul->getDiscardableAttrs())
    plain->setDiscardableAttr(attr.getName(), attr.getValue());
  rewriter.eraseOp(matmul);
  return plain;
}

bool wrapper::isGemmTemplateCandidate(Operation *op) {
  auto matmul = dyn_cast_or_null<linalg::MatmulOp>(op);
  auto batched = dyn_cast_or_null<linalg::BatchMatmulOp>(op);
  if (matmul    ? !getMatmulTransposes(matmul)
      : batched ? batched.hasUserDefinedMaps()
                : !getBatchedMatmulDims(op))
    return false;
  // f32 products, and f16/bf16 ones accumulated in f32.
  if (op->getNumOperands() != 3)
    return false;
  Type a = getElementTypeOrSelf(op->getOperand(0).getType());
  Type b = getElementTypeOrSelf(op->getOperand(1).getType());
  Type c = getElementTypeOrSelf(op->getOperand(2).getType());
  return a == b && c.isF32() && (a.isF32() || a.isBF16() || a.isF16());
}
