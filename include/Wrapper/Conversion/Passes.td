//===- Passes.td - conversion passes -----------------------*- tablegen -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_CONVERSION_PASSES_TD
#define WRAPPER_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTensorProgramToLinalgPass
    : Pass<"convert-tensor-program-to-linalg"> {
  let summary = "Lowers tensor_program ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Lowers every computing `tensor_program` op to upstream ops on tensors:

    * elementwise ops (with broadcasting folded into indexing maps) and
      `broadcast` into `linalg.generic` with parallel iterators;
    * reductions into `linalg.generic` with reduction iterators, filled with
      the reduction's identity; `argmax` carries value and index together;
    * `permute` into `linalg.transpose`, `reshape` into `tensor.reshape`,
      `slice` into `tensor.extract_slice`, `concat` into `tensor.concat`,
      `pad` into `tensor.pad`, `as_strided` into a gathering `linalg.generic`;
    * `matmul` into `linalg.matmul` (2-D f32) or a contraction
      `linalg.generic` (batch broadcasting, other element types),
      `batch_matmul` into `linalg.batch_matmul`;
    * `constant` into `arith.constant`, `full` into `linalg.fill`;
    * composites through the decomposition patterns, and `fused` regions by
      inlining their bodies.

    Arithmetic on `f16` and `bf16` is done in `f32` and rounded once at the
    end (reductions and contractions accumulate in `f32`), as Inductor does.
    Integer division rounds toward zero. A dynamic dimension is assumed not to
    broadcast (it is not 1 at run time unless its partner is 1 too).

    `tensor_program.extern` and `tensor_program.copy_back` have no linalg
    form; they are lowered by `--convert-tensor-program-to-wrapper`. Here they
    are reported as errors.

    Before:
    ```mlir
    %0 = tensor_program.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
    After:
    ```mlir
    %e = tensor.empty() : tensor<4x8xf32>
    %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d1)>,
                                          affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    } -> tensor<4x8xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"
  ];
}

#endif // WRAPPER_CONVERSION_PASSES_TD
