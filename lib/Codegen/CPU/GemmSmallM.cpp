//===- GemmSmallM.cpp - products of a few rows on the GEMM template -------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// The GEMM template's path for products of a static M of a few rows
// (GemmLoweringOptions::smallMRows): no packing of A, accumulators of a
// group of rows kept in registers across K, B read in place or from its
// compile-time panels (docs/Rationale/GemmTemplate.md, "Up to 16 rows").
//
//===----------------------------------------------------------------------===//

#include "GemmTemplate.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::wrapper;
using namespace mlir::wrapper::gemm;

/// Rows of A up to which an f16/bf16 product skips the packed GEMM
/// (statically): matrix-vector-like products read B once, and the
/// micro-kernel's mr-row tile would mostly multiply zero rows; more rows
/// take the packed GEMM (its bf16 pairs). f32 products skip it up to
/// GemmLoweringOptions::smallMRows (16) rows: packing A and B costs more
/// than such a product's FMAs (attention's products of 16 x 16 heads take
/// a fifth of the time), and 12-row tiles would multiply zero rows.
constexpr int64_t kSmallM = 4;
/// Accumulator vectors of one group of rows of the small-M product.
constexpr int64_t kSmallMAccumulators = 16;

/// The most rows (static M) of a product that takes the small-M path.
int64_t wrapper::gemm::smallMLimit(Type operand,
                                   const GemmLoweringOptions &options) {
  return operand.isF32() ? options.smallMRows
                         : std::min(kSmallM, options.smallMRows);
}

/// Whether the product has a static M of 1..smallMLimit.
bool wrapper::gemm::hasSmallM(linalg::MatmulOp matmul,
                              const GemmLoweringOptions &options) {
  auto a = cast<ShapedType>(matmul.getInputs()[0].getType());
  return !a.isDynamicDim(0) && a.getDimSize(0) >= 1 &&
         a.getDimSize(0) <= smallMLimit(a.getElementType(), options);
}

/// Whether `plan`, of a product with a static M of 1..smallMLimit (hasSmallM,
/// asked before prepacking), takes the small-M path: A not prepacked, f32
/// panels, and B prepacked or read with a unit inner stride.
bool wrapper::gemm::isSmallMProduct(const GemmPlan &plan) {
  linalg::MatmulOp matmul = plan.matmul;
  Value bMat = matmul.getInputs()[1];
  return !plan.packedA && !plan.format.isPairs() &&
         (plan.packedB || hasUnitInnerStride(bMat.getType()));
}

