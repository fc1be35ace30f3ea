//===- HostPatterns.cpp - buffers on the CPU, views, calls ------*- C++ -*-===//
//
// Part of the Wrapper project.
//
// Allocations and frees of CPU buffers, views of buffers on any device,
// kernel calls and constants.
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

namespace {
/// `alloc` of a CPU buffer: a 64-byte aligned `memref.alloc`.
struct AllocOpLowering : OpConversionPattern<AllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (isBufferOnCUDA(op.getType()))
      return failure();
    auto type = getTypeConverter()->convertType<MemRefType>(op.getType());
    rewriter.replaceOpWithNewOp<memref::AllocOp>(
        op, type, adaptor.getDynamicSizes(), rewriter.getI64IntegerAttr(64));
    return success();
  }
};

/// `free` of a CPU buffer: `memref.dealloc`.
struct FreeOpLowering : OpConversionPattern<FreeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FreeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (isBufferOnCUDA(op.getBuffer().getType()))
      return failure();
    rewriter.replaceOpWithNewOp<memref::DeallocOp>(op, adaptor.getBuffer());
    return success();
  }
};

/// `free_if_not_reused` of a CPU buffer: nothing when a later `reuse` takes
/// the storage, else `memref.dealloc`.
struct FreeIfNotReusedOpLowering : OpConversionPattern<FreeIfNotReusedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FreeIfNotReusedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (isBufferOnCUDA(op.getBuffer().getType()))
      return failure();
    if (op.isReused())
      rewriter.eraseOp(op);
    else
      rewriter.replaceOpWithNewOp<memref::DeallocOp>(op, adaptor.getBuffer());
    return success();
  }
};

/// `reuse`: a view of the old storage with the new type (freeing the view
/// frees the storage); with a dynamic shape the types are equal and the old
/// buffer serves as it is.
struct ReuseOpLowering : OpConversionPattern<ReuseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReuseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = getTypeConverter()->convertType<MemRefType>(op.getType());
    if (!type.hasStaticShape()) {
      rewriter.replaceOp(op, adaptor.getOld());
      return success();
    }
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)))
      return failure(); // Refused by the preconditions.
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, type, adaptor.getOld(), offset, type.getShape(), strides);
    return success();
  }
};

/// `view`: `memref.view` at the byte offset into the pool.
struct ViewOpLowering : OpConversionPattern<ViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value shift = arith::ConstantIndexOp::create(
        rewriter, op.getLoc(), static_cast<int64_t>(op.getByteOffset()));
    rewriter.replaceOpWithNewOp<memref::ViewOp>(
        op, getTypeConverter()->convertType<MemRefType>(op.getType()),
        adaptor.getPool(), shift, ValueRange{});
    return success();
  }
};

/// `reinterpret`: `memref.reinterpret_cast` with the same offsets, sizes and
/// strides.
struct ReinterpretOpLowering : OpConversionPattern<ReinterpretOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReinterpretOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, getTypeConverter()->convertType<MemRefType>(op.getType()),
        adaptor.getSource(), adaptor.getOffsets(), adaptor.getSizes(),
        adaptor.getStrides(), op.getStaticOffsets(), op.getStaticSizes(),
        op.getStaticStrides());
    return success();
  }
};

/// The bytes of the buffers `args` (each once, elements at their run-time
/// sizes; sub-byte elements stored as bytes), as an i64.
static Value buildBytesPassed(OpBuilder &b, Location loc, ValueRange args) {
  int64_t constant = 0;
  Value dynamic;
  for (Value arg : args) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type)
      continue;
    Type element = type.getElementType();
    int64_t elementBytes =
        element.isIntOrFloat()
            ? std::max<int64_t>(1, (element.getIntOrFloatBitWidth() + 7) / 8)
            : 8; // index
    if (auto complex = dyn_cast<ComplexType>(element))
      elementBytes =
          2 * (complex.getElementType().getIntOrFloatBitWidth() + 7) / 8;
    int64_t staticCount = elementBytes;
    Value count;
    for (auto [dim, size] : llvm::enumerate(type.getShape())) {
      if (!ShapedType::isDynamic(size)) {
        staticCount *= size;
        continue;
      }
      Value extent = memref::DimOp::create(b, loc, arg, dim);
      count = count ? arith::MulIOp::create(b, loc, count, extent) : extent;
    }
    if (!count) {
      constant += staticCount;
      continue;
    }
    Value bytes = arith::MulIOp::create(
        b, loc, count, arith::ConstantIndexOp::create(b, loc, staticCount));
    dynamic = dynamic ? arith::AddIOp::create(b, loc, dynamic, bytes) : bytes;
  }
  Value total = arith::ConstantIntOp::create(b, loc, constant, 64);
  if (!dynamic)
    return total;
  Value cast = arith::IndexCastOp::create(b, loc, b.getI64Type(), dynamic);
  return arith::AddIOp::create(b, loc, total, cast);
}

