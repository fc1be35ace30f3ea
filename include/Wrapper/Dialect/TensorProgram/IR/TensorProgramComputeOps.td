//===- TensorProgramComputeOps.td - products, convolutions -*- tablegen -*-===//
//
// Part of the Wrapper project.
//
// Included by TensorProgramOps.td (one generated op list for the dialect).
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMCOMPUTEOPS_TD
#define WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMCOMPUTEOPS_TD

include "Wrapper/Dialect/TensorProgram/IR/TensorProgramDialect.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// The graph inputs that copy_back overwrites once the program has run.
def TP_InputMutation : Resource<"::mlir::tensor_program::InputMutationResource">;

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def TP_MatmulOp : TensorProgram_Op<"matmul", [
    Pure, InferTypeOpAdaptor, TP_ContractionTrait
  ]> {
  let summary = "Matrix product with broadcast batch dimensions";
  let description = [{
    `torch.matmul` for operands of rank 2 or more: `[..., M, K] x [..., K, N]
    -> [..., M, N]`, with the leading (batch) dimensions broadcast. Both
    operands share an element type.

    ```mlir
    %0 = tensor_program.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
    %1 = tensor_program.matmul %q, %k
        : (tensor<2x4x16x8xf32>, tensor<4x8x16xf32>) -> tensor<2x4x16x16xf32>
    ```

    Canonicalization: an operand that is a `broadcast` adding only leading
    dimensions to a matrix (the same matrix for every batch element, as
    `aten.matmul`'s `expand` + `bmm` gives for a linear layer on a
    non-contiguous input) is replaced by the matrix itself when the result
    keeps its type: the product then reads the matrix once instead of a
    copy per batch element.
  }];
  let arguments = (ins TP_Tensor:$lhs, TP_Tensor:$rhs);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasCanonicalizer = 1;
}

def TP_BatchMatmulOp : TensorProgram_Op<"batch_matmul", [
    Pure, InferTypeOpAdaptor, TP_ContractionTrait
  ]> {
  let summary = "Batched matrix product (bmm)";
  let description = [{
    `torch.bmm`: `[B, M, K] x [B, K, N] -> [B, M, N]`, no broadcasting.

    ```mlir
    %0 = tensor_program.batch_matmul %a, %b
        : (tensor<2x4x8xf32>, tensor<2x8x3xf32>) -> tensor<2x4x3xf32>
    ```

    Canonicalization: with an operand that is a matrix broadcast over the
    batch, a `matmul` of the other operand by the matrix (see `matmul`).
  }];
  let arguments = (ins TP_Tensor:$lhs, TP_Tensor:$rhs);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasCanonicalizer = 1;
}

