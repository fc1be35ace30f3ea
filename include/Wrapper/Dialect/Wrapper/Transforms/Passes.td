//===- Passes.td - wrapper dialect passes ------------------*- tablegen -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_WRAPPER_TRANSFORMS_PASSES_TD
#define WRAPPER_DIALECT_WRAPPER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def WrapperPlanMemoryPass
    : Pass<"wrapper-plan-memory", "::mlir::wrapper::GraphOp"> {
  let summary = "Reuses or pools the storage of intermediate buffers";
  let description = [{
    Plans the storage of the buffers a graph allocates, from the liveness
    the graph states: each `wrapper.free` ends a buffer's life. Strategies
    (`strategy=`):

    - `none`: changes nothing (the report still counts).
    - `reuse` (default), Inductor's ReuseLine: an allocation takes the
      storage of a freed buffer on the same device, with the same element
      type and the same number of bytes (for dynamic sizes: an identical
      type and sizes that are provably the same value), most recently freed
      first, provided no other allocation happens between the free and the
      allocation. The free is removed and the allocation becomes
      `wrapper.reuse`. This never raises the peak: between the free and the
      reuse only frees and calls happen, so memory use there is at most what
      it was just before the free.
    - `pool`: the static-size buffers that the graph allocates and frees go
      into one `i8` pool per device, each at an offset (`wrapper.view`)
      found by greedy packing by size (largest first, lowest 64-byte aligned
      offset that overlaps no buffer live at the same time, as TFLite's and
      IREE's planners do). The pool is allocated before the first of them
      and freed after the last. If the pool would raise the static peak
      (packing leaves gaps), the graph is planned with `reuse` instead.
      Dynamic-size buffers, returned buffers and buffers that are reused or
      handed on (`free_if_not_reused`) keep their own allocations.

    With `report`, a remark on each graph gives the allocation count and
    the static peak before and after, and for `pool` the pool size and its
    fragmentation (bytes of the pool not live at the pool's fullest moment).
    (Release builds of MLIR do not collect pass statistics.)

    Before:
    ```mlir
    %buf0 = wrapper.alloc() : memref<64x256xf32>
    wrapper.call @k0(%x, %buf0) : ...
    wrapper.free %buf0 : memref<64x256xf32>
    %buf1 = wrapper.alloc() : memref<256x64xf32>
    ```
    After (`reuse`):
    ```mlir
    %buf0 = wrapper.alloc() : memref<64x256xf32>
    wrapper.call @k0(%x, %buf0) : ...
    %buf1 = wrapper.reuse %buf0 : memref<64x256xf32> to memref<256x64xf32>
    ```
  }];
  let options = [
    Option<"strategy", "strategy", "::mlir::wrapper::MemoryPlanStrategy",
           /*default=*/"::mlir::wrapper::MemoryPlanStrategy::Reuse",
           "How storage is assigned",
           [{::mlir::wrapper::getMemoryPlanStrategyValues()}]>,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark with the counts before and after planning">,
  ];
}

def WrapperVerifyLifetimesPass
    : Pass<"wrapper-verify-lifetimes", "::mlir::wrapper::GraphOp"> {
  let summary = "Checks buffer lifetimes of a graph, independently of the "
                "planner";
  let description = [{
    Walks a graph in program order, tracking each storage (an allocation,
    a reuse, an extern allocation, a multi_output element; views count as
    uses of the storage they view), and reports, with a note at the other
    op involved:

    - a use of storage after it was freed or its storage was reused (also
      through a view, which the op verifiers do not follow);
    - a double free;
    - a leak: storage that is neither freed nor returned nor handed on;
    - two views of one pool that overlap in bytes while both are live.

    The op verifiers check some of this for single values; this pass is the
    independent check the memory planner's tests run after planning.
  }];
}

def WrapperInsertDebugPrinterPass
    : Pass<"wrapper-insert-debug-printer", "::mlir::ModuleOp"> {
  let summary = "Instruments kernel and extern calls with debug output";
  let description = [{
    Inductor's intermediate-value debug printer as a pass. Around each
    selected `wrapper.call`, `wrapper.extern_out` and `wrapper.extern_alloc`
    of every graph, by `level`:

    - `print`: before and after the call, `wrapper.debug_print` of each
      buffer argument (results too for `extern_alloc`, after it), labelled
      `before <kernel> arg <i>` / `after <kernel> arg <i>`: shape, dtype,
      min, max, mean, std, and the values when there are 64 or fewer;
    - `save`: the same buffers as `.npy` files
      `<dir>/<kernel>_arg<i>_before.npy` / `_after.npy`
      (`wrapper.debug_save`);
    - `kernel-names`: a `wrapper.debug_message` with the kernel's name
      before each call;
    - `off`: removes every debug op (`debug_print`, `debug_save`,
      `debug_message`).

    `kernels=a,b` selects calls by kernel symbol (or extern callee) name;
    empty selects all. A name that matches no call gets a warning.

    ```mlir
    // level=print kernels=main_kernel_0
    wrapper.debug_print %x, "before main_kernel_0 arg 0" : memref<4xf32>
    wrapper.debug_print %buf, "before main_kernel_0 arg 1" : memref<4xf32>
    wrapper.call @main_kernel_0(%x, %buf) : memref<4xf32>, memref<4xf32>
    wrapper.debug_print %x, "after main_kernel_0 arg 0" : memref<4xf32>
    wrapper.debug_print %buf, "after main_kernel_0 arg 1" : memref<4xf32>
    ```
  }];
  let options = [
    Option<"level", "level", "::mlir::wrapper::DebugPrinterLevel",
           /*default=*/"::mlir::wrapper::DebugPrinterLevel::Print",
           "What is inserted around each call",
           [{::mlir::wrapper::getDebugPrinterLevelValues()}]>,
    ListOption<"kernels", "kernels", "std::string",
               "Kernels to instrument (all when empty)">,
    Option<"directory", "dir", "std::string", /*default=*/"\".\"",
           "Directory of the .npy files of level=save">,
  ];
}

def WrapperDedupeConstantsPass
    : Pass<"wrapper-dedupe-constants", "::mlir::ModuleOp"> {
  let summary = "Stores identical constants once";
  let description = [{
    Merges `wrapper.constant` ops of the same type and the same inline value
    (an attribute compares equal when its contents do) into the first of
    them, and points every `wrapper.get_constant` of the others at it.
    External constants are never merged (their values are unknown here).
    With `report`, a remark gives the constants and bytes saved.

    Before:
    ```mlir
    wrapper.constant @a : memref<2xf32> = dense<[1.0, 2.0]>
    wrapper.constant @b : memref<2xf32> = dense<[1.0, 2.0]>
    %1 = wrapper.get_constant @b : memref<2xf32>
    ```
    After:
    ```mlir
    wrapper.constant @a : memref<2xf32> = dense<[1.0, 2.0]>
    %1 = wrapper.get_constant @a : memref<2xf32>
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark with the constants and bytes saved">,
  ];
}

def WrapperBucketCollectivesPass
    : Pass<"wrapper-bucket-collectives", "::mlir::ModuleOp"> {
  let summary = "Merges all_reduces into buckets and overlaps them with "
                "compute";
  let description = [{
    Data-parallel training all-reduces every gradient; one collective per
    gradient pays the latency of the network (or of NCCL's launch) per
    tensor. As DDP and Inductor's `comms.py` do, this pass merges the
    `all_reduce` collectives of each graph into buckets: collectives on the
    same process group, with the same reduction, element type and device,
    whose buffers have static sizes, taken in program order until a bucket
    holds `bucket-bytes` (DDP's default, 25 MiB; the first bucket of each
    kind at most `first-bucket-bytes`, DDP's 1 MiB, so that communication
    starts as soon as the first gradients are ready). A collective joins the
    open bucket only when no member's wait comes before it, so a collective
    that depends on another's result is never merged with it. The merged
    collective starts where its last member started and is waited for where
    its first member was.

    Modes (`mode=`):

    - `concat` (default, seed 002's all_reduce bucketing): the members are
      copied into one new buffer, one `all_reduce` runs on it (so a scaling
      such as `avg` is done once on the concatenated buffer), and the
      results are copied back after the wait.
    - `coalesced`: one coalesced `all_reduce` over all members' buffers, no
      copies (the process group reduces them as a group).

    With `schedule` (default on), first the kernel calls and frees that
    consume what collectives produced (an optimizer's updates) move as late
    as the ops after them allow, in their order; then, before and after
    merging, every
    collective's start is raised as early as its buffers allow (past ops
    that do not touch them) and its wait is sunk as late as the uses of its
    buffers allow, so that communication overlaps the compute in between.
    Collectives may pass each other: every rank compiles the same graph
    with the same passes and so issues them in one order. Scheduled first,
    the starts stand in the order their buffers become ready, and buckets
    fill in that order (as DDP's fill in the order backward produces
    gradients). With `report`, a remark on each graph gives the buckets
    formed and how many of its all_reduces they merged.

    Before (`bucket-bytes=1024`):
    ```mlir
    %w0 = wrapper.collective_start "all_reduce" outs(%g0 : memref<64xf32>) group "0" reduce "avg" -> !wrapper.work
    wrapper.collective_wait %w0
    %w1 = wrapper.collective_start "all_reduce" outs(%g1 : memref<32xf32>) group "0" reduce "avg" -> !wrapper.work
    wrapper.collective_wait %w1
    ```
    After (`mode=coalesced`):
    ```mlir
    %work = wrapper.collective_start "all_reduce" outs(%g0, %g1 : memref<64xf32>, memref<32xf32>) group "0" reduce "avg" -> !wrapper.work
    wrapper.collective_wait %work
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
  let options = [
    Option<"bucketBytes", "bucket-bytes", "int64_t",
           /*default=*/"25 * 1024 * 1024",
           "Most bytes in one bucket (0: no merging)">,
    Option<"firstBucketBytes", "first-bucket-bytes", "int64_t",
           /*default=*/"1024 * 1024",
           "Most bytes in the first bucket of each kind (DDP's 1 MiB: "
           "communication starts early)">,
    Option<"mode", "mode", "std::string", /*default=*/"\"concat\"",
           "How a bucket is reduced: concat or coalesced">,
    Option<"schedule", "schedule", "bool", /*default=*/"true",
           "Raise starts and sink waits to overlap communication">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark with the buckets of each graph">
  ];
  let statistics = [
    Statistic<"numBuckets", "buckets", "Buckets of two or more collectives">,
    Statistic<"numMerged", "merged", "Collectives merged into buckets">
  ];
}

def WrapperDedupeKernelsPass
    : Pass<"wrapper-dedupe-kernels", "::mlir::ModuleOp"> {
  let summary = "Compiles identical kernel bodies once";
  let description = [{
    Deep models repeat their layers, and every layer's kernels come out of
    the lowering as separate functions with identical bodies (the weights
    are arguments). This pass points every `wrapper.kernel` whose
    `func.func` implementation is structurally equal to an earlier one
    (same type, same ops, attributes and regions, locations ignored) at that
    earlier implementation and erases the copies, so that code generation
    compiles each body once. Kernel definitions, their names and metadata
    stay; only the implementations are shared. With `report`, a remark
    gives the number of implementations removed.

    Before:
    ```mlir
    func.func private @k0_impl(%a: memref<4xf32>, %b: memref<4xf32>) { ... }
    func.func private @k1_impl(%a: memref<4xf32>, %b: memref<4xf32>) { ... }  // same body
    wrapper.kernel @k0 = @k0_impl
    wrapper.kernel @k1 = @k1_impl
    ```
    After:
    ```mlir
    func.func private @k0_impl(%a: memref<4xf32>, %b: memref<4xf32>) { ... }
    wrapper.kernel @k0 = @k0_impl
    wrapper.kernel @k1 = @k0_impl
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark with the number of implementations removed">,
  ];
}

def WrapperPlaceOnDevicePass
    : Pass<"wrapper-place-on-device", "::mlir::ModuleOp"> {
  let summary = "Puts the buffers of every graph on a device";
  let description = [{
    Moves a host program onto `device` (`cuda`, `cuda:N`): every buffer of
    every `wrapper.graph` (its arguments and results, allocations, views,
    constants) gets the device as memory space, and every `func.func`
    kernel the graphs call is marked `on` the device, a kernel launched from
    the host whose body the device's pipeline lowers (for CUDA: kernel
    launches and cuBLAS calls). Memory planning that runs afterwards reuses
    and pools device buffers; the CUDA host lowering turns allocations into
    the runtime's caching device allocator and constants into device copies
    made once.

    Refused, with the op named: extern kernels (no device implementation
    yet), debug printing (reads buffers on the host), and ops producing
    buffers that this pass does not know.

    Before:
    ```mlir
    wrapper.graph @g(%x: memref<8xf32>) -> memref<8xf32> {
      %buf = wrapper.alloc() : memref<8xf32>
      wrapper.call @k(%x, %buf) : memref<8xf32>, memref<8xf32>
      wrapper.return %buf : memref<8xf32>
    }
    wrapper.kernel @k = @k_impl
    ```
    After (`device=cuda`):
    ```mlir
    wrapper.graph @g(%x: memref<8xf32, #wrapper.device<cuda>>)
        -> memref<8xf32, #wrapper.device<cuda>> {
      %buf = wrapper.alloc() : memref<8xf32, #wrapper.device<cuda>>
      wrapper.call @k(%x, %buf) : memref<8xf32, #wrapper.device<cuda>>,
                                  memref<8xf32, #wrapper.device<cuda>>
      wrapper.return %buf : memref<8xf32, #wrapper.device<cuda>>
    }
    wrapper.kernel @k = @k_impl on #wrapper.device<cuda>
    ```
  }];
  let options = [
    Option<"device", "device", "std::string", /*default=*/"\"cuda\"",
           "The device: cuda or cuda:N">,
  ];
}

def WrapperExportKernelsPass
    : Pass<"wrapper-export-kernels", "::mlir::ModuleOp"> {
  let summary = "Keeps only the kernel implementations, made public";
  let description = [{
    Removes the host side of a wrapper module (graphs, `wrapper.kernel`
    declarations, constants) and makes each kernel's `func.func`
    implementation public, so that `--wrapper-cpu-codegen{c-interface}`
    compiles the kernels alone with `_mlir_ciface_` entry points: the
    object that C++ host code from `wrapper-translate --wrapper-to-cpp`
    links with.
  }];
}

def WrapperLowerExternABIPass
    : Pass<"wrapper-lower-extern-abi", "::mlir::ModuleOp"> {
  let summary = "Lowers extern calls to calls of the C shim functions";
  let description = [{
    Every `wrapper.extern_out` / `wrapper.extern_alloc` of a registered
    kernel becomes a `func.call` of its entry point in WrapperShim.h
    (`wrapper_shim_<op>[_out|_inplace][_v<N>]`, declared in the module)
    followed by `wrapper.check_status`. Arguments follow the schema
    (docs/Externs.md, "The C ABI"): tensors as `wrapper.tensor_descriptor`
    pointers, optional tensors as nullable pointers, `int` as i64, `float`
    and `Scalar` as f64, `bool` as i32, `ScalarType` as an i32 dtype code,
    optional values by pointer (null for None), `int[]` as a pointer and an
    i64 length, defaults filled in from the schema. Functional calls get
    their results through `wrapper.result_descriptors` and
    `wrapper.descriptor_buffer`; the tuples and lists they return are taken
    apart (each `wrapper.multi_output` becomes the element's buffer, and
    freeing a container frees the elements not extracted).

    A call of a kernel the registry does not know, or of a variant the
    library does not implement (run `--wrapper-synthesize-extern-variants`
    first), is an error. Runs after memory planning.

    ```mlir
    wrapper.extern_out "aten::mm" ins(%a, %b : memref<4x8xf32>, memref<8x2xf32>)
        outs(%o : memref<4x2xf32>)
    ```
    becomes
    ```mlir
    %desc = wrapper.tensor_descriptor %a : memref<4x8xf32>
    %desc_0 = wrapper.tensor_descriptor %b : memref<8x2xf32>
    %desc_1 = wrapper.tensor_descriptor %o : memref<4x2xf32>
    %0 = func.call @wrapper_shim_mm_out(%desc, %desc_0, %desc_1)
        : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
    wrapper.check_status %0, "aten::mm" : i32
    ```

    Collectives (`wrapper.collective_start` and its `wrapper.collective_wait`)
    become `wrapper_collective_start(collective, group, reduce_op,
    group_size, device, #inputs, inputs, #outputs, outputs, &work)` where the
    start was and `wrapper_collective_wait(work)` where the wait was, each
    followed by `wrapper.check_status` (docs/Runtime.md, "Collectives").
    With `collectives-only` (what the CUDA pipeline runs), extern calls are
    left alone.
  }];
  let options = [
    Option<"collectivesOnly", "collectives-only", "bool", /*default=*/"false",
           "Lower only the collectives">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
}

def WrapperSynthesizeExternVariantsPass
    : Pass<"wrapper-synthesize-extern-variants", "::mlir::ModuleOp"> {
  let summary = "Builds out= and in-place variants from functional kernels";
  let description = [{
    Where a call needs the `out=` form (`wrapper.extern_out` of a kernel
    name) or the in-place form (`aten::relu_`) of a registered kernel whose
    library implements only the functional form, generates a private
    function that calls the functional kernel (`wrapper.extern_alloc`),
    checks that the result has the shape of the destination (static sizes
    by type, dynamic ones with `cf.assert`), copies it into `out` (or back
    into `self`) and frees it, and replaces the call by a `func.call` of the
    function. One function is made per kernel, variant, operand types and
    compile-time arguments (`__wrapper_synth_<op>_<variant>_<n>`). A variant
    the library implements always wins: such calls are left alone. Runs
    after memory planning (the calls it makes are plain function calls).
  }];
  let dependentDialects = ["::mlir::cf::ControlFlowDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // WRAPPER_DIALECT_WRAPPER_TRANSFORMS_PASSES_TD
