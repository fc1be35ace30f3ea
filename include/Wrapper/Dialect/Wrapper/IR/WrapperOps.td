//===- WrapperOps.td - wrapper dialect operations ----------*- tablegen -*-===//
//
// Part of the Wrapper project.
//
// One op per line kind of Inductor's Wrapper IR. The ops are grouped as the
// lines are: the graph and its signature, buffer lifetime (alloc, free, reuse,
// reinterpret), kernels (definition and call), extern kernels (out= and
// allocating, multi_output), constants, and annotations (comments, debug
// print/save).
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_WRAPPER_IR_WRAPPEROPS_TD
#define WRAPPER_DIALECT_WRAPPER_IR_WRAPPEROPS_TD

include "Wrapper/Dialect/Wrapper/IR/WrapperDialect.td"
include "Wrapper/Dialect/Wrapper/IR/WrapperAttrs.td"
include "mlir/Dialect/LLVMIR/LLVMOpBase.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ViewLikeInterface.td"

//===----------------------------------------------------------------------===//
// Resources
//===----------------------------------------------------------------------===//

// What the program prints or saves (debug print/save). Ordering the ops that
// write it keeps the output in program order, and the write keeps them alive.
def Wrapper_DebugOutput : Resource<"::mlir::wrapper::DebugOutputResource">;
// The annotations of the program text (comments): written so that comments
// are never erased as dead code, and ordered only among themselves.
def Wrapper_Annotation : Resource<"::mlir::wrapper::AnnotationResource">;
// The collectives of a process group: every rank must issue them in the same
// order, so the ops that start and finish them stay in program order.
def Wrapper_Collectives : Resource<"::mlir::wrapper::CollectivesResource">;

def Wrapper_Buffer : MemRefOf<[AnyType]>;
def Wrapper_BufferOrContainer : AnyTypeOf<[Wrapper_Buffer,
                                           Wrapper_ContainerTypeDef]>;

//===----------------------------------------------------------------------===//
// Graph entry and return
//===----------------------------------------------------------------------===//

