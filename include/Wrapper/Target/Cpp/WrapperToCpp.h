//===- WrapperToCpp.h - wrapper host graphs as C++ --------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_TARGET_CPP_WRAPPERTOCPP_H
#define WRAPPER_TARGET_CPP_WRAPPERTOCPP_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

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
/// mlir-translate's registry.
void registerWrapperToCppTranslation();

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_TARGET_CPP_WRAPPERTOCPP_H
