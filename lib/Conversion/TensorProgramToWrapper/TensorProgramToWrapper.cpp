//===- TensorProgramToWrapper.cpp - kernels and a host graph --------------===//
//
// Part of the Wrapper project.
//
// Turns each public tensor_program function into a wrapper.graph: fused
// regions become kernel functions on buffers, and the function body becomes
// the host program that allocates, calls and frees.
//
//===----------------------------------------------------------------------===//

#include "ShapeTracing.h"

#include "Wrapper/Conversion/Passes.h"
#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"
#include "Wrapper/Extern/Registry.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#define DEBUG_TYPE "convert-tensor-program-to-wrapper"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_CONVERTTENSORPROGRAMTOWRAPPERPASS
#include "Wrapper/Conversion/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper;
namespace tp = mlir::tensor_program;

/// Whether a function is a tensor program the host graph can express: tensor
/// arguments and results, and only tensor_program ops, tensor.dim, index
/// constants and the return. Other functions are left to
/// --convert-tensor-program-to-linalg.
static bool isGraphCandidate(func::FuncOp func) {
  if (!func.isPublic() || func.isExternal())
    return false;
  FunctionType type = func.getFunctionType();
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults()))
    if (!isa<RankedTensorType>(t))
      return false;
  bool hasProgram = false;
  for (Operation &op : func.getBody().front()) {
    if (isa<tensor_program::TensorProgramDialect>(op.getDialect())) {
      hasProgram = true;
      continue;
    }
    if (!tp::isSizeComputation(&op) && !isa<func::ReturnOp>(op))
      return false;
  }
  return hasProgram;
}

static MemRefType bufferType(Type tensor) {
  auto t = cast<RankedTensorType>(tensor);
  return MemRefType::get(t.getShape(), t.getElementType());
}

/// Wraps each computing op outside fused regions in a one-op fused region.
static LogicalResult wrapUnfusedOps(func::FuncOp func) {
  for (Operation &op : llvm::make_early_inc_range(func.getBody().front())) {
    if (!isa<tp::TensorProgramDialect>(op.getDialect()) ||
        isa<tp::FusedOp, tp::ExternOp, tp::CopyBackOp, tp::ConstantOp>(op))
      continue;
    if (tp::isComposite(&op) && !tp::isContraction(&op))
      return op.emitOpError()
             << "is a composite; run --tensor-program-decompose first";
    SmallVector<Value> inputs;
    // Index operands are recomputed in the kernel from the sizes of its
    // inputs: the chain of size computations behind each, in order.
    SetVector<Operation *> chain;
    std::function<LogicalResult(Value)> addIndex =
        [&](Value value) -> LogicalResult {
      Operation *def = value.getDefiningOp();
      if (!def || !tp::isSizeComputation(def))
        return op.emitOpError()
               << "takes an index operand that is not computed from sizes "
                  "(constants, tensor.dim and index arithmetic), which a "
                  "kernel cannot receive";
      if (auto dim = dyn_cast<tensor::DimOp>(def)) {
        if (!llvm::is_contained(inputs, dim.getSource()))
          inputs.push_back(dim.getSource());
        if (failed(addIndex(dim.getIndex())))
          return failure();
      } else {
        for (Value operand : def->getOperands())
          if (failed(addIndex(operand)))
            return failure();
      }
      chain.insert(def);
      return success();
    };
    for (Value operand : op.getOperands()) {
      if (isa<RankedTensorType>(operand.getType())) {
        if (!llvm::is_contained(inputs, operand))
          inputs.push_back(operand);
        continue;
      }
      if (failed(addIndex(operand)))
        return failure();
    }
    tp::FusionKind kind = tp::isContraction(&op) ? tp::FusionKind::matmul
                          : tp::isReduction(&op) ? tp::FusionKind::reduction
                                                 : tp::FusionKind::pointwise;
    OpBuilder b(&op);
    auto fused =
        tp::FusedOp::create(b, op.getLoc(), kind, op.getResultTypes(), inputs);
    Block &body = fused.getBody().front();
    IRMapping mapping;
    for (auto [input, arg] : llvm::zip(inputs, body.getArguments()))
      mapping.map(input, arg);
    OpBuilder inner = OpBuilder::atBlockEnd(&body);
    for (Operation *def : chain)
      if (!mapping.contains(def->getResult(0)))
        inner.clone(*def, mapping);
    Operation *clone = inner.clone(op, mapping);
    tp::YieldOp::create(inner, op.getLoc(), clone->getResults());
    op.replaceAllUsesWith(fused.getResults());
    op.erase();
  }
  return success();
}

