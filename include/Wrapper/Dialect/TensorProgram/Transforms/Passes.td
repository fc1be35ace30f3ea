//===- Passes.td - tensor_program passes -------------------*- tablegen -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_TENSORPROGRAM_TRANSFORMS_PASSES_TD
#define WRAPPER_DIALECT_TENSORPROGRAM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TensorProgramDecomposePass : Pass<"tensor-program-decompose"> {
  let summary = "Expands composite ops into primitives";
  let description = [{
    Rewrites the composite ops of `tensor_program` into primitive ops that
    fusion and lowering understand:

    * `softmax(x, d)` into `e / sum(e, d)` with `e = exp(x - max(x, d))`
      (max-subtracted, so it never overflows);
    * `log_softmax(x, d)` into `(x - m) - log(sum(exp(x - m), d))`;
    * `layer_norm` into mean, centred variance (biased), `rsqrt(var + eps)`,
      and the optional affine weight and bias;
    * `rms_norm` into `x * rsqrt(mean(x * x) + eps)` and the optional weight;
    * `gelu` (exact: `0.5 * x * (1 + erf(x / sqrt(2)))` is kept as `gelu`
      because erf is not a primitive; the tanh form expands) and `silu` into
      `x * sigmoid(x)`;
    * `reduce_mean` over static dimensions into `reduce_sum / N`;
    * `linear(x, w, b)` into `matmul(x, permute(w)) + b`.

    Before:
    ```mlir
    %0 = tensor_program.softmax %x dim 1 : tensor<4x8xf32>
    ```
    After:
    ```mlir
    %m = tensor_program.reduce_max %x dims [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
    %c = tensor_program.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %e = tensor_program.exp %c : tensor<4x8xf32>
    %s = tensor_program.reduce_sum %e dims [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
    %0 = tensor_program.div %e, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    ```

    Ops inside `tensor_program.fused` regions are decomposed too. The pass
    never fails; ops it does not know are left alone.
  }];
  let options = [
    Option<"decomposeActivations", "activations", "bool", /*default=*/"true",
           "Also expand silu and tanh-approximated gelu into primitives">,
    Option<"decomposeLinear", "linear", "bool", /*default=*/"true",
           "Also expand linear into permute + matmul + add">
  ];
  let statistics = [
    Statistic<"numDecomposed", "decomposed", "Composite ops expanded">
  ];
}

#endif // WRAPPER_DIALECT_TENSORPROGRAM_TRANSFORMS_PASSES_TD
