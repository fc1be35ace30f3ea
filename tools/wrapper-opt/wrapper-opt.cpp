//===- wrapper-opt.cpp - the Wrapper optimizer driver ---------------------===//
//
// Part of the Wrapper project.
//
// An mlir-opt style driver with the project's dialects and passes and the
// upstream dialects and passes its pipelines use.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::wrapper::registerAllDialects(registry);
  mlir::wrapper::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Wrapper optimizer driver\n", registry));
}