namespace {
/// Builds the kernels and the graph of one function.
class GraphBuilder {
public:
  GraphBuilder(ModuleOp module, func::FuncOp func)
      : module(module), func(func), name(func.getName().str()),
        moduleBuilder(module.getContext()) {
    moduleBuilder.setInsertionPoint(func);
  }

  LogicalResult build();

private:
  /// A new private kernel implementation and its wrapper.kernel definition.
  std::pair<func::FuncOp, KernelOp>
  createKernel(StringRef suffix, TypeRange params, DictionaryAttr metadata);
  LogicalResult lowerFused(tp::FusedOp fused, OpBuilder &b);
  LogicalResult lowerExtern(tp::ExternOp op, OpBuilder &b);
  LogicalResult lowerCollective(tp::ExternOp op, OpBuilder &b);
  Value copyToFresh(Value buffer, OpBuilder &b, Location loc);
  void copyInto(Value source, Value target, OpBuilder &b, Location loc);
  Value lookup(Value tensor) { return buffers.lookup(tensor); }

  /// The collectives started and not yet waited for, by the tensor that
  /// their wait_tensor takes.
  llvm::MapVector<Value, CollectiveStartOp> inFlight;
  /// Write-backs done by the kernel that computes their value (its output
  /// is the argument's buffer), and write-backs left for the end of the
  /// graph because the argument is read after them.
  llvm::SmallPtrSet<Operation *, 8> writtenInPlace;
  SmallVector<tp::CopyBackOp> deferred;
  void markMutated(tp::CopyBackOp copy);

  ModuleOp module;
  func::FuncOp func;
  std::string name;
  OpBuilder moduleBuilder;
  GraphOp graph;
  IRMapping buffers; // tensor values -> buffers
  unsigned kernelCount = 0, constantCount = 0;
  SmallVector<func::FuncOp> kernelImpls;

public:
  SmallVector<func::FuncOp> takeKernels() { return std::move(kernelImpls); }
};
} // namespace

std::pair<func::FuncOp, KernelOp>
GraphBuilder::createKernel(StringRef suffix, TypeRange params,
                           DictionaryAttr metadata) {
  std::string kernelName =
      name + "_" + suffix.str() + "_" + std::to_string(kernelCount++);
  Location loc = func.getLoc();
  auto impl = func::FuncOp::create(moduleBuilder, loc, kernelName + "_impl",
                                   moduleBuilder.getFunctionType(params, {}));
  impl.setPrivate();
  impl.addEntryBlock();
  auto kernel =
      KernelOp::create(moduleBuilder, loc, kernelName, SymbolRefAttr::get(impl),
                       /*device=*/DeviceAttr(), metadata);
  kernelImpls.push_back(impl);
  return {impl, kernel};
}

void GraphBuilder::copyInto(Value source, Value target, OpBuilder &b,
                            Location loc) {
  auto [impl, kernel] =
      createKernel("copy", TypeRange{source.getType(), target.getType()},
                   moduleBuilder.getDictionaryAttr(moduleBuilder.getNamedAttr(
                       "kind", moduleBuilder.getStringAttr("copy"))));
  OpBuilder body = OpBuilder::atBlockEnd(&impl.getBody().front());
  memref::CopyOp::create(body, loc, impl.getArgument(0), impl.getArgument(1));
  func::ReturnOp::create(body, loc);
  CallOp::create(b, loc, kernel.getSymName(), ValueRange{source, target},
                 ValueRange{}, ValueRange{});
}

