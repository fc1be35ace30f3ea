//===- Passes.td - tensor_program passes -------------------*- tablegen -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_TENSORPROGRAM_TRANSFORMS_PASSES_TD
#define WRAPPER_DIALECT_TENSORPROGRAM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TensorProgramDecomposePass : Pass<"tensor-program-decompose"> {
  let summary = "Expands composite ops into primitives";
  let description = [{
    Rewrites the composite ops of `tensor_program` into primitive ops that
    fusion and lowering understand:

    * `softmax(x, d)` into `e / sum(e, d)` with `e = exp(x - max(x, d))`
      (max-subtracted, so it never overflows);
    * `log_softmax(x, d)` into `(x - m) - log(sum(exp(x - m), d))`;
    * `layer_norm` into mean, centred variance (biased), `rsqrt(var + eps)`,
      and the optional affine weight and bias;
    * `rms_norm` into `x * rsqrt(mean(x * x) + eps)` and the optional weight;
    * `gelu` into `0.5 * x * (1 + erf(x / sqrt(2)))` (exact) or
      `0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))` (tanh), and
      `silu` into `x * sigmoid(x)`;
    * `reduce_mean` over static dimensions into `reduce_sum / N`;
    * `linear(x, w, b)` into `matmul(x, permute(w)) + b`.

    Before:
    ```mlir
    %0 = tensor_program.softmax %x dim 1 : tensor<4x8xf32>
    ```
    After:
    ```mlir
    %m = tensor_program.reduce_max %x dims [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
    %c = tensor_program.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %e = tensor_program.exp %c : tensor<4x8xf32>
    %s = tensor_program.reduce_sum %e dims [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
    %0 = tensor_program.div %e, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    ```

    Ops inside `tensor_program.fused` regions are decomposed too. The pass
    never fails; ops it does not know are left alone.
  }];
  let options = [
    Option<"decomposeActivations", "activations", "bool", /*default=*/"true",
           "Also expand silu and gelu into primitives">,
    Option<"decomposeLinear", "linear", "bool", /*default=*/"true",
           "Also expand linear into permute + matmul + add">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark with the number of ops expanded">
  ];
  let statistics = [
    Statistic<"numDecomposed", "decomposed", "Composite ops expanded">
  ];
}

