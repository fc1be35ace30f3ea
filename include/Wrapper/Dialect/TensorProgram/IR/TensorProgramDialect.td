//===- TensorProgramDialect.td - tensor_program dialect ----*- tablegen -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMDIALECT_TD
#define WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def TensorProgram_Dialect : Dialect {
  let name = "tensor_program";
  let cppNamespace = "::mlir::tensor_program";
  let summary = "Tensor programs with value semantics, the level of fusion";
  let description = [{
    The `tensor_program` dialect holds the tensor program of a graph: the
    PyTorch operators it computes, on ranked tensors with value semantics and
    dynamic dimensions. It is the level at which fusion is decided: the
    `tensor_program.fused` op groups the ops that become one kernel.

    Elementwise ops broadcast like NumPy; their operands share one element
    type (an importer inserts `tensor_program.cast` where PyTorch would
    promote). Result types are inferred where they can be and checked against
    the written type. Dimensions and permutations are non-negative (an
    importer normalizes PyTorch's negative dimensions).

    Programs are ordinary `func.func` functions on tensors.
  }];
  let hasConstantMaterializer = 1;
  let hasCanonicalizer = 1;
  let useDefaultAttributePrinterParser = 0;
}

class TensorProgram_Op<string mnemonic, list<Trait> traits = []>
    : Op<TensorProgram_Dialect, mnemonic, traits>;

// Marker traits used by the fused op's verifier and by fusion.
def TP_ElementwiseTrait : NativeOpTrait<"ElementwiseOp"> {
  let cppNamespace = "::mlir::tensor_program::OpTrait";
}
def TP_ReductionTrait : NativeOpTrait<"ReductionOp"> {
  let cppNamespace = "::mlir::tensor_program::OpTrait";
}
def TP_LayoutTrait : NativeOpTrait<"LayoutOp"> {
  let cppNamespace = "::mlir::tensor_program::OpTrait";
}
def TP_ContractionTrait : NativeOpTrait<"ContractionOp"> {
  let cppNamespace = "::mlir::tensor_program::OpTrait";
}
def TP_CompositeTrait : NativeOpTrait<"CompositeOp"> {
  let cppNamespace = "::mlir::tensor_program::OpTrait";
}

def TP_Tensor : RankedTensorOf<[AnyFloat, AnySignlessInteger]>;
def TP_FloatTensor : RankedTensorOf<[AnyFloat]>;
def TP_BoolTensor : RankedTensorOf<[I1]>;
def TP_IntTensor : RankedTensorOf<[AnySignlessInteger]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def TP_ComparePredicate : I32EnumAttr<"ComparePredicate",
    "comparison predicate", [
    I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>
  ]> {
  let cppNamespace = "::mlir::tensor_program";
}

def TP_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "approximation of gelu", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"tanh", 1>
  ]> {
  let cppNamespace = "::mlir::tensor_program";
}

def TP_ScatterReduce : I32EnumAttr<"ScatterReduce",
    "how scatter combines a written value with the one there", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"add", 1>,
    I32EnumAttrCase<"mul", 2>, I32EnumAttrCase<"max", 3>,
    I32EnumAttrCase<"min", 4>
  ]> {
  let cppNamespace = "::mlir::tensor_program";
}

def TP_FusionKind : I32EnumAttr<"FusionKind", "kind of fused kernel", [
    I32EnumAttrCase<"pointwise", 0>,
    I32EnumAttrCase<"reduction", 1>,
    I32EnumAttrCase<"matmul", 2>
  ]> {
  let cppNamespace = "::mlir::tensor_program";
}

#endif // WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMDIALECT_TD
