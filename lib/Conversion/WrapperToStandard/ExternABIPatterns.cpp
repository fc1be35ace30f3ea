//===- ExternABIPatterns.cpp - the extern ABI's descriptors -----*- C++ -*-===//
//
// Part of the Wrapper project.
//
// The ops that --wrapper-lower-extern-abi leaves (tensor_descriptor,
// result_descriptors, descriptor_buffer, check_status) become stack arrays
// of `wrapper_tensor` (WrapperShim.h: data, dtype, rank, sizes, strides),
// loads from them, and calls of the runtime's `wrapper_shim_check`.
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

/// The LLVM type of `wrapper_tensor`: data, dtype, rank, sizes, strides.
static LLVM::LLVMStructType tensorDescriptorType(MLIRContext *context) {
  Type ptr = LLVM::LLVMPointerType::get(context);
  Type i32 = IntegerType::get(context, 32);
  return LLVM::LLVMStructType::getLiteral(context, {ptr, i32, i32, ptr, ptr});
}

/// The address of field `field` of descriptor `index` of the array of
/// descriptors at `descriptors`.
static Value fieldAddress(OpBuilder &b, Location loc, Value descriptors,
                          int64_t index, int32_t field) {
  return LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                             tensorDescriptorType(b.getContext()), descriptors,
                             ArrayRef<LLVM::GEPArg>{int32_t(index), field});
}

/// Stores `value` into field `field` of descriptor `index`.
static void storeField(OpBuilder &b, Location loc, Value descriptors,
                       int64_t index, int32_t field, Value value) {
  LLVM::StoreOp::create(b, loc, value,
                        fieldAddress(b, loc, descriptors, index, field));
}

/// A stack array of `count` i64 (at least one).
static Value i64Array(OpBuilder &b, Location loc, int64_t count) {
  Value size = LLVM::ConstantOp::create(
      b, loc, b.getI64Type(), b.getI64IntegerAttr(std::max<int64_t>(1, count)));
  return LLVM::AllocaOp::create(b, loc,
                                LLVM::LLVMPointerType::get(b.getContext()),
                                b.getI64Type(), size, /*alignment=*/8);
}

/// Stores i64 `value` at element `index` of the i64 array `array`.
static void storeI64(OpBuilder &b, Location loc, Value array, int64_t index,
                     Value value) {
  Value at = LLVM::GEPOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), b.getI64Type(), array,
      ArrayRef<LLVM::GEPArg>{int32_t(index)});
  LLVM::StoreOp::create(b, loc, value, at);
}

/// An array of `count` uninitialized descriptors on the stack.
static Value descriptorArray(OpBuilder &b, Location loc, int64_t count) {
  Value size = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                        b.getI64IntegerAttr(count));
  return LLVM::AllocaOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()),
      tensorDescriptorType(b.getContext()), size, /*alignment=*/8);
}

/// Stores the dtype and rank of `type` into descriptor `index`.
static void storeDTypeAndRank(OpBuilder &b, Location loc, Value descriptors,
                              int64_t index, MemRefType type) {
  storeField(b, loc, descriptors, index, 1,
             arith::ConstantIntOp::create(
                 b, loc, *getRuntimeDType(type.getElementType()), 32));
  storeField(b, loc, descriptors, index, 2,
             arith::ConstantIntOp::create(b, loc, type.getRank(), 32));
}

namespace {
/// `tensor_descriptor`: the `wrapper_tensor` of a buffer on the stack: data
/// at the view's first element, dtype, rank, and a sizes-then-strides array.
struct TensorDescriptorOpLowering : OpConversionPattern<TensorDescriptorOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TensorDescriptorOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value buffer = adaptor.getBuffer();
    auto type = cast<MemRefType>(buffer.getType());
    int64_t rank = type.getRank();
    Type i64 = b.getI64Type(), i8 = b.getI8Type();
    Type ptr = LLVM::LLVMPointerType::get(b.getContext());
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
    Value shape = i64Array(b, loc, 2 * rank);
    for (int64_t d = 0; d < rank; ++d) {
      storeI64(b, loc, shape, d,
               arith::IndexCastOp::create(b, loc, i64, metadata.getSizes()[d]));
      storeI64(
          b, loc, shape, rank + d,
          arith::IndexCastOp::create(b, loc, i64, metadata.getStrides()[d]));
    }
    Value offset = arith::IndexCastOp::create(b, loc, i64, metadata.getOffset())
                       .getResult();
    Value bytes = arith::MulIOp::create(
        b, loc, offset,
        arith::ConstantIntOp::create(
            b, loc, *getElementBytes(type.getElementType()), 64));
    Value data = LLVM::GEPOp::create(
        b, loc, ptr, i8, buildAlignedPointer(b, loc, metadata.getBaseBuffer()),
        ArrayRef<LLVM::GEPArg>{bytes});
    Value descriptor = descriptorArray(b, loc, 1);
    Value strides = LLVM::GEPOp::create(b, loc, ptr, i64, shape,
                                        ArrayRef<LLVM::GEPArg>{int32_t(rank)});
    storeField(b, loc, descriptor, 0, 0, data);
    storeDTypeAndRank(b, loc, descriptor, 0, type);
    storeField(b, loc, descriptor, 0, 3, shape);
    storeField(b, loc, descriptor, 0, 4, strides);
    b.replaceOp(op, descriptor);
    return success();
  }
};

