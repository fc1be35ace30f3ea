//===- WrapperOps.h - wrapper dialect operations ----------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_WRAPPER_IR_WRAPPEROPS_H
#define WRAPPER_DIALECT_WRAPPER_IR_WRAPPEROPS_H

#include "Wrapper/Dialect/Wrapper/IR/WrapperDialect.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperTypes.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace wrapper {

/// What debug print/save ops write: the program's printed and saved output.
struct DebugOutputResource
    : public SideEffects::Resource::Base<DebugOutputResource> {
  StringRef getName() final { return "wrapper.debug_output"; }
};

/// What comments write: the annotations of the program text.
struct AnnotationResource
    : public SideEffects::Resource::Base<AnnotationResource> {
  StringRef getName() final { return "wrapper.annotation"; }
};

/// What collectives write: the order of the collectives of the program, which
/// every rank must issue alike.
struct CollectivesResource
    : public SideEffects::Resource::Base<CollectivesResource> {
  StringRef getName() final { return "wrapper.collectives"; }
};

/// The collectives of `wrapper.collective_start`; the values are the
/// runtime's `wrapper_collective` codes (WrapperShim.h).
enum class CollectiveKind : int32_t {
  AllReduce = 0,
  AllGatherIntoTensor = 1,
  ReduceScatterTensor = 2,
};

/// The collective named `name` (`all_reduce`, ...), if there is one.
std::optional<CollectiveKind> symbolizeCollectiveKind(StringRef name);

/// The runtime's `wrapper_reduce_op` code of a reduction name (`sum`, `avg`,
/// `product`, `min`, `max`), if there is one.
std::optional<int32_t> getReduceOpCode(StringRef name);

namespace detail {
LogicalResult verifyBufferTypes(Operation *op);
} // namespace detail

/// Verifies that every memref operand, result and region argument of the op
/// lives in a memory space the dialect understands.
template <typename ConcreteType>
class VerifyBufferTypes
    : public OpTrait::TraitBase<ConcreteType, VerifyBufferTypes> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return detail::verifyBufferTypes(op);
  }
};

/// Follows views (ViewLikeOpInterface) from `value` to the value that owns
/// the storage: an allocation, a constant or a graph argument.
Value getStorageRoot(Value value);

/// The number of the graph argument whose storage `value` views, if any.
std::optional<unsigned> getViewedGraphArgument(Value value);

/// Whether `value` is a buffer (or container) that this graph allocated and so
/// may free or reuse: the result of alloc, reuse, extern_alloc or
/// multi_output.
bool isAllocatedHere(Value value);

} // namespace wrapper
} // namespace mlir

#define GET_OP_CLASSES
#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h.inc"

#endif // WRAPPER_DIALECT_WRAPPER_IR_WRAPPEROPS_H
