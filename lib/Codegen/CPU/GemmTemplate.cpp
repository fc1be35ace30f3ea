//===- GemmTemplate.cpp - packed, blocked GEMM for linalg.matmul ----------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-gemm-template: f32 linalg.matmul on buffers becomes a
// GEMM in the style of BLIS and of Inductor's C++ GEMM template (seed 002):
// A packed into row panels, B packed into column panels per K slice (or at
// compile time when it is a constant), a parallel loop over column blocks,
// cache blocking over K and M, and a register-tiled vector micro-kernel of
// its own (a private function, so that it can be called, tested and timed
// alone). The elementwise consumer of the product (bias, activation,
// residual, cast) is applied to each tile as it is finished.
//
// Upstream has the pieces (linalg tiling, packing by linalg.pack,
// vectorization to vector.contract) but not a schedule that keeps an mr x nr
// accumulator tile in registers across K with broadcast A values, which is
// what a GEMM needs to approach the FMA peak; this pass emits that schedule
// directly with scf and vector ops (docs/Rationale/GemmTemplate.md).
//
//===----------------------------------------------------------------------===//

#include "GemmTemplate.h"

#include "Wrapper/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERGEMMTEMPLATEPASS
#include "Wrapper/Codegen/CPU/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper::gemm;

func::FuncOp wrapper::gemm::getOrDeclareMaxThreads(ModuleOp module) {
  if (auto existing = module.lookupSymbol<func::FuncOp>("omp_get_max_threads"))
    return existing;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto func = func::FuncOp::create(b, module.getLoc(), "omp_get_max_threads",
                                   b.getFunctionType({}, {b.getI32Type()}));
  func.setPrivate();
  return func;
}

/// Whether `type` is a memref whose innermost stride is 1.
bool wrapper::gemm::hasUnitInnerStride(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || memref.getRank() == 0)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)))
    return false;
  return strides.back() == 1;
}

/// Whether `type` is a 2-d memref whose outer stride is 1: the transpose
/// of a row-major matrix (a linear layer's weight, attention's k^T).
static bool hasUnitOuterStride(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || memref.getRank() != 2)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)))
    return false;
  return strides[0] == 1;
}

//===----------------------------------------------------------------------===//
// The GEMM
//===----------------------------------------------------------------------===//

/// Copies rows x cols elements between C at (m, n) and the local tile.
static void copyTile(Emitter &e, Value from, ValueRange fromAt, Value to,
                     ValueRange toAt, Value rows, Value cols) {
  e.loop(rows, [&](Value r) {
    e.loop(cols, [&](Value j) {
      Value v = memref::LoadOp::create(
          e.b, e.loc, from,
          ValueRange{e.add(fromAt[0], r), e.add(fromAt[1], j)});
      memref::StoreOp::create(e.b, e.loc, v, to,
                              ValueRange{e.add(toAt[0], r), e.add(toAt[1], j)});
    });
  });
}

/// Where a plan's code goes: at the epilogue when there is one (only pure
/// ops lie between the two, and the epilogue may read values they define,
/// views of its inputs), else at the matmul.
Operation *wrapper::gemm::getEmissionPoint(const GemmPlan &plan) {
  if (plan.epilogue)
    return plan.epilogue->op;
  linalg::MatmulOp matmul = plan.matmul;
  return matmul.getOperation();
}

/// Compile-time panels ([P][K/kp][r*kp]) as the flat buffer the loops
/// index.
Value wrapper::gemm::flattenPanels(OpBuilder &b, Location loc, Value panels) {
  Value collapsed = memref::CollapseShapeOp::create(
      b, loc, panels, SmallVector<ReassociationIndices>{{0, 1, 2}});
  return memref::CastOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic},
                      getElementTypeOrSelf(panels.getType())),
      collapsed);
}

/// `v` (a scalar or a vector of the operands' type) in the panels' type.
Value wrapper::gemm::toPanelType(OpBuilder &b, Location loc, Value v,
                                 const PanelFormat &format) {
  Type element = getElementTypeOrSelf(v.getType());
  if (element == format.panel)
    return v;
  Type to = format.panel;
  if (auto vec = dyn_cast<VectorType>(v.getType()))
    to = VectorType::get(vec.getShape(), format.panel);
  return arith::ExtFOp::create(b, loc, to, v);
}

