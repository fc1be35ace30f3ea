//===- wrapper-translate.cpp - translations out of MLIR -------------------===//
//
// Part of the Wrapper project.
//
// wrapper-translate --wrapper-to-cpp module.mlir -o host.cpp: the host
// graphs as C++ (see docs/Tools.md), plus upstream's translations.
//
//===----------------------------------------------------------------------===//

#include "ToolVersion.h"

#include "Wrapper/InitAll.h"
#include "Wrapper/Target/Cpp/WrapperToCpp.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::wrapper::addVersionPrinter();
  mlir::wrapper::registerWrapperToCppTranslation(
      [](mlir::DialectRegistry &registry) {
        mlir::wrapper::registerAllDialects(registry);
      });
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "Wrapper translation driver"));
}
