//===- InitAll.cpp - register everything Wrapper provides -----------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/InitAll.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramDialect.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void mlir::wrapper::registerWrapperDialects(DialectRegistry &registry) {
  registry.insert<wrapper::WrapperDialect, tensor_program::TensorProgramDialect>();
}

void mlir::wrapper::registerAllDialects(DialectRegistry &registry) {
  registerWrapperDialects(registry);
  registry.insert<arith::ArithDialect, bufferization::BufferizationDialect,
                  func::FuncDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                  linalg::LinalgDialect, math::MathDialect,
                  memref::MemRefDialect, scf::SCFDialect,
                  tensor::TensorDialect, vector::VectorDialect>();
}

void mlir::wrapper::registerAllPasses() {
  // Upstream passes that lit tests and pipelines use on their own.
  registerTransformsPasses();
}