Value GraphBuilder::copyToFresh(Value buffer, OpBuilder &b, Location loc) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<Value> sizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    if (type.isDynamicDim(dim))
      sizes.push_back(memref::DimOp::create(b, loc, buffer, dim));
  Value fresh = AllocOp::create(
      b, loc,
      bufferType(RankedTensorType::get(type.getShape(), type.getElementType())),
      sizes);
  copyInto(buffer, fresh, b, loc);
  return fresh;
}

/// Whether one of `readers` other than `op` comes after `after` (in
/// program order).
static bool isReadAfter(ArrayRef<Operation *> readers, Operation *after,
                        Operation *op) {
  Block *block = after->getBlock();
  return llvm::any_of(readers, [&](Operation *reader) {
    Operation *ancestor = block->findAncestorOpInBlock(*reader);
    return reader != op && ancestor && after->isBeforeInBlock(ancestor);
  });
}

/// The write-back of result `index` of `fused` that the kernel can do
/// itself, computing the result straight into the argument's buffer, or
/// null. That takes a pointwise region in which the argument is read only
/// by elementwise ops at its own (static) shape, on the way to this result
/// alone -- so each element is read before the same element is written,
/// and by nothing else -- and no reader of the argument (or of a view of
/// it) after the kernel; the result is not returned (it would alias the
/// argument).
static tp::CopyBackOp getInPlaceCopyBack(tp::FusedOp fused, unsigned index) {
  Value result = fused.getResult(index);
  tp::CopyBackOp copy;
  for (Operation *user : result.getUsers()) {
    if (isa<func::ReturnOp>(user))
      return {};
    if (auto candidate = dyn_cast<tp::CopyBackOp>(user); candidate && !copy)
      copy = candidate;
  }
  if (!copy || fused.getKind() != tp::FusionKind::pointwise ||
      copy->getBlock() != fused->getBlock())
    return {};
  Value target = copy.getTarget();
  auto type = cast<RankedTensorType>(target.getType());
  SmallVector<Operation *> readers;
  tp::collectStorageReaders(target, readers);
  if (!type.hasStaticShape() || isReadAfter(readers, fused, copy))
    return {};
  // A view of the argument read by the kernel may be read at other
  // positions than the one written.
  for (Operation *reader : readers)
    if (tp::mayViewInput(reader) &&
        llvm::any_of(reader->getResults(), [&](Value view) {
          return llvm::is_contained(fused.getInputs(), view);
        }))
      return {};
  Block &region = fused.getBody().front();
  Operation *yield = region.getTerminator();
  SmallVector<Value> worklist;
  for (auto [input, arg] : llvm::zip(fused.getInputs(), region.getArguments()))
    if (input == target)
      worklist.push_back(arg);
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user == yield) {
        if (use.getOperandNumber() != index)
          return {};
        continue;
      }
      if (tp::isSizeComputation(user))
        continue;
      if (!tp::isElementwise(user))
        return {};
      for (Value derived : user->getResults()) {
        auto derivedType = dyn_cast<RankedTensorType>(derived.getType());
        if (!derivedType || derivedType.getShape() != type.getShape())
          return {};
        worklist.push_back(derived);
      }
    }
  }
  return copy;
}

