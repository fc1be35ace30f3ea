//===- WrapperAttrs.td - wrapper attributes and types ------*- tablegen -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_WRAPPER_IR_WRAPPERATTRS_TD
#define WRAPPER_DIALECT_WRAPPER_IR_WRAPPERATTRS_TD

include "Wrapper/Dialect/Wrapper/IR/WrapperDialect.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

def Wrapper_DeviceKind : I32EnumAttr<"DeviceKind", "kind of device", [
    I32EnumAttrCase<"CPU", 0, "cpu">,
    I32EnumAttrCase<"CUDA", 1, "cuda">
  ]> {
  let cppNamespace = "::mlir::wrapper";
  let genSpecializedAttr = 0;
}

def Wrapper_DeviceAttr : Wrapper_Attr<"Device", "device"> {
  let summary = "A device that holds buffers and runs kernels";
  let description = [{
    Names a device as PyTorch does: `cpu`, or `cuda:N` for the CUDA device
    with ordinal `N` (`cuda` alone means `cuda:0`). Used as the memory space
    of the memrefs of the `wrapper` dialect; a memref without memory space
    lives on the CPU.

    ```mlir
    memref<4x4xf32, #wrapper.device<cuda:0>>
    memref<4x4xf32, #wrapper.device<cpu>>
    ```
  }];
  let parameters = (ins "DeviceKind":$kind, "int64_t":$ordinal);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "DeviceKind":$kind), [{
      return $_get($_ctxt, kind, 0);
    }]>
  ];
  let extraClassDeclaration = [{
    bool isCPU() const { return getKind() == DeviceKind::CPU; }
    bool isCUDA() const { return getKind() == DeviceKind::CUDA; }
    /// The device in PyTorch's spelling: `cpu`, `cuda:0`.
    std::string str() const;
  }];
}

//===----------------------------------------------------------------------===//
// Containers returned by extern kernels
//===----------------------------------------------------------------------===//

class Wrapper_ContainerType<string name, string typeMnemonic>
    : Wrapper_Type<name, typeMnemonic> {
  let parameters = (ins OptionalArrayRefParameter<"::mlir::Type">:$elements);
  let assemblyFormat = "`<` (`>`) : ($elements^ `>`)?";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    size_t size() const { return getElements().size(); }
  }];
}

def Wrapper_TupleType : Wrapper_ContainerType<"Tuple", "tuple"> {
  let summary = "A tuple of buffers returned by an extern kernel";
  let description = [{
    The Python tuple that an allocating extern kernel returns, for example
    `aten::topk` returning `(values, indices)`. Elements are buffers or nested
    tuples and lists; `wrapper.multi_output` extracts them by index path.

    ```mlir
    !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>>
    ```
  }];
}

def Wrapper_ListType : Wrapper_ContainerType<"List", "list"> {
  let summary = "A list of buffers returned by an extern kernel";
  let description = [{
    A Python list of buffers returned by an allocating extern kernel (for
    example `aten::split`), one element type per position since the buffers
    usually differ in shape.

    ```mlir
    !wrapper.list<memref<2x4xf32>, memref<2x4xf32>>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Collectives in flight
//===----------------------------------------------------------------------===//

def Wrapper_WorkType : Wrapper_Type<"Work", "work"> {
  let summary = "A collective in flight";
  let description = [{
    What `wrapper.collective_start` returns and `wrapper.collective_wait`
    takes: the handle of a collective that runs asynchronously, like the
    `Work` object of `torch.distributed`. Each is waited for exactly once.

    ```mlir
    !wrapper.work
    ```
  }];
  let builderCall = "$_builder.getType<::mlir::wrapper::WorkType>()";
}

def Wrapper_ContainerTypeDef : Type<
    Or<[Wrapper_TupleType.predicate, Wrapper_ListType.predicate]>,
    "tuple or list of buffers">;

#endif // WRAPPER_DIALECT_WRAPPER_IR_WRAPPERATTRS_TD
