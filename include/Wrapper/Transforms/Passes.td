//===- Passes.td - project-wide passes ---------------------*- tablegen -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_TRANSFORMS_PASSES_TD
#define WRAPPER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def WrapperApproximateMathPass : Pass<"wrapper-approximate-math"> {
  let summary = "Replaces transcendental math ops with polynomial approximations";
  let description = [{
    Rewrites `math.exp`, `math.expm1`, `math.log`, `math.log1p`, `math.log2`,
    `math.tanh`, `math.erf`, `math.sin`, `math.cos`, `math.atan`,
    `math.atan2`, `math.asin`, `math.acos` and `math.cbrt` on f32 (and
    vectors of f32) into the polynomial approximations of MLIR's math
    dialect: straight-line arithmetic that LLVM vectorizes, instead of
    scalar libm calls. The approximations are accurate to a few ulp in f32
    (erf to about 1e-7 absolute).

    Before:
    ```mlir
    %y = math.exp %x : f32
    ```
    After: a range reduction and a polynomial in `arith` ops.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def WrapperTileAndFusePass
    : Pass<"wrapper-tile-and-fuse", "::mlir::func::FuncOp"> {
  let summary = "Tiles each linalg-on-tensors sink by rows and fuses its "
                "producers into the tile loop";
  let description = [{
    Turns a kernel that is a sequence of whole-tensor linalg ops (a softmax:
    row max, subtract and exp, row sum, divide) into one `scf.forall` over
    row tiles in which every op computes only its tile. The data of a tile
    stays in cache between the ops, so the kernel reads its input once and
    writes its output once, as Inductor's persistent reductions do, and the
    `scf.forall` is the loop that is spread over threads.

    Sinks are the linalg ops on tensors whose results no other linalg op of
    the function uses; they are visited last to first. The tile shape is
    chosen over the leading parallel loops of the sink: a loop is tiled by 1
    while the loops inside it still hold at least `tile-elements`
    iterations; the next one gets the rows that make up `tile-elements`
    (rounded down, at least 1); loops after it are not tiled. A sink whose
    first loop is a reduction, or whose tile would be the whole iteration
    space, is left alone.

    Producers are fused greedily through `tensor.extract_slice`
    (upstream `scf::tileConsumerAndFuseProducersUsingSCF`), except that
    work is never duplicated: a producer whose slice does not depend on the
    tile (the whole of a column reduction, say) stays outside the loop and
    is computed once, and a producer also used by a linalg op that is not
    upstream of the sink is not fused. A producer whose value is also used
    outside (a second kernel output) is fused and its tiles are yielded as
    an extra result of the loop. Identical fused copies within a tile are
    merged by CSE afterwards.

    With `skip-gemm`, a sink that is an f32 `linalg.matmul` or reads one
    directly (its epilogue) is left whole for `--wrapper-gemm-template`.

    Before:
    ```mlir
    %max = linalg.generic {iterator_types = ["parallel", "reduction"]}
             ins(%x : tensor<4096x4096xf32>) outs(%init : tensor<4096x1xf32>)
    %y = linalg.generic {iterator_types = ["parallel", "parallel"]}
             ins(%x, %max : ...) outs(%e : tensor<4096x4096xf32>)
    ```
    After:
    ```mlir
    %y = scf.forall (%i) = (0) to (4096) step (1) shared_outs(%o = %e) {
      %xs = tensor.extract_slice %x[%i, 0] [1, 4096] [1, 1]
      %m = linalg.generic ... ins(%xs) outs(... : tensor<1x1xf32>)
      %t = linalg.generic ... ins(%xs, %m) outs(... : tensor<1x4096xf32>)
      scf.forall.in_parallel { tensor.parallel_insert_slice %t into %o ... }
    }
    ```
  }];
  let options = [
    Option<"tileElements", "tile-elements", "int64_t", /*default=*/"4096",
           "Iterations of the parallel loops in one tile (at least 1)">,
    Option<"skipGemm", "skip-gemm", "bool", /*default=*/"false",
           "Leave f32 linalg.matmul and its direct consumers untiled, for "
           "--wrapper-gemm-template">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect"];
}

def WrapperLowerLinalgToLoopsPass
    : Pass<"wrapper-lower-linalg-to-loops", "::mlir::func::FuncOp"> {
  let summary = "Lowers linalg ops on buffers to loops, parallel only at "
                "the outermost level";
  let description = [{
    A linalg op that is not inside a parallel loop (`scf.parallel` or
    `scf.forall`) becomes an `scf.parallel` nest over its parallel
    dimensions (with `parallel=true`), so that `--convert-scf-to-openmp`
    spreads it over threads. A linalg op inside a parallel loop (the tile
    of `--wrapper-tile-and-fuse`) becomes sequential `scf.for` loops: one
    level of threads, never nested parallel regions. With `parallel=false`
    every op becomes `scf.for` loops, as `--convert-linalg-to-loops` does.

    Two cases stay sequential or are reordered, since a parallel region
    costs a fork and a join (microseconds): an op whose iteration space has
    fewer than `min-parallel-iterations` points (static sizes) becomes
    `scf.for` loops; and so does an op whose reduction dimensions come
    before parallel ones (a reduction over dimension 0): as parallel loops
    it would fork once per reduction step, and interchanged it would walk
    down columns; sequential rows vectorize (measured 3.7x faster than
    forking per row on a 2048x2048 softmax over dimension 0).
  }];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"true",
           "Lower linalg ops outside parallel loops to scf.parallel">,
    Option<"minParallelIterations", "min-parallel-iterations", "int64_t",
           /*default=*/"16384",
           "Ops with fewer iterations (static sizes) stay sequential">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect"];
}

def WrapperPromoteTileBuffersPass
    : Pass<"wrapper-promote-tile-buffers", "::mlir::func::FuncOp"> {
  let summary = "Puts the temporaries of parallel tile loops on the stack or "
                "frees them at the end of the tile";
  let description = [{
    Bufferizing a tiled kernel leaves `memref.alloc` ops in the body of its
    `scf.forall` (one row of an intermediate, a row's maximum), which
    upstream's ownership-based deallocation does not free. This pass
    handles every allocation directly in the body of an `scf.forall`:

    - one of static shape and at most `max-stack-bytes` bytes becomes a
      `memref.alloca`, and the body saves the stack pointer on entry
      (`llvm.intr.stacksave`) and restores it at its end, so that each tile
      releases its stack. (Not `memref.alloca_scope`: canonicalization
      inlines a scope directly inside `scf.forall` or `scf.parallel`, which
      count as allocation scopes but stop being ones when they are lowered
      to sequential branches.)
    - any other one is freed by a `memref.dealloc` at the end of the body
      (a forall body cannot hand a buffer out).

    Stack temporaries are also what LLVM can keep in registers: a row
    reduction's accumulator becomes a vector register, not a store per
    element. Run it after the deallocation pipeline; an allocation that
    already has a `memref.dealloc` is left alone unless it is promoted.

    Before:
    ```mlir
    scf.forall (%i) in (4096) {
      %m = memref.alloc() {alignment = 64 : i64} : memref<1xf32>
      ...
    }
    ```
    After:
    ```mlir
    scf.forall (%i) in (4096) {
      %sp = llvm.intr.stacksave : !llvm.ptr
      %m = memref.alloca() {alignment = 64 : i64} : memref<1xf32>
      ...
      llvm.intr.stackrestore %sp : !llvm.ptr
    }
    ```
  }];
  let options = [
    Option<"maxStackBytes", "max-stack-bytes", "int64_t", /*default=*/"65536",
           "Largest allocation (in bytes) put on the stack">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def WrapperLowerAllocaScopesPass : Pass<"wrapper-lower-alloca-scopes"> {
  let summary = "Inlines memref.alloca_scope between stacksave and "
                "stackrestore";
  let description = [{
    `memref.alloca_scope` has a single-block region, so loops inside it
    cannot be lowered to branches (`--convert-scf-to-cf`) while it stands;
    upstream lowers it only with the rest of memref, after control flow.
    This pass lowers it early: the region is inlined in place, preceded by
    `llvm.intr.stacksave` and followed by `llvm.intr.stackrestore`, which
    is what the memref-to-LLVM lowering would produce.

    Before:
    ```mlir
    memref.alloca_scope {
      %m = memref.alloca() : memref<1xf32>
      scf.for ... { ... }
    }
    ```
    After:
    ```mlir
    %sp = llvm.intr.stacksave : !llvm.ptr
    %m = memref.alloca() : memref<1xf32>
    scf.for ... { ... }
    llvm.intr.stackrestore %sp : !llvm.ptr
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def WrapperGemmTemplatePass : Pass<"wrapper-gemm-template", "::mlir::ModuleOp"> {
  let summary = "Lowers f32 linalg.matmul on buffers to a packed, blocked, "
                "multi-threaded GEMM with a vector micro-kernel and a fused "
                "epilogue";
  let description = [{
    The CPU GEMM template (seed 002, Inductor's packed C++ GEMM, is the
    model). Each `linalg.matmul` on buffers whose operands are all f32 is
    replaced by:

    - a packing of `A` into row panels of `mr` rows (`[M/mr][K][mr]`, zero
      padded), parallel over the panels;
    - a parallel loop over column blocks of `nc` columns (one block per
      OpenMP iteration), inside it a loop over `kc`-deep slices of `K`, a
      packing of the `kc x nc` block of `B` into column panels of `nr`
      columns (`[nc/nr][kc][nr]`), a loop over `mc`-row blocks of `A`, and
      the `jr`/`ir` loops of the micro-kernel (the B panel stays in L1 while
      the A block streams from L2);
    - calls of the micro-kernel, a private function
      `@__wrapper_gemm_ukernel_f32_<mr>x<nr>_v<vl>` that keeps the
      `mr x nr` tile of `C` in `mr * nr / vl` vector registers and does
      one `vector.fma` per register and `k` (the A value broadcast, the B
      row loaded). Tiles at the edges of `C` go through a local tile.

    When `B` is a function argument that the single `wrapper.call` of the
    kernel passes from a `wrapper.constant` with a value (frozen weights),
    the constant is packed at compile time into the panel layout over the
    whole of `K` (`[N/nr][K][nr]`), the kernel takes the packed constant,
    and no packing of `B` happens at run time.

    A zero `linalg.fill` of `C` right before the matmul is dropped (the
    first `K` slice stores instead of accumulating). An elementwise
    `linalg.generic` that is the next op with memory effects, reads `C`
    with the identity map, and writes another buffer (bias add, activation,
    residual add, cast: any payload of elementwise arith/math ops, with
    other inputs indexed by `(m, n)`, `(n)`, `(m)` or `()`) is applied to
    each tile of `C` right after its last `K` slice, on vectors, and the
    generic is erased.

    Refused (the matmul is left to the loop lowering, with a remark under
    `report`): non-f32 operands, a `C` or output with a non-unit inner
    stride. Options choose the register tile (`mr`, `nr`), the vector
    width (`vector-width`, 0: 16 with AVX-512, 8 with AVX2, 4 otherwise,
    from the host's features) and the cache blocks (`kc`, `mc`, `nc`).
  }];
  let options = [
    Option<"mr", "mr", "int64_t", "0",
           "Rows of the register tile (0: 12 with AVX-512, 6 otherwise)">,
    Option<"nr", "nr", "int64_t", "0",
           "Columns of the register tile, a multiple of the vector width "
           "(0: two vectors)">,
    Option<"vectorWidth", "vector-width", "int64_t", "0",
           "f32 lanes of a vector register (0: from the host's features)">,
    Option<"kc", "kc", "int64_t", "512", "Depth of a K slice">,
    Option<"mc", "mc", "int64_t", "0",
           "Rows of an A block (0: about 144, a multiple of mr)">,
    Option<"nc", "nc", "int64_t", "256",
           "Columns of a B block (a multiple of nr; one parallel iteration)">,
    Option<"prepack", "prepack", "bool", "true",
           "Pack constant B (wrapper.constant weights) at compile time">,
    Option<"epilogues", "epilogues", "bool", "true",
           "Fuse the elementwise consumer of C into the write-back">,
    Option<"parallel", "parallel", "bool", "true",
           "Make the column-block loop and the A packing scf.parallel">,
    Option<"minParallelWork", "min-parallel-work", "int64_t", "262144",
           "Products with static M*N*K below this run on one thread (a "
           "parallel region costs more than they do)">,
    Option<"report", "report", "bool", "false",
           "Emit a remark for every matmul: taken (with the blocking) or "
           "refused (with the reason)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def WrapperCUDARowKernelsPass
    : Pass<"wrapper-cuda-row-kernels", "::mlir::func::FuncOp"> {
  let summary = "Row reductions and the row-local ops around them as "
                "one-block-per-row GPU kernels";
  let description = [{
    Runs on buffers (after bufferization, before the remaining linalg ops
    become parallel loops). A run of consecutive `linalg.generic`/`fill`
    ops that share the same leading "row" dimensions and contain at least
    one reduction over the innermost dimension (softmax, layer_norm,
    rms_norm, sum/mean/amax over the last dimension) becomes one
    `gpu.launch` with one block per row:

    - ops over the whole row loop over it with the block's threads
      (neighbouring threads on neighbouring elements, 128-bit vector loads
      and stores where the row's contiguous operands are aligned);
    - a reduction folds each thread's elements, then combines the threads
      with `gpu.all_reduce` (warp shuffles and a shared-memory step, from
      upstream's lowering); thread 0 writes the result;
    - ops over one element per row run on thread 0;
    - a barrier separates consecutive ops (a row's data moves between them
      through memory that the block's recent accesses keep in L1).

    Ops join the run only if every buffer written inside it is read and
    written row by row (the row dimensions index it identically), so the
    blocks are independent. Allocations, frees, dims and views between the
    ops are moved around the launch. `block-size` 0 picks the threads per
    block from the row length (about four vectors per thread, 64 to 1024).
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

def WrapperCUDAPlaceBuffersPass
    : Pass<"wrapper-cuda-place-buffers", "::mlir::ModuleOp"> {
  let summary = "Moves the host code's buffers of a CUDA program to the "
                "device";
  let description = [{
    Runs after the kernels became `gpu.launch` ops (on buffers, outside any
    launch): `memref.alloc`/`alloca` become `gpu.alloc`, `memref.dealloc`
    `gpu.dealloc`, `memref.copy` `gpu.memcpy`; a `memref.get_global` is
    copied to a device buffer where it is read. A public function copies
    its memref arguments to the device at entry and its memref results back
    to fresh host buffers before each return, so its callers keep passing
    and receiving host buffers; the device copies are freed there. A buffer
    that only host code reads and writes (the shape operand of a
    `memref.reshape`, built in memory) stays on the host. Host code that
    still loads or stores any other buffer (a loop not mapped to the GPU) is
    an error.

    With `device-arguments`, public functions take and return device
    buffers instead (what `wrapper-run --target=cuda` and a CUDA `model.so`
    call: the caller copies in and out, and repeated calls keep their data
    on the device); a result that is an argument or a constant's device copy
    is returned as a fresh device copy, so that every result is the
    caller's to free.
  }];
  let options = [
    Option<"deviceArguments", "device-arguments", "bool", /*default=*/"false",
           "Public functions take and return device buffers">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect"];
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

#endif // WRAPPER_TRANSFORMS_PASSES_TD
