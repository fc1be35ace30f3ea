//===- NameKernels.cpp - kernels named after their modules ----------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-cuda-name-kernels: after outlining, the kernel of
// each gpu.module takes the module's (unique) name.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERCUDANAMEKERNELSPASS
#include "Wrapper/Codegen/CUDA/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
struct NameKernelsPass
    : public wrapper::impl::WrapperCUDANameKernelsPassBase<NameKernelsPass> {
  void runOnOperation() override {
    // The new reference of each renamed kernel, by its old one.
    llvm::DenseMap<Attribute, SymbolRefAttr> renamed;
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>()) {
      auto kernels = llvm::to_vector(llvm::make_filter_range(
          module.getOps<gpu::GPUFuncOp>(),
          [](gpu::GPUFuncOp func) { return func.isKernel(); }));
      StringAttr name = module.getSymNameAttr();
      if (kernels.size() != 1 || kernels.front().getNameAttr() == name)
        continue;
      gpu::GPUFuncOp kernel = kernels.front();
      // The module's own symbol table must not hold the name already.
      if (SymbolTable::lookupSymbolIn(module, name))
        continue;
      auto from = SymbolRefAttr::get(
          name, {FlatSymbolRefAttr::get(kernel.getNameAttr())});
      auto to = SymbolRefAttr::get(name, {FlatSymbolRefAttr::get(name)});
      SymbolTable::setSymbolName(kernel, name);
      renamed[from] = to;
    }
    if (renamed.empty())
      return;
    getOperation().walk([&](gpu::LaunchFuncOp launch) {
      if (SymbolRefAttr to = renamed.lookup(launch.getKernel()))
        launch.setKernelAttr(to);
    });
  }
};
} // namespace
