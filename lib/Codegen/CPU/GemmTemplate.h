//===- GemmTemplate.h - pieces of --wrapper-gemm-template -------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Shared by the files of the GEMM template: the blocking, a small IR
// emitter, the micro-kernel (GemmMicroKernel.cpp), the compile-time
// packing of constant weights (GemmPrepack.cpp), and the plan of one
// product with its epilogue, which the packed GEMM (GemmTemplate.cpp) and
// the small-M path (GemmSmallM.cpp) emit. Private to lib/Codegen/CPU.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_LIB_TRANSFORMS_GEMMTEMPLATE_H
#define WRAPPER_LIB_TRANSFORMS_GEMMTEMPLATE_H

#include "Wrapper/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir {
namespace wrapper {
namespace gemm {

/// Register tile, vector width and cache blocks, all in elements.
using Blocking = GemmBlocking;

/// Why the register tile (mr, nr, vl) of `blk` cannot be used, or an empty
/// string: vl a power of two up to 64, mr from 1 to 32, nr 1 to 8 vectors.
std::string checkRegisterTile(const Blocking &blk);

/// How a product's A and B are held in the template's panels. A panel of
/// `width` lanes (mr rows of A, nr columns of B) stores its k-th values at
/// ((k / kp) * width + lane) * kp + k % kp: kp = 1 is the f32 layout (one
/// k after the other), kp = 2 keeps pairs of consecutive k together in each
/// lane, the layout AVX512-BF16's vdpbf16ps multiplies (a K that is odd is
/// padded with a zero). The accumulators and C are always f32.
struct PanelFormat {
  Type operand; // element type of A and B in memory: f32, bf16 or f16
  Type panel;   // element type of the panels: f32, or bf16 when kp = 2
  int64_t kp = 1;

  /// f32 panels, f16/bf16 operands extended while packed.
  static PanelFormat extended(Type operand) {
    return {operand, Float32Type::get(operand.getContext()), 1};
  }
  /// bf16 pairs for vdpbf16ps.
  static PanelFormat bf16Pairs(MLIRContext *context) {
    Type bf16 = BFloat16Type::get(context);
    return {bf16, bf16, 2};
  }
  bool isPairs() const { return kp == 2; }
};

/// For the indexing maps of a 2-D product over loops (m, n, k), A read as
/// (m, k) or (k, m), B as (k, n) or (n, k), C as (m, n): which of A and B
/// are read transposed; nullopt for other maps (GemmCandidates.cpp).
std::optional<std::pair<bool, bool>>
getProductTransposes(ArrayRef<AffineMap> maps);

/// A memref.transpose view of `source` with its last two dimensions
/// swapped (no copy).
Value transposeLastTwo(OpBuilder &b, Location loc, Value source);

/// The op before `op` in its block that may touch memory (skipping pure
/// ops), or null (GemmCandidates.cpp).
Operation *previousEffectfulOp(Operation *op);

/// The op after `op` in its block that may touch memory (skipping pure ops
/// and allocations of fresh buffers, such as an epilogue's output), or
/// null.
Operation *nextEffectfulOp(Operation *op);

/// Builds index arithmetic and structured loops at one builder position.
class Emitter {
public:
  Emitter(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return y == 0 ? x : add(x, idx(y)); }
  Value mul(Value x, int64_t y) { return y == 1 ? x : mul(x, idx(y)); }
  Value div(Value x, int64_t y) {
    return y == 1 ? x : arith::DivUIOp::create(b, loc, x, idx(y)).getResult();
  }
  Value ceilDiv(Value x, int64_t y) { return div(add(x, y - 1), y); }
  /// x / y rounded up, for x >= 0 and y >= 1.
  Value ceilDiv(Value x, Value y) {
    return arith::DivUIOp::create(b, loc, add(x, sub(y, idx(1))), y);
  }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value min(Value x, int64_t y) { return min(x, idx(y)); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value dim(Value memref, int64_t d) {
    return memref::DimOp::create(b, loc, memref, d);
  }

  /// scf.for from lb to ub by step; `body` gets the induction variable.
  void loop(Value lb, Value ub, Value step,
            llvm::function_ref<void(Value)> body) {
    auto op = scf::ForOp::create(b, loc, lb, ub, step);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(op.getBody()->getTerminator());
    body(op.getInductionVar());
  }
  void loop(Value ub, llvm::function_ref<void(Value)> body) {
    loop(idx(0), ub, idx(1), body);
  }
  /// The same as an scf.parallel when `parallel`.
  void parallelLoop(bool parallel, Value ub,
                    llvm::function_ref<void(Value)> body) {
    if (!parallel)
      return loop(ub, body);
    auto op = scf::ParallelOp::create(b, loc, ValueRange{idx(0)},
                                      ValueRange{ub}, ValueRange{idx(1)});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(op.getBody()->getTerminator());
    body(op.getInductionVars()[0]);
  }
  void ifThen(Value cond, llvm::function_ref<void()> thenBody,
              llvm::function_ref<void()> elseBody = nullptr) {
    auto op = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/!!elseBody);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(op.thenBlock()->getTerminator());
    thenBody();
    if (elseBody) {
      b.setInsertionPoint(op.elseBlock()->getTerminator());
      elseBody();
    }
  }

