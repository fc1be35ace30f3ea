//===- MemRefDescriptors.cpp - memrefs on raw pointers --------------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Utils/MemRefDescriptors.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

Value mlir::wrapper::buildMemRefOnPointer(OpBuilder &b, Location loc,
                                          Value pointer, MemRefType type,
                                          ValueRange sizes) {
  MLIRContext *context = b.getContext();
  Type i64 = b.getI64Type();
  Type ptr = LLVM::LLVMPointerType::get(context);
  int64_t rank = type.getRank();
  SmallVector<Type> fields = {ptr, ptr, i64};
  if (rank > 0) {
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
  }
  auto structType = LLVM::LLVMStructType::getLiteral(context, fields);
  Value descriptor = LLVM::PoisonOp::create(b, loc, structType);
  auto insert = [&](Value value, ArrayRef<int64_t> position) {
    descriptor =
        LLVM::InsertValueOp::create(b, loc, descriptor, value, position);
  };
  auto constant = [&](int64_t value) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(value));
  };
  insert(pointer, {0});
  insert(pointer, {1});
  insert(constant(0), {2});
  Value stride = constant(1);
  for (int64_t d = rank - 1; d >= 0; --d) {
    Value size = sizes.empty() ? constant(type.getDimSize(d)) : sizes[d];
    insert(size, {3, d});
    insert(stride, {4, d});
    if (d > 0)
      stride = LLVM::MulOp::create(b, loc, stride, size);
  }
  return UnrealizedConversionCastOp::create(b, loc, type, descriptor)
      .getResult(0);
}

Value mlir::wrapper::buildAlignedPointer(OpBuilder &b, Location loc,
                                         Value memref) {
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value address =
      arith::IndexCastOp::create(b, loc, b.getI64Type(), index).getResult();
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), address);
}