/// How a product's work is split over `threads`: (row chunks, column
/// blocks), with at least `minColBlocks` column blocks (B blocks of at most
/// nc columns). For each divisor d of the threads, d threads share a row
/// chunk's column blocks (the fewest multiple of d that is at least
/// `minColBlocks`) and threads / d row chunks split the rows. The choice
/// minimizes the panels the busiest thread computes (whole panels
/// counted); ties go to fewer row chunks, since each unit packs its own B
/// block. Runs once per call: a loop over at most `threads` candidates.
static std::pair<Value, Value> selectThreadGrid(Emitter &e, Value threads,
                                                Value mPanels, Value nPanels,
                                                Value minColBlocks) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Value worst = e.idx(std::numeric_limits<int64_t>::max());
  auto loop = scf::ForOp::create(
      b, loc, e.idx(1), e.add(threads, 1), e.idx(1),
      ValueRange{worst, e.idx(1), minColBlocks},
      [&](OpBuilder &nested, Location, Value d, ValueRange best) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nested.getInsertionBlock(),
                            nested.getInsertionPoint());
        auto divU = [&](Value x, Value y) {
          return arith::DivUIOp::create(b, loc, x, y).getResult();
        };
        Value divides =
            e.cmp(arith::CmpIPredicate::eq,
                  arith::RemUIOp::create(b, loc, threads, d), e.idx(0));
        Value cols = e.mul(e.ceilDiv(minColBlocks, d), d);
        Value rows = divU(threads, d);
        Value cost =
            e.mul(e.mul(e.ceilDiv(mPanels, rows), e.ceilDiv(nPanels, cols)),
                  divU(cols, d));
        Value better = arith::AndIOp::create(
            b, loc, divides, e.cmp(arith::CmpIPredicate::ule, cost, best[0]));
        auto pick = [&](Value x, Value y) {
          return arith::SelectOp::create(b, loc, better, x, y).getResult();
        };
        scf::YieldOp::create(b, loc,
                             ValueRange{pick(cost, best[0]),
                                        pick(rows, best[1]),
                                        pick(cols, best[2])});
      });
  return {loop.getResult(1), loop.getResult(2)};
}

/// Whether `user` of the view `view` of a scratch buffer (see
/// usesProductOnlyInEpilogue) only writes it whole before anything reads
/// it: a fill or a matmul writing `view`, or the elementwise op right after
/// a matmul writing `view` (its epilogue). The matrices of a batch split
/// over a loop (--wrapper-specialize-contractions) are such groups on
/// subviews of one buffer, one group per loop and branch.
static bool isProductGroupUse(Operation *user, Value view) {
  if (auto fill = dyn_cast<linalg::FillOp>(user))
    return fill.hasPureBufferSemantics() && fill.getOutputs()[0] == view;
  if (auto matmul = dyn_cast<linalg::MatmulOp>(user))
    return matmul.hasPureBufferSemantics() && matmul.getOutputs()[0] == view &&
           !llvm::is_contained(matmul.getInputs(), view);
  auto generic = dyn_cast<linalg::GenericOp>(user);
  if (!generic || !generic.hasPureBufferSemantics() ||
      llvm::is_contained(generic.getDpsInits(), view))
    return false;
  auto matmul =
      dyn_cast_or_null<linalg::MatmulOp>(previousEffectfulOp(generic));
  return matmul && matmul.getOutputs()[0] == view;
}

/// Whether the product of `plan` can live in the local tile only: its
/// epilogue is fused, K is one slice (static, 1..kc) and C is a buffer of
/// the kernel's own (memref.alloc, or a subview of one) that nothing but
/// the matmul, its zero fill, the epilogue and its deallocation touches
/// (reading its sizes is fine), or, for other subviews of the same buffer,
/// groups of the same kind (isProductGroupUse: the other matrices of a
/// split batch). Then C is never written: a linear layer with a bias or an
/// activation writes its output once instead of its product and its
/// output.
static bool usesProductOnlyInEpilogue(const GemmPlan &plan,
                                      const Blocking &blk) {
  if (!plan.epilogue)
    return false;
  linalg::MatmulOp matmul = plan.matmul;
  int64_t k = plan.staticK; // A may be retyped to its panels
  if (ShapedType::isDynamic(k) || k <= 0 || k > blk.kc)
    return false;
  Value c = matmul.getOutputs()[0];
  Value root = c;
  while (auto subview = root.getDefiningOp<memref::SubViewOp>())
    root = subview.getSource();
  if (!root.getDefiningOp<memref::AllocOp>())
    return false;
  Operation *epilogue = plan.epilogue->op;
  Operation *fill = plan.zeroFill;
  SmallVector<Value> views = {root};
  while (!views.empty()) {
    Value view = views.pop_back_val();
    for (Operation *user : view.getUsers()) {
      if (view == c && (user == matmul.getOperation() || user == epilogue ||
                        (fill && user == fill)))
        continue;
      if (isa<memref::DimOp>(user) ||
          (view == root && isa<memref::DeallocOp>(user)))
        continue;
      if (auto subview = dyn_cast<memref::SubViewOp>(user)) {
        views.push_back(subview.getResult());
        continue;
      }
      if (view == c || !isProductGroupUse(user, view))
        return false;
    }
  }
  return true;
}

