//===- Passes.td - CUDA code generation passes -------------*- tablegen -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_CODEGEN_CUDA_PASSES_TD
#define WRAPPER_CODEGEN_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def WrapperCUDARowKernelsPass
    : Pass<"wrapper-cuda-row-kernels", "::mlir::func::FuncOp"> {
  let summary = "Row reductions and the row-local ops around them as "
                "one-block-per-row GPU kernels";
  let description = [{
    On buffers, before the remaining linalg ops become parallel loops. A run
    of consecutive `linalg.generic`/`linalg.fill` ops that share their leading
    ("row") loops and contain a reduction over the innermost loop (softmax,
    layer_norm, rms_norm, sums and maxima over the last dimension) becomes one
    `gpu.launch` with one block per row:

    - ops over the whole row loop over it with the block's threads,
      neighbouring threads on neighbouring elements, with 128-bit
      `vector.load`/`vector.store` (alignment 16) where every operand indexed
      along the row is contiguous and aligned and the row length a static
      multiple of the vector;
    - when the block covers a static row in at most 8 steps, the row loops
      are straight-line code and each thread loads its part of every input once
      (the values stay in registers for every later op of the run: softmax,
      layer_norm and rms_norm read x once);
    - a reduction folds each thread's elements, combines the threads with
      `gpu.all_reduce` (lowered by `wrapper-lower-all-reduce`, upstream's warp
      shuffles plus a shared-memory step; 32-bit values) and thread 0 folds
      the total into the output;
    - ops over one element per row (`mean = sum / n`, `rsqrt`) run on thread 0;
      a `gpu.barrier` separates the ops.

    An op joins a run only if every buffer written in the run is read and
    written row by row (the row loops index it identically, through the same
    value), so blocks never depend on each other; allocations, frees, dims and
    views between the ops move around the launch. A reduction across rows (a
    column sum), over several loops, or of 64-bit values is left alone, as is
    anything that would make rows depend on each other. A lone elementwise op
    of more than one row whose static rows are at least 512 elements and
    aligned becomes the same kind of kernel (one vector per thread); a
    single row would be one block, and keeps the parallel-loop mapping. Options: `block-size` (0: the row
    length over four vectors per thread, 64 to 1024), `vectorize` (true).
    Part of `--wrapper-cuda-pipeline`.

    ```mlir
    // row max, then x - max (linalg on memrefs) becomes:
    gpu.launch blocks(%b, ...) in (%gx = %rows, ...) threads(%t, ...) in (%bx = %c64, ...) {
      %v = vector.load %x[%b, %j] {alignment = 16 : i64} : memref<16x512xf32>, vector<4xf32>
      ...                                   // this thread's partial maximum
      %m = gpu.all_reduce maximumf %p uniform {} : (f32) -> f32
      scf.if %first { memref.store ... }    // thread 0 writes the row's maximum
      gpu.barrier
      ...                                   // x - max, 128-bit stores
    }
    ```

    Before forming runs, a generic whose innermost loops are several
    reductions that every operand indexes as its contiguous innermost
    dimensions has them folded into one (upstream's
    `linalg::collapseOpIterationDims`, which collapses the buffers too): a max
    over `[rows, 5, 6]` becomes one over `[rows, 30]`, the sum of a whole
    `[3, 5, 6]` tensor one over `[90]` (one block). Keepdim outputs and
    broadcasts (zero results in a map) and strided buffers are not folded.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"0",
           "Threads per row (0: from the row length)">,
    Option<"vectorize", "vectorize", "bool", /*default=*/"true",
           "128-bit loads and stores where alignment allows">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def WrapperCUDAMatmulToCublasPass
    : Pass<"wrapper-cuda-matmul-to-cublas", "::mlir::ModuleOp"> {
  let summary = "Matrix products on buffers as calls of cuBLAS (through the "
                "CUDA runtime)";
  let description = [{
    Runs on buffers, before the remaining linalg ops become GPU kernels.
    A `linalg.matmul`, `linalg.batch_matmul`, or a contraction
    `linalg.generic` of the same form (`out[b..., m, n] += lhs[b..., m, k] *
    rhs[b..., k, n]`, either operand transposed in its last two dimensions,
    either operand without the batch dimensions, f16/bf16 inputs extended
    to an f32 accumulator) whose buffers have the identity layout becomes a
    call of the runtime's `wrapperCudaGemm` on the buffers' device
    addresses: cuBLAS's strided batched product, queued on the runtime's
    stream (`include/Wrapper/Runtime/WrapperCuda.h`). A zero `linalg.fill`
    of the output just before the product is folded into it (beta = 0).
    The declaration of `wrapperCudaGemm` carries `wrapper.cuda_stream_ordered`,
    which tells `--wrapper-cuda-stream-ordered-calls` that the call needs no
    wait for earlier GPU work.

    A product of f16/bf16 operands into a zero-filled f32 scratch buffer
    (a `memref.alloc`) whose readers only round it back to the operands'
    type (`arith.truncf` of the element, the lowering's form of a bf16
    product) writes the narrow type itself: cuBLAS accumulates in f32 and
    rounds once, as the reader did. The readers take a narrow buffer in the
    scratch buffer's place, without their truncation; a reader that only
    copies the product into a buffer defined before it (the function's
    result) is dropped and cuBLAS writes that buffer. Half the bytes written
    and read back, and one kernel less for a product that is a result.

    f32 products use TF32 tensor cores (10-bit mantissas, f32 accumulation)
    with `allow-tf32`; products marked `tensor_program.convolution` (the
    product of `--tensor-program-convolution-to-matmul`) also with
    `allow-tf32-convolutions`: PyTorch's two switches,
    `torch.backends.cuda.matmul.allow_tf32` (off by default) and
    `torch.backends.cudnn.allow_tf32` (on by default), which the Python
    package passes on.

    Products of other element types (integers, f64), other layouts (strided
    views) or other indexing (broadcast batch dimensions of size other than
    one, several batch dimensions that differ between operands) are left
    alone and become ordinary kernels.

    ```mlir
    linalg.fill ins(%zero : f32) outs(%c : memref<64x32xf32>)
    linalg.matmul ins(%a, %b : memref<64x128xf32>, memref<128x32xf32>)
                  outs(%c : memref<64x32xf32>)
    // becomes
    %pa = memref.extract_aligned_pointer_as_index %a : memref<64x128xf32> -> index
    ...
    func.call @wrapperCudaGemm(%c1, %c64, %c32, %c128, %a_i64, %c8192, ...)
    ```
  }];
  let options = [
    Option<"allowTF32", "allow-tf32", "bool", /*default=*/"false",
           "Let f32 products use TF32 tensor cores (10-bit mantissas)">,
    Option<"allowTF32Convolutions", "allow-tf32-convolutions", "bool",
           /*default=*/"false",
           "Let f32 products that compute a convolution (marked "
           "tensor_program.convolution) use TF32 tensor cores">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def WrapperCUDAStreamOrderedCallsPass
    : Pass<"wrapper-cuda-stream-ordered-calls", "::mlir::func::FuncOp"> {
  let summary = "Drops the host waits that gpu-async-region puts before "
                "calls of stream-ordered runtime functions";
  let description = [{
    `gpu-async-region` makes the host wait for the GPU before any call it
    cannot see into. A callee marked `wrapper.cuda_stream_ordered` (the
    runtime's `wrapperCudaGemm`) queues its work on the runtime's one
    stream, behind the kernels already queued, so the blocking `gpu.wait`
    right before such a call is erased; the GPU work after it starts a new
    token (`gpu.wait async`), which the runtime maps to the same stream.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def WrapperCUDAReleaseArgumentsPass
    : Pass<"wrapper-cuda-release-arguments", "::mlir::ModuleOp"> {
  let summary = "Frees each donated argument after its last reader";
  let description = [{
    For every public function, after the kernels were outlined: each
    argument marked `wrapper.releasable` (an input of a host graph that the
    graph neither writes nor returns a view of) gets a call of the CUDA
    runtime's `wrapperCudaReleaseArgument` right after the last operation
    that reads it, or anything derived from it (views, casts, pointers taken
    from it, results of the ops that read it), at the function's top level.
    The runtime frees the block there only when the caller donated it for
    this call (`wrapper_cuda_donate`: a training step's backward gives up
    the activations its forward saved) and it belongs to the current
    stream; otherwise the call does nothing. The free needs no wait: the
    caching allocator reuses the block only on that stream, behind the
    launches already queued.

    An argument that reaches the function's return, or is not marked, is
    left alone; one that nothing reads is released at the function's
    start. The callee is declared `wrapper.cuda_stream_ordered`, so that
    `gpu-async-region` puts no host wait before it.

    ```mlir
    func.func @backward(%saved: memref<64xf32> {wrapper.releasable}, ...) {
      gpu.launch_func @k::@k blocks in (...) threads in (...)
          args(%saved : memref<64xf32>, %grad : memref<64xf32>)
      // inserted
      %p = memref.extract_aligned_pointer_as_index %saved : memref<64xf32> -> index
      %i = arith.index_cast %p : index to i64
      func.call @wrapperCudaReleaseArgument(%i) : (i64) -> ()
      ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def WrapperCUDAPlaceBuffersPass
    : Pass<"wrapper-cuda-place-buffers", "::mlir::ModuleOp"> {
  let summary = "Moves the host code's buffers of a CUDA program to the "
                "device";
  let description = [{
    After the kernels became `gpu.launch` ops (outside any launch):
    `memref.alloc`/`alloca` become `gpu.alloc`, `memref.dealloc`
    `gpu.dealloc`, `memref.copy` `gpu.memcpy`, and a `memref.get_global`
    (weights, a kernel's constants) is read through its device copy: a call of
    the runtime's `wrapperCudaConstant` with the constant's two-pointer slot
    (an internal LLVM global, `__wrapper_cuda_constant_<name>`), which copies
    it on first use and afterwards returns the copy, so a weight crosses the
    bus once per process, not once per call. A public
    function copies its memref arguments to the device on entry and its memref
    results to fresh host buffers before each return, freeing the device copies
    and the device storage of the results there (once per storage: a result
    may be a view of a reused buffer), so callers keep passing host buffers. A buffer that only host code
    reads and writes (the shape of a `memref.reshape`, built in memory) stays a
    host allocation. Host code that still loads or stores any other buffer (a
    loop not mapped to the GPU) is an error naming the reason. With
    `device-arguments`, public functions instead take and return device
    buffers (no copies; a result that is an argument or a constant's device
    copy is returned as a fresh copy, so every result is the caller's to free).
    Part of `--wrapper-cuda-pipeline`.

    ```mlir
    func.func @main(%x: memref<?x8xf32>) -> memref<?x8xf32> {
      %d = gpu.alloc(%n) : memref<?x8xf32>      // was: uses of %x
      gpu.memcpy %d, %x : memref<?x8xf32>, memref<?x8xf32>
      ...                                       // gpu.launch on %d
      %h = memref.alloc(%n) : memref<?x8xf32>
      gpu.memcpy %h, %r : memref<?x8xf32>, memref<?x8xf32>
      gpu.dealloc %r : memref<?x8xf32>
      gpu.dealloc %d : memref<?x8xf32>
      return %h : memref<?x8xf32>
    }
    ```
  }];
  let options = [
    Option<"deviceArguments", "device-arguments", "bool", /*default=*/"false",
           "Public functions take and return device buffers">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect"];
}

def WrapperCUDABlockReductionsPass
    : Pass<"wrapper-cuda-block-reductions", "::mlir::func::FuncOp"> {
  let summary = "Reductions that are not row reductions as one block per "
                "output element";
  let description = [{
    On buffers, after `wrapper-cuda-row-kernels` and before the remaining
    linalg ops become parallel loops. The parallel-loop mapping gives each
    output element of a reduction one thread that folds the reduced
    elements in sequence: a batch_norm statistic (a sum over `[N, H, W]`
    of `[N, C, H, W]`, one output per channel) runs in C threads, one block
    on the whole GPU, each thread reading 4 KiB apart from its neighbour.
    This pass turns every one-output reduction left outside a kernel whose
    reduced loops span at least `min-reduction` elements (or a dynamic
    number) into a `gpu.launch` with one block per output element (the
    parallel loops delinearized from the block index): the block's threads
    stride over the reduced loops flattened (the innermost fastest, so that
    neighbouring threads read neighbouring elements where the innermost
    reduced loop is the buffer's contiguous dimension), each folds its
    elements with the payload, `gpu.all_reduce` combines the threads, and
    thread 0 folds the total into the output's initial value.

    The ops around a reduction that would each be a launch of their own
    join it. A fill of the output before it (`linalg.fill` or its generic
    form; over ops without memory effects other than allocations, and
    fills of buffers the reduction does not read) is not run: thread 0
    starts from the fill's value instead of loading the output.
    Elementwise ops right after it over the output's elements (its loops,
    static sizes), reading its output or an earlier one's at the same
    element, run in thread 0 of each block on the element it computed
    (batch norm's statistics scaled, the running statistics updated, a
    backward's per-channel tails). They are not taken when one writes a
    buffer the reduction reads (other blocks may still be reading it), or
    reads a buffer written among them at other elements (a broadcast).

    The payload's accumulator must be used only by the combining op, an
    associative arith op on 32-bit values (the row kernels' condition);
    other reductions keep the parallel-loop mapping. `block-size` (0: from
    the reduced element count, 32 to 256).

    ```mlir
    // sum over d0, d2 of memref<8x64x1024xf32> into memref<64xf32>
    gpu.launch blocks(%b, ...) in (%gx = %c64, ...) threads(%t, ...) in (%bx = %c256, ...) {
      %p = scf.for %j = %t to %c8192 step %c256 iter_args(%acc = %zero) -> (f32) {
        // %j delinearized into (d0, d2); x[d0, %b, d2] folded into %acc
      }
      %s = gpu.all_reduce add %p uniform {} : (f32) -> f32
      scf.if %first { ... }                 // out[%b] = out[%b] + %s
    }
    ```
  }];
  let options = [
    Option<"minReduction", "min-reduction", "int64_t", /*default=*/"128",
           "Reduced elements per output from which a reduction gets a "
           "block per output">,
    Option<"blockSize", "block-size", "int64_t", /*default=*/"0",
           "Threads per block (0: from the reduced element count)">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def WrapperCUDAScalarKernelsPass
    : Pass<"wrapper-cuda-scalar-kernels", "::mlir::func::FuncOp"> {
  let summary = "Puts linalg ops without parallel loops into a one-iteration "
                "scf.parallel, so that they run on the GPU";
  let description = [{
    On buffers, before `convert-linalg-to-parallel-loops`: a linalg op with
    no parallel loop (a rank-0 `linalg.fill` or generic: a size used as a
    number, a scalar computed from scalars; a reduction of a whole tensor
    to a scalar) would become host code that reads and writes device
    memory, which `wrapper-cuda-place-buffers` refuses. Each such op outside
    any `scf.parallel` and `gpu.launch` is moved into an
    `scf.parallel (%i) = (0) to (1) step (1)`, which the GPU mapping turns
    into a launch of one working thread (a whole-tensor reduction then runs
    sequentially in that thread: correct, not fast).

    ```mlir
    linalg.fill ins(%v : f32) outs(%out : memref<f32>)
    // becomes
    scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
      linalg.fill ins(%v : f32) outs(%out : memref<f32>)
      scf.reduce
    }
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def WrapperInterchangeReductionsInnermostPass
    : Pass<"wrapper-interchange-reductions-innermost",
           "::mlir::func::FuncOp"> {
  let summary = "Puts the reduction loops of linalg.generic ops after their "
                "parallel ones";
  let description = [{
    Interchanges the iteration dimensions of every `linalg.generic` outside
    GPU kernels so that its parallel dimensions come first and its
    reductions last (each group keeping its relative order). The loops of a
    reduction over outer dimensions (a column sum, softmax over dim 0) then
    run inside each GPU thread, one column per thread with coalesced reads,
    instead of as a host loop that launches and waits for a kernel per row.
    A generic that cannot be interchanged keeps its order.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def WrapperCUDASelectBlockSizesPass
    : Pass<"wrapper-cuda-select-block-sizes", "::mlir::func::FuncOp"> {
  let summary = "Chooses the thread-block size of each parallel loop nest "
                "and records it on the loop";
  let description = [{
    The launch configuration as a recorded tuning decision (IREE's
    `lowering_config`): each outermost `scf.parallel` gets
    `wrapper.cuda_block_size = N : i64`, which
    `--wrapper-tile-parallel-loops-for-gpu` reads instead of its own
    `block-size`. The choice (`selectCUDABlockSize`): `max-block-size`
    threads, or for a loop of fewer static iterations (the product over its
    dimensions; loops nested in it run inside each thread), their count
    rounded up to a whole warp (32), so that a short loop does not launch a
    block of mostly idle threads. Loops that already carry the attribute
    (set by hand or by an earlier tuning step) keep it.

    ```mlir
    // 40 iterations: one block of 64 threads instead of 256.
    scf.parallel (%i) = (%c0) to (%c40) step (%c1) {
      ...
    } {wrapper.cuda_block_size = 64 : i64}
    ```
  }];
  let options = [
    Option<"maxBlockSize", "max-block-size", "int64_t", /*default=*/"256",
           "Threads of a block for loops with enough iterations">,
  ];
}

def WrapperTileParallelLoopsForGPUPass
    : Pass<"wrapper-tile-parallel-loops-for-gpu", "::mlir::func::FuncOp"> {
  let summary = "Tiles outermost scf.parallel loops by the block size and "
                "maps them to GPU blocks and threads";
  let description = [{
    Collapses each outermost `scf.parallel` into one dimension (row-major:
    upstream's `collapseParallelLoops`), tiles it by its recorded
    `wrapper.cuda_block_size` (`--wrapper-cuda-select-block-sizes`) or else
    `block-size` (no
    min/max bounds: the body is guarded) and sets the mapping attributes
    that `--convert-parallel-loops-to-gpu` reads: the tiles on block x (up
    to 2^31 - 1 blocks), the intra-tile loop on thread x. Neighbouring
    threads touch neighbouring elements, every thread of a block has work
    however short the innermost dimension is, and no dimension runs
    sequentially inside a thread: a depthwise convolution's
    `[N, C, 1, OH, OW]` loop is one grid of `N*C*OH*OW` threads. Loops with
    reductions keep their dimensions.

    With `linearize=false`, the dimensions stay: the innermost one is tiled
    (tiles on block x, the intra-tile loop on thread x), the next two go to
    block y and z, and further outer ones run sequentially in each thread.
    (Upstream's `--gpu-map-parallel-loops` would put the innermost
    dimension on y or z.)
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads of a block">,
    Option<"linearize", "linearize", "bool", /*default=*/"true",
           "Collapse every parallel loop into one dimension before mapping "
           "it (otherwise: innermost dimension on x, the next two on block "
           "y and z)">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def WrapperStridedCopiesToLinalgPass
    : Pass<"wrapper-strided-copies-to-linalg", "::mlir::func::FuncOp"> {
  let summary = "memref.copy between strided buffers as linalg.copy";
  let description = [{
    A `memref.copy` whose source or target has a non-identity layout (a
    slice, a part of a concatenation, a padded output's interior) becomes
    a `linalg.copy`, so that the CUDA pipeline turns it into a kernel and
    the CPU pipeline into vector loops (`memref.copy` would call the
    runtime's element-by-element `memrefCopy`); contiguous copies stay
    `memref.copy` (a `gpu.memcpy` on the device, `memcpy` on the CPU).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def WrapperCUDADropHostWaitsPass
    : Pass<"wrapper-cuda-drop-host-waits", "::mlir::func::FuncOp"> {
  let summary = "Erases the blocking gpu.wait ops of code that takes and "
                "returns device buffers";
  let description = [{
    `--gpu-async-region` makes the host wait for the GPU before each return
    and around host control flow (an `scf.for` on the host that launches
    kernels waits before the loop and at the end of each iteration). With
    device arguments (the CUDA pipeline's `device-arguments`) every launch,
    copy and product of a call goes to one stream in order, and host code
    never reads memory the GPU writes (`--wrapper-cuda-place-buffers` refuses
    it), so these waits only stall the host: a call returns once its work
    is queued and the caller synchronizes, as with PyTorch's CUDA tensors,
    and the whole call can be captured into a CUDA graph (a wait inside a
    capture fails). This pass erases every blocking `gpu.wait` (one that
    yields no token) of a function, unless the function copies into memory
    that is not a `gpu.alloc` (a copy to the host, which a wait must
    precede the reading of).

    ```mlir
    scf.for %i = %c0 to %n step %c1 {
      %t = gpu.launch_func async ...
      gpu.wait [%t]                 // erased
    }
    gpu.wait [%u]                   // erased
    return %d : memref<?xf32>
    ```
  }];
}

def WrapperLowerAllReducePass
    : Pass<"wrapper-lower-all-reduce", "::mlir::gpu::GPUModuleOp"> {
  let summary = "gpu.all_reduce as warp shuffles and shared memory";
  let description = [{
    Runs upstream's `gpu.all_reduce` rewrite (`populateGpuAllReducePatterns`,
    which has no pass of its own) on a `gpu.module`: the block reductions of
    the row kernels become warp shuffles plus one step through workgroup
    memory.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::memref::MemRefDialect"];
}

def WrapperCUDANameKernelsPass
    : Pass<"wrapper-cuda-name-kernels", "::mlir::ModuleOp"> {
  let summary = "Names each outlined kernel after its gpu.module";
  let description = [{
    `--gpu-kernel-outlining` puts each kernel of a function `@f` into a
    module of its own (`@f_kernel`, `@f_kernel_0`, ...) but names every
    kernel function `@f_kernel`, so profilers (Nsight Systems, PyTorch's
    profiler through CUPTI) show hundreds of kernels under one name. This
    pass renames the kernel of each `gpu.module` that holds one kernel to
    the module's name and updates the `gpu.launch_func` ops, so that a
    profile's kernel names are those of the modules in the IR.

    ```mlir
    gpu.launch_func @f_kernel_0::@f_kernel ...   // before
    gpu.launch_func @f_kernel_0::@f_kernel_0 ... // after
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def WrapperRequireNoLibdeviceCallsPass
    : Pass<"wrapper-require-no-libdevice-calls", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Fails when kernels call libdevice functions";
  let description = [{
    The CUDA pipeline adds this pass when it found no libdevice to link: a
    kernel that declares a `__nv_*` function (`__nv_expf`, ...) would give
    PTX that does not load, so the pass reports the function and where
    libdevice was looked for.
  }];
  let options = [
    Option<"cudaToolkit", "cuda-toolkit", "std::string", /*default=*/"",
           "The CUDA toolkit that was searched (empty: the environment's)">,
  ];
}

#endif // WRAPPER_CODEGEN_CUDA_PASSES_TD
