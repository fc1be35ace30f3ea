//===- TensorProgramElementwiseOps.td - elementwise ops ----*- tablegen -*-===//
//
// Part of the Wrapper project.
//
// Included by TensorProgramOps.td (one generated op list for the dialect).
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMELEMENTWISEOPS_TD
#define WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMELEMENTWISEOPS_TD

include "Wrapper/Dialect/TensorProgram/IR/TensorProgramDialect.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

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

def TP_UniformOp : TensorProgram_Op<"uniform", [Pure]> {
  let summary = "Counter-based uniform random numbers in [0, 1) (Philox)";
  let description = [{
    Element `i` (its row-major position) is the first 32-bit word of
    Philox4x32-10 with key (`seed` low, `seed` high) and counter (`i` low,
    `i` high, `stream` low, `stream` high), its top 24 bits scaled by 2^-24:
    a float32 in [0, 1), converted to the element type. The values depend
    only on the seed, the stream and the position, never on how the
    elements are computed (threads, tiles, GPU blocks): the interpreter, the
    CPU and the CUDA code give the same numbers, and an op with the same
    operands gives the same tensor (it is pure). Different `stream`s give
    independent numbers from one seed (one per random op of a program).
    Training-mode dropout is `uniform < 1 - p`. One `index` operand gives
    each dynamic dimension.

    ```mlir
    %u = tensor_program.uniform %seed stream 0 : tensor<i64> -> tensor<4x8xf32>
    %v = tensor_program.uniform %seed stream 1 [%n] : tensor<i64> -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins 0DTensorOf<[I64]>:$seed, I64Attr:$stream,
                       Variadic<Index>:$dynamic_sizes);
  let results = (outs RankedTensorOf<[AnyFloat]>:$result);
  let assemblyFormat = [{
    $seed `stream` $stream (` ` `[` $dynamic_sizes^ `]`)? attr-dict `:`
    type($seed) `->` type($result)
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

#endif // WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMELEMENTWISEOPS_TD
