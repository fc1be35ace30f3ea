//===- TensorProgramOps.h - tensor_program operations -----------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMOPS_H
#define WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMOPS_H

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramEnums.h.inc"

namespace mlir {
namespace tensor_program {

/// What copy_back writes: the graph inputs, after the program has run.
struct InputMutationResource
    : public SideEffects::Resource::Base<InputMutationResource> {
  StringRef getName() final { return "tensor_program.input_mutation"; }
};

namespace OpTrait {
/// Elementwise ops (with broadcasting): one output element per position.
template <typename ConcreteType>
class ElementwiseOp
    : public ::mlir::OpTrait::TraitBase<ConcreteType, ElementwiseOp> {};
/// Reductions over dimensions.
template <typename ConcreteType>
class ReductionOp
    : public ::mlir::OpTrait::TraitBase<ConcreteType, ReductionOp> {};
/// Ops that only move or replicate elements (views, broadcast, pad, concat).
template <typename ConcreteType>
class LayoutOp : public ::mlir::OpTrait::TraitBase<ConcreteType, LayoutOp> {};
/// Matrix products.
template <typename ConcreteType>
class ContractionOp
    : public ::mlir::OpTrait::TraitBase<ConcreteType, ContractionOp> {};
/// Ops that --tensor-program-decompose expands into primitives.
template <typename ConcreteType>
class CompositeOp
    : public ::mlir::OpTrait::TraitBase<ConcreteType, CompositeOp> {};
} // namespace OpTrait

} // namespace tensor_program
} // namespace mlir

#define GET_OP_CLASSES
#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h.inc"

namespace mlir {
namespace tensor_program {
/// Op categories, by trait.
inline bool isElementwise(Operation *op) {
  return op->hasTrait<OpTrait::ElementwiseOp>();
}
inline bool isReduction(Operation *op) {
  return op->hasTrait<OpTrait::ReductionOp>();
}
inline bool isLayout(Operation *op) {
  return op->hasTrait<OpTrait::LayoutOp>();
}
inline bool isContraction(Operation *op) {
  return op->hasTrait<OpTrait::ContractionOp>();
}
inline bool isComposite(Operation *op) {
  return op->hasTrait<OpTrait::CompositeOp>();
}

/// Size arithmetic that programs compute shapes with and that kernels and
/// host graphs may both recompute: index constants, tensor.dim, and the
/// binary arith ops on index (add, sub, mul, divisions, remainders, min,
/// max).
bool isSizeComputation(Operation *op);

/// The reshape of a fused region whose only computing op reshapes one of
/// its inputs into its one result, or null. The host graph makes such a
/// region a view of the input's buffer (when contiguous), not a kernel.
ReshapeOp getLoneReshape(FusedOp fused);

/// Whether the result of `op` may share the storage of its tensor input
/// once lowered: a reshape, alone or as a fused region's lone reshape.
bool mayViewInput(Operation *op);

/// The ops that read the storage of `value` (a function argument, in
/// whose block they are): its users, and those of results that may view
/// it (mayViewInput), transitively; size computations (tensor.dim) do not
/// read. The view ops themselves are included.
void collectStorageReaders(Value value, SmallVectorImpl<Operation *> &readers);

/// Whether `permutation` swaps the last two dimensions and keeps the others
/// in place ([1, 0], [0, 2, 1], ...): a transpose a product reads in place.
inline bool swapsLastTwoDims(ArrayRef<int64_t> permutation) {
  int64_t rank = permutation.size();
  return rank >= 2 && permutation[rank - 2] == rank - 1 &&
         permutation[rank - 1] == rank - 2 &&
         llvm::equal(permutation.drop_back(2), llvm::seq<int64_t>(0, rank - 2));
}
} // namespace tensor_program
} // namespace mlir

#endif // WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMOPS_H
