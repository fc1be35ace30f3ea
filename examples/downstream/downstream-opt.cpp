//===- downstream-opt.cpp - a tool that links the Wrapper dialects --------===//
//
// Part of the Wrapper project.
//
// What another MLIR-based compiler does to use the dialects: register them
// with its own registry, next to its own dialects.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramDialect.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::wrapper::WrapperDialect,
                  mlir::tensor_program::TensorProgramDialect,
                  mlir::func::FuncDialect>();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "A downstream tool linking the Wrapper dialects\n",
      registry));
}