def Wrapper_GraphOp : Wrapper_Op<"graph", [
    AutomaticAllocationScope, FunctionOpInterface, IsolatedFromAbove
  ]> {
  let summary = "The host program of one compiled graph";
  let description = [{
    The entry point of a compiled graph, the analogue of Inductor's `call`
    function: arguments are the graph inputs, results its outputs, and the
    body the wrapper lines in program order, ending in `wrapper.return`.

    The signature says how outputs relate to inputs, as AOTAutograd's graph
    signature does:

    * `wrapper.mutated` (unit, on an argument): the graph writes this input
      in place. Only inputs marked so may be written by extern calls.
    * `wrapper.alias_of = N` (on a result): this output is the input `N` or a
      view of it, not a fresh buffer. The verifier checks both directions:
      a declared alias must be a view of that input, and an output that views
      an input must declare it.

    ```mlir
    wrapper.graph @forward(%x: memref<4xf32>, %acc: memref<4xf32> {wrapper.mutated})
        -> (memref<4xf32>, memref<2x2xf32> {wrapper.alias_of = 0 : i64}) {
      %buf0 = wrapper.alloc() : memref<4xf32>
      wrapper.call @add_kernel(%x, %acc, %buf0) : memref<4xf32>, memref<4xf32>, memref<4xf32>
      %view = wrapper.reinterpret %x to offset: [0], sizes: [2, 2], strides: [2, 1]
          : memref<4xf32> to memref<2x2xf32>
      wrapper.return %buf0, %view : memref<4xf32>, memref<2x2xf32>
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$name, "::mlir::FunctionType":$type)>
  ];
  let extraClassDeclaration = [{
    //===------------------------------------------------------------------===//
    // FunctionOpInterface
    //===------------------------------------------------------------------===//
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }

    //===------------------------------------------------------------------===//
    // Signature helpers
    //===------------------------------------------------------------------===//
    /// Whether the graph writes argument `index` in place.
    bool isArgumentMutated(unsigned index);
    /// The argument that result `index` aliases, if any.
    std::optional<unsigned> getResultAliasOf(unsigned index);
  }];
}

def Wrapper_ReturnOp : Wrapper_Op<"return", [
    Pure, HasParent<"GraphOp">, ReturnLike, Terminator
  ]> {
  let summary = "Returns the graph outputs";
  let description = [{
    Ends a `wrapper.graph`, returning its outputs. Operand types must equal
    the graph's result types.

    ```mlir
    wrapper.return %buf0, %buf1 : memref<4xf32>, memref<8xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$operands);
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
}

//===----------------------------------------------------------------------===//
// Buffer lifetime
//===----------------------------------------------------------------------===//

def Wrapper_AllocOp : Wrapper_Op<"alloc", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>
  ]> {
  let summary = "Allocates a buffer (AllocateLine)";
  let description = [{
    Allocates a fresh buffer on the device named by the result's memory space,
    like Inductor's `empty_strided(size, stride, device=..., dtype=...)`. One
    index operand gives each dynamic dimension, in order. The layout is the
    identity or a static `strided` layout with offset 0, which allows the
    padded strides Inductor sometimes chooses; the storage holds every element
    the layout reaches.

    The optional `name` is the buffer's name in the source program (`buf0`)
    and is used in comments, debug output and generated code.

    ```mlir
    %buf0 = wrapper.alloc() : memref<4x8xf32>
    %buf1 = wrapper.alloc(%n) {name = "buf1"} : memref<?x8xf16, #wrapper.device<cuda:0>>
    %buf2 = wrapper.alloc() : memref<4x8xf32, strided<[16, 1]>>
    ```
  }];
  let arguments = (ins Variadic<Index>:$dynamic_sizes,
                       OptionalAttr<StrAttr>:$name);
  let results = (outs Res<Wrapper_Buffer, "", [MemAlloc<DefaultResource>]>:$result);
  let assemblyFormat = "`(` $dynamic_sizes `)` attr-dict `:` type($result)";
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::MemRefType":$type,
                   CArg<"::mlir::ValueRange", "{}">:$dynamicSizes), [{
      build($_builder, $_state, type, dynamicSizes, ::mlir::StringAttr());
    }]>
  ];
}

