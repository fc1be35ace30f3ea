//===- FusionStrategy.h - swappable fusion strategies -----------*- C++ -*-===//
//
// Part of the Wrapper project.
//
// --tensor-program-fuse{strategy=NAME} asks a fusion strategy which ops of a
// block to group into kernels (tensor_program.fused ops). A strategy only
// proposes groups; shared code checks the proposal (every op fusible, no op
// in two groups unless the strategy asked to recompute it, the group kinds'
// rules, no cycle between the fused ops) and builds the fused ops. A
// strategy is registered by name, in this repository or by a downstream
// project (registerFusionStrategy before the pass runs).
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_TENSORPROGRAM_TRANSFORMS_FUSIONSTRATEGY_H
#define WRAPPER_DIALECT_TENSORPROGRAM_TRANSFORMS_FUSIONSTRATEGY_H

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/IR/Block.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace mlir {
namespace tensor_program {

/// The options of --tensor-program-fuse that every strategy sees (each may
/// ignore those that mean nothing to it).
struct FusionOptions {
  bool fuseElementwise = true;
  bool fuseReductions = true;
  bool fuseMatmulEpilogues = true;
  /// A transpose of a product's operand joins the product's group (read in
  /// place by the product; FusionGraph::getTransposedOperandUser).
  bool fuseOperandTransposes = true;
  unsigned maxGroupSize = 64;
};

/// What a strategy proposes: groups of ops of one block, each to become one
/// kernel. Ops of no group become kernels of their own. An op may be in
/// several groups only if it is in `recompute` (an elementwise or layout op
/// computed again in each group that holds it: a cheap producer fused into
/// each of its consumers' kernels).
struct FusionPlan {
  SmallVector<SmallVector<Operation *>> groups;
  llvm::SmallPtrSet<Operation *, 8> recompute;
};

/// The kind of work an op does, for strategies and the legality rules.
enum class FusionOpClass {
  /// Elementwise, layout (reshape, permute, slice, ...) and generator ops
  /// (full, iota, uniform, from_index).
  Pointwise,
  Reduction,
  Contraction,
  /// Not fusible: externs, copy-backs, composites, ops of other dialects.
  Unfusible,
};

/// The block a strategy groups, with what strategies commonly need: the
/// fusible ops in program order, their classes, positions, producers and
/// users, and the legality questions the shared checker asks.
class FusionGraph {
public:
  explicit FusionGraph(Block &block);

  Block &getBlock() const { return block; }
  /// The fusible ops, in program order.
  ArrayRef<Operation *> getOps() const { return ops; }
  FusionOpClass classify(Operation *op) const;
  bool isFusible(Operation *op) const {
    return classify(op) != FusionOpClass::Unfusible;
  }
  /// Cheap producers that the fused ops clone instead of taking as inputs
  /// (splat and rank-0 constants, tensor.dim): never grouped.
  static bool isClonable(Operation *op);
  /// The op's index in the block.
  unsigned getPosition(Operation *op) const { return position.lookup(op); }
  /// The fusible ops whose results `op` reads.
  SmallVector<Operation *> getProducers(Operation *op) const;
  /// The reduction space of a reduction (its input shape and the dims it
  /// reduces): reductions share a kernel only over the same space.
  static std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
  getReductionSpace(Operation *op);
  /// The matrix product that reads `op` as an operand, when `op` is a
  /// permute that swaps the last two dimensions (and keeps the others)
  /// whose only user is a matmul or batch_matmul (of f32, f16 or bf16): in
  /// the product's kernel the transpose costs nothing, since the product
  /// reads its input in place through transposed indexing maps.
  /// Null otherwise. Such a permute may sit in its product's group in front
  /// of it, the one member of a product's group that does not consume the
  /// product.
  static Operation *getTransposedOperandUser(Operation *op);
  /// Bytes of a value's tensor, or nullopt when a dimension is dynamic.
  static std::optional<int64_t> getStaticBytes(Value value);

private:
  Block &block;
  SmallVector<Operation *> ops;
  llvm::DenseMap<Operation *, unsigned> position;
};

/// A fusion strategy: proposes groups over a block's op graph.
class FusionStrategy {
public:
  virtual ~FusionStrategy();
  /// Fills `plan`; a failure (with a diagnostic emitted) fails the pass.
  virtual LogicalResult propose(const FusionGraph &graph,
                                const FusionOptions &options,
                                FusionPlan &plan) = 0;
};

using FusionStrategyFactory = std::function<std::unique_ptr<FusionStrategy>()>;

/// Registers a strategy under `name` (a later registration of the same name
/// replaces it) with a one-line description for --help and errors.
void registerFusionStrategy(StringRef name, StringRef description,
                            FusionStrategyFactory factory);
/// The strategy registered as `name`, or null.
std::unique_ptr<FusionStrategy> createFusionStrategy(StringRef name);
/// Every registered name, sorted, with its description.
SmallVector<std::pair<std::string, std::string>> getFusionStrategies();
/// Registers the strategies of this repository (none, greedy, cost,
/// horizontal); idempotent.
void registerBuiltinFusionStrategies();

/// Checks `plan` over `graph`: every grouped op fusible and in the block,
/// in at most one group unless in `plan.recompute` (then elementwise or
/// layout), each group of a kind the lowering takes (at most one matrix
/// product, with elementwise consumers only; reductions over one space; no
/// product with a reduction), and no cycle between the fused ops. Returns
/// the first problem, naming the ops, or nullopt.
std::optional<std::string> checkFusionPlan(const FusionGraph &graph,
                                           const FusionPlan &plan);

/// What applying a plan formed.
struct FusionResult {
  unsigned kernels = 0;
  unsigned fusedOps = 0;
  unsigned recomputedOps = 0;
};

/// Builds the fused ops of a checked plan (every fusible op of no group in a
/// group of its own), sorts the block topologically.
FusionResult applyFusionPlan(FusionGraph &graph, FusionPlan plan);

} // namespace tensor_program
} // namespace mlir

#endif // WRAPPER_DIALECT_TENSORPROGRAM_TRANSFORMS_FUSIONSTRATEGY_H
