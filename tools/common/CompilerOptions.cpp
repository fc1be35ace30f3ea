//===- CompilerOptions.cpp - the tools' shared compiler options -----------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "CompilerOptions.h"
#include "ToolSupport.h"

#include "llvm/Support/ManagedStatic.h"

using namespace mlir;
using namespace mlir::wrapper;
namespace cl = llvm::cl;

namespace {
/// The options, constructed when a tool registers them.
struct CompilerCLOptions {
  explicit CompilerCLOptions(cl::OptionCategory &category)
      : parallel("parallel",
                 cl::desc("Run kernels on several threads (OpenMP)"),
                 cl::init(true), cl::cat(category)),
        fuse("fuse", cl::desc("Fuse ops into kernels (--tensor-program-fuse)"),
             cl::init(true), cl::cat(category)),
        fuseStrategy("fuse-strategy",
                     cl::desc("The fusion strategy: none, greedy, cost, "
                              "horizontal (docs/Fusion.md)"),
                     cl::init("greedy"), cl::cat(category)),
        foldConstants("fold-constants",
                      cl::desc("Evaluate ops that depend only on constants "
                               "at compile time"),
                      cl::init(true), cl::cat(category)),
        planMemory("plan-memory",
                   cl::desc("Storage planning of the host graph"),
                   cl::init(MemoryPlanStrategy::Reuse),
                   getMemoryPlanStrategyValues(), cl::cat(category)),
        collectiveBucketBytes(
            "collective-bucket-bytes",
            cl::desc("Most bytes of all_reduces merged into one bucket "
                     "(--wrapper-bucket-collectives; 0: none merged)"),
            cl::init(25 * 1024 * 1024), cl::cat(category)),
        collectiveBucketMode(
            "collective-bucket-mode",
            cl::desc("How a bucket of all_reduces runs: concat or "
                     "coalesced"),
            cl::init("concat"), cl::cat(category)),
        tileElements("tile-elements",
                     cl::desc("Iterations per row tile of "
                              "--wrapper-tile-and-fuse (0: kernels stay "
                              "untiled)"),
                     cl::init(4096), cl::cat(category)),
        gemm("gemm",
             cl::desc("Lower f32 matmuls through the packed GEMM template "
                      "(--wrapper-gemm-template); false: plain loops"),
             cl::init(true), cl::cat(category)),
        vectorize("vectorize",
                  cl::desc("Vectorize the kernels the GEMM template does "
                           "not take at the MLIR level; false: scalar loops "
                           "left to LLVM's loop vectorizer"),
                  cl::init(true), cl::cat(category)),
        gemmOptions("gemm-options",
                    cl::desc("Options of --wrapper-gemm-template (blocking), "
                             "as 'kc=384 mc=96'"),
                    cl::init(""), cl::cat(category)),
        targetCPU("mcpu",
                  cl::desc("Generate code for this CPU instead of the host"),
                  cl::cat(category)),
        targetFeatures("mattr",
                       cl::desc("CPU features to add or remove, as "
                                "'+avx2,-avx512f' (the vector width "
                                "follows)"),
                       cl::cat(category)),
        cudaChip("cuda-chip", cl::desc("GPU architecture of --target=cuda"),
                 cl::init("sm_90"), cl::cat(category)),
        cudaDevice("cuda-device",
                   cl::desc("The device a --target=cuda program runs on: "
                            "cuda or cuda:N"),
                   cl::init("cuda"), cl::cat(category)),
        cudaBinary("cuda-binary",
                   cl::desc("What the kernels of --target=cuda are stored "
                            "as"),
                   cl::init(CUDABinaryFormat::PTX),
                   cl::values(clEnumValN(CUDABinaryFormat::PTX, "ptx",
                                         "PTX, compiled by the driver at "
                                         "load"),
                              clEnumValN(CUDABinaryFormat::Cubin, "cubin",
                                         "a cubin, through the CUDA "
                                         "toolkit's ptxas")),
                   cl::cat(category)),
        cudaReleaseArguments(
            "cuda-release-arguments",
            cl::desc("--target=cuda: free each input the caller donated for "
                     "the call (wrapper_cuda_donate) after its last reader"),
            cl::init(false), cl::cat(category)),
        cudaAllowTF32("cuda-allow-tf32",
                      cl::desc("--target=cuda: f32 products on TF32 tensor "
                               "cores (torch.backends.cuda.matmul."
                               "allow_tf32)"),
                      cl::init(false), cl::cat(category)),
        cudaAllowTF32Convolutions(
            "cuda-allow-tf32-convolutions",
            cl::desc("--target=cuda: the f32 products of convolutions on "
                     "TF32 tensor cores (torch.backends.cudnn.allow_tf32)"),
            cl::init(false), cl::cat(category)) {
    showDefaults(parallel, fuse, foldConstants, tileElements, gemm, vectorize,
                 cudaChip, cudaDevice, collectiveBucketBytes,
                 collectiveBucketMode, cudaReleaseArguments, cudaAllowTF32,
                 cudaAllowTF32Convolutions);
    appendDefaultToHelp(planMemory, "reuse");
    appendDefaultToHelp(cudaBinary, "ptx");
  }

