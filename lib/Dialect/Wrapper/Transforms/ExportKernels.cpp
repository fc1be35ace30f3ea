//===- ExportKernels.cpp - the kernels of a module, alone -----------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPEREXPORTKERNELSPASS
#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper;

namespace {
struct WrapperExportKernelsPass
    : public wrapper::impl::WrapperExportKernelsPassBase<
          WrapperExportKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection tables;
    for (auto kernel : llvm::make_early_inc_range(module.getOps<KernelOp>())) {
      FunctionOpInterface impl = kernel.lookupImpl(tables);
      if (auto func = dyn_cast_or_null<func::FuncOp>(impl ? impl.getOperation()
                                                          : nullptr))
        func.setPublic();
      kernel.erase();
    }
    for (Operation &op : llvm::make_early_inc_range(*module.getBody()))
      if (isa<GraphOp, ConstantOp>(op))
        op.erase();
  }
};
} // namespace
