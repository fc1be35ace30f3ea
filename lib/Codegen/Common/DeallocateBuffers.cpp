//===- DeallocateBuffers.cpp - deallocation of what a function allocates --===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-deallocate-buffers.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/Common/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERDEALLOCATEBUFFERSPASS
#include "Wrapper/Codegen/Common/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

/// The per-function part of upstream's buffer-deallocation-pipeline:
/// ownership-based deallocation with its preparation and simplification.
static OpPassManager buildFunctionDeallocation() {
  OpPassManager pm(func::FuncOp::getOperationName());
  pm.addPass(memref::createExpandReallocPass(
      memref::ExpandReallocPassOptions{/*emitDeallocs=*/false}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
  return pm;
}

/// The module-level rest: bufferization.dealloc to memref.dealloc (with the
/// helper function the general case calls, which only a module can hold),
/// then the cleanups.
static OpPassManager buildModuleDeallocation() {
  OpPassManager pm(ModuleOp::getOperationName());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  pm.addNestedPass<func::FuncOp>(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  return pm;
}

/// Whether `function` frees buffers itself.
static bool freesBuffersItself(func::FuncOp function) {
  return function
      ->walk([](memref::DeallocOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

namespace {
struct DeallocateBuffersPass
    : public wrapper::impl::WrapperDeallocateBuffersPassBase<
          DeallocateBuffersPass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    buildFunctionDeallocation().getDependentDialects(registry);
    buildModuleDeallocation().getDependentDialects(registry);
  }

  LogicalResult initialize(MLIRContext *context) override {
    perFunction = buildFunctionDeallocation();
    perModule = buildModuleDeallocation();
    return success();
  }

  void runOnOperation() override {
    SmallVector<func::FuncOp> functions;
    for (auto function : getOperation().getOps<func::FuncOp>())
      if (!function.isExternal() && !freesBuffersItself(function))
        functions.push_back(function);
    for (func::FuncOp function : functions)
      if (failed(runPipeline(perFunction, function)))
        return signalPassFailure();
    if (failed(runPipeline(perModule, getOperation())))
      signalPassFailure();
  }

  OpPassManager perFunction, perModule;
};
} // namespace