def Wrapper_FreeOp : Wrapper_Op<"free"> {
  let summary = "Frees a buffer (FreeLine)";
  let description = [{
    Ends the life of a buffer that this graph allocated (`wrapper.alloc`,
    `wrapper.reuse`, `wrapper.extern_alloc`, `wrapper.multi_output`). Freeing a
    tuple or list returned by an extern kernel releases the container and
    every element that was not extracted with `wrapper.multi_output`.

    A buffer that is not allocated here (a graph argument, a constant, a view)
    cannot be freed; nor can a buffer be freed twice or used after its free.

    ```mlir
    wrapper.free %buf0 : memref<4x8xf32>
    ```
  }];
  let arguments = (ins Arg<Wrapper_BufferOrContainer, "",
                           [MemFree<DefaultResource>]>:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Wrapper_FreeIfNotReusedOp : Wrapper_Op<"free_if_not_reused"> {
  let summary = "Frees a buffer unless a later reuse takes its storage "
                "(FreeIfNotReusedLine)";
  let description = [{
    Marks the point where a buffer dies. If a later `wrapper.reuse` hands its
    storage to a new buffer, the storage stays allocated and this line does
    nothing; otherwise it frees the buffer. This is the line Inductor emits at
    a buffer's last use, before memory planning decides on reuse.

    After this op the buffer may only appear as the operand of one
    `wrapper.reuse`.

    ```mlir
    wrapper.free_if_not_reused %buf0 : memref<4x8xf32>
    %buf3 = wrapper.reuse %buf0 : memref<4x8xf32> to memref<32xf32>
    ```
  }];
  let arguments = (ins Arg<Wrapper_Buffer, "", [MemFree<DefaultResource>]>:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether a later `wrapper.reuse` takes the buffer's storage (then this
    /// line frees nothing).
    bool isReused() {
      return llvm::any_of(getBuffer().getUsers(), [](Operation *user) {
        return isa<ReuseOp>(user);
      });
    }
  }];
}

def Wrapper_ReuseOp : Wrapper_Op<"reuse", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>
  ]> {
  let summary = "A new buffer takes the storage of a dead one (ReuseLine)";
  let description = [{
    Creates a new buffer in the storage of `old`, which must be dead: after
    this op `old` is never used again. The buffers must be on the same device
    with the same element type (Inductor's reuse key). With static shapes the
    new buffer may be smaller than the old storage or shaped differently; with
    a dynamic shape both types must be identical, since only then are the
    sizes known to be equal.

    ```mlir
    %buf3 = wrapper.reuse %buf0 : memref<4x8xf32> to memref<32xf32>
    %buf4 = wrapper.reuse %buf1 : memref<?x8xf32> to memref<?x8xf32>
    ```
  }];
  let arguments = (ins Arg<Wrapper_Buffer, "", [MemFree<DefaultResource>]>:$old,
                       OptionalAttr<StrAttr>:$name);
  let results = (outs Res<Wrapper_Buffer, "", [MemAlloc<DefaultResource>]>:$result);
  let assemblyFormat = "$old attr-dict `:` type($old) `to` type($result)";
  let hasVerifier = 1;
}

def Wrapper_ReinterpretOp : Wrapper_Op<"reinterpret", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    AttrSizedOperandSegments, OffsetSizeAndStrideOpInterface, Pure,
    ViewLikeOpInterface
  ]> {
  let summary = "A view of a buffer with new sizes, strides and offset "
                "(ReinterpretLine)";
  let description = [{
    Inductor's `reinterpret_tensor(buf, size, stride, offset)`: a view of the
    storage of `source` with the given sizes, strides and storage offset
    (relative to the start of the storage, not to the source view). Entries
    are static integers or `index` values. No data moves.

    When the storage size and every entry are static, the view must stay
    inside the storage; the result type must state the static entries.

    ```mlir
    %v = wrapper.reinterpret %buf0 to offset: [4], sizes: [2, 2], strides: [1, 2]
        : memref<16xf32> to memref<2x2xf32, strided<[1, 2], offset: 4>>
    %d = wrapper.reinterpret %buf1 to offset: [0], sizes: [%n, 4], strides: [4, 1]
        : memref<?xf32> to memref<?x4xf32>
    ```
  }];
  let arguments = (ins Wrapper_Buffer:$source,
                       Variadic<Index>:$offsets,
                       Variadic<Index>:$sizes,
                       Variadic<Index>:$strides,
                       DenseI64ArrayAttr:$static_offsets,
                       DenseI64ArrayAttr:$static_sizes,
                       DenseI64ArrayAttr:$static_strides);
  let results = (outs Wrapper_Buffer:$result);
  let assemblyFormat = [{
    $source `to` `offset` `` `:`
    custom<DynamicIndexList>($offsets, $static_offsets)
    `` `,` `sizes` `` `:`
    custom<DynamicIndexList>($sizes, $static_sizes)
    `` `,` `strides` `` `:`
    custom<DynamicIndexList>($strides, $static_strides)
    attr-dict `:` type($source) `to` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    ::mlir::MemRefType getType() { return getResult().getType(); }
    ::mlir::Value getViewSource() { return getSource(); }
    std::array<unsigned, 3> getArrayAttrMaxRanks() {
      unsigned rank = getType().getRank();
      return {1, rank, rank};
    }
    static unsigned getOffsetSizeAndStrideStartOperandIndex() { return 1; }
  }];
}

