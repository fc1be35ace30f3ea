//===- DebugPatterns.cpp - debug output to runtime calls --------*- C++ -*-===//
//
// Part of the Wrapper project.
//
// `debug_print`, `debug_save` and `debug_message` become calls of the
// runtime's debug functions: a view passed as dtype, rank, sizes and strides
// (one stack array), storage pointer and offset; strings as internal LLVM
// globals.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Conversion/WrapperToStandard/WrapperToStandard.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"
#include "Wrapper/Utils/MemRefDescriptors.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::wrapper;

/// Calls the runtime's `name` (wrapper_debug_print or wrapper_debug_save) on
/// `buffer`, with the string `text` first.
static void emitDebugView(OpBuilder &b, Location loc, HostLoweringState &state,
                          StringRef name, StringRef text, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  int32_t dtype = *getRuntimeDType(type.getElementType());
  int64_t rank = type.getRank();
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  auto metaType =
      MemRefType::get({std::max<int64_t>(1, 2 * rank)}, b.getI64Type());
  Value meta = memref::AllocaOp::create(b, loc, metaType);
  auto store = [&](Value value, int64_t at) {
    Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), value);
    Value position = arith::ConstantIndexOp::create(b, loc, at);
    memref::StoreOp::create(b, loc, i64, meta, position);
  };
  for (int64_t d = 0; d < rank; ++d) {
    store(metadata.getSizes()[d], d);
    store(metadata.getStrides()[d], rank + d);
  }
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  func::FuncOp callee = state.function(
      b, name, {ptr, b.getI32Type(), b.getI32Type(), ptr, ptr, b.getI64Type()});
  Value offset =
      arith::IndexCastOp::create(b, loc, b.getI64Type(), metadata.getOffset());
  func::CallOp::create(
      b, loc, callee,
      ValueRange{state.string(b, loc, text),
                 arith::ConstantIntOp::create(b, loc, dtype, 32),
                 arith::ConstantIntOp::create(b, loc, rank, 32),
                 buildAlignedPointer(b, loc, meta),
                 buildAlignedPointer(b, loc, metadata.getBaseBuffer()),
                 offset});
}

/// The runtime function and the string of a debug_print (its label) and a
/// debug_save (its path).
static std::pair<StringRef, StringRef> debugCall(DebugPrintOp op) {
  return {"wrapper_debug_print", op.getLabel()};
}
static std::pair<StringRef, StringRef> debugCall(DebugSaveOp op) {
  return {"wrapper_debug_save", op.getPath()};
}

namespace {
/// `debug_print` and `debug_save`: a call of the runtime on the view.
template <typename Op> struct DebugViewOpLowering : HostLoweringPattern<Op> {
  using HostLoweringPattern<Op>::HostLoweringPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto [function, text] = debugCall(op);
    emitDebugView(rewriter, op.getLoc(), this->state, function, text,
                  adaptor.getBuffer());
    rewriter.eraseOp(op);
    return success();
  }
};

struct DebugMessageOpLowering : HostLoweringPattern<DebugMessageOp> {
  using HostLoweringPattern::HostLoweringPattern;
  LogicalResult
  matchAndRewrite(DebugMessageOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    func::FuncOp callee =
        state.function(rewriter, "wrapper_debug_message",
                       {LLVM::LLVMPointerType::get(rewriter.getContext())});
    func::CallOp::create(rewriter, op.getLoc(), callee,
                         state.string(rewriter, op.getLoc(), op.getMessage()));
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void mlir::wrapper::populateWrapperDebugToRuntimePatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    HostLoweringState &state) {
  patterns.add<DebugViewOpLowering<DebugPrintOp>,
               DebugViewOpLowering<DebugSaveOp>, DebugMessageOpLowering>(
      converter, patterns.getContext(), state);
}