def TensorProgramFusePass : Pass<"tensor-program-fuse", "::mlir::func::FuncOp"> {
  let summary = "Groups ops into fused regions, one per future kernel";
  let description = [{
    Partitions the computing ops of a function into `tensor_program.fused`
    regions, each of which becomes one kernel. A **fusion strategy**
    (`strategy=NAME`, docs/Fusion.md) proposes the groups; shared code
    checks them (every op fusible, in one group unless the strategy asked to
    recompute it, the kinds' rules below, no cycle between the fused ops:
    a violation is an error naming the strategy) and builds the fused ops.
    Every op lands in exactly one group (no work is duplicated) unless the
    strategy recomputes it, and cheap producers are cloned into each group
    using them: splat and rank-0 constants and `tensor.dim`. The
    strategies: `none` (every op a kernel of its own), `greedy` (the
    default, below), `cost` (pairs merged in order of the bytes they save,
    cheap broadcasts recomputed per consumer), `horizontal` (greedy, then
    independent pointwise groups that read a common input merged).

    The rules of every group: at most one matrix product, whose other
    members consume its result (an epilogue) or are transposes of the last
    two dimensions (`permute [1, 0]`, `[0, 2, 1]`, ...) that only it reads
    (the product reads their input in place, through transposed indexing
    maps); reductions only over one
    shape and set of dimensions; no product with a reduction.

    `greedy` works in program order. An op joins the group of one
    of its producers (the latest one it may join) when the rules allow it,
    and otherwise starts a group:

    * an elementwise or layout op joins any group (as a pointwise chain, a
      reduction's prologue or epilogue, or a matmul epilogue);
    * a reduction joins a pointwise group (which becomes a reduction group)
      or a reduction group that reduces the same dimensions of the same
      shape, so that softmax, log_softmax, layer_norm and rms_norm of one row
      form one kernel, as Inductor's persistent reductions do;
    * a matrix product always starts a group (fusing producers into it would
      recompute them for every output tile); elementwise consumers may join
      it as an epilogue; a permute swapping the last two dimensions read
      only by a product joins no producer's group but the product's
      (`operand-transposes`),
      where it is no copy: the GEMM template packs, and cuBLAS reads, the
      untransposed input;
    * an op never joins a group that one of its other operands depends on
      (that would make a cycle), nor a group at the size bound.

    Ops that cannot be fused (`extern`, `copy_back`, composites that were
    not decomposed, ops taking index operands other than `tensor.dim`) stay
    outside. Values used outside their group become results of the fused op,
    which sits where its group's last op was; the block is then sorted
    topologically keeping each op as near its place as its operands allow
    (a consumer of an earlier member's result moves to right after the fused
    op, not behind everything that follows: the program's order, and with it
    the buffers' lifetimes, survive fusion). A result that only reshapes
    another result of its fused op (an activation saved in one shape and
    read by the next product in another) is split off as a lone reshape
    after it, a view of that result's buffer rather than a second copy the
    kernel writes; unless the function returns it (a returned view would
    be copied).

    Before:
    ```mlir
    %0 = tensor_program.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %1 = tensor_program.relu %0 : tensor<4x8xf32>
    ```
    After:
    ```mlir
    %1 = tensor_program.fused pointwise(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
    ^bb0(%x: tensor<4x8xf32>, %y: tensor<8xf32>):
      %0 = tensor_program.add %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
      %r = tensor_program.relu %0 : tensor<4x8xf32>
      tensor_program.yield %r : tensor<4x8xf32>
    }
    ```
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"greedy\"",
           "The fusion strategy that proposes the groups: none, greedy, "
           "cost, horizontal, or one a downstream project registered "
           "(registerFusionStrategy; docs/Fusion.md)">,
    Option<"fuseElementwise", "elementwise", "bool", /*default=*/"true",
           "Fuse chains of elementwise and layout ops">,
    Option<"fuseReductions", "reductions", "bool", /*default=*/"true",
           "Fuse reductions with their producers and consumers">,
    Option<"fuseMatmulEpilogues", "matmul-epilogues", "bool",
           /*default=*/"true",
           "Fuse elementwise consumers into matrix products">,
    Option<"fuseOperandTransposes", "operand-transposes", "bool",
           /*default=*/"true",
           "Put a permute that swaps the last two dimensions and whose only "
           "user is a product into the product's kernel (greedy), which "
           "reads it in place">,
    Option<"maxGroupSize", "max-group-size", "unsigned", /*default=*/"64",
           "The most ops one group may hold">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark per function with the kernels formed and ops fused "
           "(the statistics, which release builds of MLIR do not collect)">
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Fused ops (kernels) formed">,
    Statistic<"numFusedOps", "fused-ops", "Ops placed in fused ops">
  ];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def TensorProgramRecomputeLayoutsPass
    : Pass<"tensor-program-recompute-layouts", "::mlir::func::FuncOp"> {
  let summary = "Recomputes element-moving kernels before late uses";
  let description = [{
    A fused region that only moves elements (pads, slices, concatenations,
    reshapes, permutations: the im2col matrix of a convolution lowered to a
    product, a transposed copy) and whose result is read again at least
    `min-distance` ops after its previous use is computed again just before
    that read, which then takes the new copy: the result is not held in
    between. In a training step, the im2col matrix of every convolution
    (nine times its input for a 3x3 kernel) was held from the forward to
    the weight gradient's product in the backward; recomputed there, only
    the convolution's input is held (as the backward needs it anyway).
    A region is recomputed only where that costs no memory: its result is
    larger than twice the inputs it reads from other kernels, or those
    inputs are read at or after the late use anyway. Arguments count as
    free (they live throughout).

    Before:
    ```mlir
    %cols = tensor_program.fused pointwise(%x) ... // im2col: 9x %x
    %y = tensor_program.fused matmul(%cols, %w) ...
    ...                                             // the rest of the step
    %dw = tensor_program.fused matmul(%dy, %cols) ...
    ```
    After:
    ```mlir
    %cols = tensor_program.fused pointwise(%x) ...
    %y = tensor_program.fused matmul(%cols, %w) ...
    ...
    %cols2 = tensor_program.fused pointwise(%x) ...
    %dw = tensor_program.fused matmul(%dy, %cols2) ...
    ```
  }];
  let options = [
    Option<"minDistance", "min-distance", "int64_t", /*default=*/"16",
           "Fewest ops between two uses for the later one to get its own "
           "copy">,
  ];
  let statistics = [
    Statistic<"numRecomputed", "recomputed", "Regions computed again">,
  ];
}

def TensorProgramHoistCopyBacksPass
    : Pass<"tensor-program-hoist-copy-backs", "::mlir::func::FuncOp"> {
  let summary = "Writes arguments back as early as their readers allow";
  let description = [{
    Programs that update their arguments (`tensor_program.copy_back`: an
    AOT training step's parameters and optimizer state) compute the new
    values wherever their producer put them, often all at the end (the
    optimizer after the whole backward), so every gradient and every new
    value is live at once. This pass moves each write-back's producer (an
    op without side effects) to just after the last of its operands and of
    the target's other readers (following views of the target): up, or
    down past a reader of the old value that fusion ordered after it when
    the producer's other users all follow that reader. The `copy_back` goes
    right after the producer, or after the target's last reader if that
    comes later (a write-back before a reader of the old value would be
    wrong once lowered). Producers of at most `small-elements` elements per
    result that the moved op needs (an optimizer's step count and bias
    corrections) move up with it. A gradient then dies at its update, and
    --convert-tensor-program-to-wrapper can compute the update straight
    into the argument (no reader follows it): old and new values are never
    both held.

    Before:
    ```mlir
    %g = tensor_program.fused matmul(%x, %dy) ...      // the gradient
    %dx = tensor_program.fused matmul(%dy, %w) ...     // reads %w
    ...                                                // the rest of the backward
    %new = tensor_program.fused pointwise(%w, %g) ...  // the update
    tensor_program.copy_back %new to %w : tensor<64x32xf32>
    ```
    After:
    ```mlir
    %g = tensor_program.fused matmul(%x, %dy) ...
    %dx = tensor_program.fused matmul(%dy, %w) ...
    %new = tensor_program.fused pointwise(%w, %g) ...
    tensor_program.copy_back %new to %w : tensor<64x32xf32>
    ...
    ```
  }];
  let options = [
    Option<"smallElements", "small-elements", "int64_t", /*default=*/"64",
           "Producers with at most this many elements per result move up "
           "with the write-back that needs them">,
  ];
}

def TensorProgramFoldConstantsPass
    : Pass<"tensor-program-fold-constants", "::mlir::func::FuncOp"> {
  let summary = "Freezing: evaluates the ops that depend only on constants";
  let description = [{
    Every tensor_program op whose operands are all constants (after the ops
    before it were folded) is evaluated at compile time by the reference
    interpreter and replaced by a `tensor_program.constant`: weight
    transposes, reshapes, casts and arithmetic on weights are computed once,
    as Inductor's freezing does. Composites are folded whole (decompose
    first to fold their parts). Ops with regions (`fused`), extern calls and
    `copy_back` are never folded, nor an op whose result would have more
    than `max-elements` elements (a broadcast would otherwise turn a scalar
    into a large constant; reshapes and permutations, which never make the
    weights larger, are folded at any size, on the raw bytes), nor one the
    interpreter cannot evaluate. Gathers (`take`) and `cumsum` of constants
    are evaluated too: the causal masks and position lookups Hugging Face
    models build from `iota` at a static sequence length become constants
    (GPT-2 on CUDA: six launches fewer per call, the cumsum's included).

    Inference batch norm is then folded into the convolution before it (as
    Inductor's freezing does): `mul(conv(x, w, b), s)` and
    `add(conv(x, w, b), t)` with a constant weight and bias (or none) and
    constant `s`, `t` that vary at most along the channel dimension (the
    scale and shift batch_norm in eval mode decomposes into, `[F, 1, 1]`)
    become `conv(x, w * s, b * s + t)`, the new weight and bias folded in
    turn. A convolution whose result has other uses is left alone.

    Before:
    ```mlir
    %w = tensor_program.constant dense<...> : tensor<256x64xf32>
    %t = tensor_program.permute %w [1, 0] : tensor<256x64xf32> -> tensor<64x256xf32>
    ```
    After:
    ```mlir
    %t = tensor_program.constant dense<...> : tensor<64x256xf32>
    ```
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"16777216",
           "Largest result (in elements) an op may be folded into">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark with the number of ops folded">,
  ];
}

def TensorProgramSplitWeightPrepPass
    : Pass<"tensor-program-split-weight-prep", "::mlir::ModuleOp"> {
  let summary = "Moves the computation on weight arguments into a prepare function";
  let description = [{
    For models whose weights are arguments (swappable packages: arguments
    marked `tensor_program.weight`), the ops that depend only on weights and
    constants (a linear layer's weight transposed, batch norm's scale and
    shift, casts) are the same at every call. This pass moves them out of
    the public function `@F` into a new public function `@F_prepare`, which
    takes the weight arguments they read and returns the values `@F` uses;
    `@F` takes those values as new arguments at the end (marked
    `tensor_program.prepared = K`, K their index among `@F_prepare`'s
    results) and loses the weight arguments nothing else reads. A caller
    runs `@F_prepare` once per set of weights (again when they change) and
    `@F` at every call; freezing (`--tensor-program-fold-constants`) does
    the same at compile time for constant weights.

    Only ops the constant folder could evaluate move (no regions, externs,
    `copy_back` or random numbers), with static result shapes of at most
    `max-elements` elements. Constants that only hoisted ops use go with
    them. A function without weight arguments, or with nothing to move,
    is left unchanged (no `@F_prepare`). Fails when `@F_prepare` already
    exists.

    Before:
    ```mlir
    func.func @main(%x: tensor<?x64xf32>, %w: tensor<256x64xf32> {tensor_program.weight}) -> tensor<?x256xf32> {
      %t = tensor_program.permute %w [1, 0] : tensor<256x64xf32> -> tensor<64x256xf32>
      %y = tensor_program.matmul %x, %t : (tensor<?x64xf32>, tensor<64x256xf32>) -> tensor<?x256xf32>
      return %y : tensor<?x256xf32>
    }
    ```
    After:
    ```mlir
    func.func @main(%x: tensor<?x64xf32>, %t: tensor<64x256xf32> {tensor_program.prepared = 0 : i64}) -> tensor<?x256xf32> {
      %y = tensor_program.matmul %x, %t : (tensor<?x64xf32>, tensor<64x256xf32>) -> tensor<?x256xf32>
      return %y : tensor<?x256xf32>
    }
    func.func @main_prepare(%w: tensor<256x64xf32> {tensor_program.weight}) -> tensor<64x256xf32> {
      %t = tensor_program.permute %w [1, 0] : tensor<256x64xf32> -> tensor<64x256xf32>
      return %t : tensor<64x256xf32>
    }
    ```
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "The function to split (default: the only public function with a "
           "body)">,
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"16777216",
           "Largest result (in elements) a moved op may have">,
  ];
  let statistics = [
    Statistic<"numMoved", "moved", "Ops moved into the prepare function">,
    Statistic<"numPrepared", "prepared", "Values the prepare function returns">
  ];
}

def TensorProgramLoadWeightsPass
    : Pass<"tensor-program-load-weights", "::mlir::ModuleOp"> {
  let summary = "Gives dense_resource constants their values from a weights file";
  let description = [{
    Importers keep weights out of the IR text: a constant is written as
    `dense_resource<name>` and its bytes live in a safetensors file (an
    8-byte little-endian header length, a JSON header mapping each name to
    its `dtype`, `shape` and `data_offsets`, then the raw little-endian
    data), named by the module attribute `tensor_program.weights` or by the
    `file` option. This pass replaces each such constant's value by a
    `dense` attribute holding the file's bytes, so that the passes after it
    (constant folding, GEMM packing, code generation) see ordinary
    constants. Resources whose blob the IR itself carries (a
    `dialect_resources` section) are converted the same way.

    Before (module attribute `tensor_program.weights = "model.safetensors"`):
    ```mlir
    %w = tensor_program.constant dense_resource<fc_weight> : tensor<4x8xf32>
    ```
    After:
    ```mlir
    %w = tensor_program.constant dense<[[...]]> : tensor<4x8xf32>
    ```

    Fails, naming the constant, when the file cannot be read or is not
    safetensors, when it has no tensor of that name, or when the tensor's
    dtype, shape or byte count differs from the constant's type. A module
    without such constants is left unchanged (no file is read).
  }];
  let options = [
    Option<"file", "file", "std::string", /*default=*/"\"\"",
           "The weights file (default: the module's tensor_program.weights "
           "attribute)">
  ];
  let statistics = [
    Statistic<"numLoaded", "loaded", "Constants given their values">
  ];
}

def TensorProgramConvolutionToMatmulPass
    : Pass<"tensor-program-convolution-to-matmul"> {
  let summary = "Rewrites convolutions as column matrices and products";
  let description = [{
    A convolution whose input has static channels and spatial sizes (the
    batch may be dynamic) and whose weight is static becomes one matrix
    product (grouped: one batched product), so that its arithmetic runs in
    the matrix-product kernels (the packed GEMM template on the CPU):

    * the column matrix `[C * K, N * P]`: row `(c, kk)` holds input channel
      `c` at kernel offset `kk` for every image and output position. With a
      static batch it is one `as_strided` view of the input, dimensions
      `[C, K..., N, O...]` (element `(c, kk, n, o)` is
      `x[n, c, o * stride + kk * dilation]`), reshaped; with one image, a
      1x1 kernel and stride 1, the input itself, reshaped; with a dynamic
      batch (a view's sizes are static), the images side by side
      (`permute` to `[C, N, S...]`) and one strided `slice` per kernel offset,
      `concat`enated;
    * `matmul` of the weight in its own layout, `[F, C * K]`, by the columns,
      giving `[F, N * P]`; the bias added as `[F, 1]`; with G groups,
      `batch_matmul` of the weight as `[G, F / G, C / G * K]` by the columns
      as `[G, C / G * K, N * P]` (the column rows are channel-major, so each
      group's rows are contiguous), whose `[G, F / G, N * P]` result is
      `[F, N * P]` as it lies;
    * reshaped to `[F, N, O...]` and permuted to `[N, F, O...]` (only a
      reshape when the batch is 1).

    With `per-image=pointwise` (the CPU pipeline's choice) a 1x1 convolution
    of stride 1, groups 1, a static batch above 1 and at least 256 output
    positions per image (fewer make each image's product too narrow for the
    GEMM template's column blocks) is instead one product per image: the weight `[F, C]` by the input as `[N, C, P]` (a broadcast
    `matmul`, `[N, F, P]`), so that neither the input nor the output is
    permuted (the single product reads the input channel-major across the
    images and writes its output transposed back, two passes over the
    activations that a network of 1x1 convolutions, MobileNet's and
    EfficientNet's, pays at every layer). `per-image=all` does the same for
    every convolution of groups 1 (the columns `[N, C * K, P]`).

    The columns read runs of consecutive input elements (along the
    innermost dimension, with stride 1), and the product's output is already
    channels-first: unlike the usual `[N * P, C * K]` im2col, no gather
    through an index table and no transposed output. Convolutions with one
    input channel per group (depthwise, channel multipliers: products one
    channel deep, which the CPU's window loops serve better), and those
    whose column matrix would have more than `max-column-elements`
    elements, stay direct.

    Each product made here carries the unit attribute
    `tensor_program.convolution`, which the lowering to linalg keeps on the
    linalg product: backends that treat convolutions apart from other
    products read it (CUDA: TF32 under `allow-tf32-convolutions`, PyTorch's
    `torch.backends.cudnn.allow_tf32`).

    Before:
    ```mlir
    %0 = tensor_program.convolution %x, %w stride [1, 1] dilation [1, 1] groups 1
        : (tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x4x4xf32>
    ```
    After (1x1, one image):
    ```mlir
    %k = tensor_program.reshape %x : tensor<1x8x4x4xf32> -> tensor<8x16xf32>
    %f = tensor_program.reshape %w : tensor<16x8x1x1xf32> -> tensor<16x8xf32>
    %p = tensor_program.matmul %f, %k : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
    %0 = tensor_program.reshape %p : tensor<16x16xf32> -> tensor<1x16x4x4xf32>
    ```
  }];
  let options = [
    Option<"maxColumnElements", "max-column-elements", "int64_t",
           /*default=*/"268435456",
           "Largest column matrix (C * K x N * P elements; for a dynamic "
           "batch, per image) a convolution may use">,
    Option<"perImage", "per-image", "std::string", /*default=*/"\"none\"",
           "Which convolutions of a static batch above 1 (groups 1, at "
           "least 256 positions per image) take one product per image ([F, C * K] by [N, C * K, P], no permute "
           "of the input or the output): none, pointwise (1x1, stride 1) "
           "or all">
  ];
  let statistics = [
    Statistic<"numRewritten", "rewritten", "Convolutions rewritten">,
    Statistic<"numPerImage", "per-image", "Convolutions rewritten as one product per image">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // WRAPPER_DIALECT_TENSORPROGRAM_TRANSFORMS_PASSES_TD
