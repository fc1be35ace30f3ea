//===- Passes.td - project-wide passes ---------------------*- tablegen -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_TRANSFORMS_PASSES_TD
#define WRAPPER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def WrapperApproximateMathPass : Pass<"wrapper-approximate-math"> {
  let summary = "Replaces transcendental math ops with polynomial approximations";
  let description = [{
    Rewrites `math.exp`, `math.expm1`, `math.log`, `math.log1p`, `math.log2`,
    `math.tanh`, `math.erf`, `math.sin`, `math.cos`, `math.atan`,
    `math.atan2`, `math.asin`, `math.acos` and `math.cbrt` on f32 (and
    vectors of f32) into the polynomial approximations of MLIR's math
    dialect: straight-line arithmetic that LLVM vectorizes, instead of
    scalar libm calls. The approximations are accurate to a few ulp in f32
    (erf to about 1e-7 absolute).

    Before:
    ```mlir
    %y = math.exp %x : f32
    ```
    After: a range reduction and a polynomial in `arith` ops.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // WRAPPER_TRANSFORMS_PASSES_TD
