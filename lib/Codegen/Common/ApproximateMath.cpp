//===- ApproximateMath.cpp - polynomial approximations of math ops --------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "wrapper-approximate-math"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERAPPROXIMATEMATHPASS
#include "Wrapper/Codegen/Common/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
struct WrapperApproximateMathPass
    : public wrapper::impl::WrapperApproximateMathPassBase<
          WrapperApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Ops with approximations in terms of others come first (tanh via exp,
    // ...); the predicate names the ops to rewrite.
    // Not rsqrt: its approximation is for 8-lane AVX2 vectors only, built
    // of x86vector ops (other vector shapes crash upstream's pattern), and
    // LLVM lowers math.rsqrt as 1/sqrt, exact and vectorized.
    auto all = [](StringRef name) {
      return name != "rsqrt" && name != math::RsqrtOp::getOperationName();
    };
    populateMathF32ExpansionPatterns(patterns, all);
    populateMathPolynomialApproximationPatterns(patterns, all);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
