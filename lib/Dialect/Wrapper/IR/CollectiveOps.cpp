//===- CollectiveOps.cpp - collectives on process groups ------------------===//
//
// Part of the Wrapper project.
//
// Verifiers and effects of wrapper.collective_start and
// wrapper.collective_wait: the shapes of PyTorch's _c10d_functional
// collectives, and the rule that every started collective is waited for
// once, later in the same block.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"

#include "Wrapper/Dialect/Wrapper/IR/WrapperTypes.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::wrapper;

std::optional<CollectiveKind>
mlir::wrapper::symbolizeCollectiveKind(StringRef name) {
  return llvm::StringSwitch<std::optional<CollectiveKind>>(name)
      .Case("all_reduce", CollectiveKind::AllReduce)
      .Case("all_gather_into_tensor", CollectiveKind::AllGatherIntoTensor)
      .Case("reduce_scatter_tensor", CollectiveKind::ReduceScatterTensor)
      .Default(std::nullopt);
}

std::optional<int32_t> mlir::wrapper::getReduceOpCode(StringRef name) {
  return llvm::StringSwitch<std::optional<int32_t>>(name)
      .Case("sum", 0)
      .Case("avg", 1)
      .Case("product", 2)
      .Case("min", 3)
      .Case("max", 4)
      .Default(std::nullopt);
}

//===----------------------------------------------------------------------===//
// CollectiveStartOp
//===----------------------------------------------------------------------===//

void CollectiveStartOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getWork(), "work");
}

CollectiveWaitOp CollectiveStartOp::getWait() {
  Value work = getWork();
  if (!work.hasOneUse())
    return {};
  return dyn_cast<CollectiveWaitOp>(*work.getUsers().begin());
}

/// Checks that `output` is `input` with dim 0 scaled by `factor` (gather) or
/// divided by it (scatter), where the sizes are static.
static LogicalResult verifyPair(CollectiveStartOp op, unsigned index,
                                MemRefType input, MemRefType output,
                                int64_t groupSize, bool gather) {
  if (input.getElementType() != output.getElementType())
    return op.emitOpError() << "input #" << index << " has element type "
                            << input.getElementType() << " but output #"
                            << index << " has " << output.getElementType();
  if (input.getRank() == 0 || input.getRank() != output.getRank())
    return op.emitOpError() << "input #" << index << " and output #" << index
                            << " must have the same rank of at least 1, got "
                            << input << " and " << output;
  for (int64_t d = 1; d < input.getRank(); ++d)
    if (!ShapedType::isDynamic(input.getDimSize(d)) &&
        !ShapedType::isDynamic(output.getDimSize(d)) &&
        input.getDimSize(d) != output.getDimSize(d))
      return op.emitOpError() << "input #" << index << " and output #" << index
                              << " differ in dim " << d << " (" << input
                              << " and " << output << ")";
  int64_t in = input.getDimSize(0), out = output.getDimSize(0);
  if (ShapedType::isDynamic(in) || ShapedType::isDynamic(out))
    return success();
  int64_t expected = gather ? in * groupSize : in / groupSize;
  if (!gather && in % groupSize != 0)
    return op.emitOpError()
           << "input #" << index << " has dim 0 of " << in << ", which "
           << groupSize << " ranks cannot split evenly";
  if (out != expected)
    return op.emitOpError()
           << "output #" << index << " must have dim 0 of " << expected
           << " (input dim 0 " << in << (gather ? " times " : " over ")
           << groupSize << " ranks), got " << out;
  return success();
}

