//===- TensorProgramOps.td - tensor_program operations -----*- tablegen -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMOPS_TD
#define WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMOPS_TD

include "Wrapper/Dialect/TensorProgram/IR/TensorProgramDialect.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// The graph inputs that copy_back overwrites once the program has run.
def TP_InputMutation : Resource<"::mlir::tensor_program::InputMutationResource">;

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

class TP_BinaryOp<string mnemonic, string summaryText, string example,
                  Type operandType = TP_Tensor, list<Trait> traits = []>
    : TensorProgram_Op<mnemonic, !listconcat(traits, [
        Pure, InferTypeOpAdaptor, TP_ElementwiseTrait])> {
  let summary = summaryText;
  let description = !strconcat(
      "Elementwise `", mnemonic, "` with NumPy broadcasting: shapes are ",
      "aligned from the trailing dimension; a dimension of size 1 stretches ",
      "to the other operand's size. Both operands have the same element ",
      "type.\n\n```mlir\n", example, "\n```");
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs operandType:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def TP_AddOp : TP_BinaryOp<"add", "Elementwise addition",
    "%0 = tensor_program.add %a, %b : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x8xf32>",
    TP_Tensor, [Commutative]> {
  let hasFolder = 1;
}
def TP_SubOp : TP_BinaryOp<"sub", "Elementwise subtraction",
    "%0 = tensor_program.sub %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>"> {
  let hasFolder = 1;
}
def TP_MulOp : TP_BinaryOp<"mul", "Elementwise multiplication",
    "%0 = tensor_program.mul %a, %b : (tensor<?x8xf32>, tensor<f32>) -> tensor<?x8xf32>",
    TP_Tensor, [Commutative]> {
  let hasFolder = 1;
}
def TP_DivOp : TP_BinaryOp<"div", "Elementwise division",
    "%0 = tensor_program.div %a, %b : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>"> {
  let hasFolder = 1;
}
def TP_MaxOp : TP_BinaryOp<"max", "Elementwise maximum (torch.maximum)",
    "%0 = tensor_program.max %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>",
    TP_Tensor, [Commutative]>;
def TP_MinOp : TP_BinaryOp<"min", "Elementwise minimum (torch.minimum)",
    "%0 = tensor_program.min %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>",
    TP_Tensor, [Commutative]>;
def TP_PowOp : TP_BinaryOp<"pow", "Elementwise power",
    "%0 = tensor_program.pow %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>",
    TP_FloatTensor>;

class TP_UnaryOp<string mnemonic, string summaryText, string formula,
                 Type operandType = TP_FloatTensor, list<Trait> traits = []>
    : TensorProgram_Op<mnemonic, !listconcat(traits, [
        Pure, SameOperandsAndResultType, TP_ElementwiseTrait])> {
  let summary = summaryText;
  let description = !strconcat(
      "Elementwise `", mnemonic, "`: ", formula, ". The result has the ",
      "operand's type.\n\n```mlir\n%0 = tensor_program.", mnemonic,
      " %x : tensor<4x?xf32>\n```");
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def TP_NegOp : TP_UnaryOp<"neg", "Elementwise negation", "`-x`", TP_Tensor> {
  let hasFolder = 1;
}
def TP_AbsOp : TP_UnaryOp<"abs", "Elementwise absolute value", "`|x|`", TP_Tensor>;
def TP_ExpOp : TP_UnaryOp<"exp", "Elementwise exponential", "`e^x`">;
def TP_LogOp : TP_UnaryOp<"log", "Elementwise natural logarithm", "`ln(x)`">;
def TP_SqrtOp : TP_UnaryOp<"sqrt", "Elementwise square root", "`sqrt(x)`">;
def TP_RsqrtOp : TP_UnaryOp<"rsqrt", "Elementwise reciprocal square root",
                            "`1 / sqrt(x)`">;
def TP_TanhOp : TP_UnaryOp<"tanh", "Elementwise hyperbolic tangent", "`tanh(x)`">;
def TP_ErfOp : TP_UnaryOp<"erf", "Elementwise error function", "`erf(x)`">;
def TP_SigmoidOp : TP_UnaryOp<"sigmoid", "Elementwise logistic sigmoid",
                              "`1 / (1 + e^-x)`">;
def TP_ReluOp : TP_UnaryOp<"relu", "Elementwise rectified linear unit",
                           "`max(x, 0)`", TP_Tensor>;
def TP_SiluOp : TP_UnaryOp<"silu", "Elementwise SiLU (swish)",
                           "`x * sigmoid(x)`">;

// Transcendental and rounding functions of the math dialect.
def TP_SinOp : TP_UnaryOp<"sin", "Elementwise sine", "`sin(x)`">;
def TP_CosOp : TP_UnaryOp<"cos", "Elementwise cosine", "`cos(x)`">;
def TP_TanOp : TP_UnaryOp<"tan", "Elementwise tangent", "`tan(x)`">;
def TP_AsinOp : TP_UnaryOp<"asin", "Elementwise arcsine", "`asin(x)`">;
def TP_AcosOp : TP_UnaryOp<"acos", "Elementwise arccosine", "`acos(x)`">;
def TP_AtanOp : TP_UnaryOp<"atan", "Elementwise arctangent", "`atan(x)`">;
def TP_SinhOp : TP_UnaryOp<"sinh", "Elementwise hyperbolic sine", "`sinh(x)`">;
def TP_CoshOp : TP_UnaryOp<"cosh", "Elementwise hyperbolic cosine",
                           "`cosh(x)`">;
def TP_AsinhOp : TP_UnaryOp<"asinh", "Elementwise inverse hyperbolic sine",
                            "`asinh(x)`">;
def TP_AcoshOp : TP_UnaryOp<"acosh", "Elementwise inverse hyperbolic cosine",
                            "`acosh(x)`">;
def TP_AtanhOp : TP_UnaryOp<"atanh", "Elementwise inverse hyperbolic tangent",
                            "`atanh(x)`">;
def TP_Log1pOp : TP_UnaryOp<"log1p", "Elementwise log(1 + x)",
                            "`ln(1 + x)`, accurate near 0">;
def TP_Expm1Op : TP_UnaryOp<"expm1", "Elementwise exp(x) - 1",
                            "`e^x - 1`, accurate near 0">;
def TP_Log2Op : TP_UnaryOp<"log2", "Elementwise base-2 logarithm", "`log2(x)`">;
def TP_Log10Op : TP_UnaryOp<"log10", "Elementwise base-10 logarithm",
                            "`log10(x)`">;
def TP_Exp2Op : TP_UnaryOp<"exp2", "Elementwise power of two", "`2^x`">;
def TP_FloorOp : TP_UnaryOp<"floor", "Elementwise rounding down",
                            "the largest integer not above `x`">;
def TP_CeilOp : TP_UnaryOp<"ceil", "Elementwise rounding up",
                           "the smallest integer not below `x`">;
def TP_RoundOp : TP_UnaryOp<"round", "Elementwise rounding to nearest, ties to even",
                            "`x` rounded to the nearest integer, halves to the even one (torch.round)">;
def TP_TruncOp : TP_UnaryOp<"trunc", "Elementwise rounding toward zero",
                            "`x` without its fractional part">;
def TP_SignOp : TP_UnaryOp<"sign", "Elementwise sign",
                           "-1, 0 or 1 (NaN stays NaN)", TP_Tensor>;
def TP_NotOp : TP_UnaryOp<"not", "Elementwise logical or bitwise not",
                          "`!x` on i1 (logical_not), `~x` on integers (bitwise_not)",
                          TP_IntTensor>;

def TP_AndOp : TP_BinaryOp<"and", "Elementwise logical or bitwise and",
    "%0 = tensor_program.and %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>",
    TP_IntTensor, [Commutative]>;
def TP_OrOp : TP_BinaryOp<"or", "Elementwise logical or bitwise or",
    "%0 = tensor_program.or %a, %b : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>",
    TP_IntTensor, [Commutative]>;
def TP_XorOp : TP_BinaryOp<"xor", "Elementwise logical or bitwise exclusive or",
    "%0 = tensor_program.xor %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>",
    TP_IntTensor, [Commutative]>;
def TP_FloorDivOp : TP_BinaryOp<"floor_div",
    "Elementwise division rounded down (integers)",
    "%0 = tensor_program.floor_div %a, %b : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>",
    TP_IntTensor>;
def TP_FmodOp : TP_BinaryOp<"fmod",
    "Elementwise remainder with the sign of the dividend (torch.fmod)",
    "%0 = tensor_program.fmod %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>">;
def TP_RemainderOp : TP_BinaryOp<"remainder",
    "Elementwise remainder with the sign of the divisor (torch.remainder)",
    "%0 = tensor_program.remainder %a, %b : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>">;
def TP_Atan2Op : TP_BinaryOp<"atan2", "Elementwise atan2(lhs, rhs)",
    "%0 = tensor_program.atan2 %y, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>",
    TP_FloatTensor>;

def TP_GeluOp : TensorProgram_Op<"gelu", [
    Pure, SameOperandsAndResultType, TP_ElementwiseTrait
  ]> {
  let summary = "Elementwise GELU";
  let description = [{
    `x * Phi(x)` with the exact normal CDF (`approximate = none`, the
    default) or PyTorch's tanh approximation (`approximate = tanh`).

    ```mlir
    %0 = tensor_program.gelu %x : tensor<4x8xf32>
    %1 = tensor_program.gelu %x approximate tanh : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins TP_FloatTensor:$input,
                       DefaultValuedAttr<TP_GeluApproximation,
                           "GeluApproximation::none">:$approximate);
  let results = (outs TP_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`approximate` $approximate^)? attr-dict `:` type($input)
  }];
}

def TP_WhereOp : TensorProgram_Op<"where", [
    Pure, InferTypeOpAdaptor, TP_ElementwiseTrait
  ]> {
  let summary = "Elementwise selection";
  let description = [{
    `condition ? on_true : on_false`, elementwise, with all three operands
    broadcast together. The condition is `i1`; the two values share an
    element type.

    ```mlir
    %0 = tensor_program.where %mask, %a, %b
        : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins TP_BoolTensor:$condition, TP_Tensor:$on_true,
                       TP_Tensor:$on_false);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:`
    functional-type(operands, results)
  }];
}

def TP_CompareOp : TensorProgram_Op<"compare", [
    Pure, InferTypeOpAdaptor, TP_ElementwiseTrait
  ]> {
  let summary = "Elementwise comparison";
  let description = [{
    Compares the broadcast operands with `predicate` (`eq`, `ne`, `lt`, `le`,
    `gt`, `ge`) and returns an `i1` tensor. Floating-point comparisons are
    ordered (false when either side is NaN), except `ne`, which is true then.

    ```mlir
    %0 = tensor_program.compare lt, %a, %b
        : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
    ```
  }];
  let arguments = (ins TP_ComparePredicate:$predicate, TP_Tensor:$lhs,
                       TP_Tensor:$rhs);
  let results = (outs TP_BoolTensor:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def TP_CastOp : TensorProgram_Op<"cast", [Pure, TP_ElementwiseTrait]> {
  let summary = "Elementwise element type conversion";
  let description = [{
    Converts each element to the result's element type, as
    `Tensor.to(dtype)` does: floats round to nearest, float to integer
    truncates toward zero, integers are signed, and a value converts to `i1`
    as `value != 0`. Shapes must be equal.

    ```mlir
    %0 = tensor_program.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
    ```
  }];
  let arguments = (ins TP_Tensor:$input);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TP_ConstantOp : TensorProgram_Op<"constant", [
    ConstantLike, Pure, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>
  ]> {
  let summary = "A constant tensor";
  let description = [{
    A tensor known at compile time (weights, literals), given by any elements
    attribute: `dense`, `dense_resource` for large weights, or a splat.

    ```mlir
    %0 = tensor_program.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %1 = tensor_program.constant dense<0.0> : tensor<4x4xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def TP_FullOp : TensorProgram_Op<"full", [Pure]> {
  let summary = "A tensor filled with one value";
  let description = [{
    `torch.full(size, value)`: a tensor of the result type whose elements are
    all `value`, converted to the element type (which for integer types must
    be exact). One `index` operand gives each dynamic dimension.

    ```mlir
    %0 = tensor_program.full 0.5 : tensor<4x8xf32>
    %1 = tensor_program.full 1.0 [%n] : tensor<?x8xf16>
    ```
  }];
  let arguments = (ins F64Attr:$value, Variadic<Index>:$dynamic_sizes);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    $value (` ` `[` $dynamic_sizes^ `]`)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def TP_IotaOp : TensorProgram_Op<"iota", [Pure]> {
  let summary = "The index along one dimension (arange)";
  let description = [{
    Every element holds its index along `dim`, converted to the element
    type: `iota dim 0 : tensor<5xi64>` is `torch.arange(5)`; an importer
    scales and offsets it for `arange(start, end, step)`. One `index`
    operand gives each dynamic dimension.

    ```mlir
    %0 = tensor_program.iota dim 0 : tensor<5xi64>
    %1 = tensor_program.iota dim 1 [%n] : tensor<?x8xf32>
    ```
  }];
  let arguments = (ins I64Attr:$dim, Variadic<Index>:$dynamic_sizes);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    `dim` $dim (` ` `[` $dynamic_sizes^ `]`)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def TP_FromIndexOp : TensorProgram_Op<"from_index", [Pure]> {
  let summary = "A rank-0 tensor holding an index value";
  let description = [{
    The value of `index` (a size computed from the inputs' dimensions) as
    a rank-0 tensor of any element type: what a program uses when PyTorch
    computes with a size (`x * seq_len`, an index bound).

    ```mlir
    %0 = tensor_program.from_index %n : tensor<i64>
    ```
  }];
  let arguments = (ins Index:$index);
  let results = (outs 0DTensorOf<[AnyFloat, AnySignlessInteger]>:$result);
  let assemblyFormat = "$index attr-dict `:` type($result)";
}

def TP_CumsumOp : TensorProgram_Op<"cumsum", [
    Pure, SameOperandsAndResultType
  ]> {
  let summary = "Inclusive prefix sum along a dimension (cumsum)";
  let description = [{
    `result[..., i, ...] = sum(input[..., 0..i, ...])` along `dim`, as
    `torch.cumsum`, accumulated in the element type (f32 for f16/bf16).

    ```mlir
    %0 = tensor_program.cumsum %x dim 1 : tensor<4x8xi64>
    ```
  }];
  let arguments = (ins TP_Tensor:$input, I64Attr:$dim);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = "$input `dim` $dim attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class TP_ReduceOp<string mnemonic, string summaryText, string what,
                  Type operandType = TP_Tensor>
    : TensorProgram_Op<mnemonic, [Pure, InferTypeOpAdaptor, TP_ReductionTrait]> {
  let summary = summaryText;
  let description = !strconcat(
      "Reduces `input` over the dimensions `dims` (distinct, in range) by ",
      what, ". The reduced dimensions are removed, or kept with size 1 with ",
      "`keepdim`.\n\n```mlir\n%0 = tensor_program.", mnemonic,
      " %x dims [1] : tensor<4x8xf32> -> tensor<4xf32>\n",
      "%1 = tensor_program.", mnemonic,
      " %x dims [0, 1] keepdim : tensor<4x8xf32> -> tensor<1x1xf32>\n```");
  let arguments = (ins operandType:$input, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keepdim);
  let results = (outs operandType:$result);
  let assemblyFormat = [{
    $input `dims` $dims (`keepdim` $keepdim^)? attr-dict `:` type($input)
    `->` type($result)
  }];
}

def TP_ReduceSumOp : TP_ReduceOp<"reduce_sum", "Sum over dimensions", "addition">;
def TP_ReduceMeanOp : TP_ReduceOp<"reduce_mean", "Mean over dimensions",
                                  "the arithmetic mean", TP_FloatTensor>;
def TP_ReduceMaxOp : TP_ReduceOp<"reduce_max", "Maximum over dimensions",
                                 "the maximum (NaN propagates)">;
def TP_ReduceMinOp : TP_ReduceOp<"reduce_min", "Minimum over dimensions",
                                 "the minimum (NaN propagates)">;
def TP_ReduceProdOp : TP_ReduceOp<"reduce_prod", "Product over dimensions",
                                  "multiplication">;

def TP_ArgMaxOp : TensorProgram_Op<"argmax", [
    Pure, InferTypeOpAdaptor, TP_ReductionTrait
  ]> {
  let summary = "Index of the maximum along one dimension";
  let description = [{
    The `i64` index of the first maximum of `input` along `dim`, as
    `torch.argmax(input, dim, keepdim)`.

    ```mlir
    %0 = tensor_program.argmax %x dim 1 : tensor<4x8xf32> -> tensor<4xi64>
    %1 = tensor_program.argmax %x dim 1 keepdim : tensor<4x8xf32> -> tensor<4x1xi64>
    ```
  }];
  let arguments = (ins TP_Tensor:$input, I64Attr:$dim, UnitAttr:$keepdim);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = [{
    $input `dim` $dim (`keepdim` $keepdim^)? attr-dict `:` type($input) `->`
    type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Layout ops
//===----------------------------------------------------------------------===//

def TP_ReshapeOp : TensorProgram_Op<"reshape", [Pure, TP_LayoutTrait]> {
  let summary = "Reshapes a tensor (view / reshape)";
  let description = [{
    The elements of `input` in row-major order, with the result's shape. One
    `index` operand gives each dynamic dimension of the result. When both
    shapes are static their element counts must be equal.

    ```mlir
    %0 = tensor_program.reshape %x : tensor<4x8xf32> -> tensor<2x16xf32>
    %1 = tensor_program.reshape %y [%n] : tensor<?x8xf32> -> tensor<?x2x4xf32>
    ```
  }];
  let arguments = (ins TP_Tensor:$input, Variadic<Index>:$dynamic_sizes);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    $input (` ` `[` $dynamic_sizes^ `]`)? attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TP_PermuteOp : TensorProgram_Op<"permute", [
    Pure, InferTypeOpAdaptor, TP_LayoutTrait
  ]> {
  let summary = "Permutes dimensions (permute / transpose)";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`.

    ```mlir
    %0 = tensor_program.permute %x [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
    ```
  }];
  let arguments = (ins TP_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    $input $permutation attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def TP_BroadcastOp : TensorProgram_Op<"broadcast", [Pure, TP_LayoutTrait]> {
  let summary = "Broadcasts to a shape (expand)";
  let description = [{
    Broadcasts `input` to the result shape with NumPy rules: the input's
    dimensions align with the result's trailing ones and each is 1 or equal.
    One `index` operand gives each dynamic dimension of the result.

    ```mlir
    %0 = tensor_program.broadcast %x : tensor<4x1xf32> -> tensor<2x4x8xf32>
    %1 = tensor_program.broadcast %b [%n] : tensor<8xf32> -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins TP_Tensor:$input, Variadic<Index>:$dynamic_sizes);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    $input (` ` `[` $dynamic_sizes^ `]`)? attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TP_SliceOp : TensorProgram_Op<"slice", [
    Pure, InferTypeOpAdaptor, TP_LayoutTrait
  ]> {
  let summary = "Slices one dimension (aten.slice)";
  let description = [{
    `input[..., start:end:step, ...]` along `dim`, as `aten.slice.Tensor`:
    `start` and `end` are clamped to the dimension's size, `step` is
    positive. `end` defaults to the end of the dimension.

    ```mlir
    %0 = tensor_program.slice %x dim 1 start 2 end 6 step 2
        : tensor<4x8xf32> -> tensor<4x2xf32>
    %1 = tensor_program.slice %y dim 0 start 1 : tensor<?x8xf32> -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins TP_Tensor:$input, I64Attr:$dim, I64Attr:$start,
                       DefaultValuedAttr<I64Attr, "INT64_MAX">:$end,
                       DefaultValuedAttr<I64Attr, "1">:$step);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    $input `dim` $dim `start` $start (`end` $end^)? (`step` $step^)? attr-dict
    `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def TP_ConcatOp : TensorProgram_Op<"concat", [
    Pure, InferTypeOpAdaptor, TP_LayoutTrait
  ]> {
  let summary = "Concatenates tensors along a dimension (cat)";
  let description = [{
    Concatenates the inputs along `dim`. The inputs have the same rank and
    element type and equal sizes in every other dimension.

    ```mlir
    %0 = tensor_program.concat %a, %b dim 0
        : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<5x8xf32>
    ```
  }];
  let arguments = (ins Variadic<TP_Tensor>:$inputs, I64Attr:$dim);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    $inputs `dim` $dim attr-dict `:` functional-type($inputs, results)
  }];
  let hasFolder = 1;
}

def TP_PadOp : TensorProgram_Op<"pad", [
    Pure, InferTypeOpAdaptor, TP_LayoutTrait
  ]> {
  let summary = "Pads with a constant (constant_pad_nd)";
  let description = [{
    Adds `low[i]` elements before and `high[i]` after dimension `i`, filled
    with `value` (converted to the element type). Amounts are non-negative.

    ```mlir
    %0 = tensor_program.pad %x low [0, 1] high [0, 2] value 0.0
        : tensor<4x8xf32> -> tensor<4x11xf32>
    ```
  }];
  let arguments = (ins TP_Tensor:$input, DenseI64ArrayAttr:$low,
                       DenseI64ArrayAttr:$high, F64Attr:$value);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    $input `low` $low `high` $high `value` $value attr-dict `:` type($input)
    `->` type($result)
  }];
  let hasFolder = 1;
}

def TP_AsStridedOp : TensorProgram_Op<"as_strided", [
    Pure, InferTypeOpAdaptor, TP_LayoutTrait
  ]> {
  let summary = "A strided view of the input's elements (as_strided)";
  let description = [{
    `torch.as_strided(input, sizes, strides, offset)` on the row-major
    elements of `input`: result element `i` is input element
    `offset + sum(i[d] * strides[d])`. Sizes, strides and offset are static
    and non-negative; every reached element must exist when the input's shape
    is static.

    ```mlir
    %0 = tensor_program.as_strided %x sizes [2, 2] strides [1, 2] offset 1
        : tensor<8xf32> -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins TP_Tensor:$input, DenseI64ArrayAttr:$sizes,
                       DenseI64ArrayAttr:$strides,
                       DefaultValuedAttr<I64Attr, "0">:$offset);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    $input `sizes` $sizes `strides` $strides `offset` $offset attr-dict `:`
    type($input) `->` type($result)
  }];
}

def TP_DynamicSliceOp : TensorProgram_Op<"dynamic_slice", [
    Pure, TP_LayoutTrait
  ]> {
  let summary = "Slices one dimension with bounds known at run time";
  let description = [{
    `input[..., start:end:step, ...]` along `dim` with `start` and `end`
    given as `index` values (sizes computed from the inputs' dimensions:
    `x[:, n - 1]` for a dynamic `n`). Both are clamped to `[0, size]` at run
    time, as `aten.slice.Tensor` clamps; `step` is positive.

    ```mlir
    %0 = tensor_program.dynamic_slice %x dim 1 [%start, %end] step 1
        : tensor<4x?xf32> -> tensor<4x?xf32>
    ```
  }];
  let arguments = (ins TP_Tensor:$input, I64Attr:$dim, Index:$start,
                       Index:$end, DefaultValuedAttr<I64Attr, "1">:$step);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    $input `dim` $dim ` ` `[` $start `,` $end `]` `step` $step attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TP_SliceScatterOp : TensorProgram_Op<"slice_scatter", [
    Pure, TP_LayoutTrait
  ]> {
  let summary = "Writes a tensor into a slice of another (slice_scatter)";
  let description = [{
    `input` with `input[..., start:end:step, ...] = src` along `dim`, as
    `aten.slice_scatter`: `start` and `end` are within the (static) size of
    `dim`, and `src` has the slice's shape.

    ```mlir
    %0 = tensor_program.slice_scatter %x, %s dim 1 start 2 end 6 step 2
        : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins TP_Tensor:$input, TP_Tensor:$src, I64Attr:$dim,
                       I64Attr:$start, I64Attr:$end,
                       DefaultValuedAttr<I64Attr, "1">:$step);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $src `dim` $dim `start` $start `end` $end `step` $step
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TP_TakeOp : TensorProgram_Op<"take", [Pure, TP_LayoutTrait]> {
  let summary = "Selects slices by index tensor (index_select, embedding)";
  let description = [{
    Replaces dimension `dim` of `input` by the dimensions of `index`:
    `result[a..., i..., b...] = input[a..., index[i...], b...]`. This is
    `index_select` for a 1-d index and `embedding` (dim 0) for any index;
    PyTorch's advanced indexing `x[i, j]` is one take over flattened
    dimensions. A negative index counts from the end, as in PyTorch; an
    index still outside `[0, size)` is clamped into it, so that the program
    never reads outside `input` (PyTorch raises an error there instead).

    ```mlir
    %0 = tensor_program.take %w, %ids dim 0
        : (tensor<100x64xf32>, tensor<2x16xi64>) -> tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins TP_Tensor:$input, TP_IntTensor:$index, I64Attr:$dim);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $index `dim` $dim attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TP_GatherOp : TensorProgram_Op<"gather", [Pure, TP_LayoutTrait]> {
  let summary = "Gathers along a dimension (torch.gather)";
  let description = [{
    `result[i][j][k] = input[i][index[i][j][k]][k]` for `dim` 1, and so on:
    the result has the index's shape; `index` has the input's rank and no
    larger sizes outside `dim`. Negative indices count from the end;
    indices still outside `[0, size)` are clamped into it (see `take`).

    ```mlir
    %0 = tensor_program.gather %x, %i dim 1
        : (tensor<4x8xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins TP_Tensor:$input, TP_IntTensor:$index, I64Attr:$dim);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $index `dim` $dim attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TP_ScatterOp : TensorProgram_Op<"scatter", [Pure]> {
  let summary = "Writes values at indices along a dimension (torch.scatter)";
  let description = [{
    `input` with, for every position `i` of `index`,
    `result[i with dim replaced by index[i]] = src[i]` (`reduce none`), or
    combined with the value there (`add`, `mul`, `max`, `min`), in the
    row-major order of `index` (a later write wins where indices repeat).
    `index` has the input's rank and no larger sizes than `src`, nor than
    the input outside `dim`. Negative indices count from the end; indices
    still outside the dimension are clamped into it (never written outside
    the result). `index_put` (advanced indexing on the left of `=`) is one
    scatter over flattened dimensions.

    ```mlir
    %0 = tensor_program.scatter %x, %i, %v dim 1 reduce add
        : (tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins TP_Tensor:$input, TP_IntTensor:$index, TP_Tensor:$src,
                       I64Attr:$dim,
                       DefaultValuedAttr<TP_ScatterReduce,
                           "ScatterReduce::none">:$reduce);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $index `,` $src `dim` $dim (`reduce` $reduce^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

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
  }];
  let arguments = (ins TP_Tensor:$lhs, TP_Tensor:$rhs);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
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
  }];
  let arguments = (ins TP_Tensor:$lhs, TP_Tensor:$rhs);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
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

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

def TP_FusedOp : TensorProgram_Op<"fused", [
    IsolatedFromAbove, RecursiveMemoryEffects, RecursivelySpeculatable
  ]> {
  let summary = "A group of ops that becomes one kernel";
  let description = [{
    The unit of fusion: its region computes `results` from `inputs` (the
    region's arguments) and becomes one kernel. `kind` says which kernel
    template it fits:

    * `pointwise`: elementwise and layout ops only;
    * `reduction`: at least one reduction, with elementwise and layout
      producers and consumers (a softmax or layer_norm row);
    * `matmul`: exactly one contraction with elementwise producers of its
      operands and an elementwise epilogue.

    Composites must be decomposed first, and externs, input mutations and
    nested fused ops cannot appear inside.

    ```mlir
    %0 = tensor_program.fused pointwise (%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
    ^bb0(%x: tensor<4x8xf32>, %y: tensor<8xf32>):
      %s = tensor_program.add %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
      %r = tensor_program.relu %s : tensor<4x8xf32>
      tensor_program.yield %r : tensor<4x8xf32>
    }
    ```
  }];
  let arguments = (ins TP_FusionKind:$kind, Variadic<TP_Tensor>:$inputs);
  let results = (outs Variadic<TP_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
    $body
  }];
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "FusionKind":$kind, "::mlir::TypeRange":$resultTypes,
                   "::mlir::ValueRange":$inputs)>
  ];
}

def TP_YieldOp : TensorProgram_Op<"yield", [
    Pure, HasParent<"FusedOp">, ReturnLike, Terminator
  ]> {
  let summary = "Returns the results of a fused region";
  let description = [{
    Ends the region of `tensor_program.fused`; operand types equal the fused
    op's result types.

    ```mlir
    tensor_program.yield %r : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Variadic<TP_Tensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
}

#endif // WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMOPS_TD
