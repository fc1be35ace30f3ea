//===- TensorProgramLayoutOps.td - reductions, layout ------*- tablegen -*-===//
//
// Part of the Wrapper project.
//
// Included by TensorProgramOps.td (one generated op list for the dialect).
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMLAYOUTOPS_TD
#define WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMLAYOUTOPS_TD

include "Wrapper/Dialect/TensorProgram/IR/TensorProgramDialect.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

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

    Canonicalization moves a reshape that only regroups the leading
    dimensions above a permute that swaps the last two (`reshape(permute(x,
    [0, 1, 3, 2]))` to `[B*H, T, T]` becomes `permute(reshape(x), [0, 2,
    1])`), so that a product reading the result reads a transpose directly,
    in place (docs/Fusion.md).
  }];
  let arguments = (ins TP_Tensor:$input, Variadic<Index>:$dynamic_sizes);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    $input (` ` `[` $dynamic_sizes^ `]`)? attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
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
  let hasCanonicalizer = 1;
}

def TP_FlipOp : TensorProgram_Op<"flip", [
    Pure, SameOperandsAndResultType, TP_LayoutTrait
  ]> {
  let summary = "Reverses the order of elements along dimensions (flip)";
  let description = [{
    As `aten.flip`: element `i` of each dimension in `dims` comes from
    element `size - 1 - i` of the input; the other dimensions are kept.
    `dims` holds distinct dimensions of the input, in any order.

    ```mlir
    %0 = tensor_program.flip %w [2, 3] : tensor<64x32x3x3xf32>
    ```

    A transposed convolution as a direct one flips its kernel; a layout
    op, it fuses with the permutes and reshapes around it into one kernel
    (before, an index tensor and a gather per flipped dimension).
  }];
  let arguments = (ins TP_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs TP_Tensor:$result);
  let assemblyFormat = [{
    $input $dims attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
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
    Pure, InferTypeOpAdaptorWithIsCompatible, TP_LayoutTrait
  ]> {
  let summary = "Concatenates tensors along a dimension (cat)";
  let description = [{
    Concatenates the inputs along `dim`. The inputs have the same rank and
    element type and equal sizes in every other dimension. The result type
    may be more static than the inputs tell: dynamic sizes whose sum is
    known (a tensor split at a symbolic point and joined again) give a
    static concatenated size.

    ```mlir
    %0 = tensor_program.concat %a, %b dim 0
        : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<5x8xf32>
    %1 = tensor_program.concat %c, %d dim 1
        : (tensor<2x?xf32>, tensor<2x?xf32>) -> tensor<2x384xf32>
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

#endif // WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMLAYOUTOPS_TD
