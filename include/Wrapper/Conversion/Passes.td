//===- Passes.td - conversion passes -----------------------*- tablegen -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_CONVERSION_PASSES_TD
#define WRAPPER_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTensorProgramToLinalgPass
    : Pass<"convert-tensor-program-to-linalg"> {
  let summary = "Lowers tensor_program ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Lowers every computing `tensor_program` op to upstream ops on tensors:

    * elementwise ops (with broadcasting folded into indexing maps) and
      `broadcast` into `linalg.generic` with parallel iterators;
    * reductions into `linalg.generic` with reduction iterators, filled with
      the reduction's identity; `argmax` carries value and index together;
    * `permute` into `linalg.transpose`, `reshape` into `tensor.reshape`,
      `slice` into `tensor.extract_slice`, `concat` into `tensor.concat`,
      `pad` into `tensor.pad`, `as_strided` into a gathering `linalg.generic`;
    * `matmul` into `linalg.matmul` (2-D f32) or a contraction
      `linalg.generic` (batch broadcasting, other element types),
      `batch_matmul` into `linalg.batch_matmul`;
    * `constant` into `arith.constant`, `full` into `linalg.fill`;
    * composites through the decomposition patterns, and `fused` regions by
      inlining their bodies.

    Arithmetic on `f16` and `bf16` is done in `f32` and rounded once at the
    end (reductions and contractions accumulate in `f32`), as Inductor does.
    Integer division rounds toward zero. A dynamic dimension is assumed not to
    broadcast (it is not 1 at run time unless its partner is 1 too).

    `tensor_program.extern` and `tensor_program.copy_back` have no linalg
    form; they are lowered by `--convert-tensor-program-to-wrapper`. Here they
    are reported as errors.

    Before:
    ```mlir
    %0 = tensor_program.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
    After:
    ```mlir
    %e = tensor.empty() : tensor<4x8xf32>
    %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d1)>,
                                          affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    } -> tensor<4x8xf32>
    ```
  }];
  let options = [
    Option<"atomicScatterAdd", "atomic-scatter-add", "bool", /*default=*/"false",
           "Keep scatters that add (f32, f64, i32, i64; not row scatters) for "
           "bufferization, which writes them as a parallel loop of atomic "
           "adds (the CUDA pipeline sets it: a sequential loop nest would be "
           "host code there)">,
    Option<"parallelScans", "parallel-scans", "bool", /*default=*/"false",
           "cumsum in parallel form instead of a loop over the scanned "
           "dimension (the CUDA pipeline sets it: each iteration of that "
           "loop would be a kernel launch): one elementwise op summing each "
           "position's prefix for static scans of at most 1024 positions, "
           "else ceil(log2 n) parallel steps (Hillis-Steele)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def ConvertTensorProgramToWrapperPass
    : Pass<"convert-tensor-program-to-wrapper", "::mlir::ModuleOp"> {
  let summary = "Turns tensor_program functions into kernels and a wrapper host graph";
  let description = [{
    Each public function that is a tensor program (tensor arguments and
    results; only `tensor_program` ops, `tensor.dim`, index constants and the
    return) becomes a `wrapper.graph`; each fused op a kernel:

    ```mlir
    wrapper.graph @mlp(%x: memref<4x8xf32>, %w: memref<8x16xf32>) -> memref<4x16xf32> {
      wrapper.comment "Source nodes: exp, neg"
      %buf = wrapper.alloc() : memref<4x8xf32>
      wrapper.call @mlp_kernel_0(%x, %buf) : memref<4x8xf32>, memref<4x8xf32>
      wrapper.comment "Source nodes: matmul, relu"
      %buf_0 = wrapper.alloc() : memref<4x16xf32>
      wrapper.call @mlp_kernel_1(%buf, %w, %buf_0) : ...
      wrapper.free %buf : memref<4x8xf32>
      wrapper.return %buf_0 : memref<4x16xf32>
    }
    func.func private @mlp_kernel_0_impl(%in: memref<4x8xf32>, %out: memref<4x8xf32>) {
      %t = bufferization.to_tensor %in restrict : memref<4x8xf32> to tensor<4x8xf32>
      ... linalg on tensors ...
      bufferization.materialize_in_destination %r in restrict writable %out : ...
      return
    }
    wrapper.kernel @mlp_kernel_0 = @mlp_kernel_0_impl metadata {kind = "pointwise", source_ops = ["exp", "neg"]}
    ```

    Output buffers are allocated by the host before the call; their dynamic
    sizes are traced back through the kernel's ops to `memref.dim` of its
    inputs (elementwise broadcasting, reductions, permutations, slices,
    concatenation, padding, contractions, and the size operands of reshape,
    broadcast and full). Intermediates are freed after their last use.
    Non-splat constants become `wrapper.constant`s; `copy_back` writes into
    the argument, marked `wrapper.mutated`: the kernel computing the value
    writes it there itself when it is a pointwise region reading the
    argument only elementwise at its own shape on the way to that value
    alone and nothing reads the argument (or a view of it) afterwards;
    otherwise a copy kernel at the `copy_back`, or at the graph's end when
    the argument is still read after it (a returned argument is then
    returned as it was); a returned argument is
    marked `wrapper.alias_of`; a constant or a buffer returned twice is copied
    so that the caller owns every output. Refused: `extern` (no runtime kernels
    yet) and composites that were not decomposed.
  }];
  let options = [
    Option<"atomicScatterAdd", "atomic-scatter-add", "bool", /*default=*/"false",
           "Kernel bodies: keep scatters that add for bufferization's atomic "
           "form (convert-tensor-program-to-linalg's option of that name)">,
    Option<"parallelScans", "parallel-scans", "bool", /*default=*/"false",
           "Kernel bodies: cumsum in parallel form "
           "(convert-tensor-program-to-linalg's option of that name)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::wrapper::WrapperDialect"
  ];
}

def ConvertWrapperToStandardPass
    : Pass<"convert-wrapper-to-standard", "::mlir::ModuleOp"> {
  let summary = "Lowers the wrapper host program to func and memref";
  let description = [{
    Lowers `wrapper` ops on CPU buffers to upstream ops that the CPU codegen
    pipeline takes to LLVM: `wrapper.graph` becomes a public `func.func`,
    `alloc`/`reuse` become `memref.alloc` (64-byte aligned), `free` and
    `free_if_not_reused` (when no reuse follows) `memref.dealloc`,
    `reinterpret` `memref.reinterpret_cast`, `call` a `func.call` of the
    kernel's implementation, `constant`/`get_constant` `memref.global` /
    `memref.get_global`, `return` `func.return`, `view` `memref.view`;
    comments disappear; `debug_print`, `debug_save` and `debug_message`
    become calls of the runtime's `wrapper_debug_print`,
    `wrapper_debug_save` and `wrapper_debug_message` (the view passed as
    dtype, rank, sizes and strides, storage pointer and offset; strings as
    internal LLVM globals). Memory spaces are dropped.

    With `profile`, every kernel call is bracketed by calls of the
    runtime's `wrapper_profile_begin`/`wrapper_profile_end` with the
    kernel's index, and the module gets a `wrapper.profile_kernels` array
    attribute naming the kernels by index (for `wrapper-run --benchmark`).

    With `mark-releasable`, each buffer input of a graph that the graph
    neither writes (`wrapper.mutated`) nor returns a view of
    (`wrapper.alias_of`) is marked `wrapper.releasable` on the function:
    `--wrapper-cuda-release-arguments` frees such inputs after their last
    reader when the caller donated them, and drops the marks.

    With `external-constants`, a `wrapper.constant` without a value becomes
    a pointer-sized global `__wrapper_slot_<name>` (defined, zero) and each
    `wrapper.get_constant` of it a memref built on the pointer the slot
    holds: the AOT container fills the slots from weights appended to
    `model.so`. Without it such constants are refused.

    Buffers on a CUDA device (`#wrapper.device<cuda>`, after
    `--wrapper-place-on-device`) lower to the `gpu` dialect instead:
    `alloc` becomes `gpu.alloc` and `free` `gpu.dealloc` (the CUDA runtime's
    caching allocator), views and reuses the same memref views of device
    storage, calls of kernels `on` the device plain `func.call`s of their
    implementations (whose bodies `--wrapper-cuda-pipeline` maps to kernel
    launches), and a constant on the device a `memref.global` that
    `--wrapper-cuda-place-buffers` copies to the device once.

    Refused with a diagnostic: GPU kernels (`gpu.func` implementations),
    extern calls (lowered by `--wrapper-lower-extern-abi` first), debug
    printing, descriptors and external constants of device buffers, and
    profiling of graphs on a device.
  }];
  let options = [
    Option<"profile", "profile", "bool", /*default=*/"false",
           "Time every kernel call with the runtime's profiling counters">,
    Option<"externalConstants", "external-constants", "bool",
           /*default=*/"false",
           "Lower constants without a value to pointer slots "
           "(__wrapper_slot_<name>) that a loader fills, instead of "
           "refusing them">,
    Option<"markReleasable", "mark-releasable", "bool", /*default=*/"false",
           "Mark each buffer input that the graph neither writes nor returns "
           "a view of `wrapper.releasable` (for "
           "--wrapper-cuda-release-arguments)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

#endif // WRAPPER_CONVERSION_PASSES_TD
