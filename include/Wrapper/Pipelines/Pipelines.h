//===- Pipelines.h - named pipelines ----------------------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_PIPELINES_PIPELINES_H
#define WRAPPER_PIPELINES_PIPELINES_H

#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h"

#include "mlir/Pass/PassOptions.h"

#include <optional>
#include <string>

namespace mlir {
class OpPassManager;

namespace wrapper {

template <typename T>
using PipelineOption = mlir::detail::PassOptions::Option<T>;

/// Options of the GEMM template inside a pipeline (`gemm-options={kc=384
/// mc=96}`): typed, parsed once with the pipeline's options. An option left
/// unset keeps the pass's default (--wrapper-gemm-template documents them);
/// the vector width and `parallel` come from the pipeline.
struct GemmTemplateOptions : public PassPipelineOptions<GemmTemplateOptions> {
  PipelineOption<int64_t> mr{*this, "mr",
                             llvm::cl::desc("Rows of the register tile")};
  PipelineOption<int64_t> nr{*this, "nr",
                             llvm::cl::desc("Columns of the register tile")};
  PipelineOption<int64_t> kc{*this, "kc", llvm::cl::desc("Depth of a K slice")};
  PipelineOption<int64_t> mc{*this, "mc", llvm::cl::desc("Rows of an A block")};
  PipelineOption<int64_t> nc{*this, "nc",
                             llvm::cl::desc("Columns of a B block")};
  PipelineOption<bool> prepack{
      *this, "prepack", llvm::cl::desc("Pack constant B at compile time")};
  PipelineOption<bool> epilogues{
      *this, "epilogues",
      llvm::cl::desc("Fuse the elementwise consumer into the write-back")};
  PipelineOption<bool> bf16Pairs{
      *this, "bf16-pairs",
      llvm::cl::desc("bf16 products in bf16 pairs with vdpbf16ps where the "
                     "target has AVX512-BF16")};
  mlir::detail::PassOptions::ListOption<int64_t> prepackArguments{
      *this, "prepack-arguments",
      llvm::cl::desc("Graph arguments (by position) holding weights that the "
                     "caller packs into the B panels")};
  PipelineOption<int64_t> minParallelWork{
      *this, "min-parallel-work",
      llvm::cl::desc("Products with static M*N*K below this run on one "
                     "thread")};
  PipelineOption<int64_t> smallMRows{
      *this, "small-m-rows",
      llvm::cl::desc("f32 products of at most this many rows take the "
                     "small-M path (0: none)")};
  PipelineOption<bool> report{
      *this, "report",
      llvm::cl::desc("A remark for every matmul: taken or refused")};

  GemmTemplateOptions() = default;
  GemmTemplateOptions(const GemmTemplateOptions &other)
      : PassPipelineOptions<GemmTemplateOptions>() {
    copyOptionValuesFrom(other);
  }
  GemmTemplateOptions &operator=(const GemmTemplateOptions &other) {
    copyOptionValuesFrom(other);
    return *this;
  }
  /// Whether both set the same options to the same values.
  bool operator==(const GemmTemplateOptions &other) const;
};

/// Prints the options that are set, in braces (`{kc=384 mc=96}`).
llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                              const GemmTemplateOptions &options);

} // namespace wrapper
} // namespace mlir

/// The command-line parser of a GemmTemplateOptions value.
template <>
class llvm::cl::parser<mlir::wrapper::GemmTemplateOptions>
    : public llvm::cl::basic_parser<mlir::wrapper::GemmTemplateOptions> {
public:
  using Value = mlir::wrapper::GemmTemplateOptions;
  explicit parser(Option &option) : basic_parser(option) {}
  bool parse(Option &option, StringRef name, StringRef text, Value &value);
  StringRef getValueName() const override { return "{options}"; }
  void printOptionDiff(const Option &option, const Value &value,
                       const OptionValue<Value> &standard,
                       size_t globalWidth) const;
};

