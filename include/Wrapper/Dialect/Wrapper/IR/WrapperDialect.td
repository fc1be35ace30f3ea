//===- WrapperDialect.td - The wrapper dialect -------------*- tablegen -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_WRAPPER_IR_WRAPPERDIALECT_TD
#define WRAPPER_DIALECT_WRAPPER_IR_WRAPPERDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Wrapper_Dialect : Dialect {
  let name = "wrapper";
  let cppNamespace = "::mlir::wrapper";
  let summary = "The host program of a compiled graph: one op per wrapper line";
  let description = [{
    The `wrapper` dialect models the *wrapper code* that PyTorch Inductor
    generates around its kernels: the host program that allocates buffers,
    launches kernels, calls library ("extern") kernels, hands storage from dead
    buffers to new ones and frees them. Every line kind of Inductor's Wrapper IR
    (`AllocateLine`, `FreeLine`, `FreeIfNotReusedLine`, `ReuseLine`,
    `ReinterpretLine`, `KernelDefinitionLine`, `KernelCallLine`,
    `ExternKernelOutLine`, `ExternKernelAllocLine`, `MultiOutputLine`,
    `CommentLine`) has one op here, so the host program can be printed,
    parsed, verified, transformed and lowered like any other MLIR.

    Buffers are `memref` values. The memref memory space names the device
    with a `#wrapper.device` attribute (`#wrapper.device<cpu>`,
    `#wrapper.device<cuda:0>`); a memref without a memory space lives on the
    CPU. Kernels are ordinary `func.func` (CPU) or `gpu.func` (GPU) functions
    named by `wrapper.kernel` definitions.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  // The extern C ABI ops yield !llvm.ptr descriptors.
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Argument attribute marking a graph input that the graph writes to.
    static constexpr ::llvm::StringLiteral getMutatedAttrName() {
      return ::llvm::StringLiteral("wrapper.mutated");
    }
    /// Argument attribute of a graph input that the caller passes as the
    /// GEMM template's B panels ([ceil(N/nr)][K][nr]; the value is nr).
    static constexpr ::llvm::StringLiteral getPackedBAttrName() {
      return ::llvm::StringLiteral("wrapper.packed_b");
    }
    /// Argument attribute of a function lowered from a graph: an input the
    /// program neither writes nor returns a view of, which a caller that
    /// gives it up may have freed after its last reader
    /// (--wrapper-cuda-release-arguments).
    static constexpr ::llvm::StringLiteral getReleasableAttrName() {
      return ::llvm::StringLiteral("wrapper.releasable");
    }
    /// Result attribute naming the graph input that an output aliases.
    static constexpr ::llvm::StringLiteral getAliasOfAttrName() {
      return ::llvm::StringLiteral("wrapper.alias_of");
    }
  }];
}

// Checks that every memref operand and result (and graph argument) has a
// memory space the dialect understands: absent or a #wrapper.device.
def Wrapper_VerifyBufferTypes : NativeOpTrait<"VerifyBufferTypes"> {
  let cppNamespace = "::mlir::wrapper";
}

class Wrapper_Op<string mnemonic, list<Trait> traits = []>
    : Op<Wrapper_Dialect, mnemonic, !listconcat(traits,
                                                [Wrapper_VerifyBufferTypes])>;

class Wrapper_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Wrapper_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

class Wrapper_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Wrapper_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // WRAPPER_DIALECT_WRAPPER_IR_WRAPPERDIALECT_TD
