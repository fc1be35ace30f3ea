//===- downstream-opt.cpp - a tool that links the Wrapper dialects --------===//
//
// Part of the Wrapper project.
//
// What another MLIR-based compiler does to use the dialects: register them
// with its own registry, next to its own dialects; and to experiment with
// fusion: register a fusion strategy of its own (docs/Fusion.md) and run
// --tensor-program-fuse{strategy=first-two} with it.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramDialect.h"
#include "Wrapper/Dialect/TensorProgram/Transforms/FusionStrategy.h"
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

using namespace mlir;
using namespace mlir::tensor_program;

namespace {
/// A downstream strategy: the first two fusible ops of each function in
/// one kernel, every other op alone. The shared checker refuses the pair
/// when it is not a legal group (a product with its producer, say).
struct FirstTwo : public FusionStrategy {
  LogicalResult propose(const FusionGraph &graph, const FusionOptions &,
                        FusionPlan &plan) override {
    if (graph.getOps().size() >= 2)
      plan.groups.push_back({graph.getOps()[0], graph.getOps()[1]});
    return success();
  }
};
} // namespace

int main(int argc, char **argv) {
  DialectRegistry registry;
  registry
      .insert<wrapper::WrapperDialect, TensorProgramDialect, func::FuncDialect,
              arith::ArithDialect, tensor::TensorDialect>();
  registerTensorProgramFusePass();
  registerFusionStrategy("first-two", "the first two ops of each function",
                         [] { return std::make_unique<FirstTwo>(); });
  return asMainReturnCode(MlirOptMain(
      argc, argv, "A downstream tool linking the Wrapper dialects\n",
      registry));
}