def TP_LinearOp : TensorProgram_Op<"linear", [
    Pure, InferTypeOpAdaptor, TP_ContractionTrait,
    TP_CompositeTrait
  ]> {
  let summary = "Linear layer: x W^T + b";
  let description = [{
    `torch.nn.functional.linear`: `input [..., K]`, `weight [N, K]` (PyTorch's
    layout) and an optional `bias [N]` give `[..., N]`.

    ```mlir
    %0 = tensor_program.linear %x, %w bias %b
        : (tensor<?x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<?x16xf32>
    %1 = tensor_program.linear %x, %w : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins TP_Tensor:$input, TP_Tensor:$weight,
                       Optional<TP_Tensor>:$bias);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`bias` $bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Composites
//===----------------------------------------------------------------------===//

class TP_SoftmaxLikeOp<string mnemonic, string summaryText, string formula>
    : TensorProgram_Op<mnemonic, [
        Pure, InferTypeOpAdaptor, TP_CompositeTrait]> {
  let summary = summaryText;
  let description = !strconcat(
      formula, " along `dim`. A composite: `--tensor-program-decompose` ",
      "expands it into max-subtracted primitives.\n\n```mlir\n",
      "%0 = tensor_program.", mnemonic, " %x dim 1 : tensor<4x8xf32>\n```");
  let arguments = (ins TP_FloatTensor:$input, I64Attr:$dim);
  let results = (outs TP_FloatTensor:$result);
  let assemblyFormat = "$input `dim` $dim attr-dict `:` type($input)";
}

def TP_SoftmaxOp : TP_SoftmaxLikeOp<"softmax", "Softmax",
    "`exp(x - max(x)) / sum(exp(x - max(x)))`">;
def TP_LogSoftmaxOp : TP_SoftmaxLikeOp<"log_softmax", "Log-softmax",
    "`x - max(x) - log(sum(exp(x - max(x))))`">;

def TP_LayerNormOp : TensorProgram_Op<"layer_norm", [
    Pure, InferTypeOpAdaptor, AttrSizedOperandSegments, TP_CompositeTrait
  ]> {
  let summary = "Layer normalization over the trailing dimensions";
  let description = [{
    `torch.nn.functional.layer_norm` over the last `normalized_rank`
    dimensions: `(x - mean) / sqrt(var + eps) * weight + bias` with the biased
    variance. `weight` and `bias` are optional and shaped like the normalized
    dimensions.

    ```mlir
    %0 = tensor_program.layer_norm %x weight %w bias %b normalized_rank 1 eps 1.0e-05
        : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins TP_FloatTensor:$input, Optional<TP_FloatTensor>:$weight,
                       Optional<TP_FloatTensor>:$bias,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$normalized_rank,
                       F64Attr:$eps);
  let results = (outs TP_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? `normalized_rank`
    $normalized_rank `eps` $eps attr-dict `:` functional-type(operands, results)
  }];
}

def TP_RmsNormOp : TensorProgram_Op<"rms_norm", [
    Pure, InferTypeOpAdaptor, TP_CompositeTrait
  ]> {
  let summary = "RMS normalization over the last dimension";
  let description = [{
    `x / sqrt(mean(x^2, last dim) + eps) * weight`, as
    `torch.nn.functional.rms_norm` over the last dimension; `weight` is
    optional and shaped like the last dimension.

    ```mlir
    %0 = tensor_program.rms_norm %x weight %w eps 1.0e-06
        : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins TP_FloatTensor:$input, Optional<TP_FloatTensor>:$weight,
                       F64Attr:$eps);
  let results = (outs TP_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? `eps` $eps attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Extern kernels and input mutation
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

def TP_ConvolutionOp : TensorProgram_Op<"convolution", [
    Pure, InferTypeOpAdaptor
  ]> {
  let summary = "N-d convolution with groups, stride and dilation";
  let description = [{
    `aten.convolution` without padding (an importer pads the input with
    `tensor_program.pad` first; a transposed convolution becomes a direct
    one on a zero-interleaved input with a flipped kernel): `input`
    `[N, C, D1..Dk]`, `weight` `[F, C / groups, K1..Kk]`, optional `bias`
    `[F]`, result `[N, F, O1..Ok]` with
    `Oi = (Di - dilation_i * (Ki - 1) - 1) / stride_i + 1`.
    `result[n, f, o...] = bias[f] + sum over c, k... of
    input[n, g * C/groups + c, o * stride + k * dilation] * weight[f, c, k...]`
    where `g = f / (F / groups)`.

    ```mlir
    %0 = tensor_program.convolution %x, %w bias %b stride [2, 2] dilation [1, 1] groups 1
        : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x7x7xf32>
    ```
  }];
  let arguments = (ins TP_FloatTensor:$input, TP_FloatTensor:$weight,
                       Optional<TP_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$dilation,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$groups);
  let results = (outs TP_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`bias` $bias^)? `stride` $stride `dilation` $dilation
    `groups` $groups attr-dict `:` functional-type(operands, results)
  }];
}

def TP_MaxPoolOp : TensorProgram_Op<"max_pool", [
    Pure, InferTypeOpAdaptor
  ]> {
  let summary = "Max pooling over the trailing dimensions";
  let description = [{
    The maximum of each window over the last `k = size(window)` dimensions
    (the leading ones are batch and channels), as `max_pool{1,2,3}d`:
    the input is padded by `padding_low`/`padding_high` with the smallest
    value (so padding never wins), then windows of `window` elements spaced
    `dilation` apart start every `stride` elements:
    `O = (D + low + high - dilation * (K - 1) - 1) / stride + 1`. PyTorch's
    `ceil_mode` is extra high padding. NaN propagates.

    ```mlir
    %0 = tensor_program.max_pool %x window [3, 3] stride [2, 2] dilation [1, 1]
        padding_low [1, 1] padding_high [1, 1] : tensor<1x8x16x16xf32> -> tensor<1x8x8x8xf32>
    ```
  }];
  let arguments = (ins TP_Tensor:$input, DenseI64ArrayAttr:$window,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$dilation,
                       DenseI64ArrayAttr:$padding_low,
                       DenseI64ArrayAttr:$padding_high);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    $input `window` $window `stride` $stride `dilation` $dilation
    `padding_low` $padding_low `padding_high` $padding_high attr-dict `:`
    type($input) `->` type($result)
  }];
}

