//===- Passes.h - CPU code generation passes --------------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_CODEGEN_CPU_PASSES_H
#define WRAPPER_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

#include <optional>
#include <string>

namespace mlir {
namespace wrapper {

#define GEN_PASS_DECL
#include "Wrapper/Codegen/CPU/Passes.h.inc"

/// The CPU code is generated for: what --wrapper-cpu-target records on the
/// module as the attribute `wrapper.cpu_target`.
struct CPUTarget {
  std::string cpu;
  std::string features;
  /// f32 lanes of a vector register (16 with AVX-512F, 8 with AVX2).
  int64_t vectorWidth = 4;
};
constexpr llvm::StringLiteral kCPUTargetAttrName = "wrapper.cpu_target";

/// The host CPU (its name, features and vector width): the one place the
/// code generator probes the machine it runs on.
CPUTarget getHostCPUTarget();

/// f32 lanes of the vector registers that `hasFeature` (an LLVM feature
/// name such as "avx512f" -> available) describes.
int64_t
vectorWidthForFeatures(llvm::function_ref<bool(llvm::StringRef)> hasFeature);

/// The target recorded on `module`, if any.
std::optional<CPUTarget> getCPUTarget(ModuleOp module);

/// Records `target` on `module`.
void setCPUTarget(ModuleOp module, const CPUTarget &target);

/// The f32 lanes code in `op`'s module is generated for: the module's
/// recorded target, else the host's.
int64_t getTargetVectorWidth(Operation *op);

/// Whether the CPU that code in `op`'s module is generated for has the LLVM
/// feature `name` (as in "avx512bf16"): the last +name or -name of the
/// module's recorded features, else the host's.
bool targetHasFeature(Operation *op, StringRef name);

/// The blocking of one product under the GEMM template: the register tile
/// (mr x nr, vl f32 lanes per vector) and the cache blocks (kc, mc, nc).
struct GemmBlocking {
  int64_t mr = 0, nr = 0, vl = 0, kc = 0, mc = 0, nc = 0;
};

/// What a user asks of the blocking; 0 leaves a choice to the selection
/// (vl: the module's recorded target, else the host).
struct GemmBlockingRequest {
  int64_t mr = 0, nr = 0, vectorWidth = 0, kc = 512, mc = 0, nc = 256;
};

/// The attribute that records a product's blocking
/// (`{mr, nr, vl, kc, mc, nc}`): written by --wrapper-gemm-select-blocking,
/// honoured by --wrapper-gemm-template.
constexpr llvm::StringLiteral kGemmBlockingAttrName = "wrapper.gemm_blocking";

/// The blocking the GEMM template uses for `matmul` under `request`: the
/// vector width from the request, the module's target or the host; the
/// register tile 12 x 2 vectors with AVX-512 and 6 x 2 vectors otherwise,
/// narrowed to M rows (and widened) when a static M is smaller; mc about
/// 144 rows. Fails with `error` set when the request is inconsistent.
FailureOr<GemmBlocking> selectGemmBlocking(Operation *matmul,
                                           const GemmBlockingRequest &request,
                                           std::string &error);

/// Why `blocking` cannot be used, or an empty string.
std::string checkGemmBlocking(const GemmBlocking &blocking);

/// The blocking recorded on `op` (kGemmBlockingAttrName), if any.
std::optional<GemmBlocking> getRecordedGemmBlocking(Operation *op);

/// Records `blocking` on `op`.
void setRecordedGemmBlocking(Operation *op, const GemmBlocking &blocking);

/// What lowerMatmulToGemmTemplate may do (the options of
/// --wrapper-gemm-template).
struct GemmLoweringOptions {
  GemmBlockingRequest request;
  /// Pack a constant B (a wrapper.constant) at compile time.
  bool prepack = true;
  /// Arguments of the wrapper.graph (by position) whose values a B may be
  /// taken packed from (weights the caller packs once).
  llvm::SmallVector<int64_t> prepackArguments;
  /// Fuse the elementwise consumer of C into the write-back.
  bool epilogues = true;
  /// bf16 products in bf16 pairs (vdpbf16ps) where the target has
  /// AVX512-BF16; else extended to f32 while packed.
  bool bf16Pairs = true;
  /// Make the column-block loop and the A packing parallel, for products
  /// with a static M*N*K of at least `minParallelWork` (or a dynamic one).
  bool parallel = true;
  int64_t minParallelWork = 262144;
  /// f32 products of at most this many static rows take the small-M path
  /// (f16/bf16 products at most 4 of them).
  int64_t smallMRows = 16;
};

/// What lowerMatmulToGemmTemplate did.
enum class GemmLoweringStatus {
  /// Replaced by the template; the message describes the blocking, the
  /// packing of B and the epilogue.
  Lowered,
  /// Left as it was; the message says why.
  Refused,
  /// An error (a recorded blocking the template cannot use), emitted on the
  /// matmul.
  Failed,
};

/// Lowers the f32 linalg.matmul on buffers `matmul` through the packed GEMM
/// template: the blocking recorded on it or selectGemmBlocking's, the
/// micro-kernel for it (created once per module), B prepacked when constant,
/// the preceding zero fill dropped and the elementwise consumer fused into
/// the write-back when allowed. The core of --wrapper-gemm-template, which
/// calls it for every matmul of a module.
GemmLoweringStatus lowerMatmulToGemmTemplate(linalg::MatmulOp matmul,
                                             const GemmLoweringOptions &options,
                                             std::string &message);

/// Whether the GEMM template (--wrapper-gemm-template) takes `op`: a
/// linalg.matmul whose operands all have f32 elements (or f16/bf16 into
/// f32), with the default indexing maps or ones that read A as (k, m) or B
/// as (n, k) (getMatmulTransposes), or such a linalg.batch_matmul or
/// batched-matmul linalg.generic (--wrapper-specialize-contractions splits
/// those into matmuls first).
bool isGemmTemplateCandidate(Operation *op);

/// Which operands of `matmul` its indexing maps read transposed: (A read as
/// (k, m), B read as (n, k)), both false for the default maps; nullopt for
/// any other maps (broadcasts).
std::optional<std::pair<bool, bool>>
getMatmulTransposes(linalg::MatmulOp matmul);

/// A matmul on buffers that reads an operand transposed through its
/// indexing maps becomes one with the default maps that reads a
/// memref.transpose view of that operand (strided, no copy), the form the
/// GEMM template packs from; its discardable attributes (a recorded
/// blocking) are kept. Returns the matmul that stands (`matmul` itself when
/// it has the default maps).
linalg::MatmulOp viewTransposedOperands(RewriterBase &rewriter,
                                        linalg::MatmulOp matmul);

/// A linalg.generic that is a product batched over leading dimensions:
/// (b..., m, k) x (b..., k, n) -> (b..., m, n) over loops (b..., m, n, k)
/// with a multiply-add payload, where one operand may lack the batch
/// dimensions (the same matrix for every batch element) and either may be
/// read transposed ((b..., k, m), (b..., n, k)).
struct BatchedMatmul {
  int64_t batch = 0; // batch loops
  bool aBatched = true, bBatched = true;
  bool aTransposed = false, bTransposed = false;
};
std::optional<BatchedMatmul> matchBatchedMatmul(Operation *op);

/// The number of batch loops of matchBatchedMatmul's product, or nullopt.
std::optional<int64_t> getBatchedMatmulDims(Operation *op);

/// The vector lanes `op` is vectorized with on a target of `f32Lanes` f32
/// lanes: two registers of its widest element type (bf16/f16 counting as
/// f32) per step, four when the innermost loop is a reduction (independent
/// accumulators against the combiner's latency); at least 2.
int64_t getVectorLanes(linalg::LinalgOp op, int64_t f32Lanes);

/// Why `op` cannot become vector loops of `lanes` lanes
/// (lowerLinalgOpToVectorLoops), or an empty string: it must be on buffers,
/// have no operand of sub-byte elements (memref<?xi1> holds a byte per
/// element, a vector of i1 in memory a bit), access its operands through
/// projected permutations (elementwise,
/// broadcasts, transposes, reductions), not be a contraction, compute its
/// payload with elementwise arith/math ops on ints, floats and indices, have
/// an innermost dimension not statically shorter than `lanes`, and write
/// that dimension contiguously (or not at all).
std::string checkVectorLoops(linalg::LinalgOp op, int64_t lanes);

/// For an all-parallel op that reads an input across its innermost loop (a
/// transpose: the input's own innermost dimension is another loop, and the
/// innermost loop indexes it elsewhere), that other loop; else nullopt.
/// lowerLinalgOpToVectorLoops lowers such ops in square tiles along the two
/// loops (on tensors or buffers).
std::optional<unsigned> getTransposedLoop(linalg::LinalgOp op);

/// Rows of a square tile of a transpose that tiling by rows should keep
/// whole (the widest tile of lowerLinalgOpToVectorLoops: 16 f32 lanes).
constexpr int64_t kTransposeTile = 16;

/// Lowers the linalg op on buffers `op` to scf.for loops, one per dimension,
/// the innermost stepping `lanes` elements at a time: full steps are vector
/// ops (upstream linalg vectorization of a static 1 x ... x 1 x lanes tile),
/// the remainder (peeled) a scalar loop. An accumulator that the vector
/// loop reads and writes at fixed indices (a reduction over the innermost
/// dimension, or over an outer one) is carried by the loop in registers,
/// as a whole vector combined lane by lane and reduced once after the loop
/// (float sums are reassociated, as every vectorizing compiler does).
/// Returns the loops, outermost first; fails, leaving `op` untouched, when
/// checkVectorLoops refuses it or tiling fails. A tile that can be lowered
/// neither to vectors nor to scalar loops stays a linalg op in the loops.
FailureOr<SmallVector<Operation *>>
lowerLinalgOpToVectorLoops(RewriterBase &rewriter, linalg::LinalgOp op,
                           int64_t lanes);

/// A window reduction on buffers (pooling, a depthwise convolution: inputs
/// read at `stride * output + window` indices, the output at parallel
/// indices only, static window extents) as scf.for loops over the window,
/// in the op's order, around one all-parallel linalg.generic on strided
/// subviews of the inputs, which is returned; fails, leaving `op` untouched,
/// for any other op (contractions, row reductions, payloads reading
/// linalg.index).
FailureOr<linalg::GenericOp> decomposeWindowReduction(RewriterBase &rewriter,
                                                      linalg::GenericOp op);

#define GEN_PASS_REGISTRATION
#include "Wrapper/Codegen/CPU/Passes.h.inc"

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_CODEGEN_CPU_PASSES_H
