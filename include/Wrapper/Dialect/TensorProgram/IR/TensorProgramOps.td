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

include "Wrapper/Dialect/TensorProgram/IR/TensorProgramElementwiseOps.td"
include "Wrapper/Dialect/TensorProgram/IR/TensorProgramLayoutOps.td"
include "Wrapper/Dialect/TensorProgram/IR/TensorProgramComputeOps.td"

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
