//===- ExternABIOps.cpp - the ops of the extern C ABI ---------------------===//
//
// Part of the Wrapper project.
//
// Verifiers of the ops that --wrapper-lower-extern-abi produces:
// tensor_descriptor, result_descriptors, descriptor_buffer.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"

using namespace mlir;
using namespace mlir::wrapper;

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
