//===- Passes.td - passes shared by the CPU and CUDA code generators *- tablegen -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_CODEGEN_COMMON_PASSES_TD
#define WRAPPER_CODEGEN_COMMON_PASSES_TD

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

def WrapperLowerVectorsPass : Pass<"wrapper-lower-vectors"> {
  let summary = "Lowers vectorized loop bodies to one-dimensional vector "
                "loads, stores and arithmetic";
  let description = [{
    What linalg vectorization produces (n-D `vector.transfer_read` and
    `transfer_write` with permutation maps and unit dimensions,
    `vector.multi_reduction`, broadcasts) rewritten into the forms that
    `--convert-vector-to-llvm` maps one to one onto LLVM vectors: leading
    unit dimensions dropped, in-bounds minor-identity transfers as
    `vector.load`/`vector.store`, transposed transfers as a transfer and a
    `vector.transpose`, multi-reductions over the innermost dimension as
    `vector.reduction` (horizontal) and over outer dimensions as
    elementwise ops, broadcasts and shape casts as inserts and extracts.
    An in-bounds 1-D read along a constant innermost stride of 2 to 4 (a
    strided slice: the input of a stride-2 convolution, pooling or
    column matrix) is one contiguous `vector.load` of the elements it
    spans (through `memref.reinterpret_cast` of the base buffer; none past
    the last element read) and a `vector.shuffle` of every s-th, instead of
    a scalar load per lane (a stride-2 depthwise convolution of
    MobileNet-V3 went from 0.40x to 1.15x oneDNN). Transfers that remain
    (other strides, out of bounds) are left to `--convert-vector-to-scf`.

    ```mlir
    %x = vector.transfer_read %m[%i, %k], %pad {in_bounds = [true, true]}
        : memref<8x64xf32>, vector<1x16xf32>
    // becomes
    %x = vector.load %m[%i, %k] : memref<8x64xf32>, vector<16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect"];
}

def WrapperAddCInterfacePass
    : Pass<"wrapper-add-c-interface", "::mlir::ModuleOp"> {
  let summary = "Marks public functions with llvm.emit_c_interface";
  let description = [{
    Sets `llvm.emit_c_interface` on every public function with a body, so
    that `--convert-func-to-llvm` also emits a `_mlir_ciface_<name>` wrapper
    taking memref descriptors by pointer (how C, `mlir-runner` and the
    Python loader call a compiled function). The pipelines run it with their
    `c-interface` option.

    ```mlir
    func.func @f(%a: memref<4xf32>) { return }
    // becomes
    func.func @f(%a: memref<4xf32>) attributes {llvm.emit_c_interface} { return }
    ```
  }];
}

def WrapperFuseElementwiseKeepContractionsPass
    : Pass<"wrapper-fuse-elementwise-keep-contractions",
           "::mlir::func::FuncOp"> {
  let summary = "linalg elementwise fusion and reshape propagation that "
                "leaves named contractions alone";
  let description = [{
    Upstream's `--linalg-fuse-elementwise-ops`, except that named
    contractions (`linalg.matmul`) take no part, and no product (named or a
    `linalg.generic` with a reduction two inputs index) takes a reshape:
    folding the reshapes around a matmul into it (what a linear layer on
    `[batch, tokens, features]` lowers to) would turn it into a batched
    `linalg.generic` that the GEMM template and cuBLAS do not take.

    Then the elementwise consumer of an expanded product (a convolution's
    `[F, P]` product viewed as `[1, F, H, W]`, a linear layer's
    `[B * T, C]` as `[B, T, C]`) takes the product's shape: its unit loops
    and broadcast unit dimensions are dropped (upstream's unit-extent
    folding) and its loops collapsed as the expansion groups them (upstream's
    reshape folding by collapsing), so that the reshape follows it and the
    GEMM template fuses it into the product's write-back as an epilogue.

    First, a `linalg.transpose` of an expanded product (or of the product's
    own elementwise epilogue, a bias say) that keeps the innermost
    dimension in place and whose one user is an elementwise
    `linalg.generic` becomes a generic (upstream `generalizeNamedOp`) and
    fuses into that user: a convolution's product over the batch,
    `[F, N * P]` viewed as `[F, N, P]` and permuted to `[N, F, P]`, is read
    once, permuted with contiguous rows, by its activation, instead of being
    copied through a transposed temporary first (squeezenet1_1 at batch 8,
    one thread: about 10% less time; resnet18 3%). Other transposes
    (attention's heads, the innermost dimension moved) are left to their
    own lowerings.

    With `recompute` (the CUDA pipeline), a small elementwise producer with
    several users (at most eight payload ops) is fused into each of them and
    disappears once all have it: recomputing a subtraction in a kernel costs
    less than a round trip of its result through device memory (layer_norm's
    `x - mean` feeds both the variance and the normalization). Products (a
    reduction dimension that two inputs index) then take no producers: a
    fused producer would be recomputed for every output element's dot
    product, and the product would no longer be one that cuBLAS takes.
  }];
  let options = [
    Option<"recompute", "recompute", "bool", /*default=*/"false",
           "Fuse cheap elementwise producers with several users into each "
           "user (and keep products free of producers)">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def WrapperFuseHorizontalPass
    : Pass<"wrapper-fuse-horizontal", "::mlir::func::FuncOp"> {
  let summary = "Merges independent elementwise linalg.generic ops over the "
                "same loops into one op with several results, and gives a "
                "generic the transposed copies of its results as results";
  let description = [{
    Producer-consumer fusion (`--wrapper-fuse-elementwise-keep-contractions`)
    leaves ops that share no value but run over the same loops: batch_norm's
    backward computes `x - mean` for two outputs and four per-channel
    values from the same statistics, each its own `linalg.generic`. On the
    GPU each op is a launch and each result a round trip through device
    memory; this pass, on tensors:

    - **transposes absorbed**: a `linalg.transpose` of the result of an
      elementwise `linalg.generic` (directly, or through a
      `tensor.expand_shape` that only adds unit dimensions) becomes one more
      result of that generic, written through the permuted indexing map.
      The generic's own result, when nothing else reads it, is dropped;
    - **siblings merged**: two elementwise generics with the same static
      loop ranges, permutation output maps, outputs that are not read, and
      neither depending on the other (through operands or values their
      bodies capture) become one generic with the inputs, outputs and body
      of both. The merged op takes the place of the later one when every
      user of the earlier one follows it, else of the earlier one when the
      later one's operands are all defined before it; otherwise the two
      stay apart. `max-operands` bounds the operands of a merged op;
    - **inits unshared**: a `tensor.empty`, or a `linalg.fill` of one, that
      several ops take as their init (CSE, which the CUDA pipeline runs
      before this pass, merges equal ones) is cloned for each user, so that
      one-shot bufferization does not give all but one of them a copy.

    Before:
    ```mlir
    %a = linalg.generic {...} ins(%x, %m : ...) outs(%e0 : tensor<8x64xf32>) {...}
    %b = linalg.generic {...} ins(%x, %s : ...) outs(%e1 : tensor<8x64xf32>) {...}
    %t = linalg.transpose ins(%a : tensor<8x64xf32>) outs(%e2 : tensor<64x8xf32>) permutation = [1, 0]
    ```
    After: one `linalg.generic` with results of types `tensor<8x64xf32>`
    (`%b`) and `tensor<64x8xf32>` (`%t`, indexing map `(d0, d1) -> (d1, d0)`).
  }];
  let options = [
    Option<"maxOperands", "max-operands", "unsigned", /*default=*/"24",
           "The most operands (inputs and outputs) a merged op may have">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def WrapperReadThroughPadsPass
    : Pass<"wrapper-read-through-pads", "::mlir::func::FuncOp"> {
  let summary = "Elementwise ops read padded and transposed tensors through "
                "the pad and the transpose, which are then never built";
  let description = [{
    A `tensor.pad` becomes a buffer, a fill and a copy; a `linalg.transpose`
    a buffer and a copy. Where the only reader is an elementwise
    `linalg.generic` (a convolution's input gradient sums nine shifted,
    zero-padded windows of a product), both are wasted: on the GPU, two or
    three launches and a round trip through device memory per pad. On
    tensors, this pass:

    - turns each input of an elementwise generic that is defined by a chain
      of `tensor.pad`, `tensor.extract_slice`, `tensor.expand_shape`,
      `tensor.collapse_shape` and `linalg.transpose` holding at least one
      pad or transpose (static shapes, constant padding value) into a
      `tensor.extract` in the body at the indices the input's map gives;
    - rewrites a `tensor.extract` inside a `linalg.generic` of such a chain
      into an extract of the op's source: a slice adds its offsets and
      strides, a reshape linearizes or delinearizes the indices, a transpose
      permutes them, and a pad subtracts its low padding and selects the
      padding value where the index falls outside the source (one unsigned
      comparison per padded dimension; element 0 is read there and
      dropped).

    - gives a pad (static shapes, constant padding value) that some op
      reads whole (a product, a reduction, an insert, the function's
      result; directly or through views) an identity generic over it for
      those readers, which the two rewrites above turn into one pass that
      reads the source where it is and selects the padding value
      elsewhere: one kernel instead of a fill and a copy. Readers of
      elements keep reading through the pad.

    Pads and transposes left without users are erased. Reads through views
    that hold no pad or transpose stay indexing-map reads.

    Before:
    ```mlir
    %p = tensor.pad %x low[0, 1] high[0, 0] { ... tensor.yield %zero : f32 }
        : tensor<4x3xf32> to tensor<4x4xf32>
    %r = linalg.generic {...} ins(%p, %y : tensor<4x4xf32>, tensor<4x4xf32>) ...
    ```
    After: `%r` reads `%y` as before and, in its body, `%x` at
    `(d0, d1 - 1)` when `d1 - 1` is in `[0, 3)`, else `%zero`.
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def WrapperEraseDeadCastsPass : Pass<"wrapper-erase-dead-casts"> {
  let summary = "Erases unrealized_conversion_cast ops without uses";
  let description = [{
    The NVVM lowering of kernels with dynamic memref arguments leaves casts
    back to memref that nothing uses; translation to LLVM IR refuses them.
    This pass erases every `builtin.unrealized_conversion_cast` without uses
    (later ones first, since an earlier cast may feed only a dead one).
    Casts with uses stay: `--reconcile-unrealized-casts` reports those.
  }];
}

def WrapperDeallocateBuffersPass
    : Pass<"wrapper-deallocate-buffers", "::mlir::ModuleOp"> {
  let summary = "Upstream's buffer deallocation on every function that does "
                "not free buffers itself";
  let description = [{
    Upstream's `buffer-deallocation-pipeline`, with its per-function part
    (realloc expansion, ownership-based deallocation, simplification) run on
    each `func.func` of the module except those that contain a
    `memref.dealloc`, and its module part (the lowering of
    `bufferization.dealloc`, whose general case calls a helper function the
    module holds, and the cleanups) on the module: a program at the
    buffer level that frees its own buffers keeps them as written (the
    upstream pass refuses such functions: "memory free side-effect on MemRef
    value not supported!"; freeing them again would be a double free). The
    other functions, bufferized tensors included, get the deallocation of
    what they allocate, with ownership passed through calls and returns as
    upstream defines it (a returned buffer belongs to the caller).

    ```mlir
    func.func @main() {
      %b = call @filled(%n, %v) : (index, f32) -> memref<?xf32>
      ...
      memref.dealloc %b : memref<?xf32>   // @main is left as it is
      return
    }
    ```
  }];
}

def WrapperLowerPackUnpackPass : Pass<"wrapper-lower-pack-unpack"> {
  let summary = "linalg.pack and linalg.unpack on tensors as pads, reshapes, "
                "transposes and slices";
  let description = [{
    Bufferization has no model for `linalg.pack`/`linalg.unpack`, so they
    are lowered first. With static inner tiles, upstream's `lowerPack`
    (pad, expand_shape, transpose) and `lowerUnPack` (transpose,
    collapse_shape, extract_slice, copy): whole-tensor ops that the code
    generator tiles and vectorizes like any other. With dynamic inner tiles
    (which those decline), the outer dimensions are tiled by 1 with
    `scf.for` and each tile decomposed by upstream's outer-unit-dims
    patterns (a pad or slice and a transpose per tile).

    ```mlir
    %p = linalg.pack %a padding_value(%pad : f32) inner_dims_pos = [0, 1]
        inner_tiles = [2, 2] into %e : tensor<3x5xf32> -> tensor<2x3x2x2xf32>
    // becomes
    %0 = tensor.pad %a low[0, 0] high[1, 1] { ... } : tensor<3x5xf32> to tensor<4x6xf32>
    %1 = tensor.expand_shape %0 [[0, 1], [2, 3]] ... : tensor<4x6xf32> into tensor<2x2x3x2xf32>
    %2 = linalg.transpose ins(%1 : ...) outs(%e : ...) permutation = [0, 2, 1, 3]
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def WrapperWriteOutputsInPlacePass
    : Pass<"wrapper-write-outputs-in-place", "::mlir::func::FuncOp"> {
  let summary = "Makes the ops that compute a function's outputs write them "
                "into the destination buffers, through reshapes and slices";
  let description = [{
    A kernel ends with `bufferization.materialize_in_destination` of each
    output into its argument buffer. Upstream's empty-tensor elimination,
    which lets the op computing an output write straight into that buffer,
    follows only values of the same type: an output that is a reshape or a
    slice of the tensor an op computes was computed into a temporary buffer
    and copied (`memref.copy`), a whole extra pass over the output. On
    tensors, before tiling, this pass:

    - computes slices of a linalg op's result on the slice: when every user
      of the (single) result is a unit-stride `tensor.extract_slice` of the
      same rank and the slices hold no more elements than the result
      (nothing computed twice), each slice becomes the op tiled to it
      (upstream `tensor::replaceExtractSliceWithTiledProducer`). Products
      and convolutions are left whole (the GEMM template takes them);
    - moves the reshapes at the end of an output onto its destination
      (a memref): `materialize_in_destination(expand_shape(x), d)` becomes
      `materialize_in_destination(x, collapse_shape(d))`, and a
      `collapse_shape` an `expand_shape` of `d` (each group at most one
      dynamic size, derived from `d`), the views made at the top of the
      function so that the elimination can use them;
    - folds `tensor.empty` through reshapes and slices (upstream), so that
      the op's init has the destination view's type;
    - gives each output its own chain of destinations down to the
      `tensor.empty` it starts from: where CSE merged equal values several
      outputs are written over (the tiled zero fills of padded outputs'
      borders), all but the last output get their own, recomputed when it
      only fills and slices, copied (`linalg.copy`) otherwise. Upstream's
      empty-tensor elimination would otherwise place the shared tensor in
      the first output's buffer, which the others' writes then overwrite
      unseen by one-shot bufferization's analysis (a wrong result).

    Attention's `qkv` projection then writes `q`, `k` and `v` from its
    transposes into the three output buffers, where it wrote a temporary, a
    transposed temporary, and copied three slices of it.

    ```mlir
    %t = linalg.generic ... outs(%e : tensor<394x192xf32>)
    %x = tensor.expand_shape %t [[0, 1], [2]] output_shape [2, 197, 192] : ...
    bufferization.materialize_in_destination %x in restrict writable %out
        : (tensor<2x197x192xf32>, memref<2x197x192xf32>) -> ()
    // becomes
    %view = memref.collapse_shape %out [[0, 1], [2]] : memref<2x197x192xf32> into memref<394x192xf32>
    %t = linalg.generic ... outs(%e : tensor<394x192xf32>)
    bufferization.materialize_in_destination %t in restrict writable %view
        : (tensor<394x192xf32>, memref<394x192xf32>) -> ()
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::tensor::TensorDialect"];
}

def WrapperFailPass : Pass<"wrapper-fail", "::mlir::ModuleOp"> {
  let summary = "Fails with a message";
  let description = [{
    How a pipeline reports an option that cannot be honoured (pipeline
    builders cannot fail): the builder adds this pass with the message, and
    running the pipeline reports it as an error at the module's location.
    ```
    wrapper-opt --wrapper-fail='message="binary=cubin needs ptxas"' in.mlir
    ```
  }];
  let options = [
    Option<"message", "message", "std::string", /*default=*/"\"failed\"",
           "The error message">,
  ];
}

#endif // WRAPPER_CODEGEN_COMMON_PASSES_TD