/// `result_descriptors`: empty descriptors for results: data NULL, expected
/// sizes (-1 for dynamic ones).
struct ResultDescriptorsOpLowering : OpConversionPattern<ResultDescriptorsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ResultDescriptorsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    ArrayAttr types = op.getTypes();
    Type ptr = LLVM::LLVMPointerType::get(b.getContext());
    Value descriptors = descriptorArray(b, loc, types.size());
    for (auto [index, attr] : llvm::enumerate(types)) {
      auto type = cast<MemRefType>(cast<TypeAttr>(attr).getValue());
      int64_t rank = type.getRank();
      Value sizes = i64Array(b, loc, rank), strides = i64Array(b, loc, rank);
      for (int64_t d = 0; d < rank; ++d)
        storeI64(
            b, loc, sizes, d,
            arith::ConstantIntOp::create(
                b, loc, type.isDynamicDim(d) ? -1 : type.getDimSize(d), 64));
      storeField(b, loc, descriptors, index, 0,
                 LLVM::ZeroOp::create(b, loc, ptr));
      storeDTypeAndRank(b, loc, descriptors, index, type);
      storeField(b, loc, descriptors, index, 3, sizes);
      storeField(b, loc, descriptors, index, 4, strides);
    }
    b.replaceOp(op, descriptors);
    return success();
  }
};

/// `descriptor_buffer`: the buffer that a descriptor describes after a
/// functional shim filled it (contiguous, so only data and sizes are read).
struct DescriptorBufferOpLowering : OpConversionPattern<DescriptorBufferOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DescriptorBufferOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto type = getTypeConverter()->convertType<MemRefType>(op.getType());
    Value descriptors = adaptor.getDescriptors();
    int64_t index = op.getIndex();
    Type ptr = LLVM::LLVMPointerType::get(b.getContext());
    Type i64 = b.getI64Type();
    Value data = LLVM::LoadOp::create(
        b, loc, ptr, fieldAddress(b, loc, descriptors, index, 0));
    Value sizesArray = LLVM::LoadOp::create(
        b, loc, ptr, fieldAddress(b, loc, descriptors, index, 3));
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d)) {
        sizes.push_back(LLVM::ConstantOp::create(
            b, loc, i64, b.getI64IntegerAttr(type.getDimSize(d))));
        continue;
      }
      Value at = LLVM::GEPOp::create(b, loc, ptr, i64, sizesArray,
                                     ArrayRef<LLVM::GEPArg>{int32_t(d)});
      sizes.push_back(LLVM::LoadOp::create(b, loc, i64, at));
    }
    b.replaceOp(op, buildMemRefOnPointer(b, loc, data, type, sizes));
    return success();
  }
};

/// `check_status`: `wrapper_shim_check(status, callee)`, which jumps out of
/// the model run with the callee named when the status is an error.
struct CheckStatusOpLowering : HostLoweringPattern<CheckStatusOp> {
  using HostLoweringPattern::HostLoweringPattern;
  LogicalResult matchAndRewrite(CheckStatusOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Type ptr = LLVM::LLVMPointerType::get(b.getContext());
    func::FuncOp callee =
        state.function(b, "wrapper_shim_check", {b.getI32Type(), ptr});
    func::CallOp::create(
        b, op.getLoc(), callee,
        ValueRange{adaptor.getStatus(),
                   state.string(b, op.getLoc(), op.getCallee())});
    b.eraseOp(op);
    return success();
  }
};
} // namespace

void mlir::wrapper::populateWrapperExternABIToStandardPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    HostLoweringState &state) {
  MLIRContext *context = patterns.getContext();
  patterns.add<TensorDescriptorOpLowering, ResultDescriptorsOpLowering,
               DescriptorBufferOpLowering>(converter, context);
  patterns.add<CheckStatusOpLowering>(converter, context, state);
}