namespace mlir {
namespace wrapper {

/// The options of the host front end (tensor_program to kernels and a
/// planned wrapper host graph), declared once and contained in every
/// pipeline that starts with it. `Base` is the options it extends.
template <typename Derived, typename Base = PassPipelineOptions<Derived>>
struct FrontendOptionsMixin : public Base {
  PipelineOption<bool> fuse{
      *this, "fuse",
      llvm::cl::desc("Group ops into fused kernels (--tensor-program-fuse)"),
      llvm::cl::init(true)};
  PipelineOption<std::string> fuseStrategy{
      *this, "fuse-strategy",
      llvm::cl::desc("The fusion strategy of --tensor-program-fuse (none, "
                     "greedy, cost, horizontal, or a registered one)"),
      llvm::cl::init("greedy")};
  PipelineOption<bool> wrapperHost{
      *this, "wrapper-host",
      llvm::cl::desc("Compile through kernels and a wrapper host graph "
                     "(--convert-tensor-program-to-wrapper); otherwise lower "
                     "each function to linalg as a whole"),
      llvm::cl::init(true)};
  PipelineOption<bool> foldConstants{
      *this, "fold-constants",
      llvm::cl::desc("Freeze: evaluate ops that depend only on constants at "
                     "compile time (--tensor-program-fold-constants)"),
      llvm::cl::init(true)};
  PipelineOption<MemoryPlanStrategy> planMemory{
      *this, "plan-memory",
      llvm::cl::desc("Storage planning of the host graph's buffers "
                     "(--wrapper-plan-memory)"),
      llvm::cl::init(MemoryPlanStrategy::Reuse), getMemoryPlanStrategyValues()};
  PipelineOption<int64_t> collectiveBucketBytes{
      *this, "collective-bucket-bytes",
      llvm::cl::desc("Most bytes of all_reduces merged into one bucket "
                     "(--wrapper-bucket-collectives; 0: none merged)"),
      llvm::cl::init(25 * 1024 * 1024)};
  PipelineOption<std::string> collectiveBucketMode{
      *this, "collective-bucket-mode",
      llvm::cl::desc("How a bucket of all_reduces runs: concat (one "
                     "collective on a concatenated buffer) or coalesced"),
      llvm::cl::init("concat")};
};

/// The options of the CPU code generator, declared once and contained in
/// every pipeline that contains it (--wrapper-cpu-codegen alone, and
/// --wrapper-cpu-pipeline).
template <typename Derived, typename Base = PassPipelineOptions<Derived>>
struct CPUCodegenOptionsMixin : public Base {
  PipelineOption<bool> profile{
      *this, "profile",
      llvm::cl::desc("Time every kernel call with the runtime's profiling "
                     "counters (wrapper-run --benchmark reads them)"),
      llvm::cl::init(false)};
  PipelineOption<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Run the outer parallel loops of each kernel on OpenMP "
                     "threads (OMP_NUM_THREADS threads)"),
      llvm::cl::init(true)};
  PipelineOption<bool> cInterface{
      *this, "c-interface",
      llvm::cl::desc("Give every public function a C interface wrapper "
                     "(_mlir_ciface_<name>) taking memref descriptors by "
                     "pointer"),
      llvm::cl::init(false)};
  PipelineOption<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Vectorize every kernel the GEMM template does not "
                     "take at the MLIR level (elementwise, reductions, "
                     "transposes, casts); off leaves scalar loops to LLVM"),
      llvm::cl::init(true)};
  PipelineOption<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("Replace exp, log, tanh, erf, ... with vectorizable "
                     "polynomial approximations (a few ulp in f32)"),
      llvm::cl::init(true)};
  PipelineOption<bool> externalConstants{
      *this, "external-constants",
      llvm::cl::desc("Read constants without a value through pointer slots "
                     "that the loader fills (model.so with appended "
                     "weights)"),
      llvm::cl::init(false)};
  PipelineOption<bool> runtimeAllocator{
      *this, "runtime-allocator",
      llvm::cl::desc("Allocate and free buffers through the runtime's "
                     "caching allocator (finalize-memref-to-llvm's generic "
                     "functions, which libwrapper_runtime defines) instead "
                     "of malloc and free; wrapper-compile and wrapper-run "
                     "turn it on"),
      llvm::cl::init(false)};
  PipelineOption<int64_t> tileElements{
      *this, "tile-elements",
      llvm::cl::desc("Iterations of the parallel loops in one row tile of "
                     "--wrapper-tile-and-fuse; 0 leaves kernels untiled"),
      llvm::cl::init(4096)};
  PipelineOption<bool> gemm{
      *this, "gemm",
      llvm::cl::desc("Lower f32 matmuls through the packed GEMM template "
                     "(--wrapper-gemm-template) with fused epilogues"),
      llvm::cl::init(true)};
  PipelineOption<std::string> targetCPU{
      *this, "target-cpu",
      llvm::cl::desc("The CPU to generate code for (--wrapper-cpu-target; "
                     "empty: the host)"),
      llvm::cl::init("")};
  PipelineOption<std::string> targetFeatures{
      *this, "target-features",
      llvm::cl::desc("LLVM target features of that CPU (+avx2,-avx512f)"),
      llvm::cl::init("")};
  PipelineOption<int64_t> vectorWidth{
      *this, "vector-width",
      llvm::cl::desc("f32 lanes of its vector registers (0: from the "
                     "features or the host)"),
      llvm::cl::init(0)};
  mlir::detail::PassOptions::Option<GemmTemplateOptions,
                                    llvm::cl::parser<GemmTemplateOptions>>
      gemmOptions{
          *this, "gemm-options",
          llvm::cl::desc("Options of --wrapper-gemm-template (blocking), for "
                         "example {kc=384 mc=96}")};
};

