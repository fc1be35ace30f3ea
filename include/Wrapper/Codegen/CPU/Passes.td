//===- Passes.td - CPU code generation passes --------------*- tablegen -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_CODEGEN_CPU_PASSES_TD
#define WRAPPER_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

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
    space, is left alone. A transpose sink (`wrapper::getTransposedLoop`)
    gets a multiple of 16 rows along the loop it reads its input along (or
    that loop whole), so that `--wrapper-lower-linalg-to-loops` keeps its
    square tiles whole.

    Producers are fused greedily through `tensor.extract_slice`
    (upstream `scf::tileConsumerAndFuseProducersUsingSCF`), except that
    work is never duplicated: a producer whose slice does not depend on the
    tile (the whole of a column reduction, say) stays outside the loop and
    is computed once, and a producer also used by a linalg op that is not
    upstream of the sink is not fused. A producer whose value is also used
    outside (a second kernel output) is fused and its tiles are yielded as
    an extra result of the loop, when those tiles make up all of it (every
    op that reads it reads it whole, through a permutation map); read
    through a slice or a broadcast, it stays whole outside the loop.
    Identical fused copies within a tile are merged by CSE afterwards.

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
                "the outermost level, the innermost a vector at a time";
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

    With `vectorize=true` (the default) the innermost loop of every op that
    allows it steps a vector at a time: the op is tiled 1 x ... x 1 x L
    (upstream tiling), the innermost tile loop is peeled so that its full
    steps have a static tile, that tile becomes vector ops (upstream linalg
    vectorization: `vector.transfer_read`/`transfer_write`, elementwise ops
    on vectors, `vector.multi_reduction`), and the remainder is a scalar
    loop. L is twice the target's lanes for the op's widest element type
    (bf16/f16 count as f32, computed in f32 registers): 16 f32 lanes with
    AVX2, 32 with AVX-512. Then reductions keep their accumulators in
    registers: an accumulator read and written at fixed indices in a loop
    is carried by the loop, and one reduced horizontally each step is
    carried as a whole vector, combined lane by lane (NaN-propagating
    `maximumf`/`minimumf` stay so) and reduced once after the loop; float
    sums are thereby reassociated. An innermost dimension statically
    shorter than L is stepped with L halved until it fits (down to 4).

    A transpose (an all-parallel op that reads an input across its
    innermost loop: the input's own innermost dimension is another loop) is
    tiled L/2 x L/2 along that loop and the innermost one instead: each full
    tile reads L/2 contiguous rows of the input and writes L/2 contiguous
    rows of the output, transposed in registers; partial tiles take the
    loops above.

    A window reduction (pooling, a depthwise convolution: an input read at
    `stride * output + window`, the output at parallel indices only,
    static window extents) first becomes `scf.for` loops over the window,
    in the op's order (bitwise the same results), around one all-parallel
    `linalg.generic` on strided subviews of its inputs, which is then
    vectorized as above.

    Ops the vectorizer does not take stay scalar loops: contractions (the
    GEMM template's), other non-permutation accesses, payloads with calls
    or non-elementwise ops, an innermost dimension statically shorter than
    4, outputs that do not hold the innermost dimension last.

    ```mlir
    // A row sum of 8x64 f32 (AVX2: L = 16), after the pass:
    scf.for %i = %c0 to %c8 step %c1 {
      %acc = vector.transfer_read %out[%i] ... : vector<1xf32>
      %sums = scf.for %k = %c0 to %c64 step %c16
          iter_args(%v = %zeros) -> (vector<1x16xf32>) {
        %x = vector.transfer_read %in[%i, %k] ... : vector<1x16xf32>
        %s = arith.addf %x, %v : vector<1x16xf32>
        scf.yield %s : vector<1x16xf32>
      }
      %r = vector.multi_reduction <add>, %sums, %acc [1]
          : vector<1x16xf32> to vector<1xf32>
      vector.transfer_write %r, %out[%i] ...
    }
    ```
  }];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"true",
           "Lower linalg ops outside parallel loops to scf.parallel">,
    Option<"vectorize", "vectorize", "bool", /*default=*/"true",
           "Step the innermost loop a vector at a time where the op "
           "allows">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"0",
           "f32 lanes of a vector register (0: the module's "
           "wrapper.cpu_target, else the host's)">,
    Option<"minParallelIterations", "min-parallel-iterations", "int64_t",
           /*default=*/"16384",
           "Ops with fewer iterations (static sizes) stay sequential">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
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

