//===- wrapper-opt.cpp - the Wrapper optimizer driver ---------------------===//
//
// Part of the Wrapper project.
//
// An mlir-opt style driver with the project's dialects and passes and the
// upstream dialects and passes its pipelines use.
//
//===----------------------------------------------------------------------===//

#include "ToolSupport.h"

#include "Wrapper/InitAll.h"

#include "ToolVersion.h"
#include "mlir/IR/DialectRegistry.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::wrapper::registerAllDialects(registry);
  mlir::wrapper::registerAllPasses();
  mlir::wrapper::addVersionPrinter();
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "Wrapper optimizer driver\n", registry);
  // Input nested deeper than the parser's stack allows, or on which an
  // upstream parser would crash, is refused up front (files only: standard
  // input is read once, by the driver).
  if (input != "-") {
    if (auto buffer = llvm::MemoryBuffer::getFile(input, /*IsText=*/true)) {
      if (std::optional<std::string> refused =
              mlir::wrapper::checkParsable((*buffer)->getBuffer())) {
        llvm::errs() << "wrapper-opt: error: " << input << ": " << *refused
                     << "\n";
        return 1;
      }
    }
  }
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, input, output, registry));
}