/// A row-major view of a contiguous buffer with a new shape: the view that
/// a reshape of a buffer with identity layout is, instead of a copy.
static Value buildContiguousView(OpBuilder &b, Location loc, Value buffer,
                                 RankedTensorType type,
                                 ArrayRef<Value> dynamicSizes) {
  auto result = MemRefType::get(type.getShape(), type.getElementType());
  SmallVector<OpFoldResult> sizes, strides(type.getRank());
  unsigned next = 0;
  for (int64_t size : type.getShape())
    sizes.push_back(ShapedType::isDynamic(size)
                        ? OpFoldResult(dynamicSizes[next++])
                        : OpFoldResult(b.getIndexAttr(size)));
  // stride[d] = product of the sizes after d. Only the type's static sizes
  // fold: a dynamic dimension whose size happens to be a constant value must
  // still give the dynamic strides of the identity layout of `result`.
  OpFoldResult stride = b.getIndexAttr(1);
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    strides[d] = stride;
    auto staticStride = getConstantIntValue(stride);
    std::optional<int64_t> staticSize;
    if (!type.isDynamicDim(d))
      staticSize = type.getDimSize(d);
    if (staticStride && staticSize) {
      stride = b.getIndexAttr(*staticStride * *staticSize);
      continue;
    }
    Value s = getValueOrCreateConstantIndexOp(b, loc, stride);
    Value n = getValueOrCreateConstantIndexOp(b, loc, sizes[d]);
    stride = arith::MulIOp::create(b, loc, s, n).getResult();
  }
  SmallVector<int64_t> staticSizes, staticStrides;
  SmallVector<Value> dynSizes, dynStrides;
  dispatchIndexOpFoldResults(sizes, dynSizes, staticSizes);
  dispatchIndexOpFoldResults(strides, dynStrides, staticStrides);
  return ReinterpretOp::create(b, loc, result, buffer, ValueRange{}, dynSizes,
                               dynStrides, b.getDenseI64ArrayAttr({0}),
                               b.getDenseI64ArrayAttr(staticSizes),
                               b.getDenseI64ArrayAttr(staticStrides));
}

LogicalResult GraphBuilder::lowerFused(tp::FusedOp fused, OpBuilder &b) {
  Location loc = fused.getLoc();
  Block &region = fused.getBody().front();
  SmallVector<Value> inputs;
  for (Value input : fused.getInputs())
    inputs.push_back(lookup(input));

  // A reshape of a contiguous buffer is a view, not a kernel.
  if (tp::ReshapeOp reshape = tp::getLoneReshape(fused)) {
    Value source =
        inputs[cast<BlockArgument>(reshape.getInput()).getArgNumber()];
    if (cast<MemRefType>(source.getType()).getLayout().isIdentity()) {
      FailureOr<SmallVector<Value>> sizes =
          buildOutputDynamicSizes(b, loc, reshape.getResult(), inputs);
      if (succeeded(sizes)) {
        buffers.map(
            fused.getResult(0),
            buildContiguousView(b, loc, source, reshape.getType(), *sizes));
        return success();
      }
    }
  }

  // Kernel: inputs then outputs, as buffers.
  SmallVector<Type> params;
  for (Value input : inputs)
    params.push_back(input.getType());
  for (Type type : fused.getResultTypes())
    params.push_back(bufferType(type));
  SmallVector<Attribute> sourceOps;
  for (Operation &op : region.without_terminator())
    if (isa<tp::TensorProgramDialect>(op.getDialect()) &&
        !isa<tp::ConstantOp>(op))
      sourceOps.push_back(b.getStringAttr(op.getName().stripDialect()));
  DictionaryAttr metadata = b.getDictionaryAttr(
      {b.getNamedAttr(
           "kind", b.getStringAttr(tp::stringifyFusionKind(fused.getKind()))),
       b.getNamedAttr("source_ops", b.getArrayAttr(sourceOps))});
  auto [impl, kernel] = createKernel("kernel", params, metadata);

  // Kernel body: inputs as tensors, the region, results into the outputs.
  OpBuilder body = OpBuilder::atBlockEnd(&impl.getBody().front());
  IRMapping mapping;
  for (auto [index, arg] : llvm::enumerate(region.getArguments())) {
    Value tensor = bufferization::ToTensorOp::create(
        body, loc, arg.getType(), impl.getArgument(index),
        /*restrict=*/true, /*writable=*/false);
    mapping.map(arg, tensor);
  }
  for (Operation &op : region.without_terminator())
    body.clone(op, mapping);
  auto yield = cast<tp::YieldOp>(region.getTerminator());
  for (auto [index, value] : llvm::enumerate(yield.getValues())) {
    auto materialize = bufferization::MaterializeInDestinationOp::create(
        body, loc, mapping.lookup(value),
        impl.getArgument(inputs.size() + index));
    materialize.setRestrict(true);
    materialize.setWritable(true);
  }
  func::ReturnOp::create(body, loc);

  // Host: comment, output allocations, the call.
  std::string comment = "Source nodes: ";
  llvm::raw_string_ostream os(comment);
  llvm::interleaveComma(sourceOps, os, [&](Attribute a) {
    os << cast<StringAttr>(a).getValue();
  });
  CommentOp::create(b, loc, comment);
  SmallVector<Value> outputs;
  for (auto [index, value] : llvm::enumerate(yield.getValues())) {
    if (tp::CopyBackOp copy = getInPlaceCopyBack(fused, index)) {
      // Computed into the argument it is written back to.
      Value buffer = lookup(copy.getTarget());
      markMutated(copy);
      writtenInPlace.insert(copy);
      outputs.push_back(buffer);
      buffers.map(fused.getResult(index), buffer);
      continue;
    }
    FailureOr<SmallVector<Value>> sizes =
        buildOutputDynamicSizes(b, loc, value, inputs);
    if (failed(sizes))
      return fused.emitOpError()
             << "result #" << index
             << " has a dynamic dimension whose size cannot be derived "
                "from the kernel's inputs";
    Value buffer = AllocOp::create(b, loc, bufferType(value.getType()), *sizes);
    outputs.push_back(buffer);
    buffers.map(fused.getResult(index), buffer);
  }
  SmallVector<Value> args(inputs);
  args.append(outputs);
  CallOp::create(b, loc, kernel.getSymName(), args, ValueRange{}, ValueRange{});
  return success();
}

