//===- Registration.cpp - mlir-translate registration of --wrapper-to-cpp -===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/InitAll.h"
#include "Wrapper/Target/Cpp/WrapperToCpp.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"

using namespace mlir;

void mlir::wrapper::registerWrapperToCppTranslation() {
  auto dialects = [](DialectRegistry &registry) {
    registerAllDialects(registry);
    registry.insert<emitc::EmitCDialect>();
  };
  TranslateFromMLIRRegistration toCpp(
      "wrapper-to-cpp",
      "Translate the host graphs of a wrapper module to C++ (kernels are "
      "declared extern \"C\")",
      [](Operation *op, raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("expected a module");
        return translateWrapperToCpp(module, os, /*emitMain=*/false);
      },
      dialects);
  TranslateFromMLIRRegistration toCppMain(
      "wrapper-to-cpp-main",
      "Like --wrapper-to-cpp, plus a main() that runs the module's graph on "
      ".npy files",
      [](Operation *op, raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("expected a module");
        return translateWrapperToCpp(module, os, /*emitMain=*/true);
      },
      dialects);
}
