//===- WrapperToCpp.h - wrapper host graphs as C++ --------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_TARGET_CPP_WRAPPERTOCPP_H
#define WRAPPER_TARGET_CPP_WRAPPERTOCPP_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/LLVM.h"

#include <functional>

namespace mlir {
namespace wrapper {

/// Prints the host graphs of `module` as C++ that calls
/// Wrapper/Runtime/WrapperHost.hpp and the kernels' `_mlir_ciface_`
/// functions (built through EmitC and upstream's C++ emitter). With
/// `emitMain`, adds a main() that runs the module's single graph on .npy
/// files. Fails with diagnostics on ops and types it cannot express.
LogicalResult translateWrapperToCpp(ModuleOp module, raw_ostream &os,
                                    bool emitMain = false);

/// Registers `--wrapper-to-cpp` and `--wrapper-to-cpp-main` with
/// mlir-translate's registry. The translations load the dialects they read
/// and write (wrapper, tensor_program, func, arith, memref, emitc);
/// `registerDialects` adds the ones the input's kernels use (a tool passes
/// its full set, as wrapper-translate passes registerAllDialects).
void registerWrapperToCppTranslation(
    std::function<void(DialectRegistry &)> registerDialects = nullptr);

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_TARGET_CPP_WRAPPERTOCPP_H
