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

#endif // WRAPPER_CODEGEN_CPU_PASSES_TD