/// `call`: `func.call` of the kernel's implementation, each buffer cast to
/// the parameter's type where they differ; bracketed by the profiling calls
/// when profiling.
struct CallOpLowering : HostLoweringPattern<CallOp> {
  CallOpLowering(const TypeConverter &converter, MLIRContext *context,
                 HostLoweringState &state, KernelProfiler *profiler)
      : HostLoweringPattern(converter, context, state), profiler(profiler) {}
  LogicalResult
  matchAndRewrite(CallOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    func::FuncOp impl =
        state.kernelImplementations.lookup(op.getKernelAttr().getAttr());
    if (!impl)
      return failure(); // Refused by the preconditions.
    Location loc = op.getLoc();
    SmallVector<Value> args;
    for (auto [arg, param] :
         llvm::zip(adaptor.getArgs(), impl.getArgumentTypes())) {
      Value v = arg;
      if (v.getType() != param)
        v = memref::CastOp::create(rewriter, loc, param, v);
      args.push_back(v);
    }
    Value id;
    if (profiler) {
      auto [it, inserted] =
          profiler->ids.try_emplace(op.getKernel(), profiler->ids.size());
      if (inserted)
        profiler->names.push_back(op.getKernelAttr());
      id = arith::ConstantIntOp::create(rewriter, loc, it->second, 64);
      func::CallOp::create(rewriter, loc, profiler->begin, id);
    }
    func::CallOp::create(rewriter, loc, impl, args);
    if (profiler) {
      func::CallOp::create(rewriter, loc, profiler->end, id);
      func::CallOp::create(
          rewriter, loc, profiler->bytes,
          ValueRange{id, buildBytesPassed(rewriter, loc, args)});
    }
    rewriter.eraseOp(op);
    return success();
  }

private:
  KernelProfiler *profiler;
};

/// `constant`: a private 64-byte aligned `memref.global`, or for a constant
/// whose value a loader provides, a hidden pointer-sized global slot (zero
/// until the loader fills it).
struct ConstantOpLowering : HostLoweringPattern<ConstantOp> {
  using HostLoweringPattern::HostLoweringPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (state.slotConstants.contains(op.getSymNameAttr())) {
      Type ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
      auto slot = LLVM::GlobalOp::create(
          rewriter, loc, ptr, /*isConstant=*/false, LLVM::Linkage::External,
          getConstantSlotName(op.getSymName()), Attribute());
      slot.setVisibility_(LLVM::Visibility::Hidden);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.createBlock(&slot.getInitializerRegion());
      LLVM::ReturnOp::create(rewriter, loc,
                             LLVM::ZeroOp::create(rewriter, loc, ptr));
      rewriter.eraseOp(op);
      return success();
    }
    if (op.isExternal())
      return failure(); // Refused by the preconditions.
    rewriter.replaceOpWithNewOp<memref::GlobalOp>(
        op, op.getSymName(), rewriter.getStringAttr("private"),
        getTypeConverter()->convertType<MemRefType>(op.getMemRefType()),
        *op.getValue(), /*constant=*/true,
        /*alignment=*/rewriter.getI64IntegerAttr(64));
    return success();
  }
};

/// `get_constant`: `memref.get_global`, or a memref on the pointer that the
/// constant's slot holds.
struct GetConstantOpLowering : HostLoweringPattern<GetConstantOp> {
  using HostLoweringPattern::HostLoweringPattern;
  LogicalResult
  matchAndRewrite(GetConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = getTypeConverter()->convertType<MemRefType>(op.getType());
    StringAttr name = op.getConstantAttr().getAttr();
    if (!state.slotConstants.contains(name)) {
      rewriter.replaceOpWithNewOp<memref::GetGlobalOp>(op, type,
                                                       op.getConstant());
      return success();
    }
    Location loc = op.getLoc();
    Type ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
    Value slot = LLVM::AddressOfOp::create(rewriter, loc, ptr,
                                           getConstantSlotName(name));
    Value pointer = LLVM::LoadOp::create(rewriter, loc, ptr, slot);
    rewriter.replaceOp(op, buildMemRefOnPointer(rewriter, loc, pointer, type));
    return success();
  }
};
} // namespace

void mlir::wrapper::populateWrapperToStandardHostPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    HostLoweringState &state, KernelProfiler *profiler) {
  MLIRContext *context = patterns.getContext();
  patterns.add<AllocOpLowering, FreeOpLowering, FreeIfNotReusedOpLowering,
               ReuseOpLowering, ViewOpLowering, ReinterpretOpLowering>(
      converter, context);
  patterns.add<ConstantOpLowering, GetConstantOpLowering>(converter, context,
                                                          state);
  patterns.add<CallOpLowering>(converter, context, state, profiler);
}