/// Options of --wrapper-cpu-codegen.
struct CPUCodegenOptions : public CPUCodegenOptionsMixin<CPUCodegenOptions> {};

/// Options of --wrapper-cpu-pipeline (and --wrapper-cpu-frontend): the
/// front end's and the code generator's (the same declarations as
/// --wrapper-cpu-codegen's, not copies), plus the debug printer's.
struct CPUPipelineOptions
    : public FrontendOptionsMixin<CPUPipelineOptions,
                                  CPUCodegenOptionsMixin<CPUPipelineOptions>> {
  PipelineOption<DebugPrinterLevel> debugPrinter{
      *this, "debug-printer",
      llvm::cl::desc("Debug output around kernel calls "
                     "(--wrapper-insert-debug-printer)"),
      llvm::cl::init(DebugPrinterLevel::Off), getDebugPrinterLevelValues()};
  mlir::detail::PassOptions::ListOption<std::string> debugKernels{
      *this, "debug-kernels",
      llvm::cl::desc("Kernels the debug printer instruments (all when "
                     "empty)")};
  PipelineOption<std::string> debugDir{
      *this, "debug-dir",
      llvm::cl::desc("Directory of the .npy files of debug-printer=save"),
      llvm::cl::init(".")};
};

/// What the gpu.binary of the CUDA pipeline holds.
enum class CUDABinaryFormat {
  /// PTX, compiled by the driver when the module is loaded.
  PTX,
  /// A cubin, through the toolkit's ptxas.
  Cubin,
};

/// Options of --wrapper-cuda-pipeline: the front end's (the same
/// declarations as the CPU pipeline's) and the CUDA code generator's.
struct CUDAPipelineOptions : public FrontendOptionsMixin<CUDAPipelineOptions> {
  PipelineOption<std::string> chip{
      *this, "chip", llvm::cl::desc("The GPU architecture (sm_80, sm_90)"),
      llvm::cl::init("sm_90")};
  PipelineOption<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features (the ISA version: +ptx80 for sm_90)"),
      llvm::cl::init("+ptx80")};
  PipelineOption<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads of a block along a kernel's innermost parallel "
                     "dimension"),
      llvm::cl::init(256)};
  PipelineOption<bool> cInterface{
      *this, "c-interface",
      llvm::cl::desc("Give every public function a C interface wrapper"),
      llvm::cl::init(false)};
  PipelineOption<int64_t> rowBlockSize{
      *this, "row-block-size",
      llvm::cl::desc("Threads per row of the row kernels (0: from the row "
                     "length)"),
      llvm::cl::init(0)};
  PipelineOption<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("128-bit loads and stores where alignment allows"),
      llvm::cl::init(true)};
  PipelineOption<bool> fuseHorizontal{
      *this, "fuse-horizontal",
      llvm::cl::desc("Merge independent elementwise ops of a kernel over the "
                     "same loops, and transposes into their producers, into "
                     "one launch (--wrapper-fuse-horizontal)"),
      llvm::cl::init(true)};
  PipelineOption<bool> deviceArguments{
      *this, "device-arguments",
      llvm::cl::desc("Public functions take and return device buffers and "
                     "return without waiting for the GPU (the caller copies "
                     "and synchronizes)"),
      llvm::cl::init(false)};
  PipelineOption<bool> releaseArguments{
      *this, "release-arguments",
      llvm::cl::desc("Free each input the caller donated for the call "
                     "(wrapper_cuda_donate) after its last reader "
                     "(--wrapper-cuda-release-arguments)"),
      llvm::cl::init(false)};
  PipelineOption<bool> cublas{
      *this, "cublas",
      llvm::cl::desc("Matrix products through cuBLAS (loaded at run time) "
                     "instead of generated kernels"),
      llvm::cl::init(true)};
  PipelineOption<std::string> cudaToolkit{
      *this, "cuda-toolkit",
      llvm::cl::desc("CUDA toolkit whose nvvm/libdevice the kernels link "
                     "(default: $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH, "
                     "/usr/local/cuda)"),
      llvm::cl::init("")};
  PipelineOption<bool> allowTF32{
      *this, "allow-tf32",
      llvm::cl::desc("Let cuBLAS use TF32 tensor cores for f32 products"),
      llvm::cl::init(false)};
  PipelineOption<bool> allowTF32Convolutions{
      *this, "allow-tf32-convolutions",
      llvm::cl::desc("Let cuBLAS use TF32 tensor cores for the f32 products "
                     "that compute convolutions"),
      llvm::cl::init(false)};
  PipelineOption<CUDABinaryFormat> binary{
      *this, "binary", llvm::cl::desc("What the gpu.binary holds"),
      llvm::cl::init(CUDABinaryFormat::PTX),
      llvm::cl::values(clEnumValN(CUDABinaryFormat::PTX, "ptx",
                                  "PTX, compiled by the driver when loaded"),
                       clEnumValN(CUDABinaryFormat::Cubin, "cubin",
                                  "a cubin, through the toolkit's ptxas"))};
  PipelineOption<std::string> device{
      *this, "device",
      llvm::cl::desc("The device of the host graph (cuda or cuda:N; with "
                     "wrapper-host)"),
      llvm::cl::init("cuda")};
};