void GraphBuilder::markMutated(tp::CopyBackOp copy) {
  auto arg = cast<BlockArgument>(copy.getTarget());
  graph.setArgAttr(arg.getArgNumber(), WrapperDialect::getMutatedAttrName(),
                   UnitAttr::get(graph.getContext()));
}

LogicalResult GraphBuilder::build() {
  FunctionType type = func.getFunctionType();
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults()))
    if (!isa<RankedTensorType>(t))
      return func.emitOpError()
             << "has a " << t
             << " argument or result; a graph takes and returns tensors only";
  SmallVector<Type> argTypes, resultTypes;
  for (Type t : type.getInputs())
    argTypes.push_back(bufferType(t));
  for (Type t : type.getResults())
    resultTypes.push_back(bufferType(t));

  OpBuilder top(func);
  graph = GraphOp::create(top, func.getLoc(), func.getName(),
                          top.getFunctionType(argTypes, resultTypes));
  Block *entry = graph.addEntryBlock();
  for (auto [tensor, buffer] :
       llvm::zip(func.getArguments(), entry->getArguments()))
    buffers.map(tensor, buffer);
  OpBuilder b = OpBuilder::atBlockEnd(entry);

  for (Operation &op : func.getBody().front()) {
    Location loc = op.getLoc();
    LogicalResult result =
        TypeSwitch<Operation *, LogicalResult>(&op)
            .Case([&](tp::FusedOp fused) -> LogicalResult {
              return lowerFused(fused, b);
            })
            .Case([&](tp::ConstantOp constant) -> LogicalResult {
              std::string symbol =
                  name + "_constant_" + std::to_string(constantCount++);
              auto memrefType = bufferType(constant.getType());
              ConstantOp::create(
                  moduleBuilder, loc, moduleBuilder.getStringAttr(symbol),
                  TypeAttr::get(memrefType), constant.getValue());
              buffers.map(constant.getResult(),
                          GetConstantOp::create(b, loc, memrefType, symbol));
              return success();
            })
            .Case([&](tensor::DimOp dim) -> LogicalResult {
              Value index = arith::ConstantIndexOp::create(
                  b, loc, *dim.getConstantIndex());
              buffers.map(dim.getResult(),
                          memref::DimOp::create(b, loc, lookup(dim.getSource()),
                                                index));
              return success();
            })
            .Case([&](arith::ConstantOp constant) -> LogicalResult {
              buffers.map(constant.getResult(),
                          b.clone(*constant)->getResult(0));
              return success();
            })
            .Case<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivSIOp,
                  arith::DivUIOp, arith::FloorDivSIOp, arith::CeilDivSIOp,
                  arith::RemSIOp, arith::RemUIOp, arith::MinSIOp,
                  arith::MaxSIOp>([&](Operation *size) -> LogicalResult {
              // Size arithmetic on the host (what views and later kernels'
              // sizes use).
              buffers.map(size->getResult(0),
                          b.clone(*size, buffers)->getResult(0));
              return success();
            })
            .Case([&](tp::CopyBackOp copy) -> LogicalResult {
              markMutated(copy);
              if (writtenInPlace.contains(copy))
                return success();
              // The argument keeps its value for its readers: the copy
              // after the last of them, at the end.
              SmallVector<Operation *> readers;
              tp::collectStorageReaders(copy.getTarget(), readers);
              if (isReadAfter(readers, copy, copy)) {
                deferred.push_back(copy);
                return success();
              }
              copyInto(lookup(copy.getValue()), lookup(copy.getTarget()), b,
                       loc);
              return success();
            })
            .Case([&](tp::ExternOp externOp) -> LogicalResult {
              return lowerExtern(externOp, b);
            })
            .Case([&](func::ReturnOp ret) -> LogicalResult {
              SmallVector<Value> results;
              llvm::SmallPtrSet<Value, 8> returned;
              auto writtenLater = [&](Value buffer) {
                return llvm::any_of(deferred, [&](tp::CopyBackOp copy) {
                  return lookup(copy.getTarget()) == buffer;
                });
              };
              for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
                Value buffer = lookup(value);
                if (writtenLater(buffer)) {
                  // An argument returned as it was before its write-back.
                  buffer = copyToFresh(buffer, b, loc);
                } else if (auto arg = dyn_cast<BlockArgument>(buffer)) {
                  graph.setResultAttr(index,
                                      WrapperDialect::getAliasOfAttrName(),
                                      b.getI64IntegerAttr(arg.getArgNumber()));
                } else if (!isAllocatedHere(buffer) ||
                           returned.contains(buffer)) {
                  // Constants and buffers returned twice get their own copy,
                  // so that the caller owns every output it frees.
                  buffer = copyToFresh(buffer, b, loc);
                }
                returned.insert(buffer);
                results.push_back(buffer);
              }
              for (tp::CopyBackOp copy : deferred)
                copyInto(lookup(copy.getValue()), lookup(copy.getTarget()), b,
                         copy.getLoc());
              ReturnOp::create(b, loc, results);
              return success();
            })
            .Default([&](Operation *other) {
              return other->emitOpError()
                     << "cannot be lowered to the wrapper host program";
            });
    if (failed(result))
      return failure();
  }

  if (!inFlight.empty())
    return inFlight.front().first.getDefiningOp()->emitOpError()
           << "starts a collective that no wait_tensor waits for";

  // Free every intermediate (allocated, returned by an extern kernel, or
  // taken out of one's tuple or list) after the last use of it or of a view
  // of it.
  auto returnOp = cast<ReturnOp>(entry->getTerminator());
  for (Operation &op : llvm::make_early_inc_range(*entry)) {
    if (!isa<AllocOp, ExternAllocOp, MultiOutputOp>(op) ||
        op.getNumResults() != 1 ||
        llvm::is_contained(returnOp.getOperands(), op.getResult(0)))
      continue;
    Operation *alloc = &op;
    Operation *last = alloc;
    SmallVector<Value> worklist = {alloc->getResult(0)};
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      for (Operation *user : value.getUsers()) {
        if (auto view = dyn_cast<ReinterpretOp>(user))
          worklist.push_back(view.getResult());
        // A buffer in flight is in use until its collective's wait.
        if (auto start = dyn_cast<CollectiveStartOp>(user))
          worklist.push_back(start.getWork());
        Operation *ancestor = entry->findAncestorOpInBlock(*user);
        if (ancestor && last->isBeforeInBlock(ancestor))
          last = ancestor;
      }
    }
    OpBuilder after(last->getContext());
    after.setInsertionPointAfter(last);
    FreeOp::create(after, alloc->getLoc(), alloc->getResult(0));
  }
  return success();
}