/// The small-M product: per block of nr columns (the blocks in parallel;
/// narrower when B is read in place and N is static and smaller), rows in
/// groups of at most kSmallMAccumulators accumulator vectors kept in
/// registers across K, each step broadcasting A[m][k] against one row of
/// the block of B, read in place (masked past N) or from the compile-time
/// panels; then C stored (added to when the zero fill stays) and the
/// epilogue applied to the block.
std::pair<int64_t, int64_t> wrapper::gemm::emitSmallM(const GemmPlan &plan,
                                                      const Blocking &blk,
                                                      bool parallel) {
  linalg::MatmulOp matmul = plan.matmul;
  OpBuilder b(getEmissionPoint(plan));
  Location loc = matmul.getLoc();
  Emitter e(b, loc);
  Type f32 = b.getF32Type();
  Value a = matmul.getInputs()[0], bMat = matmul.getInputs()[1];
  Value c = matmul.getOutputs()[0];
  int64_t rowsM = cast<ShapedType>(a.getType()).getDimSize(0);
  Value K = e.dim(a, 1), N = e.dim(c, 1);
  auto vecType = VectorType::get({blk.vl}, f32);
  // f16/bf16 B rows are read in place and extended (never prepacked here).
  auto operandVecType = VectorType::get({blk.vl}, plan.format.operand);
  auto maskType = VectorType::get({blk.vl}, b.getI1Type());
  int64_t nv = blk.nr / blk.vl;
  Value packed;
  if (plan.packedB)
    packed = flattenPanels(b, loc, plan.packedB);
  // B read in place: no wider than a static N needs.
  int64_t staticN = cast<ShapedType>(c.getType()).getDimSize(1);
  if (!packed && !ShapedType::isDynamic(staticN))
    nv = std::clamp<int64_t>((staticN + blk.vl - 1) / blk.vl, 1, nv);
  int64_t blockCols = nv * blk.vl;
  int64_t groupRows = std::max<int64_t>(1, kSmallMAccumulators / nv);
  Value zero = arith::ConstantOp::create(b, loc, vecType,
                                         DenseElementsAttr::get(vecType, 0.0f));
  Value zeroOperand = arith::ConstantOp::create(b, loc, operandVecType,
                                                b.getZeroAttr(operandVecType));
  e.parallelLoop(parallel, e.ceilDiv(N, blockCols), [&](Value jp) {
    Value n = e.mul(jp, blockCols);
    Value cols = e.min(e.sub(N, n), blockCols);
    SmallVector<Value> masks, columns;
    for (int64_t j = 0; j < nv; ++j) {
      columns.push_back(e.add(n, j * blk.vl));
      masks.push_back(vector::CreateMaskOp::create(
          b, loc, maskType, ValueRange{e.sub(cols, e.idx(j * blk.vl))}));
    }
    for (int64_t m0 = 0; m0 < rowsM; m0 += groupRows) {
      int64_t rows = std::min(groupRows, rowsM - m0);
      SmallVector<Value> init;
      for (int64_t m = m0; m < m0 + rows; ++m)
        for (int64_t j = 0; j < nv; ++j)
          init.push_back(plan.zeroFill ? zero
                                       : vector::MaskedLoadOp::create(
                                             b, loc, vecType, c,
                                             ValueRange{e.idx(m), columns[j]},
                                             masks[j], zero)
                                             .getResult());
      auto kLoop = scf::ForOp::create(
          b, loc, e.idx(0), K, e.idx(1), init,
          [&](OpBuilder &nb, Location l, Value k, ValueRange accs) {
            Emitter ne(nb, l);
            SmallVector<Value> bVecs;
            for (int64_t j = 0; j < nv; ++j) {
              if (packed) {
                Value off = ne.add(ne.mul(ne.add(ne.mul(jp, K), k), blk.nr),
                                   j * blk.vl);
                bVecs.push_back(vector::LoadOp::create(nb, l, vecType, packed,
                                                       ValueRange{off}));
              } else {
                bVecs.push_back(toPanelType(
                    nb, l,
                    vector::MaskedLoadOp::create(nb, l, operandVecType, bMat,
                                                 ValueRange{k, columns[j]},
                                                 masks[j], zeroOperand),
                    plan.format));
              }
            }
            SmallVector<Value> next;
            for (int64_t m = m0; m < m0 + rows; ++m) {
              Value x = toPanelType(
                  nb, l,
                  memref::LoadOp::create(nb, l, a, ValueRange{ne.idx(m), k}),
                  plan.format);
              Value splat = vector::BroadcastOp::create(nb, l, vecType, x);
              for (int64_t j = 0; j < nv; ++j)
                next.push_back(vector::FMAOp::create(nb, l, splat, bVecs[j],
                                                     accs[(m - m0) * nv + j]));
            }
            scf::YieldOp::create(nb, l, next);
          });
      for (int64_t m = m0; m < m0 + rows; ++m)
        for (int64_t j = 0; j < nv; ++j)
          vector::MaskedStoreOp::create(
              b, loc, c, ValueRange{e.idx(m), columns[j]}, masks[j],
              kLoop.getResult((m - m0) * nv + j));
    }
    if (plan.epilogue)
      emitEpilogue(e, *plan.epilogue, c, {e.idx(0), n}, e.idx(0), n,
                   e.idx(rowsM), cols, blk);
  });
  return {blockCols, groupRows};
}