def WrapperSpecializeContractionsPass
    : Pass<"wrapper-specialize-contractions", "::mlir::ModuleOp"> {
  let summary = "Turns f32 contraction linalg.generics and batch matmuls on "
                "buffers into 2-D linalg.matmul ops for the GEMM template";
  let description = [{
    Tiling a kernel whose product feeds reshapes and elementwise ops (the
    scores of attention: a batched product, scaled, masked) leaves, in each
    tile, a `linalg.generic` contraction with unit batch dimensions, then
    its elementwise consumer with the same unit dimensions; and batched
    products stay `linalg.batch_matmul`. The GEMM template only takes 2-D
    `linalg.matmul`, so both ran as scalar loops. This pass, on buffers:

    - drops the unit-extent loops of an f32 contraction `linalg.generic`
      and of the elementwise `linalg.generic` right after it that reads its
      output (upstream `linalg::dropUnitDims`, through rank-reducing
      subviews), then makes the contraction a named op
      (`linalg::specializeGenericOp`): a `linalg.matmul` the template takes
      with the consumer as its epilogue;
    - splits an f32 `linalg.batch_matmul` into a loop over the batch of
      `linalg.matmul` on rank-reducing subviews: an `scf.parallel` loop
      when one batch element's product is below `min-parallel-work`
      (the template runs it on one thread). Larger products choose at run
      time: the batch over the threads when it splits evenly enough (every
      thread busy at least 3/4 of the time: 6 products on 2 threads, 24 on
      16), else an `scf.for` over the batch, the template spreading each
      product over the threads. With `parallel=false`, always the `scf.for`.
      Batched contraction generics (a weight shared by every image of a
      1x1 convolution's per-image products) are split the same way;
    - moves along into the batch loop the `linalg.fill` of the whole
      product right before it (one fill per matrix, right before its
      product, where the template drops a zero fill) and the elementwise
      `linalg.generic` right after it that reads the product element for
      element (loops `(batch..., m, n)`, identity maps for the product and
      its own output, other operands indexed by the batch loops through
      plain dimensions or broadcast over them, no write to an operand of
      the product): its slice for one matrix, through rank-reducing
      subviews, right after that matrix's product, which the template fuses
      as its epilogue. Before, a batch of 1x1 convolutions with a bias or a
      batch norm filled its whole product, wrote it, and read it back in a
      pass of its own (8 images of 16 to 96 channels at 32x32, one thread:
      0.64 -> 0.35 ms with a bias, 0.69 -> 0.49 ms with batch norm and
      SiLU).

    Contractions that are not plain products (transposed operands, other
    payloads, non-f32 types) are left alone. Run after bufferization,
    before `--wrapper-gemm-template`.

    Before:
    ```mlir
    linalg.batch_matmul ins(%a, %b : memref<16x128x32xf32>, memref<16x32x128xf32>)
                        outs(%c : memref<16x128x128xf32>)
    ```
    After:
    ```mlir
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      %ai = memref.subview %a[%i, 0, 0] [1, 128, 32] [1, 1, 1] : ... to memref<128x32xf32, strided<[32, 1], offset: ?>>
      ...
      linalg.matmul ins(%ai, %bi : ...) outs(%ci : ...)
    }
    ```
  }];
  let options = [
    Option<"minParallelWork", "min-parallel-work", "int64_t",
           /*default=*/"262144",
           "Products of one batch element with fewer multiply-adds (M*N*K) "
           "run in parallel over the batch">,
    Option<"parallel", "parallel", "bool", /*default=*/"true",
           "Larger products may run in parallel over the batch, chosen at "
           "run time from the threads OpenMP has (omp_get_max_threads)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def WrapperGemmTemplatePass : Pass<"wrapper-gemm-template", "::mlir::ModuleOp"> {
  let summary = "Lowers f32 (and f16/bf16 into f32) linalg.matmul on buffers "
                "to a packed, blocked, multi-threaded GEMM with a vector "
                "micro-kernel and a fused epilogue";
  let description = [{
    The CPU GEMM (a module pass, after bufferization): every `linalg.matmul`
    on buffers whose operands are f32, or f16/bf16 accumulated into an f32
    C, becomes a packed, blocked,
    multi-threaded GEMM in the style of BLIS and of Inductor's C++ GEMM
    template (seed 002):

    ```
    pack A into [ceil(M/mr)][K][mr] row panels (zero rows past M)   scf.parallel
    scf.parallel jb over ceil(N/nc) column blocks                  (OpenMP)
      scf.for pc over K by kc
        pack B[pc:pc+kc, block] into [nc/nr][kc][nr] panels  (unless prepacked)
        scf.for ic over M by mc
          scf.for jp over the block's nr-wide panels     (B panel stays in L1)
            scf.for ir over the mc rows by mr            (A block from L2)
              call @__wrapper_gemm_ukernel_f32_<mr>x<nr>_v<vl>(...)
              after the last K slice: the epilogue on this tile
    ```

    The micro-kernel is a private function of its own (tagged
    `wrapper.gemm_micro_kernel`), so it can be called and timed alone: it keeps
    the `mr x nr` tile of C in `mr * nr / vl` vectors through its `k` loop and
    does, per `k`, `nr / vl` vector loads of B, `mr` broadcasts of A and
    `mr * nr / vl` `vector.fma`. It accumulates onto the tile or starts from
    zero. Tiles at the right and bottom edges go through a local `mr x nr`
    tile.

    - **Blocking** (options): `vector-width` (0: the module's
      `wrapper.cpu_target` (see `--wrapper-cpu-target`), else 16 lanes with AVX-512, 8 with
      AVX2, 4 otherwise, from the host's features; `wrapper-run` and
      `wrapper-compile` set it from their target, `--mcpu`/`--mattr`), `mr` (0: 12 with AVX-512,
      6 otherwise), `nr` (0: two vectors), `kc` (512), `mc` (0: about 144, a
      multiple of `mr`), `nc` (256, a multiple of `nr`; one parallel
      iteration). Bad values are errors naming the option.
    - **Zero fill**: a `linalg.fill` of C with zero right before the matmul is
      dropped when K is static and positive (the first K slice stores). Without
      it the first slice accumulates onto C. With a K that may be 0 the fill
      stays and, at K = 0, the epilogue is applied to the whole of C.
    - **Thread blocks**: column blocks of `nc`, and, when there are fewer than
      `omp_get_max_threads()`, `mc`-aligned row chunks as well. A static M
      below the default `mr` gets an M-row tile (four vectors wide up to M = 6).
    - **Small M**: a static M of at most `small-m-rows` (16) for f32
      operands, 4 for f16/bf16 (a batch-1 linear layer, a matrix-vector
      product, attention's products of 16 x 16 heads, a row tile of a
      fused kernel) with A not prepacked skips packing and the
      micro-kernel: in parallel over blocks of `nr` columns (narrower when
      B is read in place and a static N needs fewer vectors), rows in
      groups of at most 16 accumulator vectors, each group keeping its
      rows' accumulators in registers across K, and each `k` broadcasts
      `A[m][k]` against one row of the block of B, read in place (masked
      past N; B needs a unit inner stride) or from its compile-time
      panels; C is stored under a mask (added to when the zero fill
      stays), then the epilogue is applied to the block. The remark says
      `small M` with the rows and the groups. (Measured on 2 AVX-512
      cores: 1.4x-3x faster than packing for 5 to 16 rows, from 16 x 16 x
      16 to 16 x 1024 x 4096; a batch of 32 16 x 16 x 16 products 5x.)
    - **Epilogue**: the next op with memory effects (allocations of fresh
      buffers, such as the epilogue's output, are skipped), if it is a 2-d parallel
      `linalg.generic` on buffers that reads C at `(m, n)`, writes a unit-stride
      output at `(m, n)`, reads its other inputs at `(m, n)`, `(n)`, `(m)` or `()`
      (or through constant-0 indices) and whose payload is elementwise
      arith/math ops, is applied to each tile after its last K slice: `vl`
      columns at a time under a mask, its payload cloned on vectors. Bias,
      relu, gelu, silu, residual add, row scale and casts (to bf16, say) all
      fit. The generic is erased. When K is one slice (at most `kc`) and C
      is a buffer of the kernel's own (a `memref.alloc`, or a subview of
      one) that nothing but the matmul, its zero fill, the epilogue and the
      deallocation uses (or, for other subviews of it, the same kind of
      group: the other matrices of a batch split by
      `--wrapper-specialize-contractions`), every tile is computed in the
      local tile and the epilogue reads it there: C is never written.
    - **Prepacked weights** (`prepack`, true): when B is an argument of a
      kernel function all of whose `wrapper.call`s (through every
      `wrapper.kernel` naming it: `--wrapper-dedupe-kernels` gives the
      layers of a model one function) pass a `wrapper.constant` with a
      value, each constant is packed at compile time into
      `[ceil(N/nr)][K][nr]` (`@<name>_packed<nr>`), each call passes its packed
      constant, the kernel's argument type changes accordingly, and the
      unpacked constant goes if nothing else reads it. A constant A (a
      convolution's weight, on the left of its product) is packed the same
      way into `[ceil(M/mr)][K][mr]` row panels (`@<name>_packedA<mr>`), and
      no A packing is emitted.
    - **Weights packed by the caller** (`prepack-arguments`): when B is an
      argument of a kernel function whose only `wrapper.call` passes an
      argument of the `wrapper.graph` listed in `prepack-arguments` (a
      weight that the caller computes once, as a swappable package's
      loader does), read by nothing else, with a static `[K, N]` f32
      row-major type, the graph argument becomes `[ceil(N/nr)][K][nr]` and
      gets `wrapper.packed_b = nr`: the caller packs it (zero past N) before
      calling. Listed arguments that B does not read stay as they are.
    - **f16 and bf16 operands** (C f32: the tensor_program lowering
      accumulates such products in f32 and rounds in the epilogue): by
      default extended to f32 while packed, so the f32 micro-kernel runs on
      them (products of 4 rows or fewer read B in place and extend each
      vector). Where the target has AVX512-BF16 (`+avx512bf16` in the
      module's `wrapper.cpu_target`, 16 lanes, an even `kc`), bf16
      products of more than 4 rows keep bf16 panels with pairs of
      consecutive k interleaved in each lane (`[panels][ceil(K/2)][r * 2]`,
      a zero past an odd K) and the micro-kernel
      `__wrapper_gemm_ukernel_bf16x2_<mr>x<nr>_v<vl>` does one
      `x86vector.avx512.dot` (vdpbf16ps: two products per lane) per pair of
      k, vector and row: half the bytes packed and twice the products per
      instruction. `bf16-pairs=false` keeps the extended f32 path. Constant
      weights are packed at compile time in the same layout
      (`@<name>_packed<nr>_bf16x2`, `_f32x1` when extended). vdpbf16ps
      treats subnormal inputs as zero and flushes subnormal results, as
      oneDNN's bf16 kernels do.
    - **Refused**, with a remark under `report=true`: operands that are not
      f32 or f16/bf16 into f32, matmuls with their own indexing maps, matmuls on tensors, a C with a
      non-unit inner stride. Such matmuls stay for the loop lowering.
    - `parallel=false` makes both parallel loops `scf.for`.

    `--wrapper-tile-and-fuse{skip-gemm}` (set by the CPU pipeline with
    `gemm=true`) leaves these matmuls and their elementwise consumers untiled and
    in their 2-d form, so that the template finds them.

    Tests: `test/Codegen/CPU/gemm-template.mlir` (structure of the GEMM and the
    micro-kernel, AVX-512 and AVX2 blockings, epilogue fused or not, no fill,
    prepacked constant in hex, every refusal and bad option),
    `test/Integration/CPU/gemm.mlir` (executing: tails in M, N and K, several
    blocks of every level, every epilogue kind, M = 1, dynamic M, frozen
    weights, one and two threads, and the same without the template, against
    the reference interpreter). `bench/run.sh gemm` measures it against
    OpenBLAS. Design notes: `docs/Rationale/GemmTemplate.md`.
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
    Option<"bf16Pairs", "bf16-pairs", "bool", "true",
           "bf16 products in bf16 pairs with vdpbf16ps where the target has "
           "AVX512-BF16 (false: extended to f32)">,
    ListOption<"prepackArguments", "prepack-arguments", "int64_t",
               "Arguments of the wrapper.graph (by position) that hold "
               "weights: a B read from one is taken packed from the caller "
               "(the argument becomes the panel layout)">,
    Option<"parallel", "parallel", "bool", "true",
           "Make the column-block loop and the A packing scf.parallel">,
    Option<"minParallelWork", "min-parallel-work", "int64_t", "262144",
           "Products with static M*N*K below this run on one thread (a "
           "parallel region costs more than they do)">,
    Option<"smallMRows", "small-m-rows", "int64_t", "16",
           "f32 products of at most this many rows (static M) take the "
           "small-M path: no packing, rows in groups of accumulators kept "
           "in registers (f16/bf16: at most 4; 0: none)">,
    Option<"report", "report", "bool", "false",
           "Emit a remark for every matmul: taken (with the blocking) or "
           "refused (with the reason)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::x86vector::X86VectorDialect"];
}

def WrapperCPUTargetPass : Pass<"wrapper-cpu-target", "::mlir::ModuleOp"> {
  let summary = "Records the CPU that code is generated for on the module";
  let description = [{
    Decides the target once and records it as the module attribute
    `wrapper.cpu_target = {cpu = "...", features = "...", vector_width = N}`,
    which later passes read instead of probing the machine themselves (the
    GEMM template takes its vector width from it). The options give the
    target (the tools pass what their LLVM target machine was built for:
    `--mcpu`, `--mattr`, and the width of its vector registers in f32
    lanes); without options, a module that already carries the attribute
    keeps it, and one that does not gets the host's (16 lanes with
    AVX-512F, 8 with AVX2, 4 otherwise). The first pass of
    `--wrapper-cpu-codegen`.

    ```mlir
    module attributes {wrapper.cpu_target = {cpu = "skylake-avx512",
        features = "+avx512f", vector_width = 16 : i64}} { ... }
    ```
  }];
  let options = [
    Option<"cpu", "cpu", "std::string", /*default=*/"",
           "The CPU name (empty: the host's, unless the module has a target)">,
    Option<"features", "features", "std::string", /*default=*/"",
           "LLVM target features, such as +avx2,-avx512f">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"0",
           "f32 lanes of a vector register (0: from the features or the "
           "host)">,
  ];
}

def WrapperGemmSelectBlockingPass
    : Pass<"wrapper-gemm-select-blocking", "::mlir::ModuleOp"> {
  let summary = "Records on each f32 product the blocking the GEMM template "
                "gives it";
  let description = [{
    The tuning decision of `--wrapper-gemm-template`, made visible: every
    `linalg.matmul` the template takes gets the attribute
    `wrapper.gemm_blocking = {kc, mc, mr, nc, nr, vl}` with the blocking it
    would choose (register tile `mr` x `nr` of `vl`-lane vectors, cache
    blocks `kc`, `mc`, `nc`; the vector width from the module's
    `wrapper.cpu_target`, else the host; narrow static M rows get a
    narrower, wider tile). The template uses a recorded blocking as it is
    (after checking it), so a schedule can be inspected and edited in the
    IR, one product at a time. The options are the template's; products
    that already carry a blocking keep it unless `overwrite`.

    ```mlir
    linalg.matmul {wrapper.gemm_blocking = {kc = 512 : i64, mc = 144 : i64,
        mr = 12 : i64, nc = 256 : i64, nr = 32 : i64, vl = 16 : i64}}
        ins(%a, %b : ...) outs(%c : ...)
    ```
  }];
  let options = [
    Option<"mr", "mr", "int64_t", "0", "Rows of the register tile (0: chosen)">,
    Option<"nr", "nr", "int64_t", "0",
           "Columns of the register tile (0: two vectors)">,
    Option<"vectorWidth", "vector-width", "int64_t", "0",
           "f32 lanes (0: the module's target, else the host)">,
    Option<"kc", "kc", "int64_t", "512", "Depth of a K slice">,
    Option<"mc", "mc", "int64_t", "0", "Rows of an A block (0: about 144)">,
    Option<"nc", "nc", "int64_t", "256", "Columns of a B panel">,
    Option<"overwrite", "overwrite", "bool", "false",
           "Replace blockings already recorded">,
  ];
}

#endif // WRAPPER_CODEGEN_CPU_PASSES_TD
