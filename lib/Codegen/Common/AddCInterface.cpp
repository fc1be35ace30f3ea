//===- AddCInterface.cpp - C interface wrappers ---------------------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-add-c-interface.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERADDCINTERFACEPASS
#include "Wrapper/Codegen/Common/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
struct AddCInterfacePass
    : public wrapper::impl::WrapperAddCInterfacePassBase<AddCInterfacePass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                      UnitAttr::get(&getContext()));
  }
};
} // namespace