/// The prefix of PyTorch's functional collectives (torch.ops._c10d_functional).
static constexpr StringLiteral kCollectivePrefix = "_c10d_functional::";

/// A functional collective: `all_reduce` copies its input into a fresh
/// buffer and reduces that in place, `all_gather_into_tensor` and
/// `reduce_scatter_tensor` write a fresh buffer; `wait_tensor` waits for
/// the collective that produced its input and passes that buffer on.
LogicalResult GraphBuilder::lowerCollective(tp::ExternOp op, OpBuilder &b) {
  Location loc = op.getLoc();
  StringRef name = op.getCallee().drop_front(kCollectivePrefix.size());
  if (op.getInputs().size() != 1 || op.getNumResults() != 1 ||
      !isa<RankedTensorType>(op.getInputs()[0].getType()))
    return op.emitOpError() << "calls '" << op.getCallee()
                            << "' with other than one tensor in and one out";
  Value input = op.getInputs()[0];
  if (name == "wait_tensor") {
    auto it = inFlight.find(input);
    if (it == inFlight.end())
      return op.emitOpError()
             << "waits for a tensor that no collective in flight produced";
    CollectiveWaitOp::create(b, loc, it->second.getWork());
    buffers.map(op.getResult(0), lookup(input));
    inFlight.erase(it);
    return success();
  }
  std::optional<CollectiveKind> kind = symbolizeCollectiveKind(name);
  if (!kind)
    return op.emitOpError() << "calls '" << op.getCallee()
                            << "', a collective this compiler does not know";
  DictionaryAttr args = op.getArgsAttr();
  auto group = args ? args.getAs<StringAttr>("group_name") : StringAttr();
  auto reduce = args ? args.getAs<StringAttr>("reduce_op") : StringAttr();
  auto groupSize = args ? args.getAs<IntegerAttr>("group_size") : IntegerAttr();
  if (!group)
    return op.emitOpError() << "calls '" << op.getCallee()
                            << "' without a 'group_name' argument";
  Value source = lookup(input);
  CollectiveStartOp start;
  Value result;
  if (*kind == CollectiveKind::AllReduce) {
    // In place when nothing else will read the input: a buffer allocated
    // here, which only this tensor names, used only here (as Inductor
    // reduces a dead input in place); otherwise on a copy.
    bool inPlace = source.getDefiningOp<AllocOp>() && input.hasOneUse() &&
                   llvm::none_of(source.getUsers(),
                                 [](Operation *user) {
                                   return isa<ViewLikeOpInterface>(user);
                                 }) &&
                   llvm::none_of(buffers.getValueMap(), [&](auto &entry) {
                     return entry.second == source && entry.first != input;
                   });
    result = inPlace ? source : copyToFresh(source, b, loc);
    start = CollectiveStartOp::create(
        b, loc, b.getType<WorkType>(), b.getStringAttr(name), ValueRange{},
        ValueRange{result}, group, reduce, IntegerAttr());
  } else {
    if (!groupSize)
      return op.emitOpError() << "calls '" << op.getCallee()
                              << "' without a 'group_size' argument";
    MemRefType type = bufferType(op.getResult(0).getType());
    SmallVector<Value> sizes;
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      if (!type.isDynamicDim(dim))
        continue;
      Value size = memref::DimOp::create(b, loc, source, dim);
      if (dim == 0) {
        Value factor =
            arith::ConstantIndexOp::create(b, loc, groupSize.getInt());
        size = *kind == CollectiveKind::AllGatherIntoTensor
                   ? Value(arith::MulIOp::create(b, loc, size, factor))
                   : Value(arith::DivUIOp::create(b, loc, size, factor));
      }
      sizes.push_back(size);
    }
    result = AllocOp::create(b, loc, type, sizes);
    start = CollectiveStartOp::create(
        b, loc, b.getType<WorkType>(), b.getStringAttr(name),
        ValueRange{source}, ValueRange{result}, group, reduce, groupSize);
  }
  buffers.map(op.getResult(0), result);
  inFlight[op.getResult(0)] = start;
  return success();
}