/// tensor_program in; host code in the LLVM dialect calling the runtime's
/// mgpu* functions plus a gpu.binary with the kernels' PTX out (issue 6,
/// first version): each function lowered to linalg as a whole, its
/// parallel loops tiled by `block-size` and mapped to blocks and threads,
/// buffers on the device (--wrapper-cuda-place-buffers), upstream's NVVM
/// lowering and serialization.
void buildCUDAPipeline(OpPassManager &pm, const CUDAPipelineOptions &options);

/// linalg (on tensors or buffers) with func.func entries in; LLVM dialect
/// out: bufferization, deallocation, loops, OpenMP, and the lowering of
/// every remaining dialect to LLVM.
void buildCPUCodegenPipeline(OpPassManager &pm,
                             const CPUCodegenOptions &options);
/// Which part of the CPU code generator to build.
enum class CodegenPart {
  /// All of it.
  All,
  /// The kernels to buffers and their products through the GEMM template,
  /// which packs the constant operands it finds at compile time.
  Kernels,
  /// The rest: host program, externs, loops, vectors, OpenMP, LLVM.
  Host,
};

/// The same with the code generator's options of a whole CPU pipeline
/// (what a tool that runs the front end and the code generator apart uses),
/// or one part of it: wrapper-compile takes the constants out of the module
/// between the two (after the GEMM template has packed them).
void buildCPUCodegenPipeline(OpPassManager &pm,
                             const CPUPipelineOptions &options,
                             CodegenPart part = CodegenPart::All);

/// tensor_program in, LLVM dialect out: decomposition, lowering to linalg,
/// then the CPU codegen pipeline.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// The first half of --wrapper-cpu-pipeline: tensor_program to kernels (in
/// linalg on tensors) and a planned wrapper host graph; what the AOT
/// compiler stops after to take the constants out.
void buildCPUFrontendPipeline(OpPassManager &pm,
                              const CPUPipelineOptions &options);

/// A wrapper host program on CPU buffers (with kernels already on buffers)
/// to the LLVM dialect: --convert-wrapper-to-standard, then the LLVM
/// lowering. Registered as --convert-wrapper-to-llvm.
void buildWrapperToLLVMPipeline(OpPassManager &pm);

/// The lowering of every remaining upstream dialect to LLVM (affine, scf,
/// math, memref, arith, index, cf, OpenMP when `openmp`, func).
void addLLVMLowering(OpPassManager &pm, bool openmp,
                     bool runtimeAllocator = false);

/// Checks an option string written for the options `defaults` (a pass's or
/// pipeline's options) before it is parsed: every name must be an option
/// (else the closest one is suggested), and a value must be of the kind the
/// option's default shows (true/false, an integer). `what` names the owner
/// in messages ("--wrapper-cpu-pipeline"). std::nullopt when it fits.
std::optional<std::string>
checkOptionString(StringRef text, const mlir::detail::PassOptions &defaults,
                  StringRef what);
/// The same for the GEMM template's options (`gemm-options`), whose list
/// option (prepack-arguments) takes comma-separated integers.
std::optional<std::string>
checkOptionString(StringRef text, const GemmTemplateOptions &defaults,
                  StringRef what);

/// Checks the values of a pipeline's options that its passes would refuse
/// only once they run (strategies and levels outside their set, negative
/// sizes, GEMM options that do not parse), so that a tool refuses them
/// before it reads its input and a pipeline before it runs: the message
/// names the option and what it accepts. std::nullopt when all are valid.
std::optional<std::string> checkPipelineOptions(const CPUCodegenOptions &);
std::optional<std::string> checkPipelineOptions(const CPUPipelineOptions &);
std::optional<std::string> checkPipelineOptions(const CUDAPipelineOptions &);

/// Registers the named pipelines with the command line.
void registerPipelines();

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_PIPELINES_PIPELINES_H
