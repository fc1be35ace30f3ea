//===- WrapperToStandard.cpp - the host program to func and memref --------===//
//
// Part of the Wrapper project.
//
// --convert-wrapper-to-standard: checks the preconditions, then applies the
// host, device, debug and extern ABI patterns in one full conversion of the
// graphs, constants and functions holding wrapper ops.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Conversion/WrapperToStandard/WrapperToStandard.h"
#include "Wrapper/Conversion/Passes.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#define DEBUG_TYPE "convert-wrapper-to-standard"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_CONVERTWRAPPERTOSTANDARDPASS
#include "Wrapper/Conversion/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper;

/// Declares the runtime's profiling entry points.
static KernelProfiler declareProfiler(ModuleOp module) {
  KernelProfiler profiler;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto type = b.getFunctionType({b.getI64Type()}, {});
  profiler.begin =
      func::FuncOp::create(b, module.getLoc(), "wrapper_profile_begin", type);
  profiler.end =
      func::FuncOp::create(b, module.getLoc(), "wrapper_profile_end", type);
  profiler.bytes = func::FuncOp::create(
      b, module.getLoc(), "wrapper_profile_bytes",
      b.getFunctionType({b.getI64Type(), b.getI64Type()}, {}));
  profiler.begin.setPrivate();
  profiler.end.setPrivate();
  profiler.bytes.setPrivate();
  return profiler;
}

namespace {
struct ConvertWrapperToStandardPass
    : public wrapper::impl::ConvertWrapperToStandardPassBase<
          ConvertWrapperToStandardPass> {
  using ConvertWrapperToStandardPassBase::ConvertWrapperToStandardPassBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    HostLoweringState state(module);
    if (failed(checkWrapperToStandardPreconditions(module, profile,
                                                   externalConstants, state)))
      return signalPassFailure();
    std::optional<KernelProfiler> profiler;
    if (profile)
      profiler = declareProfiler(module);

    WrapperToStandardTypeConverter converter;
    RewritePatternSet patterns(context);
    populateWrapperToStandardStructuralPatterns(converter, patterns,
                                                markReleasable);
    populateWrapperToStandardHostPatterns(converter, patterns, state,
                                          profiler ? &*profiler : nullptr);
    populateWrapperToStandardDevicePatterns(converter, patterns);
    populateWrapperDebugToRuntimePatterns(converter, patterns, state);
    populateWrapperExternABIToStandardPatterns(converter, patterns, state);

    ConversionTarget target(*context);
    target.addIllegalDialect<WrapperDialect>();
    // Kernels are erased once no call refers to them.
    target.addLegalOp<KernelOp>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp func) {
      return converter.isSignatureLegal(func.getFunctionType()) &&
             converter.isLegal(&func.getBody());
    });
    target.markUnknownOpDynamicallyLegal([&](Operation *op) {
      return converter.isLegal(op) &&
             llvm::all_of(op->getRegions(), [&](Region &region) {
               return converter.isLegal(&region);
             });
    });
    if (failed(applyFullConversion(getWrapperToStandardRoots(module), target,
                                   std::move(patterns))))
      return signalPassFailure();

    if (profiler)
      module->setAttr("wrapper.profile_kernels",
                      ArrayAttr::get(context, profiler->names));
    for (auto kernel : llvm::make_early_inc_range(module.getOps<KernelOp>()))
      kernel.erase();
  }
};
} // namespace