LogicalResult GraphBuilder::lowerExtern(tp::ExternOp op, OpBuilder &b) {
  Location loc = op.getLoc();
  if (op.getCallee().starts_with(kCollectivePrefix))
    return lowerCollective(op, b);
  SmallVector<Value> inputs;
  for (Value input : op.getInputs())
    inputs.push_back(lookup(input));
  SmallVector<Type> resultTypes;
  for (Type t : op.getResultTypes())
    resultTypes.push_back(bufferType(t));
  // One result: a buffer. Several: a tuple of the returns, or the list of a
  // `Tensor[]` return, taken apart with multi_output as Inductor does.
  if (resultTypes.size() == 1) {
    auto call = ExternAllocOp::create(b, loc, resultTypes, op.getCalleeAttr(),
                                      inputs, op.getArgsAttr());
    buffers.map(op.getResult(0), call.getResult(0));
    return success();
  }
  const ExternKernel *kernel = ExternRegistry::get().lookup(op.getCallee());
  bool list = kernel && kernel->schema.returns.size() == 1 &&
              kernel->schema.returns.front().type.list;
  Type container =
      list ? Type(ListType::get(b.getContext(), resultTypes))
           : Type(wrapper::TupleType::get(b.getContext(), resultTypes));
  auto call =
      ExternAllocOp::create(b, loc, TypeRange{container}, op.getCalleeAttr(),
                            inputs, op.getArgsAttr());
  for (auto [index, result] : llvm::enumerate(op.getResults()))
    buffers.map(result, MultiOutputOp::create(
                            b, loc, resultTypes[index], call.getResult(0),
                            b.getDenseI64ArrayAttr({int64_t(index)})));
  return success();
}

namespace {
struct ConvertTensorProgramToWrapperPass
    : public wrapper::impl::ConvertTensorProgramToWrapperPassBase<
          ConvertTensorProgramToWrapperPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (isGraphCandidate(func))
        funcs.push_back(func);
    SmallVector<func::FuncOp> kernels;
    for (func::FuncOp func : funcs) {
      if (failed(wrapUnfusedOps(func)))
        return signalPassFailure();
      GraphBuilder builder(module, func);
      if (failed(builder.build()))
        return signalPassFailure();
      kernels.append(builder.takeKernels());
      func.erase();
    }
    // Kernel bodies: tensor_program to linalg on tensors.
    RewritePatternSet patterns(&getContext());
    populateTensorProgramToLinalgPatterns(patterns, parallelScans);
    FrozenRewritePatternSet frozen(std::move(patterns));
    ConversionTarget target(getContext());
    configureTensorProgramToLinalgTarget(target, atomicScatterAdd);
    for (func::FuncOp kernel : kernels)
      if (failed(applyPartialConversion(kernel, target, frozen)))
        return signalPassFailure();
  }
};
} // namespace