static void emitGemm(const GemmPlan &plan, func::FuncOp ukernel,
                     const Blocking &blk, bool parallel) {
  linalg::MatmulOp matmul = plan.matmul;
  OpBuilder b(getEmissionPoint(plan));
  Location loc = matmul.getLoc();
  Emitter e(b, loc);
  Type f32 = b.getF32Type();
  const PanelFormat &format = plan.format;
  int64_t kp = format.kp;
  Value a = matmul.getInputs()[0], bMat = matmul.getInputs()[1];
  Value c = matmul.getOutputs()[0];
  // A or B may be prepacked already: M and N from C, K from before.
  Value M = e.dim(c, 0), N = e.dim(c, 1);
  Value K =
      ShapedType::isDynamic(plan.staticK) ? e.dim(a, 1) : e.idx(plan.staticK);
  // Groups of kp consecutive k (the last padded with zeros).
  Value kGroups = e.ceilDiv(K, kp);
  auto flat = MemRefType::get({ShapedType::kDynamic}, format.panel);
  auto tileType = cast<FunctionType>(ukernel.getFunctionType()).getInput(5);
  auto vecType = VectorType::get({blk.vl}, format.operand);
  Value zeroOperand =
      arith::ConstantOp::create(b, loc, b.getZeroAttr(format.operand));
  Value zeroVec =
      arith::ConstantOp::create(b, loc, vecType, b.getZeroAttr(vecType));

  // A into [ceil(M/mr)][ceil(K/kp)][mr*kp] panels, zero rows past M (at
  // compile time when A is a constant).
  Value mPanels = e.ceilDiv(M, blk.mr);
  Value ap;
  if (plan.packedA) {
    ap = flattenPanels(b, loc, plan.packedA);
  } else {
    ap = memref::AllocOp::create(
        b, loc, flat, ValueRange{e.mul(e.mul(mPanels, kGroups), blk.mr * kp)},
        b.getI64IntegerAttr(64));
  }
  // Column by column of the panel: mr loads from mr row streams, mr
  // contiguous stores (a whole panel without the row checks); with pairs,
  // the columns k and k + 1 interleaved (zero past K).
  auto packPanel = [&](Value p, bool whole) {
    Value panelBase = e.mul(e.mul(p, kGroups), blk.mr * kp);
    SmallVector<Value> rows, valid;
    for (int64_t r = 0; r < blk.mr; ++r) {
      Value row = e.add(e.mul(p, blk.mr), r);
      if (whole) {
        rows.push_back(row);
        continue;
      }
      valid.push_back(e.cmp(arith::CmpIPredicate::ult, row, M));
      rows.push_back(
          arith::SelectOp::create(b, loc, valid.back(), row, e.idx(0)));
    }
    e.loop(kGroups, [&](Value group) {
      Value dst = e.add(panelBase, e.mul(group, blk.mr * kp));
      for (int64_t i = 0; i < kp; ++i) {
        Value k = e.add(e.mul(group, kp), i);
        Value kValid;
        if (kp > 1) { // only the last group can reach past K
          kValid = e.cmp(arith::CmpIPredicate::ult, k, K);
          k = arith::SelectOp::create(b, loc, kValid, k, e.idx(0));
        }
        for (int64_t r = 0; r < blk.mr; ++r) {
          Value v = memref::LoadOp::create(b, loc, a, ValueRange{rows[r], k});
          Value keep = whole ? kValid
                       : kValid
                           ? arith::AndIOp::create(b, loc, valid[r], kValid)
                           : valid[r];
          if (keep)
            v = arith::SelectOp::create(b, loc, keep, v, zeroOperand);
          memref::StoreOp::create(b, loc, toPanelType(b, loc, v, format), ap,
                                  ValueRange{e.add(dst, r * kp + i)});
        }
      }
    });
  };
  if (!plan.packedA)
    e.parallelLoop(parallel, mPanels, [&](Value p) {
      Value end = e.mul(e.add(p, 1), blk.mr);
      e.ifThen(
          e.cmp(arith::CmpIPredicate::ule, end, M),
          [&] { packPanel(p, /*whole=*/true); },
          [&] { packPanel(p, /*whole=*/false); });
    });

  Value bpPrepacked;
  if (plan.packedB)
    bpPrepacked = flattenPanels(b, loc, plan.packedB);
  bool unitStrideB = hasUnitInnerStride(bMat.getType());
  // A transposed f32 B on AVX-512: whole vl x vl blocks of it are read as
  // vl rows of B^T and transposed in registers (shuffles), not gathered
  // lane by lane.
  bool transposedB = !plan.packedB && !unitStrideB && kp == 1 && blk.vl == 16 &&
                     format.operand == f32 && format.panel == f32 &&
                     hasUnitOuterStride(bMat.getType());
  Value bTransposed; // B^T: [N, K], unit stride along K
  SmallVector<Operation *> packTransposes;
  if (transposedB)
    bTransposed = memref::TransposeOp::create(
        b, loc, bMat,
        AffineMapAttr::get(AffineMap::getPermutationMap(
            ArrayRef<unsigned>{1, 0}, b.getContext())));
  Value accumulateFirst =
      arith::ConstantIntOp::create(b, loc, plan.zeroFill ? 0 : 1, 1);
  bool epilogueFromLocal = usesProductOnlyInEpilogue(plan, blk);

  // Work units: the mr-row panels split evenly into `rowChunks` and the
  // nr-column panels into `colBlocks` (at least enough for blocks of at
  // most nc columns), chosen per call for the threads there are
  // (selectThreadGrid). Each unit packs its own B block.
  Value mPanelsTotal = e.ceilDiv(M, blk.mr);
  Value nPanelsTotal = e.ceilDiv(N, blk.nr);
  Value minColBlocks = arith::MaxSIOp::create(
      b, loc, e.idx(1), e.ceilDiv(nPanelsTotal, blk.nc / blk.nr));
  Value rowChunks = e.idx(1), colBlocks = minColBlocks;
  if (parallel) {
    Value threads = arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        func::CallOp::create(
            b, loc, getOrDeclareMaxThreads(matmul->getParentOfType<ModuleOp>()),
            ValueRange{})
            .getResult(0));
    std::tie(rowChunks, colBlocks) =
        selectThreadGrid(e, arith::MaxSIOp::create(b, loc, threads, e.idx(1)),
                         mPanelsTotal, nPanelsTotal, minColBlocks);
  }
  // The [part * total / parts, (part + 1) * total / parts) share of `total`.
  auto share = [&](Value part, Value total, Value parts) {
    auto bound = [&](Value at) {
      return arith::DivUIOp::create(b, loc, e.mul(at, total), parts)
          .getResult();
    };
    return std::make_pair(bound(part), bound(e.add(part, 1)));
  };
  e.parallelLoop(parallel, e.mul(rowChunks, colBlocks), [&](Value block) {
    auto [rowPanel, rowPanelEnd] =
        share(arith::DivUIOp::create(b, loc, block, colBlocks), mPanelsTotal,
              rowChunks);
    auto [colPanel, colPanelEnd] =
        share(arith::RemUIOp::create(b, loc, block, colBlocks), nPanelsTotal,
              colBlocks);
    Value mStart = e.mul(rowPanel, blk.mr);
    Value mEnd = e.min(M, e.mul(rowPanelEnd, blk.mr));
    Value n0 = e.mul(colPanel, blk.nr);
    Value nPanels = e.sub(colPanelEnd, colPanel);
    Value nCur = arith::MaxSIOp::create(
        b, loc, e.idx(0), e.sub(e.min(N, e.mul(colPanelEnd, blk.nr)), n0));
    // On the heap: one allocation per block, and no stack that grows with
    // the number of blocks when the loop is sequential.
    Value local =
        memref::AllocOp::create(b, loc, MemRefType::get({blk.mr, blk.nr}, f32),
                                b.getI64IntegerAttr(64));
    Value localTile = memref::CastOp::create(b, loc, tileType, local);
    // The block's panels of B at the deepest kc slice: at most nc x kc,
    // less for a small product (a batched product's 16 x 16 matrices take
    // 2 KiB, not the 512 KiB of a full block, per batch element).
    Value bBuf;
    if (!bpPrepacked)
      bBuf = memref::AllocOp::create(
          b, loc, flat,
          ValueRange{e.mul(e.mul(nPanels, blk.nr),
                           e.mul(e.ceilDiv(e.min(K, blk.kc), kp), kp))},
          b.getI64IntegerAttr(64));
    Value bp = bpPrepacked ? bpPrepacked : bBuf;
    e.loop(e.idx(0), K, e.idx(blk.kc), [&](Value pc) {
      Value kCur = e.min(e.sub(K, pc), blk.kc);
      Value kcGroups = e.ceilDiv(kCur, kp);
      if (!bpPrepacked) {
        // The kc x nc block of B into [nc/nr][kc/kp][nr*kp] panels: plain
        // vector loads for whole panels of a unit-stride B, masked ones (zero
        // past N) for the last, lane by lane for any other layout.
        // Row by row (each row of the block is nc contiguous elements of
        // B; with pairs, rows k and k + 1 interleaved, zero past K), with
        // the row `prefetchRows` ahead prefetched: consecutive rows are a
        // page or more apart, beyond the hardware prefetchers.
        const int64_t prefetchRows = 8;
        auto loadRow = [&](Value row, Value col, bool whole) -> Value {
          if (unitStrideB && whole)
            return vector::LoadOp::create(b, loc, vecType, bMat,
                                          ValueRange{row, col});
          if (unitStrideB)
            return vector::TransferReadOp::create(
                b, loc, vecType, bMat, ValueRange{row, col}, zeroOperand,
                ArrayRef<bool>{false});
          // Lane by lane (a transposed B: each lane a row of B^T, read
          // along k as the K loop goes on); no checks in a whole panel.
          Value v = zeroVec;
          for (int64_t lane = 0; lane < blk.vl; ++lane) {
            Value at = e.add(col, lane);
            if (whole) {
              Value x =
                  memref::LoadOp::create(b, loc, bMat, ValueRange{row, at});
              v = vector::InsertOp::create(b, loc, x, v, lane);
              continue;
            }
            Value valid = e.cmp(arith::CmpIPredicate::ult, at, N);
            Value safe = arith::SelectOp::create(b, loc, valid, at, e.idx(0));
            Value x =
                memref::LoadOp::create(b, loc, bMat, ValueRange{row, safe});
            x = arith::SelectOp::create(b, loc, valid, x, zeroOperand);
            v = vector::InsertOp::create(b, loc, x, v, lane);
          }
          return v;
        };
        auto packRow = [&](Value group, Value jp, bool whole) {
          Value row = e.add(pc, e.mul(group, kp));
          Value col0 = e.add(n0, e.mul(jp, blk.nr));
          Value dst = e.mul(e.add(e.mul(jp, kcGroups), group), blk.nr * kp);
          Value nextValid, nextRow;
          if (kp == 2) {
            nextRow = e.add(row, 1);
            nextValid = e.cmp(arith::CmpIPredicate::ult, nextRow, K);
            nextRow = arith::SelectOp::create(b, loc, nextValid, nextRow, row);
          }
          for (int64_t j = 0; j < blk.nr; j += blk.vl) {
            Value col = e.add(col0, j);
            Value v = loadRow(row, col, whole);
            if (kp == 2) {
              Value next = arith::SelectOp::create(
                  b, loc, nextValid, loadRow(nextRow, col, whole), zeroVec);
              v = vector::InterleaveOp::create(b, loc, v, next);
            }
            vector::StoreOp::create(b, loc, toPanelType(b, loc, v, format),
                                    bBuf, ValueRange{e.add(dst, j * kp)});
          }
        };
        // Whole blocks of vl groups first when B is transposed; the groups
        // after the last whole block (and the edge panels) as before.
        Value firstGroup = e.idx(0);
        if (transposedB) {
          Value kBlocks = e.div(kCur, blk.vl);
          firstGroup = e.mul(kBlocks, blk.vl);
          auto tileType = VectorType::get({blk.vl, blk.vl}, f32);
          Value zeroTile = arith::ConstantOp::create(b, loc, tileType,
                                                     b.getZeroAttr(tileType));
          e.loop(kBlocks, [&](Value kb) {
            Value k0 = e.mul(kb, blk.vl);
            e.loop(nPanels, [&](Value jp) {
              Value col0 = e.add(n0, e.mul(jp, blk.nr));
              e.ifThen(
                  e.cmp(arith::CmpIPredicate::ule, e.add(col0, blk.nr), N),
                  [&] {
                    for (int64_t j = 0; j < blk.nr; j += blk.vl) {
                      Value tile = zeroTile;
                      for (int64_t lane = 0; lane < blk.vl; ++lane) {
                        Value row = vector::LoadOp::create(
                            b, loc, vecType, bTransposed,
                            ValueRange{e.add(col0, j + lane), e.add(pc, k0)});
                        tile =
                            vector::InsertOp::create(b, loc, row, tile, lane);
                      }
                      auto transposed = vector::TransposeOp::create(
                          b, loc, tile, ArrayRef<int64_t>{1, 0});
                      packTransposes.push_back(transposed);
                      for (int64_t kk = 0; kk < blk.vl; ++kk) {
                        Value column =
                            vector::ExtractOp::create(b, loc, transposed, kk);
                        Value dst = e.mul(
                            e.add(e.mul(jp, kcGroups), e.add(k0, kk)), blk.nr);
                        vector::StoreOp::create(b, loc, column, bBuf,
                                                ValueRange{e.add(dst, j)});
                      }
                    }
                  },
                  [&] {
                    e.loop(e.idx(blk.vl), [&](Value kk) {
                      packRow(e.add(k0, kk), jp, /*whole=*/false);
                    });
                  });
            });
          });
        }
        e.loop(firstGroup, kcGroups, e.idx(1), [&](Value group) {
          if (unitStrideB) {
            for (int64_t i = 0; i < kp; ++i) {
              Value ahead =
                  e.add(pc, e.add(e.mul(group, kp), prefetchRows + i));
              e.ifThen(e.cmp(arith::CmpIPredicate::ult, ahead, K), [&] {
                e.loop(e.idx(0), nCur, e.idx(16), [&](Value j) {
                  memref::PrefetchOp::create(b, loc, bMat,
                                             ValueRange{ahead, e.add(n0, j)},
                                             /*isWrite=*/false,
                                             /*localityHint=*/3,
                                             /*isDataCache=*/true);
                });
              });
            }
          }
          e.loop(nPanels, [&](Value jp) {
            Value end = e.add(e.add(n0, e.mul(jp, blk.nr)), blk.nr);
            e.ifThen(
                e.cmp(arith::CmpIPredicate::ule, end, N),
                [&] { packRow(group, jp, /*whole=*/true); },
                [&] { packRow(group, jp, /*whole=*/false); });
          });
        });
      }
      Value notFirst = e.cmp(arith::CmpIPredicate::ne, pc, e.idx(0));
      Value accumulate =
          arith::OrIOp::create(b, loc, notFirst, accumulateFirst);
      Value last = e.cmp(arith::CmpIPredicate::sge, e.add(pc, kCur), K);
      e.loop(mStart, mEnd, e.idx(blk.mc), [&](Value ic) {
        Value mCur = e.min(e.sub(mEnd, ic), blk.mc);
        e.loop(nPanels, [&](Value jp) {
          Value n = e.add(n0, e.mul(jp, blk.nr));
          Value cols = e.min(e.sub(N, n), blk.nr);
          Value bOff =
              bpPrepacked
                  ? e.mul(e.add(e.mul(e.add(e.div(n0, blk.nr), jp), kGroups),
                                e.div(pc, kp)),
                          blk.nr * kp)
                  : e.mul(e.mul(jp, kcGroups), blk.nr * kp);
          e.loop(e.idx(0), mCur, e.idx(blk.mr), [&](Value ir) {
            Value m = e.add(ic, ir);
            Value rows = e.min(e.sub(M, m), blk.mr);
            Value aOff =
                e.mul(e.add(e.mul(e.div(m, blk.mr), kGroups), e.div(pc, kp)),
                      blk.mr * kp);
            Value full = arith::AndIOp::create(
                b, loc, e.cmp(arith::CmpIPredicate::eq, rows, e.idx(blk.mr)),
                e.cmp(arith::CmpIPredicate::eq, cols, e.idx(blk.nr)));
            auto callKernel = [&](Value tile) {
              func::CallOp::create(
                  b, loc, ukernel,
                  ValueRange{ap, aOff, bp, bOff, kCur, tile, accumulate});
            };
            if (epilogueFromLocal) {
              // One K slice and a product only the epilogue reads: every
              // tile is computed in the local tile (L1) and the epilogue
              // reads it there; C is never written (nor read, after a zero
              // fill: the other products of a split batch see no use of it).
              if (!plan.zeroFill)
                e.ifThen(accumulate, [&] {
                  copyTile(e, c, {m, n}, local, {e.idx(0), e.idx(0)}, rows,
                           cols);
                });
              callKernel(localTile);
              emitTileEpilogue(e, *plan.epilogue, local, {e.idx(0), e.idx(0)},
                               m, n, rows, cols, full, blk);
              return;
            }
            e.ifThen(
                full,
                [&] {
                  Value sub = memref::SubViewOp::create(
                      b, loc, c, ArrayRef<OpFoldResult>{m, n},
                      ArrayRef<OpFoldResult>{b.getIndexAttr(blk.mr),
                                             b.getIndexAttr(blk.nr)},
                      ArrayRef<OpFoldResult>{b.getIndexAttr(1),
                                             b.getIndexAttr(1)});
                  callKernel(memref::CastOp::create(b, loc, tileType, sub));
                },
                [&] {
                  // An edge tile: through the local tile.
                  e.ifThen(accumulate, [&] {
                    copyTile(e, c, {m, n}, local, {e.idx(0), e.idx(0)}, rows,
                             cols);
                  });
                  callKernel(localTile);
                  copyTile(e, local, {e.idx(0), e.idx(0)}, c, {m, n}, rows,
                           cols);
                });
            if (plan.epilogue)
              e.ifThen(last, [&] {
                emitTileEpilogue(e, *plan.epilogue, c, {m, n}, m, n, rows, cols,
                                 full, blk);
              });
          });
        });
      });
    });
    if (bBuf)
      memref::DeallocOp::create(b, loc, bBuf);
    memref::DeallocOp::create(b, loc, local);
  });
  // With K = 0 no K slice ran, so no tile got its epilogue: C holds what it
  // held (the kept fill), and the epilogue is applied to all of it.
  if (plan.epilogue && plan.staticK <= 0) {
    e.ifThen(e.cmp(arith::CmpIPredicate::eq, K, e.idx(0)), [&] {
      e.loop(e.idx(0), M, e.idx(blk.mr), [&](Value m) {
        Value rows = e.min(e.sub(M, m), blk.mr);
        e.loop(e.idx(0), N, e.idx(blk.nr), [&](Value n) {
          Value cols = e.min(e.sub(N, n), blk.nr);
          emitEpilogue(e, *plan.epilogue, c, {m, n}, m, n, rows, cols, blk);
        });
      });
    });
  }
  if (!plan.packedA)
    memref::DeallocOp::create(b, loc, ap);
  // The blocks of a transposed B: 16x16 transposes as AVX-512 unpacks and
  // lane shuffles (the vector lowering's element-wise default would move
  // them one element at a time, no better than the lane-by-lane gather).
  if (!packTransposes.empty()) {
    RewritePatternSet patterns(b.getContext());
    vector::populateVectorTransposeLoweringPatterns(
        patterns, vector::VectorTransposeLowering::Shuffle16x16);
    (void)applyOpPatternsGreedily(packTransposes, std::move(patterns));
  }
}