  cl::opt<bool> parallel, fuse;
  cl::opt<std::string> fuseStrategy;
  cl::opt<bool> foldConstants;
  cl::opt<MemoryPlanStrategy> planMemory;
  cl::opt<int64_t> collectiveBucketBytes;
  cl::opt<std::string> collectiveBucketMode;
  cl::opt<int64_t> tileElements;
  cl::opt<bool> gemm, vectorize;
  cl::opt<std::string> gemmOptions, targetCPU, targetFeatures, cudaChip,
      cudaDevice;
  cl::opt<CUDABinaryFormat> cudaBinary;
  cl::opt<bool> cudaReleaseArguments, cudaAllowTF32, cudaAllowTF32Convolutions;
};

std::unique_ptr<CompilerCLOptions> clOptions;
} // namespace

void mlir::wrapper::registerCompilerCLOptions(cl::OptionCategory &category) {
  if (!clOptions)
    clOptions = std::make_unique<CompilerCLOptions>(category);
}

StringRef mlir::wrapper::getCommandLineCPU() {
  return clOptions ? StringRef(clOptions->targetCPU) : StringRef();
}

StringRef mlir::wrapper::getCommandLineFeatures() {
  return clOptions ? StringRef(clOptions->targetFeatures) : StringRef();
}

/// The options both pipelines' front ends take.
template <typename Derived, typename Base>
static void setFrontendOptions(FrontendOptionsMixin<Derived, Base> &options) {
  options.fuse = clOptions->fuse;
  options.fuseStrategy = clOptions->fuseStrategy;
  options.foldConstants = clOptions->foldConstants;
  options.planMemory = clOptions->planMemory;
  options.collectiveBucketBytes = clOptions->collectiveBucketBytes;
  options.collectiveBucketMode = clOptions->collectiveBucketMode;
}

LogicalResult mlir::wrapper::setCPUPipelineOptions(CPUPipelineOptions &options,
                                                   std::string &error) {
  assert(clOptions && "registerCompilerCLOptions was not called");
  setFrontendOptions(options);
  options.parallel = clOptions->parallel;
  options.tileElements = clOptions->tileElements;
  options.gemm = clOptions->gemm;
  options.vectorize = clOptions->vectorize;
  // The tools link the runtime: buffers come from its block cache.
  options.runtimeAllocator = true;
  if (!clOptions->gemmOptions.empty()) {
    // Checked first, for messages that name the option and suggest names.
    if (std::optional<std::string> problem = checkOptionString(
            clOptions->gemmOptions, GemmTemplateOptions(), "gemm-options")) {
      error = *problem;
      return failure();
    }
    GemmTemplateOptions &gemm = options.gemmOptions;
    if (failed(gemm.parseFromString(clOptions->gemmOptions))) {
      error = "cannot parse --gemm-options '" + clOptions->gemmOptions + "'";
      return failure();
    }
  }
  if (std::optional<std::string> problem = checkPipelineOptions(options)) {
    error = *problem;
    return failure();
  }
  return success();
}

LogicalResult mlir::wrapper::refuseCUDAOnlyOptions(std::string &error) {
  assert(clOptions && "registerCompilerCLOptions was not called");
  if (clOptions->cudaReleaseArguments) {
    error = "--cuda-release-arguments frees donated device inputs; it needs "
            "--target=cuda";
    return failure();
  }
  for (cl::opt<bool> *tf32 :
       {&clOptions->cudaAllowTF32, &clOptions->cudaAllowTF32Convolutions}) {
    if (*tf32) {
      error = "--" + tf32->ArgStr.str() +
              " chooses cuBLAS's tensor cores; it needs --target=cuda";
      return failure();
    }
  }
  return success();
}

LogicalResult
mlir::wrapper::setCUDAPipelineOptions(CUDAPipelineOptions &options,
                                      std::string &error) {
  assert(clOptions && "registerCompilerCLOptions was not called");
  setFrontendOptions(options);
  options.chip = clOptions->cudaChip;
  options.device = clOptions->cudaDevice;
  options.binary = clOptions->cudaBinary;
  options.releaseArguments = clOptions->cudaReleaseArguments;
  options.allowTF32 = clOptions->cudaAllowTF32;
  options.allowTF32Convolutions = clOptions->cudaAllowTF32Convolutions;
  if (std::optional<std::string> problem = checkPipelineOptions(options)) {
    error = *problem;
    return failure();
  }
  return success();
}
