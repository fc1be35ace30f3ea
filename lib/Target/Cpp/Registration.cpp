//===- Registration.cpp - mlir-translate registration of --wrapper-to-cpp -===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Target/Cpp/WrapperToCpp.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramDialect.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"

using namespace mlir;

void mlir::wrapper::registerWrapperToCppTranslation(
    std::function<void(DialectRegistry &)> registerDialects) {
  auto dialects = [registerDialects](DialectRegistry &registry) {
    registry
        .insert<wrapper::WrapperDialect, tensor_program::TensorProgramDialect,
                arith::ArithDialect, emitc::EmitCDialect, func::FuncDialect,
                memref::MemRefDialect>();
    if (registerDialects)
      registerDialects(registry);
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
