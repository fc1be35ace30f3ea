//===- DevicePatterns.cpp - buffers on a CUDA device ------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
// Allocations and frees of buffers on a CUDA device, through the gpu dialect
// (which --wrapper-cuda-pipeline maps to the CUDA runtime's caching
// allocator). Views, calls and constants of device buffers lower as the
// host's do (HostPatterns.cpp).
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Conversion/WrapperToStandard/WrapperToStandard.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::wrapper;

namespace {
/// `alloc` of a device buffer: `gpu.alloc` (256-byte aligned by the
/// runtime's allocator).
struct DeviceAllocOpLowering : OpConversionPattern<AllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isBufferOnCUDA(op.getType()))
      return failure();
    auto type = getTypeConverter()->convertType<MemRefType>(op.getType());
    rewriter.replaceOpWithNewOp<gpu::AllocOp>(op, type, Type(), ValueRange{},
                                              adaptor.getDynamicSizes(),
                                              ValueRange{});
    return success();
  }
};

/// `gpu.dealloc` of `buffer` in place of `op`.
static void replaceWithDeviceFree(Operation *op, Value buffer,
                                  ConversionPatternRewriter &rewriter) {
  rewriter.replaceOpWithNewOp<gpu::DeallocOp>(op, TypeRange{}, ValueRange{},
                                              buffer);
}

/// `free` of a device buffer: `gpu.dealloc`.
struct DeviceFreeOpLowering : OpConversionPattern<FreeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FreeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isBufferOnCUDA(op.getBuffer().getType()))
      return failure();
    replaceWithDeviceFree(op, adaptor.getBuffer(), rewriter);
    return success();
  }
};

/// `free_if_not_reused` of a device buffer: nothing when a later `reuse`
/// takes the storage, else `gpu.dealloc`.
struct DeviceFreeIfNotReusedOpLowering
    : OpConversionPattern<FreeIfNotReusedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FreeIfNotReusedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isBufferOnCUDA(op.getBuffer().getType()))
      return failure();
    if (op.isReused())
      rewriter.eraseOp(op);
    else
      replaceWithDeviceFree(op, adaptor.getBuffer(), rewriter);
    return success();
  }
};
} // namespace

void mlir::wrapper::populateWrapperToStandardDevicePatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DeviceAllocOpLowering, DeviceFreeOpLowering,
               DeviceFreeIfNotReusedOpLowering>(converter,
                                                patterns.getContext());
}