def Wrapper_ViewOp : Wrapper_Op<"view", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    Pure, ViewLikeOpInterface
  ]> {
  let summary = "A typed buffer carved out of a byte pool";
  let description = [{
    A buffer of the result type (static shape, identity layout) that lives
    in the storage of `pool`, a one-dimensional `i8` buffer, starting
    `byte_offset` bytes into it: what `--wrapper-plan-memory` with
    `strategy=pool` gives each planned buffer, as upstream's `memref.view`
    does. The offset is a multiple of the element size and the buffer lies
    inside the pool. A view is never freed itself; the pool is.

    ```mlir
    %pool = wrapper.alloc() : memref<4096xi8>
    %buf0 = wrapper.view %pool[1024] : memref<4096xi8> to memref<16x8xf32>
    ```
  }];
  let arguments = (ins Wrapper_Buffer:$pool,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$byte_offset,
                       OptionalAttr<StrAttr>:$name);
  let results = (outs Wrapper_Buffer:$result);
  let assemblyFormat = [{
    $pool `[` $byte_offset `]` attr-dict `:` type($pool) `to` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Value getViewSource() { return getPool(); }
  }];
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

def Wrapper_KernelOp : Wrapper_Op<"kernel", [
    Symbol, DeclareOpInterfaceMethods<SymbolUserOpInterface>
  ]> {
  let summary = "Defines a kernel (KernelDefinitionLine)";
  let description = [{
    Names a kernel that `wrapper.call` launches and says which function
    implements it: a `func.func` for a CPU kernel, or a `gpu.func` marked
    `kernel` inside a `gpu.module` for a GPU kernel (`@module::@func`). The
    implementation decides the device. The optional `metadata` dictionary
    carries what the code generator knows about the kernel (kind, source ops,
    `num_warps`, ...); it is not interpreted by the verifier.

    A `func.func` implementation runs on the CPU unless the definition says
    `on #wrapper.device<cuda>`: then it is a *device kernel launched from the
    host*, a function whose body the CUDA pipeline turns into kernel launches
    and library calls on that device. It is called without a launch grid (its
    launches choose their own) and every buffer passed to it must live on
    that device. A `gpu.func` implementation runs on a CUDA device and takes
    no `on` clause.

    Rationale: the definition refers to its body by symbol instead of holding
    it in a region so that bodies stay where upstream lowerings look for them
    (`func.func` for linalg/LLVM, `gpu.module` for GPU serialization).

    ```mlir
    func.func private @fused_add_relu_impl(%a: memref<4xf32>, %out: memref<4xf32>)
    wrapper.kernel @fused_add_relu_0 = @fused_add_relu_impl
        metadata {kind = "pointwise", source_ops = ["add", "relu"]}
    wrapper.kernel @triton_red_0 = @kernels::@red
    wrapper.kernel @fused_softmax_1 = @fused_softmax_impl on #wrapper.device<cuda>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       SymbolRefAttr:$impl,
                       OptionalAttr<Wrapper_DeviceAttr>:$device,
                       OptionalAttr<DictionaryAttr>:$metadata);
  let assemblyFormat = [{
    $sym_name `=` $impl (`on` qualified($device)^)? (`metadata` $metadata^)? attr-dict
  }];
  let extraClassDeclaration = [{
    /// The function implementing this kernel (a func::FuncOp or a
    /// gpu::GPUFuncOp), or null if it cannot be resolved.
    ::mlir::FunctionOpInterface lookupImpl(::mlir::SymbolTableCollection &symbolTable);
    /// Whether the implementation is a GPU kernel.
    static bool isGPUImpl(::mlir::FunctionOpInterface impl);
    /// The device the kernel runs on: the `on` clause, else the CPU (a
    /// `gpu.func` implementation runs on a CUDA device; callers check that
    /// with isGPUImpl).
    ::mlir::wrapper::DeviceAttr getRunsOn();
  }];
}

def Wrapper_CallOp : Wrapper_Op<"call", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>
  ]> {
  let summary = "Launches a kernel (KernelCallLine)";
  let description = [{
    Calls the kernel defined by `wrapper.kernel @kernel` with `args`. Buffer
    arguments must be cast-compatible with the implementation's parameters
    (same element type and rank, static dimensions equal) and live on the
    kernel's device; scalar arguments must match exactly. A GPU kernel needs
    a launch `grid` and a `block` size (three `index` values each); a CPU
    kernel takes neither.

    The call reads and writes every buffer argument.

    ```mlir
    wrapper.call @fused_add_relu_0(%x, %buf0) : memref<4xf32>, memref<4xf32>
    wrapper.call @triton_red_0(%x, %buf1) grid(%c4, %c1, %c1) block(%c128, %c1, %c1)
        : memref<4x512xf32, #wrapper.device<cuda:0>>, memref<4xf32, #wrapper.device<cuda:0>>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel,
                       Variadic<AnyType>:$args,
                       Variadic<Index>:$grid,
                       Variadic<Index>:$block);
  let assemblyFormat = [{
    $kernel `(` $args `)` (`grid` `(` $grid^ `)`)? (`block` `(` $block^ `)`)?
    attr-dict (`:` type($args)^)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Extern kernels
//===----------------------------------------------------------------------===//

def Wrapper_ExternOutOp : Wrapper_Op<"extern_out", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DestinationStyleOpInterface
  ]> {
  let summary = "Calls a library kernel that writes into given buffers "
                "(ExternKernelOutLine)";
  let description = [{
    Calls the library kernel `callee` (a PyTorch-style operator name such as
    `aten::mm`) in its `out=` form: it reads `ins` and writes the buffers in
    `outs`, which the graph allocated before. Non-tensor arguments that are
    known at compile time go in the `args` dictionary, by schema name.

    A graph argument may be written only if the signature marks it
    `wrapper.mutated`.

    ```mlir
    wrapper.extern_out "aten::mm" ins(%a, %b : memref<4x8xf32>, memref<8x2xf32>)
        outs(%buf0 : memref<4x2xf32>)
    wrapper.extern_out "aten::addmm" ins(%bias, %a, %b : memref<2xf32>, memref<4x8xf32>, memref<8x2xf32>)
        outs(%buf1 : memref<4x2xf32>) args {alpha = 1.0 : f64, beta = 1.0 : f64}
    ```
  }];
  let arguments = (ins StrAttr:$callee,
                       Variadic<AnyType>:$inputs,
                       Variadic<Wrapper_Buffer>:$outputs,
                       OptionalAttr<DictionaryAttr>:$args);
  let assemblyFormat = [{
    $callee (`ins` `(` $inputs^ `:` type($inputs) `)`)?
    `outs` `(` $outputs `:` type($outputs) `)`
    (`args` $args^)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getOutputsMutable();
    }
  }];
}

def Wrapper_ExternAllocOp : Wrapper_Op<"extern_alloc", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>
  ]> {
  let summary = "Calls a library kernel that allocates its results "
                "(ExternKernelAllocLine)";
  let description = [{
    Calls the library kernel `callee` in its functional form: it reads `ins`
    and returns freshly allocated buffers, or a tuple or list of them that
    `wrapper.multi_output` takes apart. The graph owns the results and frees
    them.

    ```mlir
    %buf0 = wrapper.extern_alloc "aten::mm" ins(%a, %b : memref<4x8xf32>, memref<8x2xf32>)
        -> memref<4x2xf32>
    %buf1 = wrapper.extern_alloc "aten::topk" ins(%x : memref<4x8xf32>) args {k = 2 : i64}
        -> !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>>
    ```
  }];
  let arguments = (ins StrAttr:$callee,
                       Variadic<AnyType>:$inputs,
                       OptionalAttr<DictionaryAttr>:$args);
  let results = (outs Variadic<Wrapper_BufferOrContainer>:$results);
  let assemblyFormat = [{
    $callee (`ins` `(` $inputs^ `:` type($inputs) `)`)?
    (`args` $args^)? attr-dict `->` type($results)
  }];
  let hasVerifier = 1;
}

def Wrapper_MultiOutputOp : Wrapper_Op<"multi_output", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>, Pure
  ]> {
  let summary = "Extracts a buffer from a tuple or list (MultiOutputLine)";
  let description = [{
    Extracts an element of the tuple or list returned by an extern kernel by
    an index path, one index per nesting level, as Inductor's `MultiOutput`
    does with `buf3[0][1]`. The path is checked against the container type,
    and the result type must be the element's type. The extracted buffer is
    owned by the graph from here on and freed on its own.

    ```mlir
    %values = wrapper.multi_output %buf1[0]
        : !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>> -> memref<4x2xf32>
    %part = wrapper.multi_output %buf2[1, 0]
        : !wrapper.tuple<memref<4xf32>, !wrapper.list<memref<2xf32>>> -> memref<2xf32>
    ```
  }];
  let arguments = (ins Wrapper_ContainerTypeDef:$source,
                       DenseI64ArrayAttr:$indices);
  let results = (outs Wrapper_BufferOrContainer:$result);
  let assemblyFormat = [{
    $source `` $indices attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

def Wrapper_CollectiveStartOp : Wrapper_Op<"collective_start", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>
  ]> {
  let summary = "Starts a collective on a process group (c10d_functional)";
  let description = [{
    Starts the collective `collective` of PyTorch's `_c10d_functional` ops on
    the process group named `group` and returns its handle; the collective
    runs asynchronously until `wrapper.collective_wait` on the handle, which
    must follow in the same block. Until then its buffers are *in flight*:
    no other op may write them, read the outputs, or free them, and the
    memory planner keeps them live (`--wrapper-verify-lifetimes` checks it).

    * `all_reduce`: reduces each buffer of `outs` over the group's ranks in
      place (`reduce` is `sum`, `avg`, `product`, `min` or `max`); no `ins`.
      Several `outs` are one coalesced collective.
    * `all_gather_into_tensor`: output i is the concatenation along dim 0 of
      input i of every rank (`size` ranks): its dim 0 is `size` times the
      input's.
    * `reduce_scatter_tensor`: input i, reduced over the ranks with
      `reduce`, split into `size` chunks along dim 0; each rank gets its
      chunk in output i.

    Inputs and outputs pair up by position and have the same element type;
    every buffer lives on the same device. All ranks must start the same
    collectives in the same order.

    ```mlir
    %work = wrapper.collective_start "all_reduce" outs(%grad : memref<64xf32>)
        group "0" reduce "sum" -> !wrapper.work
    wrapper.collective_wait %work
    %w1 = wrapper.collective_start "all_gather_into_tensor"
        ins(%x : memref<4x8xf32>) outs(%y : memref<8x8xf32>) group "0" size 2
        -> !wrapper.work
    ```
  }];
  let arguments = (ins StrAttr:$collective,
                       Variadic<Wrapper_Buffer>:$inputs,
                       Variadic<Wrapper_Buffer>:$outputs,
                       StrAttr:$group,
                       OptionalAttr<StrAttr>:$reduce_op,
                       OptionalAttr<I64Attr>:$group_size);
  let results = (outs Wrapper_WorkType:$work);
  let assemblyFormat = [{
    $collective (`ins` `(` $inputs^ `:` type($inputs) `)`)?
    `outs` `(` $outputs `:` type($outputs) `)` `group` $group
    (`reduce` $reduce_op^)? (`size` $group_size^)? attr-dict `->` type($work)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The wait that finishes this collective (null in invalid IR).
    CollectiveWaitOp getWait();
  }];
}

def Wrapper_CollectiveWaitOp : Wrapper_Op<"collective_wait", [
    MemoryEffects<[MemWrite<Wrapper_Collectives>]>
  ]> {
  let summary = "Waits for a collective (wait_tensor)";
  let description = [{
    Blocks until the collective that `wrapper.collective_start` returned
    `work` for has finished; from here on its outputs hold the result and
    its buffers may be used and freed again.

    ```mlir
    wrapper.collective_wait %work
    ```
  }];
  let arguments = (ins Wrapper_WorkType:$work);
  let assemblyFormat = "$work attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The collective this waits for.
    CollectiveStartOp getStart() {
      return getWork().getDefiningOp<CollectiveStartOp>();
    }
  }];
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Wrapper_ConstantOp : Wrapper_Op<"constant", [Symbol]> {
  let summary = "Defines a constant buffer (a weight)";
  let description = [{
    A named constant buffer of the compiled model: a weight, a bias, a folded
    constant. Its type is a statically shaped memref with identity layout. The
    value is either given inline (any elements attribute, `dense_resource` for
    large weights) or omitted (`external`): the loader then supplies it.
    Graphs read constants through `wrapper.get_constant`; they are never
    written or freed.

    ```mlir
    wrapper.constant @fc1_bias : memref<4xf32> = dense<[0.0, 1.0, 2.0, 3.0]>
    wrapper.constant @fc1_weight : memref<4096x4096xf32> external
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<AnyStaticShapeMemRef>:$type,
                       OptionalAttr<ElementsAttr>:$value);
  let assemblyFormat = [{
    $sym_name `:` $type custom<ConstantValue>(ref($type), $value) attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MemRefType getMemRefType() {
      return ::llvm::cast<::mlir::MemRefType>(getType());
    }
    bool isExternal() { return !getValue(); }
  }];
}

def Wrapper_GetConstantOp : Wrapper_Op<"get_constant", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>, Pure
  ]> {
  let summary = "Reads the buffer of a constant";
  let description = [{
    Returns the (read-only) buffer holding the constant `@name`; the result
    type must equal the constant's type.

    ```mlir
    %w = wrapper.get_constant @fc1_weight : memref<4096x4096xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$constant);
  let results = (outs Wrapper_Buffer:$result);
  let assemblyFormat = "$constant attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Annotations
//===----------------------------------------------------------------------===//

def Wrapper_CommentOp : Wrapper_Op<"comment", [
    MemoryEffects<[MemWrite<Wrapper_Annotation>]>
  ]> {
  let summary = "A comment in the host program (CommentLine)";
  let description = [{
    A one-line comment carried into generated host code, for example the
    source ops of the kernel launched next. It has no effect at run time.

    ```mlir
    wrapper.comment "Source nodes: add, relu"
    ```
  }];
  let arguments = (ins StrAttr:$text);
  let assemblyFormat = "$text attr-dict";
  let hasVerifier = 1;
}

def Wrapper_DebugPrintOp : Wrapper_Op<"debug_print", [
    MemoryEffects<[MemWrite<Wrapper_DebugOutput>]>
  ]> {
  let summary = "Prints statistics of a buffer (debug printer)";
  let description = [{
    Prints `label`, then the buffer's shape, dtype, min, max, mean and
    standard deviation, and its values when it has 64 elements or fewer: the
    PRINT_ONLY level of Inductor's intermediate-value debug printer.

    ```mlir
    wrapper.debug_print %buf0, "before fused_add_relu_0 arg 1" : memref<4xf32>
    ```
  }];
  let arguments = (ins Arg<Wrapper_Buffer, "", [MemRead<DefaultResource>]>:$buffer,
                       StrAttr:$label);
  let assemblyFormat = "$buffer `,` $label attr-dict `:` type($buffer)";
}

def Wrapper_DebugMessageOp : Wrapper_Op<"debug_message", [
    MemoryEffects<[MemWrite<Wrapper_DebugOutput>]>
  ]> {
  let summary = "Prints a line at run time (debug printer)";
  let description = [{
    Prints `message` on its own line when the program runs: what the
    kernel-names level of the debug printer inserts before each kernel
    (Inductor's PRINT_KERNEL_NAMES_ONLY).

    ```mlir
    wrapper.debug_message "main_kernel_0"
    ```
  }];
  let arguments = (ins StrAttr:$message);
  let assemblyFormat = "$message attr-dict";
}

def Wrapper_DebugSaveOp : Wrapper_Op<"debug_save", [
    MemoryEffects<[MemWrite<Wrapper_DebugOutput>]>
  ]> {
  let summary = "Saves a buffer to a .npy file (debug printer)";
  let description = [{
    Writes the buffer to the NumPy file `path`: the SAVE_ONLY level of
    Inductor's intermediate-value debug printer. The path must end in `.npy`.

    ```mlir
    wrapper.debug_save %buf0, "fused_add_relu_0_arg1_before.npy" : memref<4xf32>
    ```
  }];
  let arguments = (ins Arg<Wrapper_Buffer, "", [MemRead<DefaultResource>]>:$buffer,
                       StrAttr:$path);
  let assemblyFormat = "$buffer `,` $path attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// The extern C ABI (what --wrapper-lower-extern-abi produces)
//===----------------------------------------------------------------------===//

def Wrapper_TensorDescriptorOp : Wrapper_Op<"tensor_descriptor", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>
  ]> {
  let summary = "The C descriptor of a buffer, for a shim call";
  let description = [{
    Builds the `wrapper_tensor` descriptor of WrapperShim.h for `buffer` on
    the stack of the enclosing function (data pointer at the view's first
    element, dtype code, rank, sizes and strides in elements) and yields its
    address, to pass to a `wrapper_shim_*` function. The descriptor lives
    until the function returns.

    ```mlir
    %d0 = wrapper.tensor_descriptor %a : memref<4x8xf32>
    ```
  }];
  let arguments = (ins Arg<Wrapper_Buffer, "", [MemRead<DefaultResource>,
                                                MemWrite<DefaultResource>]>:$buffer);
  let results = (outs LLVM_DefaultPointer:$descriptor);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Wrapper_ResultDescriptorsOp : Wrapper_Op<"result_descriptors", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    MemoryEffects<[MemAlloc<DefaultResource>]>
  ]> {
  let summary = "Empty C descriptors for the results of a shim call";
  let description = [{
    Builds an array of `wrapper_tensor` descriptors on the stack, one per
    type in `types`: data NULL, the dtype and rank of the type, and sizes
    holding the type's static sizes (-1 for dynamic ones), which the shim
    checks against what it computes. A functional shim fills each with the
    buffer it allocated; `wrapper.descriptor_buffer` reads them back.

    ```mlir
    %r = wrapper.result_descriptors [memref<4x2xf32>]
    ```
  }];
  let arguments = (ins TypeArrayAttr:$types);
  let results = (outs LLVM_DefaultPointer:$descriptors);
  let assemblyFormat = "$types attr-dict";
  let hasVerifier = 1;
}

def Wrapper_DescriptorBufferOp : Wrapper_Op<"descriptor_buffer", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    MemoryEffects<[MemRead<DefaultResource>]>
  ]> {
  let summary = "The buffer a functional shim returned in a descriptor";
  let description = [{
    The buffer that a functional shim allocated and described in descriptor
    `index` of `descriptors` (from `wrapper.result_descriptors`), with the
    type given there; dynamic sizes are read from the descriptor. The graph
    owns it and frees it with `wrapper.free`.

    ```mlir
    %buf0 = wrapper.descriptor_buffer %r[0] : memref<4x2xf32>
    ```
  }];
  let arguments = (ins LLVM_DefaultPointer:$descriptors,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$index);
  let results = (outs Wrapper_Buffer:$buffer);
  let assemblyFormat = "$descriptors `[` $index `]` attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Wrapper_CheckStatusOp : Wrapper_Op<"check_status"> {
  let summary = "Stops the program when a shim call failed";
  let description = [{
    Checks the `wrapper_status` that a shim returned: when it is not
    `WRAPPER_OK`, the program prints
    `error: extern kernel <callee> failed: <message>` and exits with status 1
    (`wrapper_shim_check` of the runtime).

    ```mlir
    wrapper.check_status %status, "aten::mm.out" : i32
    ```
  }];
  let arguments = (ins I32:$status, StrAttr:$callee);
  let assemblyFormat = "$status `,` $callee attr-dict `:` type($status)";
}

#endif // WRAPPER_DIALECT_WRAPPER_IR_WRAPPEROPS_TD