//===----------------------------------------------------------------------===//
// The core function and the pass
//===----------------------------------------------------------------------===//

/// Whether M*N*K is statically below `limit`.
static bool isSmallProduct(linalg::MatmulOp matmul, int64_t limit) {
  auto a = cast<ShapedType>(matmul.getInputs()[0].getType());
  auto b = cast<ShapedType>(matmul.getInputs()[1].getType());
  if (!a.hasStaticShape() || !b.hasStaticShape())
    return false;
  return a.getDimSize(0) * a.getDimSize(1) * b.getDimSize(1) < limit;
}

wrapper::GemmLoweringStatus
wrapper::lowerMatmulToGemmTemplate(linalg::MatmulOp matmul,
                                   const GemmLoweringOptions &options,
                                   std::string &message) {
  auto refuse = [&](const Twine &why) {
    message = why.str();
    return GemmLoweringStatus::Refused;
  };
  if (!isGemmTemplateCandidate(matmul))
    return refuse("operands are not f32, or f16/bf16 into f32 (or the "
                  "matmul's indexing maps broadcast an operand)");
  if (!matmul.hasPureBufferSemantics())
    return refuse("the matmul is on tensors (run bufferization first)");
  // A transposed operand is packed from a transposed view of it.
  IRRewriter rewriter(matmul.getContext());
  matmul = viewTransposedOperands(rewriter, matmul);
  Value c = matmul.getOutputs()[0];
  if (!hasUnitInnerStride(c.getType()))
    return refuse("C does not have a unit inner stride");
  auto func = matmul->getParentOfType<func::FuncOp>();
  auto module = matmul->getParentOfType<ModuleOp>();
  if (!func || !module)
    return refuse("the matmul is not in a func.func of a module");

  GemmPlan plan;
  plan.matmul = matmul;
  // The fill can go only when the first K slice surely stores: with a K
  // that may be 0 the K loop may not run at all, and C keeps it.
  int64_t depth =
      cast<ShapedType>(matmul.getInputs()[0].getType()).getDimSize(1);
  if (auto fill = depth > 0 ? dyn_cast_or_null<linalg::FillOp>(
                                  previousEffectfulOp(matmul))
                            : nullptr) {
    if (fill.hasPureBufferSemantics() && fill.getOutputs()[0] == c &&
        matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
      plan.zeroFill = fill;
  }
  std::string epilogueWhy = "epilogues=false";
  if (options.epilogues) {
    FailureOr<Epilogue> epilogue = matchEpilogue(matmul, epilogueWhy);
    if (succeeded(epilogue))
      plan.epilogue = *epilogue;
  }
  // The blocking recorded on the product (--wrapper-gemm-select-blocking),
  // else the one chosen now.
  Blocking local;
  if (std::optional<Blocking> recorded = getRecordedGemmBlocking(matmul)) {
    local = *recorded;
    std::string bad = checkGemmBlocking(local);
    if (!bad.empty()) {
      matmul.emitError() << "wrapper-gemm-template: recorded "
                            "wrapper.gemm_blocking: "
                         << bad;
      return GemmLoweringStatus::Failed;
    }
  } else {
    std::string problem;
    FailureOr<Blocking> chosen =
        selectGemmBlocking(matmul, options.request, problem);
    if (failed(chosen)) {
      matmul.emitError() << "wrapper-gemm-template: " << problem;
      return GemmLoweringStatus::Failed;
    }
    local = *chosen;
  }
  // A product inside a parallel loop (a batch split over the threads, a
  // tile of its consumer) runs on its loop's thread.
  bool parallel = options.parallel &&
                  !isSmallProduct(matmul, options.minParallelWork) &&
                  !matmul->getParentOfType<scf::ParallelOp>() &&
                  !matmul->getParentOfType<scf::ForallOp>();
  // How A and B are held: f32 panels (f16/bf16 extended while packed), or
  // bf16 pairs for vdpbf16ps where the target has AVX512-BF16 (full
  // 16-lane vectors, K slices of an even depth; products of a few rows read
  // B in place instead).
  // (Read before prepacking, which retypes A and B to their panels.)
  auto aType = cast<ShapedType>(matmul.getInputs()[0].getType());
  Type operand = aType.getElementType();
  plan.staticK = aType.getDimSize(1);
  bool fewRows = hasSmallM(matmul, options);
  plan.format = PanelFormat::extended(operand);
  if (operand.isBF16() && options.bf16Pairs && local.vl == 16 &&
      local.kc % 2 == 0 && !fewRows && targetHasFeature(module, "avx512bf16"))
    plan.format = PanelFormat::bf16Pairs(matmul.getContext());
  // A constant A (weights on the left, as convolutions give) is packed at
  // compile time too; the report names it only then. f16/bf16 products of
  // a few rows read B in place (half the bytes of f32 panels).
  std::string packWhy = "prepack=false", packWhyA;
  if (options.prepack) {
    packWhy.clear();
    plan.packedA = prepackConstantA(module, func, matmul.getInputs()[0],
                                    local.mr, plan.format, packWhyA);
    if (!operand.isF32() && fewRows)
      packWhy = "f16/bf16 rows read in place";
    else
      plan.packedB =
          prepackConstantB(module, func, matmul.getInputs()[1], local.nr,
                           plan.format, options.prepackArguments, packWhy);
  }
  bool smallM = fewRows && isSmallMProduct(plan);
  std::pair<int64_t, int64_t> smallMShape;
  if (smallM)
    smallMShape = emitSmallM(plan, local, parallel);
  else
    emitGemm(plan, getOrCreateMicroKernel(module, local, plan.format), local,
             parallel);

  llvm::raw_string_ostream os(message);
  if (smallM) {
    int64_t rows = aType.getDimSize(0);
    os << "small M (" << rows << (rows == 1 ? " row" : " rows") << ", "
       << smallMLimit(operand, options) << " or fewer): " << smallMShape.first
       << "-column blocks of " << smallMShape.first / local.vl << " x "
       << local.vl << " lanes";
    if (rows > smallMShape.second)
      os << " in groups of " << smallMShape.second << " rows";
    os << "; B "
       << (plan.packedB ? "prepacked at compile time" : "read in place")
       << "; epilogue ";
  } else {
    os << "micro-kernel " << local.mr << "x" << local.nr << " (" << local.vl
       << " lanes";
    if (plan.format.isPairs())
      os << ", bf16 pairs (vdpbf16ps)";
    else if (!operand.isF32())
      os << ", " << operand << " extended to f32";
    os << "), kc " << local.kc << ", mc " << local.mc << ", nc " << local.nc
       << "; B "
       << (plan.packedB
               ? (packWhy.empty() ? "prepacked at compile time" : packWhy)
               : "packed at run time (" + packWhy + ")")
       << (plan.packedA ? "; A prepacked at compile time" : "")
       << "; epilogue ";
  }
  if (plan.epilogue)
    os << "fused (" << plan.epilogue->op.getBody()->getOperations().size() - 1
       << " payload ops)";
  else
    os << "none (" << epilogueWhy << ")";
  if (plan.epilogue)
    plan.epilogue->op->erase();
  if (plan.zeroFill)
    plan.zeroFill->erase();
  matmul->erase();
  return GemmLoweringStatus::Lowered;
}

namespace {
struct WrapperGemmTemplatePass
    : public wrapper::impl::WrapperGemmTemplatePassBase<
          WrapperGemmTemplatePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    wrapper::GemmLoweringOptions options;
    options.request = {mr, nr, vectorWidth, kc, mc, nc};
    options.prepack = prepack;
    options.prepackArguments.assign(prepackArguments.begin(),
                                    prepackArguments.end());
    options.epilogues = epilogues;
    options.bf16Pairs = bf16Pairs;
    options.parallel = parallel;
    options.minParallelWork = minParallelWork;
    options.smallMRows = smallMRows;
    if (smallMRows < 0) {
      mlir::emitError(module.getLoc())
          << "wrapper-gemm-template: small-m-rows must not be negative, got "
          << options.smallMRows;
      return signalPassFailure();
    }
    // Inconsistent options are an error whether or not a product takes
    // them.
    std::string problem;
    if (failed(
            wrapper::selectGemmBlocking(nullptr, options.request, problem))) {
      mlir::emitError(module.getLoc()) << "wrapper-gemm-template: " << problem;
      return signalPassFailure();
    }
    if (failed(defineDeclaredMicroKernels(module)))
      return signalPassFailure();
    SmallVector<linalg::MatmulOp> matmuls;
    module.walk([&](linalg::MatmulOp op) { matmuls.push_back(op); });
    for (linalg::MatmulOp matmul : matmuls) {
      Location loc = matmul.getLoc();
      std::string message;
      switch (wrapper::lowerMatmulToGemmTemplate(matmul, options, message)) {
      case wrapper::GemmLoweringStatus::Lowered:
        if (report)
          mlir::emitRemark(loc) << "GEMM template: " << message;
        break;
      case wrapper::GemmLoweringStatus::Refused:
        if (report)
          matmul.emitRemark() << "GEMM template not used: " << message;
        break;
      case wrapper::GemmLoweringStatus::Failed:
        return signalPassFailure();
      }
    }
  }
};
} // namespace