LogicalResult CollectiveStartOp::verify() {
  std::optional<CollectiveKind> kind = symbolizeCollectiveKind(getCollective());
  if (!kind)
    return emitOpError() << "unknown collective '" << getCollective()
                         << "'; expected 'all_reduce', "
                            "'all_gather_into_tensor' or "
                            "'reduce_scatter_tensor'";
  if (getGroup().empty())
    return emitOpError() << "needs a process group name";
  if (getOutputs().empty())
    return emitOpError() << "needs at least one output buffer";
  bool reduces = *kind != CollectiveKind::AllGatherIntoTensor;
  std::optional<StringRef> reduceOp = getReduceOp();
  if (reduces && !reduceOp)
    return emitOpError() << "'" << getCollective()
                         << "' needs a reduction ('reduce')";
  if (!reduces && reduceOp)
    return emitOpError() << "'" << getCollective()
                         << "' takes no reduction, got '" << *reduceOp << "'";
  if (reduceOp && !getReduceOpCode(*reduceOp))
    return emitOpError() << "unknown reduction '" << *reduceOp
                         << "'; expected sum, avg, product, min or max";

  // Every buffer on one device, none twice.
  DeviceAttr device;
  llvm::SmallPtrSet<Value, 8> seen;
  for (Value buffer : getOperands()) {
    auto type = cast<MemRefType>(buffer.getType());
    DeviceAttr at = getBufferDevice(type);
    if (device && at != device)
      return emitOpError() << "has buffers on " << device.str() << " and on "
                           << at.str() << "; a collective runs on one device";
    device = at;
    if (!seen.insert(buffer).second)
      return emitOpError() << "takes the same buffer twice";
    if (reduceOp && *reduceOp == "avg" &&
        !isa<FloatType>(type.getElementType()))
      return emitOpError() << "averages a buffer of " << type.getElementType()
                           << "; 'avg' needs floating-point elements";
  }

  if (*kind == CollectiveKind::AllReduce) {
    if (!getInputs().empty())
      return emitOpError() << "'all_reduce' reduces its outputs in place and "
                              "takes no inputs";
    if (getGroupSize())
      return emitOpError() << "'all_reduce' takes no group size";
  } else {
    std::optional<int64_t> size = getGroupSize();
    if (!size || *size < 1)
      return emitOpError() << "'" << getCollective()
                           << "' needs the group's size ('size', at least 1)";
    if (getInputs().size() != getOutputs().size())
      return emitOpError() << "needs one input per output, got "
                           << getInputs().size() << " inputs and "
                           << getOutputs().size() << " outputs";
    for (auto [index, pair] :
         llvm::enumerate(llvm::zip(getInputs(), getOutputs())))
      if (failed(verifyPair(
              *this, index, cast<MemRefType>(std::get<0>(pair).getType()),
              cast<MemRefType>(std::get<1>(pair).getType()), *size,
              *kind == CollectiveKind::AllGatherIntoTensor)))
        return failure();
  }

  // Waited for exactly once, later in the same block.
  Value work = getWork();
  if (work.use_empty())
    return emitOpError() << "is never waited for; add a "
                            "'wrapper.collective_wait'";
  for (Operation *user : work.getUsers()) {
    if (!isa<CollectiveWaitOp>(user))
      return emitOpError() << "handle is used by '" << user->getName()
                           << "'; only 'wrapper.collective_wait' takes it";
  }
  if (!work.hasOneUse())
    return emitOpError() << "is waited for more than once";
  Operation *wait = *work.getUsers().begin();
  if (wait->getBlock() != (*this)->getBlock() ||
      !(*this)->isBeforeInBlock(wait))
    return emitOpError() << "must be waited for later in the same block";
  return success();
}

void CollectiveStartOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &operand : getInputsMutable())
    effects.emplace_back(MemoryEffects::Read::get(), &operand,
                         SideEffects::DefaultResource::get());
  for (OpOperand &operand : getOutputsMutable()) {
    if (getCollective() == "all_reduce")
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
    effects.emplace_back(MemoryEffects::Write::get(), &operand,
                         SideEffects::DefaultResource::get());
  }
  effects.emplace_back(MemoryEffects::Write::get(), CollectivesResource::get());
}

//===----------------------------------------------------------------------===//
// CollectiveWaitOp
//===----------------------------------------------------------------------===//

LogicalResult CollectiveWaitOp::verify() {
  if (!getStart())
    return emitOpError()
           << "waits for a handle that no 'wrapper.collective_start' made";
  return success();
}
