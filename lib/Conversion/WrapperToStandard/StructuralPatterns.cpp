//===- StructuralPatterns.cpp - graphs, returns, types -----------*- C++
//-*-===//
//
// Part of the Wrapper project.
//
// The parts of the host lowering that do not depend on where buffers live:
// the type converter, the shared lowering state, graphs to functions, and
// the type conversion of every op that is not a wrapper op.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Conversion/WrapperToStandard/WrapperToStandard.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::wrapper;

//===----------------------------------------------------------------------===//
// Type converter and shared state
//===----------------------------------------------------------------------===//

/// `value` as `type` through memref.cast when the two memref types are cast
/// compatible (a static buffer passed where a dynamic or more general layout
/// is expected), else nothing.
static Value castMemRef(OpBuilder &b, Type type, ValueRange inputs,
                        Location loc) {
  if (inputs.size() != 1 || !isa<MemRefType>(type) ||
      !memref::CastOp::areCastCompatible(inputs.front().getType(), type))
    return Value();
  return memref::CastOp::create(b, loc, type, inputs.front());
}

WrapperToStandardTypeConverter::WrapperToStandardTypeConverter() {
  addConversion([](Type type) { return type; });
  addConversion([](MemRefType type) -> Type {
    if (!type.getMemorySpace())
      return type;
    return MemRefType::get(type.getShape(), type.getElementType(),
                           type.getLayout());
  });
  addTargetMaterialization(castMemRef);
  addSourceMaterialization(castMemRef);
}

HostLoweringState::HostLoweringState(ModuleOp module)
    : module(module), table(module) {}

func::FuncOp HostLoweringState::function(OpBuilder &b, StringRef name,
                                         TypeRange inputs) {
  StringAttr key = StringAttr::get(module.getContext(), name);
  auto it = functions.find(key);
  if (it != functions.end())
    return it->second;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto func = func::FuncOp::create(b, module.getLoc(), name,
                                   b.getFunctionType(inputs, {}));
  func.setPrivate();
  functions[key] = func;
  return func;
}

Value HostLoweringState::string(OpBuilder &b, Location loc, StringRef text) {
  MLIRContext *context = module.getContext();
  auto type =
      LLVM::LLVMArrayType::get(IntegerType::get(context, 8), text.size() + 1);
  std::string name;
  do
    name = "__wrapper_debug_str_" + std::to_string(strings++);
  while (table.lookup(name));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto global = LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                                         LLVM::Linkage::Internal, name,
                                         b.getStringAttr(text.str() + '\0'));
    table.insert(global);
  }
  return LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(context),
                                   name);
}

bool mlir::wrapper::isBufferOnCUDA(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return false;
  DeviceAttr device = getBufferDevice(memref);
  return device && device.isCUDA();
}

std::string mlir::wrapper::getConstantSlotName(StringRef name) {
  return ("__wrapper_slot_" + name).str();
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {
/// `wrapper.graph` to a public `func.func` with the converted signature.
struct GraphOpLowering : OpConversionPattern<GraphOp> {
  GraphOpLowering(const TypeConverter &converter, MLIRContext *context,
                  bool markReleasable)
      : OpConversionPattern(converter, context),
        markReleasable(markReleasable) {}
  LogicalResult
  matchAndRewrite(GraphOp graph, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const TypeConverter &converter = *getTypeConverter();
    Block &body = graph.getBody().front();
    TypeConverter::SignatureConversion signature(body.getNumArguments());
    if (failed(
            converter.convertSignatureArgs(body.getArgumentTypes(), signature)))
      return failure();
    SmallVector<Type> results;
    if (failed(converter.convertTypes(graph.getResultTypes(), results)))
      return failure();
    auto func = func::FuncOp::create(
        rewriter, graph.getLoc(), graph.getSymName(),
        rewriter.getFunctionType(signature.getConvertedTypes(), results));
    // Inputs the graph neither writes nor returns a view of: a caller may
    // give them up for the call (--wrapper-cuda-release-arguments).
    if (markReleasable &&
        signature.getConvertedTypes().size() == body.getNumArguments()) {
      llvm::SmallBitVector aliased(body.getNumArguments());
      for (unsigned r = 0, e = graph.getNumResults(); r < e; ++r)
        if (std::optional<unsigned> input = graph.getResultAliasOf(r))
          aliased.set(*input);
      for (BlockArgument arg : body.getArguments())
        if (isa<MemRefType>(arg.getType()) && !aliased[arg.getArgNumber()] &&
            !graph.isArgumentMutated(arg.getArgNumber()))
          func.setArgAttr(arg.getArgNumber(),
                          WrapperDialect::getReleasableAttrName(),
                          rewriter.getUnitAttr());
    }
    rewriter.inlineRegionBefore(graph.getBody(), func.getBody(), func.end());
    if (!rewriter.applySignatureConversion(&func.getBody().front(), signature,
                                           &converter))
      return failure();
    rewriter.eraseOp(graph);
    return success();
  }

private:
  bool markReleasable;
};

/// `wrapper.return` to `func.return`.
struct ReturnOpLowering : OpConversionPattern<ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<func::ReturnOp>(op, adaptor.getOperands());
    return success();
  }
};

/// Comments carry no code.
struct CommentOpLowering : OpConversionPattern<CommentOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CommentOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

/// Any op of another dialect whose operand, result or block argument types
/// change (memref.dim of a buffer with a memory space, scf.for over one):
/// recreated with the converted operands and types, its regions moved over.
struct AnyOpTypeConversion : ConversionPattern {
  AnyOpTypeConversion(const TypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (isa<WrapperDialect>(op->getDialect()) || isa<FunctionOpInterface>(op))
      return failure();
    const TypeConverter &converter = *getTypeConverter();
    SmallVector<Type> results;
    if (failed(converter.convertTypes(op->getResultTypes(), results)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, results,
                         op->getAttrs(), op->getSuccessors());
    for (Region &region : op->getRegions()) {
      Region *moved = state.addRegion();
      rewriter.inlineRegionBefore(region, *moved, moved->end());
      if (failed(rewriter.convertRegionTypes(moved, converter)))
        return failure();
    }
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};
} // namespace

void mlir::wrapper::populateWrapperToStandardStructuralPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    bool markReleasable) {
  patterns.add<GraphOpLowering>(converter, patterns.getContext(),
                                markReleasable);
  patterns.add<ReturnOpLowering, CommentOpLowering, AnyOpTypeConversion>(
      converter, patterns.getContext());
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                 converter);
}