  OpBuilder &b;
  Location loc;
};

/// The micro-kernel of `blk`'s register tile for panels of `format`,
/// created in `module` (with its body) unless it is there already:
///   @__wrapper_gemm_ukernel_f32_<mr>x<nr>_v<vl>(Ap, aOff, Bp, bOff, kc,
///                                               C tile, accumulate)
/// computes C[mr x nr] (+)= Ap[kc x mr]^T * Bp[kc x nr], where Ap's k-th
/// column of mr values starts at aOff + k * mr and Bp's k-th row of nr
/// values at bOff + k * nr. For bf16 pairs the kernel is
/// @__wrapper_gemm_ukernel_bf16x2_<mr>x<nr>_v<vl> on bf16 panels, whose
/// k-th pair of columns starts at aOff + (k / 2) * mr * 2 (and likewise
/// for B), one vdpbf16ps per pair of k, vector and row.
func::FuncOp getOrCreateMicroKernel(ModuleOp module, const Blocking &blk,
                                    const PanelFormat &format);

/// `omp_get_max_threads` (the OpenMP runtime that runs the parallel loops),
/// declared in `module` if it is not yet.
func::FuncOp getOrDeclareMaxThreads(ModuleOp module);

/// Gives declared micro-kernels (a `func.func private` of that name without
/// a body, as a test or a tuning harness writes them) their body; an error
/// for a name or type that is not a micro-kernel's.
LogicalResult defineDeclaredMicroKernels(ModuleOp module);

/// If `b` is an argument of the kernel function `func` that its only
/// wrapper.call passes from a wrapper.constant with a value, packs that
/// constant into [ceil(N/nr)][K][nr] panels (shared with other kernels that
/// packed it the same way), passes the packed constant instead and returns
/// the retyped argument. If the call passes an argument of the wrapper.graph
/// whose position is in `graphArguments` (weights the caller packs), read by
/// nothing else, that argument becomes [ceil(N/nr)][K][nr] with
/// `wrapper.packed_b = nr`, and `why` says so. Null with the reason in `why`
/// otherwise.
/// Values of f16/bf16 are packed in `format` ([ceil(N/nr)][ceil(K/kp)][nr *
/// kp] of its panel type); graph arguments only when they are f32.
Value prepackConstantB(ModuleOp module, func::FuncOp func, Value b, int64_t nr,
                       const PanelFormat &format,
                       ArrayRef<int64_t> graphArguments, std::string &why);
/// The same for A: [ceil(M/mr)][K][mr] panels (zero rows past M), the layout
/// the template packs A into at run time.
Value prepackConstantA(ModuleOp module, func::FuncOp func, Value a, int64_t mr,
                       const PanelFormat &format, std::string &why);

//===----------------------------------------------------------------------===//
// The product being lowered (GemmTemplate.cpp), shared with the small-M
// path (GemmSmallM.cpp)
//===----------------------------------------------------------------------===//

/// How an epilogue input is read at (m, n).
enum class InputAccess { Product, Vector, Scalar };

/// The elementwise consumer of the product fused into the write-back.
struct Epilogue {
  linalg::GenericOp op;
  SmallVector<InputAccess> access; // one per input of `op`
  bool readsOutput = false;
};

struct GemmPlan {
  linalg::MatmulOp matmul;
  PanelFormat format;               // how A and B are held in panels
  linalg::FillOp zeroFill;          // dropped when set
  std::optional<Epilogue> epilogue; // fused when set
  Value packedA;                    // [M/mr][K/kp][mr*kp] when A was prepacked
  Value packedB;                    // [N/nr][K/kp][nr*kp] when B was prepacked
  int64_t staticK = ShapedType::kDynamic; // K before any prepacking
};

/// Whether `type` is a memref whose innermost stride is 1.
bool hasUnitInnerStride(Type type);

/// The epilogue of `matmul` (GemmEpilogue.cpp): the next op that may touch
/// memory, when it is a 2-d elementwise linalg.generic on buffers that
/// reads the product at the same element and may take its place; or a
/// reason why not in `why`.
FailureOr<Epilogue> matchEpilogue(linalg::MatmulOp matmul, std::string &why);

/// Applies the epilogue to the region [m, m + rows) x [n, n + cols) of the
/// finished product, vl columns at a time: under a mask, or, when `cols`
/// is a constant multiple of vl, with plain loads and stores unrolled over
/// the columns. The product's values are read from `product` at
/// `productAt` + (r, j) (the region's own origin in C, or (0, 0) in a local
/// tile).
void emitEpilogue(Emitter &e, const Epilogue &epilogue, Value product,
                  ValueRange productAt, Value m, Value n, Value rows,
                  Value cols, const Blocking &blk);

/// emitEpilogue on a tile of the product: a whole mr x nr tile (`full`)
/// with constant bounds and no masks, an edge tile under masks.
void emitTileEpilogue(Emitter &e, const Epilogue &epilogue, Value product,
                      ValueRange productAt, Value m, Value n, Value rows,
                      Value cols, Value full, const Blocking &blk);

/// Where a plan's code goes: at the epilogue when there is one, else at
/// the matmul.
Operation *getEmissionPoint(const GemmPlan &plan);

/// Compile-time panels ([P][K/kp][r*kp]) as the flat buffer the loops
/// index.
Value flattenPanels(OpBuilder &b, Location loc, Value panels);

/// `v` (a scalar or a vector of the operands' type) in the panels' type.
Value toPanelType(OpBuilder &b, Location loc, Value v,
                  const PanelFormat &format);

/// The most rows (static M) of a product that takes the small-M path
/// (GemmSmallM.cpp): GemmLoweringOptions::smallMRows for f32 operands, at
/// most 4 for f16/bf16.
int64_t smallMLimit(Type operand, const GemmLoweringOptions &options);

/// Whether the product has a static M of 1..smallMLimit.
bool hasSmallM(linalg::MatmulOp matmul, const GemmLoweringOptions &options);

/// Whether `plan`, of a product with a static M of 1..smallMLimit
/// (hasSmallM, asked before prepacking), takes the small-M path: A not
/// prepacked, f32 panels, and B prepacked or read with a unit inner stride.
bool isSmallMProduct(const GemmPlan &plan);

/// Emits the small-M product of `plan` (its column blocks in parallel when
/// `parallel`); returns (columns per block, rows per group).
std::pair<int64_t, int64_t> emitSmallM(const GemmPlan &plan,
                                       const Blocking &blk, bool parallel);

} // namespace gemm
} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_LIB_TRANSFORMS_GEMMTEMPLATE_H
