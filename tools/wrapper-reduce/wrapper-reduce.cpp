//===- wrapper-reduce.cpp - the test case reducer -------------------------===//
//
// Part of the Wrapper project.
//
// mlir-reduce with the project's dialects and passes: shrinks a module while
// an interestingness script still succeeds on it (scripts/reduce-program.sh
// drives it for the differential test's failures).
//
//===----------------------------------------------------------------------===//

#include "Wrapper/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Tools/mlir-reduce/MlirReduceMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::wrapper::registerAllDialects(registry);
  mlir::wrapper::registerAllPasses();
  mlir::MLIRContext context(registry);
  return mlir::failed(mlir::mlirReduceMain(argc, argv, context));
}
