//===- ExternOps.cpp - extern calls and their C ABI ops -------------------===//
//
// Part of the Wrapper project.
//
// Verifiers and effects of the extern kernel ops (extern_out, extern_alloc,
// multi_output), checked against the registry's schemas, and of the ops
// that --wrapper-lower-extern-abi produces (tensor_descriptor,
// result_descriptors, descriptor_buffer).
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"

#include "Wrapper/Extern/Registry.h"

using namespace mlir;
using namespace mlir::wrapper;

//===----------------------------------------------------------------------===//
// Extern calls
//===----------------------------------------------------------------------===//

static LogicalResult verifyCallee(Operation *op, StringRef callee) {
  if (callee.empty())
    return op->emitOpError() << "callee name must not be empty";
  if (llvm::any_of(callee, [](char c) { return isspace(c); }))
    return op->emitOpError()
           << "callee name '" << callee << "' must not contain whitespace";
  return success();
}

LogicalResult ExternOutOp::verify() {
  if (failed(verifyCallee(*this, getCallee())))
    return failure();
  if (getOutputs().empty())
    return emitOpError() << "needs at least one output buffer";
  for (auto [index, output] : llvm::enumerate(getOutputs())) {
    for (unsigned prev = 0; prev < index; ++prev)
      if (getOutputs()[prev] == output)
        return emitOpError() << "output #" << index
                             << " is the same buffer as output #" << prev;
    std::optional<unsigned> arg = getViewedGraphArgument(output);
    if (!arg)
      continue;
    auto graph = (*this)->getParentOfType<GraphOp>();
    if (graph && !graph.isArgumentMutated(*arg))
      return emitOpError() << "output #" << index << " writes argument #"
                           << *arg
                           << " of the graph, which its signature does not "
                              "mark '"
                           << WrapperDialect::getMutatedAttrName() << "'";
  }
  for (auto [index, output] : llvm::enumerate(getOutputs()))
    if (isa_and_nonnull<GetConstantOp>(getStorageRoot(output).getDefiningOp()))
      return emitOpError() << "output #" << index << " writes a constant";
  // A registered kernel: the call must fit its schema. The in-place form
  // passes `self` as its (only) output.
  ExternVariant variant;
  if (const ExternKernel *kernel =
          ExternRegistry::get().lookup(getCallee(), &variant)) {
    SmallVector<Type> inputs;
    if (variant == ExternVariant::InPlace)
      inputs.push_back(getOutputs().front().getType());
    llvm::append_range(inputs, getInputs().getTypes());
    SmallVector<Type> outputs(getOutputs().getTypes());
    SmallVector<ExternResultKind> kinds(outputs.size(),
                                        ExternResultKind::Buffer);
    return verifyExternCall(*this, getCallee(), *kernel, inputs, getArgsAttr(),
                            outputs, kinds);
  }
  return success();
}

void ExternOutOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &operand : getInputsMutable())
    if (isa<MemRefType>(operand.get().getType()))
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  for (OpOperand &operand : getOutputsMutable())
    effects.emplace_back(MemoryEffects::Write::get(), &operand,
                         SideEffects::DefaultResource::get());
}

LogicalResult ExternAllocOp::verify() {
  if (failed(verifyCallee(*this, getCallee())))
    return failure();
  if (getResults().empty())
    return emitOpError() << "needs at least one result";
  if (const ExternKernel *kernel = ExternRegistry::get().lookup(getCallee())) {
    // Several results may come as one tuple (one per element); a list is
    // one result (a `Tensor[]` return).
    SmallVector<Type> results(getResults().getTypes());
    if (auto tuple = dyn_cast<wrapper::TupleType>(getResult(0).getType());
        tuple && results.size() == 1)
      results.assign(tuple.getElements().begin(), tuple.getElements().end());
    SmallVector<ExternResultKind> kinds;
    for (Type type : results) {
      auto list = dyn_cast<wrapper::ListType>(type);
      if (isa<MemRefType>(type))
        kinds.push_back(ExternResultKind::Buffer);
      else if (list && llvm::all_of(list.getElements(),
                                    [](Type t) { return isa<MemRefType>(t); }))
        kinds.push_back(ExternResultKind::BufferList);
      else
        kinds.push_back(ExternResultKind::Other);
    }
    return verifyExternCall(*this, getCallee(), *kernel, getInputs().getTypes(),
                            getArgsAttr(), results, kinds);
  }
  return success();
}

void ExternAllocOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  for (Value result : getResults())
    setNameFn(result, "buf");
}

void ExternAllocOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &operand : getInputsMutable())
    if (isa<MemRefType>(operand.get().getType()))
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  for (OpResult result : getOperation()->getResults())
    effects.emplace_back(MemoryEffects::Allocate::get(), result,
                         SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// MultiOutputOp
//===----------------------------------------------------------------------===//

void MultiOutputOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "buf");
}

LogicalResult MultiOutputOp::verify() {
  ArrayRef<int64_t> path = getIndices();
  if (path.empty())
    return emitOpError() << "index path must not be empty";
  Type current = getSource().getType();
  for (auto [position, index] : llvm::enumerate(path)) {
    ArrayRef<Type> elements;
    if (auto tuple = dyn_cast<wrapper::TupleType>(current))
      elements = tuple.getElements();
    else if (auto list = dyn_cast<ListType>(current))
      elements = list.getElements();
    else
      return emitOpError() << "position " << position
                           << " of the index path indexes into " << current
                           << ", which is not a tuple or list";
    if (index < 0 || index >= static_cast<int64_t>(elements.size()))
      return emitOpError() << "index " << index << " at position " << position
                           << " of the index path is out of range for "
                           << current << " with " << elements.size()
                           << " elements";
    current = elements[index];
  }
  if (current != getType())
    return emitOpError() << "result type " << getType()
                         << " does not match the element type " << current
                         << " at the index path";
  for (Operation *user : getSource().getUsers()) {
    auto other = dyn_cast<MultiOutputOp>(user);
    if (!other || other == *this || other.getIndices() != path)
      continue;
    if (other->getBlock() == (*this)->getBlock() &&
        other->isBeforeInBlock(*this)) {
      InFlightDiagnostic diag =
          emitOpError() << "extracts an element that was already extracted";
      diag.attachNote(other.getLoc()) << "first extracted here";
      return diag;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The extern C ABI
//===----------------------------------------------------------------------===//

/// Checks that `type` can be described by a `wrapper_tensor`: a strided
/// layout and an element type with a runtime dtype.
static LogicalResult verifyDescribable(Operation *op, MemRefType type,
                                       StringRef what) {
  if (!getRuntimeDType(type.getElementType()))
    return op->emitOpError()
           << what << " has element type " << type.getElementType()
           << ", which the C ABI has no dtype for";
  if (!type.isStrided())
    return op->emitOpError() << what << " has a non-strided layout";
  return success();
}

LogicalResult TensorDescriptorOp::verify() {
  return verifyDescribable(*this, getBuffer().getType(), "the buffer");
}

void TensorDescriptorOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "desc");
}

LogicalResult ResultDescriptorsOp::verify() {
  if (getTypes().empty())
    return emitOpError() << "needs at least one result type";
  for (auto [index, attr] : llvm::enumerate(getTypes())) {
    auto type = dyn_cast<MemRefType>(cast<TypeAttr>(attr).getValue());
    if (!type)
      return emitOpError() << "type #" << index << " is not a memref";
    if (!type.getLayout().isIdentity())
      return emitOpError() << "type #" << index
                           << " must have the identity layout (results are "
                              "contiguous)";
    if (failed(
            verifyDescribable(*this, type, "type #" + std::to_string(index))))
      return failure();
  }
  return success();
}

void ResultDescriptorsOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "results");
}

LogicalResult DescriptorBufferOp::verify() {
  auto source = getDescriptors().getDefiningOp<ResultDescriptorsOp>();
  if (!source)
    return emitOpError() << "reads descriptors that are not from "
                            "'wrapper.result_descriptors'";
  ArrayAttr types = source.getTypes();
  if (getIndex() >= types.size())
    return emitOpError() << "index " << getIndex() << " is out of range for "
                         << types.size() << " descriptors";
  Type expected = cast<TypeAttr>(types[getIndex()]).getValue();
  if (expected != getType())
    return emitOpError() << "has type " << getType() << ", but descriptor #"
                         << getIndex() << " describes " << expected;
  return success();
}

void DescriptorBufferOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "buf");
}