def TP_AvgPoolOp : TensorProgram_Op<"avg_pool", [
    Pure, InferTypeOpAdaptor
  ]> {
  let summary = "Average pooling over the trailing dimensions";
  let description = [{
    The mean of each window over the last `k = size(window)` dimensions, as
    `avg_pool{1,2,3}d` (windows and output size as `max_pool`, without
    dilation; padding adds zeros). The divisor of each window is `divisor`
    when given (`divisor_override`); else, with `count_padding [p...]`
    (`count_include_pad`), the number of the window's positions inside the
    input padded by `p` on each side (padding counts, the `ceil_mode`
    overhang does not); else the number of positions inside the input.

    ```mlir
    %0 = tensor_program.avg_pool %x window [2, 2] stride [2, 2]
        padding_low [0, 0] padding_high [0, 0] : tensor<1x8x16x16xf32> -> tensor<1x8x8x8xf32>
    %1 = tensor_program.avg_pool %x window [3, 3] stride [1, 1]
        padding_low [1, 1] padding_high [1, 1] count_padding [1, 1]
        : tensor<1x8x16x16xf32> -> tensor<1x8x16x16xf32>
    ```
  }];
  let arguments = (ins TP_FloatTensor:$input, DenseI64ArrayAttr:$window,
                       DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding_low,
                       DenseI64ArrayAttr:$padding_high,
                       OptionalAttr<DenseI64ArrayAttr>:$count_padding,
                       OptionalAttr<I64Attr>:$divisor);
  let results = (outs TP_FloatTensor:$result);
  let assemblyFormat = [{
    $input `window` $window `stride` $stride `padding_low` $padding_low
    `padding_high` $padding_high (`count_padding` $count_padding^)?
    (`divisor` $divisor^)? attr-dict `:` type($input) `->` type($result)
  }];
}

def TP_ExternOp : TensorProgram_Op<"extern"> {
  let summary = "Calls a library kernel by name";
  let description = [{
    A call of a library ("extern") kernel that is not compiled but called,
    such as `aten::convolution` or `aten::topk`. `callee` is the operator
    name; `args` holds its compile-time non-tensor arguments by schema name;
    the optional `schema` is the operator's PyTorch schema string. Tensor and
    scalar operands are passed positionally. The call is assumed to have no
    side effects beyond its results.

    ```mlir
    %values, %indices = tensor_program.extern "aten::topk"(%x) args {k = 2 : i64}
        schema "topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)"
        : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
    ```
  }];
  let arguments = (ins StrAttr:$callee, Variadic<AnyType>:$inputs,
                       OptionalAttr<DictionaryAttr>:$args,
                       OptionalAttr<StrAttr>:$schema);
  let results = (outs Variadic<TP_Tensor>:$results);
  let assemblyFormat = [{
    $callee `(` $inputs `)` (`args` $args^)? (`schema` $schema^)? attr-dict
    `:` functional-type($inputs, $results)
  }];
  let hasVerifier = 1;
}

def TP_CopyBackOp : TensorProgram_Op<"copy_back", [
    AllTypesMatch<["value", "target"]>,
    MemoryEffects<[MemWrite<TP_InputMutation>]>
  ]> {
  let summary = "Writes a value back into a graph input (input mutation)";
  let description = [{
    Graph-level input mutation in functional form, as AOTAutograd's
    functionalization produces it: the program computes the new value of an
    input functionally, and `copy_back` says that once the program has run,
    the input `target` (an argument of the enclosing function) holds `value`.
    Each input is written back at most once.

    ```mlir
    func.func @step(%state: tensor<4xf32>, %delta: tensor<4xf32>) {
      %0 = tensor_program.add %state, %delta : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      tensor_program.copy_back %0 to %state : tensor<4xf32>
      return
    }
    ```
  }];
  let arguments = (ins TP_Tensor:$value, TP_Tensor:$target);
  let assemblyFormat = "$value `to` $target attr-dict `:` type($value)";
  let hasVerifier = 1;
}

#endif // WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMCOMPUTEOPS_TD
