//===- SynthesizeExternVariants.cpp - out=/in-place from functional -------===//
//
// Part of the Wrapper project.
//
// Where a wrapper.extern_out needs an out= or in-place variant that the
// library does not implement, builds it from the functional kernel: a
// private function that calls it, checks the result's shape, copies the
// result into the destination and frees it.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h"

#include "Wrapper/Extern/Registry.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

#include "mlir/IR/Verifier.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERSYNTHESIZEEXTERNVARIANTSPASS
#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;
using namespace mlir::wrapper;

namespace {
struct WrapperSynthesizeExternVariantsPass
    : public wrapper::impl::WrapperSynthesizeExternVariantsPassBase<
          WrapperSynthesizeExternVariantsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // One function per kernel, variant, operand types and arguments.
    llvm::StringMap<func::FuncOp> made;
    SmallVector<ExternOutOp> calls;
    module.walk([&](ExternOutOp op) { calls.push_back(op); });
    for (ExternOutOp op : calls) {
      ExternVariant variant;
      const ExternKernel *kernel =
          ExternRegistry::get().lookup(op.getCallee(), &variant);
      if (!kernel)
        continue;
      bool inPlace = variant == ExternVariant::InPlace;
      // A variant the library implements wins.
      if (inPlace ? kernel->inPlace : kernel->out)
        continue;
      if (!kernel->functional) {
        op.emitOpError() << "needs the " << (inPlace ? "in-place" : "out=")
                         << " variant of '" << kernel->schema.qualifiedName()
                         << "', and the library implements neither it nor "
                            "the functional form";
        return signalPassFailure();
      }
      OpBuilder b(op);
      auto type = b.getFunctionType(op->getOperandTypes(), {});
      std::string qualified = kernel->schema.ns + "::" + kernel->schema.name;
      std::string key;
      llvm::raw_string_ostream os(key);
      os << qualified << (inPlace ? "_" : ".out") << ' ' << type << ' '
         << op.getArgsAttr();
      func::FuncOp &function = made[key];
      if (!function) {
        function = synthesize(op, *kernel, qualified, inPlace, type, symbols);
        if (!function)
          return signalPassFailure();
      }
      func::CallOp::create(b, op.getLoc(), function, op->getOperands());
      op.erase();
    }
  }

  /// Builds the function for calls like `op`.
  func::FuncOp synthesize(ExternOutOp op, const ExternKernel &kernel,
                          StringRef qualified, bool inPlace, FunctionType type,
                          SymbolTable &symbols) {
    ModuleOp module = getOperation();
    Location loc = op.getLoc();
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    std::string name = "__wrapper_synth_" + kernel.schema.name +
                       (inPlace ? "_inplace" : "_out");
    auto function = func::FuncOp::create(b, loc, name, type);
    function.setPrivate();
    function->setAttr("wrapper.synthesized_from", b.getStringAttr(qualified));
    symbols.insert(function); // renames on a clash: _0, _1, ...
    Block *entry = function.addEntryBlock();
    b.setInsertionPointToStart(entry);

    unsigned numInputs = op.getInputs().size();
    ValueRange args = entry->getArguments();
    ValueRange inputs = args.take_front(numInputs);
    ValueRange outputs = args.drop_front(numInputs);
    // The functional call: in place, `self` (the output) comes first.
    SmallVector<Value> callInputs;
    if (inPlace)
      callInputs.push_back(outputs.front());
    llvm::append_range(callInputs, inputs);
    SmallVector<Type> resultTypes;
    for (Value output : outputs) {
      auto outType = cast<MemRefType>(output.getType());
      resultTypes.push_back(MemRefType::get(
          outType.getShape(), outType.getElementType(),
          MemRefLayoutAttrInterface(), outType.getMemorySpace()));
    }
    auto call =
        ExternAllocOp::create(b, loc, resultTypes, b.getStringAttr(qualified),
                              callInputs, op.getArgsAttr());
    if (failed(mlir::verify(call))) {
      function.erase();
      return {};
    }
    for (auto [index, pair] :
         llvm::enumerate(llvm::zip(call.getResults(), outputs))) {
      auto [result, output] = pair;
      auto outType = cast<MemRefType>(output.getType());
      // Static sizes are the result type's, which the shim checks; dynamic
      // ones are compared here.
      for (int64_t d = 0; d < outType.getRank(); ++d) {
        if (!outType.isDynamicDim(d))
          continue;
        Value got = memref::DimOp::create(b, loc, result, d);
        Value want = memref::DimOp::create(b, loc, output, d);
        Value same =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, got, want);
        cf::AssertOp::create(b, loc, same,
                             (qualified + (inPlace ? "_" : ".out") +
                              ": result #" + std::to_string(index) +
                              " differs from the destination in size " +
                              std::to_string(d))
                                 .str());
      }
      memref::CopyOp::create(b, loc, result, output);
      FreeOp::create(b, loc, result);
    }
    func::ReturnOp::create(b, loc);
    return function;
  }
};
} // namespace
