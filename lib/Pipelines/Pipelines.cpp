//===- Pipelines.cpp - named pipelines ------------------------------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Pipelines/Pipelines.h"

#include "Wrapper/Codegen/CPU/Passes.h"
#include "Wrapper/Codegen/CUDA/Passes.h"
#include "Wrapper/Codegen/Common/Passes.h"
#include "Wrapper/Conversion/Passes.h"
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h"
#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h"

#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::wrapper;

namespace {
/// A pass that fails with `message` (see --wrapper-fail).
std::unique_ptr<Pass> createFailPass(std::string message) {
  WrapperFailPassOptions options;
  options.message = std::move(message);
  return createWrapperFailPass(options);
}
} // namespace

/// The GEMM template's pass options: the pass's defaults, with the options
/// the user set in `gemm-options` and the pipeline's parallelism.
static WrapperGemmTemplatePassOptions
getGemmTemplatePassOptions(const GemmTemplateOptions &user, bool parallel) {
  WrapperGemmTemplatePassOptions options;
  options.parallel = parallel;
  auto set = [](auto &field, const auto &option) {
    if (option.hasValue())
      field = option;
  };
  set(options.mr, user.mr);
  set(options.nr, user.nr);
  set(options.kc, user.kc);
  set(options.mc, user.mc);
  set(options.nc, user.nc);
  set(options.prepack, user.prepack);
  set(options.epilogues, user.epilogues);
  set(options.bf16Pairs, user.bf16Pairs);
  if (user.prepackArguments.hasValue())
    options.prepackArguments.assign(user.prepackArguments.begin(),
                                    user.prepackArguments.end());
  set(options.minParallelWork, user.minParallelWork);
  set(options.smallMRows, user.smallMRows);
  set(options.report, user.report);
  return options;
}

bool GemmTemplateOptions::operator==(const GemmTemplateOptions &other) const {
  std::string mine, theirs;
  llvm::raw_string_ostream(mine) << *this;
  llvm::raw_string_ostream(theirs) << other;
  return mine == theirs;
}

llvm::raw_ostream &
mlir::wrapper::operator<<(llvm::raw_ostream &os,
                          const GemmTemplateOptions &options) {
  // Only the options that are set: the others keep the pass's defaults.
  llvm::ListSeparator separator(" ");
  os << "{";
  for (const PipelineOption<int64_t> *option :
       {&options.mr, &options.nr, &options.kc, &options.mc, &options.nc,
        &options.minParallelWork, &options.smallMRows})
    if (option->hasValue())
      os << separator << option->ArgStr << "=" << option->getValue();
  for (const PipelineOption<bool> *option :
       {&options.prepack, &options.epilogues, &options.bf16Pairs,
        &options.report})
    if (option->hasValue())
      os << separator << option->ArgStr << "="
         << (option->getValue() ? "true" : "false");
  if (options.prepackArguments.hasValue()) {
    os << separator << options.prepackArguments.ArgStr << "=";
    llvm::interleave(options.prepackArguments, os, ",");
  }
  return os << "}";
}

bool llvm::cl::parser<GemmTemplateOptions>::parse(Option &option,
                                                  StringRef name,
                                                  StringRef text,
                                                  Value &value) {
  if (succeeded(value.parseFromString(text)))
    return false;
  return option.error("cannot parse '" + text + "' as GEMM template options");
}

void llvm::cl::parser<GemmTemplateOptions>::printOptionDiff(
    const Option &option, const Value &value, const OptionValue<Value> &,
    size_t globalWidth) const {
  printOptionName(option, globalWidth);
  llvm::outs() << "= " << value << "\n";
}

/// Adds a pass that fails with the problem of `options`, if any (a
/// pipeline built by a program rather than from the command line).
template <typename Options>
static bool refuseInvalid(OpPassManager &pm, const Options &options) {
  std::optional<std::string> problem = checkPipelineOptions(options);
  if (!problem)
    return false;
  pm.addPass(createFailPass(*problem));
  return true;
}

/// Tensors to buffers, with function boundaries taking plain (identity
/// layout) memrefs, kernels computing straight into their output buffers
/// (empty-tensor elimination), temporaries freed by ownership-based
/// deallocation: the CPU and CUDA pipelines alike.
static void addBufferization(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // Again after tiling, which may reshape what the outputs are computed in
  // (unit dimensions dropped).
  pm.addNestedPass<func::FuncOp>(createWrapperWriteOutputsInPlacePass());
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Upstream's deallocation, except in functions that free their own
  // buffers (programs written at the buffer level).
  pm.addPass(createWrapperDeallocateBuffersPass());
}

/// The first part of --wrapper-cpu-codegen: the kernels to buffers, their
/// products through the GEMM template (which packs constant operands).
template <typename Derived, typename Base>
static void
addCPUKernelCodegen(OpPassManager &pm,
                    const CPUCodegenOptionsMixin<Derived, Base> &options) {
  // The target, decided once and recorded on the module for the passes
  // that tune for it.
  WrapperCPUTargetPassOptions target;
  target.cpu = options.targetCPU;
  target.features = options.targetFeatures;
  target.vectorWidth = options.vectorWidth;
  pm.addPass(createWrapperCPUTargetPass(target));
  // Packs and unpacks as whole-tensor ops (bufferization has no model for
  // them), before fusion sees them.
  pm.addNestedPass<func::FuncOp>(createWrapperLowerPackUnpackPass());
  // Fuse elementwise producers into consumers while still on tensors.
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(
      createWrapperFuseElementwiseKeepContractionsPass());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  // Outputs that are reshapes or slices of what an op computes: written by
  // that op into the output buffer, not copied there.
  pm.addNestedPass<func::FuncOp>(createWrapperWriteOutputsInPlacePass());
  // Row tiles with every producer fused in: a kernel streams its data once
  // and its tile loop is the one spread over threads.
  if (options.tileElements != 0) {
    WrapperTileAndFusePassOptions tile;
    tile.tileElements = options.tileElements;
    tile.skipGemm = options.gemm;
    pm.addNestedPass<func::FuncOp>(createWrapperTileAndFusePass(tile));
    pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
    pm.addNestedPass<func::FuncOp>(createCSEPass());
  }

  addBufferization(pm);
  // Temporaries of tile loops, which that pipeline does not free.
  pm.addNestedPass<func::FuncOp>(createWrapperPromoteTileBuffersPass());
  // f32 matmuls (with their epilogues) through the packed GEMM template,
  // while the host program still says which kernel arguments are constants.
  if (options.gemm) {
    // Tiled contractions with unit batch loops and batch matmuls become
    // 2-D matmuls the template takes (CSE merges the views of a product
    // that the matmul writes and its epilogue reads).
    WrapperSpecializeContractionsPassOptions specialize;
    specialize.parallel = options.parallel;
    pm.addPass(createWrapperSpecializeContractionsPass(specialize));
    pm.addNestedPass<func::FuncOp>(createCSEPass());
    pm.addPass(createWrapperGemmTemplatePass(
        getGemmTemplatePassOptions(options.gemmOptions, options.parallel)));
  }
}

/// The second part: the host program and externs, loops, vectors, OpenMP
/// and the lowering to LLVM.
template <typename Derived, typename Base>
static void
addCPUHostCodegen(OpPassManager &pm,
                  const CPUCodegenOptionsMixin<Derived, Base> &options) {
  // The wrapper host program (if any) after its kernels are buffers: its
  // frees are explicit, so it must not go through deallocation.
  // Extern calls: missing out=/in-place variants built from functional
  // kernels, then calls of the C shim functions.
  pm.addPass(createWrapperSynthesizeExternVariantsPass());
  pm.addPass(createWrapperLowerExternABIPass());
  ConvertWrapperToStandardPassOptions host;
  host.profile = options.profile;
  host.externalConstants = options.externalConstants;
  pm.addPass(createConvertWrapperToStandardPass(host));
  if (options.cInterface)
    pm.addPass(createWrapperAddCInterfacePass());
  // Clones that deallocation inserted (a returned view of an argument, for
  // one) become allocations and copies.
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCanonicalizerPass());

  // Loops: tile loops and the parallel dimensions of untiled ops become
  // scf.parallel (run on OpenMP threads), everything inside them scf.for.
  pm.addPass(createForallToParallelLoopPass());
  // Copies into or out of strided views (a padded output's interior, a
  // slice) as linalg.copy: vector loops below, where memref.copy would
  // call the runtime's element-by-element memrefCopy.
  pm.addNestedPass<func::FuncOp>(createWrapperStridedCopiesToLinalgPass());
  WrapperLowerLinalgToLoopsPassOptions loops;
  loops.parallel = options.parallel;
  loops.vectorize = options.vectorize;
  pm.addNestedPass<func::FuncOp>(createWrapperLowerLinalgToLoopsPass(loops));
  // Vectorized loop bodies as 1-D vector loads, stores and arithmetic.
  pm.addNestedPass<func::FuncOp>(createWrapperLowerVectorsPass());
  if (options.parallel)
    pm.addPass(createConvertSCFToOpenMPPass());
  // Stack scopes (of tiles, of OpenMP loop bodies) before loops become
  // branches inside them.
  pm.addPass(createWrapperLowerAllocaScopesPass());
  pm.addPass(createCanonicalizerPass());

  // Transcendentals as vectorizable polynomials instead of libm calls.
  if (options.approximateMath)
    pm.addPass(createWrapperApproximateMathPass());

  addLLVMLowering(pm, options.parallel, options.runtimeAllocator);
}

/// --wrapper-cpu-codegen with the code generator's options of any pipeline.
template <typename Derived, typename Base>
static void
addCPUCodegen(OpPassManager &pm,
              const CPUCodegenOptionsMixin<Derived, Base> &options) {
  addCPUKernelCodegen(pm, options);
  addCPUHostCodegen(pm, options);
}

/// tensor_program to kernels plus a wrapper host graph (fused, constants
/// folded, buffers on `device` when given, storage planned), or with
/// wrapper-host off to linalg function by function. On a device, fusion
/// and folding belong to the host graph's front end only. `addDebugPrinter`
/// instruments the planned graph.
template <typename Derived, typename Base>
static void
addHostFrontend(OpPassManager &pm,
                const FrontendOptionsMixin<Derived, Base> &options,
                StringRef device = "",
                function_ref<void(OpPassManager &)> addDebugPrinter = {},
                bool parallelForms = false) {
  bool foldAndFuse = options.wrapperHost || device.empty();
  // Weights kept outside the IR text (dense_resource + a weights file).
  pm.addPass(tensor_program::createTensorProgramLoadWeightsPass());
  // Convolutions as im2col and one product: on the CPU through the GEMM
  // template, on CUDA through cuBLAS (a direct convolution there is a loop
  // nest per output element, 10-50x slower than eager on the zoo's CNNs).
  // On the CPU a batch of 1x1 convolutions over 256 positions or more is
  // one product per image: no permute of the activations before and after
  // (measured on EfficientNet-B0 at batch 8, bench/models.py). CUDA keeps
  // one product (cuBLAS takes the columns of all images at once).
  tensor_program::TensorProgramConvolutionToMatmulPassOptions convolutions;
  convolutions.perImage = device.empty() ? "pointwise" : "none";
  pm.addPass(
      tensor_program::createTensorProgramConvolutionToMatmulPass(convolutions));
  // Activations (gelu, silu) stay whole: their direct lowering is one
  // payload, measured faster than the decomposed chain (bench/run.sh cpu).
  tensor_program::TensorProgramDecomposePassOptions decompose;
  decompose.decomposeActivations = false;
  pm.addPass(tensor_program::createTensorProgramDecomposePass(decompose));
  pm.addPass(createCanonicalizerPass());
  if (options.foldConstants && foldAndFuse)
    pm.addNestedPass<func::FuncOp>(
        tensor_program::createTensorProgramFoldConstantsPass());
  if (options.fuse && foldAndFuse) {
    tensor_program::TensorProgramFusePassOptions fuse;
    fuse.strategy = options.fuseStrategy;
    pm.addNestedPass<func::FuncOp>(
        tensor_program::createTensorProgramFusePass(fuse));
  }
  if (options.wrapperHost) {
    // Element-moving kernels (im2col) read again long after: computed
    // again there rather than held (a training step's backward).
    pm.addNestedPass<func::FuncOp>(
        tensor_program::createTensorProgramRecomputeLayoutsPass());
    // Arguments updated in place (a training step's state) as soon as
    // their readers are done: the update then writes into the argument.
    pm.addNestedPass<func::FuncOp>(
        tensor_program::createTensorProgramHoistCopyBacksPass());
    // Kernels plus a wrapper host graph.
    ConvertTensorProgramToWrapperPassOptions toWrapper;
    toWrapper.atomicScatterAdd = parallelForms;
    toWrapper.parallelScans = parallelForms;
    pm.addPass(createConvertTensorProgramToWrapperPass(toWrapper));
    pm.addPass(createWrapperDedupeConstantsPass());
    WrapperBucketCollectivesPassOptions buckets;
    buckets.bucketBytes = options.collectiveBucketBytes;
    buckets.mode = options.collectiveBucketMode;
    pm.addPass(createWrapperBucketCollectivesPass(buckets));
    pm.addPass(createWrapperDedupeKernelsPass());
    if (!device.empty()) {
      WrapperPlaceOnDevicePassOptions place;
      place.device = device.str();
      pm.addPass(createWrapperPlaceOnDevicePass(place));
    }
    // Storage reuse or pools, then the independent lifetime check.
    WrapperPlanMemoryPassOptions plan;
    plan.strategy = options.planMemory;
    pm.addNestedPass<GraphOp>(createWrapperPlanMemoryPass(plan));
    pm.addNestedPass<GraphOp>(createWrapperVerifyLifetimesPass());
    if (addDebugPrinter)
      addDebugPrinter(pm);
  }
  // Functions that are not graphs (and, without the wrapper host, all of
  // them) are lowered to linalg as a whole.
  ConvertTensorProgramToLinalgPassOptions toLinalg;
  toLinalg.atomicScatterAdd = parallelForms;
  toLinalg.parallelScans = parallelForms;
  pm.addPass(createConvertTensorProgramToLinalgPass(toLinalg));
}

/// `relative` inside the CUDA toolkit `toolkit`, or (when empty) inside the
/// first of $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH and /usr/local/cuda that has
/// it: the toolkit root and the file's path; empty when none has it.
static std::pair<std::string, std::string>
findInToolkit(StringRef toolkit, ArrayRef<StringRef> relative) {
  SmallVector<std::string> roots;
  if (!toolkit.empty()) {
    roots.push_back(toolkit.str());
  } else {
    for (const char *name : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
      if (const char *value = std::getenv(name); value && *value)
        roots.push_back(value);
    roots.push_back("/usr/local/cuda");
  }
  for (const std::string &root : roots) {
    SmallString<256> path(root);
    for (StringRef part : relative)
      llvm::sys::path::append(path, part);
    if (llvm::sys::fs::is_regular_file(path))
      return {root, std::string(path)};
  }
  return {};
}

/// libdevice.10.bc of the CUDA toolkit (see findInToolkit).
static std::string findLibdevice(StringRef toolkit) {
  return findInToolkit(toolkit, {"nvvm", "libdevice", "libdevice.10.bc"})
      .second;
}

void mlir::wrapper::buildCUDAPipeline(OpPassManager &pm,
                                      const CUDAPipelineOptions &options) {
  if (refuseInvalid(pm, options))
    return;
  // Kernels plus a host graph whose buffers live on the device (the same
  // front end as the CPU's), or each function to linalg as a whole.
  // Scatters that add as parallel atomic adds and scans in parallel steps
  // (a sequential loop would be host code, a launch per iteration).
  addHostFrontend(pm, options, options.device, /*addDebugPrinter=*/{},
                  /*parallelForms=*/true);
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(
      createWrapperFuseElementwiseKeepContractionsPass(
          WrapperFuseElementwiseKeepContractionsPassOptions{
              /*recompute=*/true}));
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  if (options.fuseHorizontal) {
    // Pads and transposes that only elementwise ops read are read through
    // (a convolution's input gradient: nine shifted, padded windows); ops
    // computed twice (batch_norm's backward writes x - mean to two
    // outputs) once; then independent elementwise ops over the same loops,
    // and transposed copies of their results, in one launch.
    pm.addNestedPass<func::FuncOp>(createWrapperReadThroughPadsPass());
    pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
    pm.addNestedPass<func::FuncOp>(createCSEPass());
    pm.addNestedPass<func::FuncOp>(createWrapperFuseHorizontalPass());
    pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  }
  pm.addNestedPass<func::FuncOp>(createWrapperWriteOutputsInPlacePass());

  // Buffers, as on the CPU; then the host graph becomes a function that
  // allocates on the device and calls its kernels, and the kernels are
  // inlined into it: one function per graph, whose loops the passes below
  // map to kernel launches on one stream.
  addBufferization(pm);
  if (options.wrapperHost) {
    // Collectives become runtime calls; extern calls stay (and are refused
    // on the device by the host lowering).
    WrapperLowerExternABIPassOptions collectives;
    collectives.collectivesOnly = true;
    pm.addPass(createWrapperLowerExternABIPass(collectives));
    ConvertWrapperToStandardPassOptions host;
    host.markReleasable = options.releaseArguments;
    pm.addPass(createConvertWrapperToStandardPass(host));
    pm.addPass(createInlinerPass());
  }
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCanonicalizerPass());

  // Kernels: parallel loops tiled by the block size, mapped to blocks and
  // threads; the host's buffers moved to the device.
  pm.addNestedPass<func::FuncOp>(createWrapperStridedCopiesToLinalgPass());
  // Matrix products: calls of cuBLAS through the runtime.
  if (options.cublas) {
    WrapperCUDAMatmulToCublasPassOptions cublas;
    cublas.allowTF32 = options.allowTF32;
    cublas.allowTF32Convolutions = options.allowTF32Convolutions;
    pm.addPass(createWrapperCUDAMatmulToCublasPass(cublas));
  }
  // Row reductions (with the row-local ops around them) one block per row;
  // what is left becomes parallel loops.
  WrapperCUDARowKernelsPassOptions rows;
  rows.blockSize = options.rowBlockSize;
  rows.vectorize = options.vectorize;
  pm.addNestedPass<func::FuncOp>(createWrapperCUDARowKernelsPass(rows));
  // Other reductions: one block per output element.
  pm.addNestedPass<func::FuncOp>(createWrapperCUDABlockReductionsPass());
  pm.addNestedPass<func::FuncOp>(
      createWrapperInterchangeReductionsInnermostPass());
  pm.addNestedPass<func::FuncOp>(createWrapperCUDAScalarKernelsPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  // Adjacent loop nests over the same space (a reduction's zero fill and
  // the reduction, independent elementwise ops) as one: one launch.
  pm.addNestedPass<func::FuncOp>(createParallelLoopFusionPass());
  // The block size of each loop nest, chosen once and recorded on it, then
  // the tiling that reads it.
  pm.addNestedPass<func::FuncOp>(createWrapperCUDASelectBlockSizesPass(
      WrapperCUDASelectBlockSizesPassOptions{options.blockSize}));
  pm.addNestedPass<func::FuncOp>(createWrapperTileParallelLoopsForGPUPass(
      WrapperTileParallelLoopsForGPUPassOptions{options.blockSize}));
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  WrapperCUDAPlaceBuffersPassOptions place;
  place.deviceArguments = options.deviceArguments;
  pm.addPass(createWrapperCUDAPlaceBuffersPass(place));
  pm.addPass(createCanonicalizerPass());
  if (options.cInterface)
    pm.addPass(createWrapperAddCInterfacePass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createWrapperCUDANameKernelsPass());
  if (options.releaseArguments)
    pm.addPass(createWrapperCUDAReleaseArgumentsPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createWrapperLowerAllReducePass());
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addNestedPass<func::FuncOp>(createWrapperCUDAStreamOrderedCallsPass());
  if (options.deviceArguments)
    pm.addNestedPass<func::FuncOp>(createWrapperCUDADropHostWaitsPass());

  // Upstream's gpu-lower-to-nvvm-pipeline, step by step, with one cleanup
  // it lacks: the kernels' dead casts to memref (left by the descriptor
  // unpacking of dynamic shapes) are erased before translation to LLVM IR,
  // which refuses them. Kernels become PTX in a gpu.binary, host code LLVM
  // calling mgpu* (implemented by libwrapper_cuda_runtime).
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  // libdevice (expf, erff, ... of the kernels), linked explicitly: the
  // toolkit MLIR would look in depends on the environment, and PTX left
  // with calls of __nv_* fails to load.
  std::string libdevice = findLibdevice(options.cudaToolkit);
  if (!libdevice.empty())
    target.linkLibs.push_back(libdevice);
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createStripDebugInfoPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createWrapperEraseDeadCastsPass());
  pm.addPass(createGpuToLLVMConversionPass());
  // Memref ops that gpu-to-llvm leaves on the host (memref.reshape with a
  // shape in memory).
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  if (libdevice.empty())
    pm.addNestedPass<gpu::GPUModuleOp>(createWrapperRequireNoLibdeviceCallsPass(
        WrapperRequireNoLibdeviceCallsPassOptions{options.cudaToolkit}));
  // PTX (compiled by the driver when loaded), or cubin through the
  // toolkit's ptxas (no JIT at load time).
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  if (options.binary == CUDABinaryFormat::Cubin) {
    std::string toolkit =
        findInToolkit(options.cudaToolkit, {"bin", "ptxas"}).first;
    if (toolkit.empty()) {
      pm.addPass(createFailPass(
          "binary=cubin needs ptxas: not found in the CUDA toolkit (" +
          (options.cudaToolkit.empty()
               ? std::string("$CUDA_ROOT, $CUDA_HOME, $CUDA_PATH, "
                             "/usr/local/cuda")
               : options.cudaToolkit.getValue()) +
          "); set the cuda-toolkit option or use binary=ptx"));
      return;
    }
    binary.compilationTarget = "bin";
    binary.toolkitPath = toolkit;
  }
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createWrapperEraseDeadCastsPass());
}

void mlir::wrapper::addLLVMLowering(OpPassManager &pm, bool openmp,
                                    bool runtimeAllocator) {
  // Everything to LLVM. Vector transfers that are not plain loads (strided
  // ones, those of the GEMM template's packing) first, as loops.
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // Horizontal reductions in any order (their lanes already hold partial
  // sums in a reassociated order, see --wrapper-lower-linalg-to-loops).
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.reassociateFPReductions = true;
  // The GEMM template's bf16 micro-kernel (x86vector.avx512.dot).
  vectorToLLVM.x86Vector = true;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  // With the runtime allocator, buffers come from _mlir_memref_to_llvm_alloc
  // and go back through _mlir_memref_to_llvm_free, which the runtime
  // defines over its block cache (docs/Runtime.md), aligned as the alloc
  // asks (_mlir_memref_to_llvm_aligned_alloc): a buffer then starts at its
  // block, so that a model's container can hand a result's block to the
  // caller instead of copying it (wrapper_array_adopt_block).
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = runtimeAllocator;
  memrefToLLVM.useAlignedAlloc = runtimeAllocator;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  // Padding values of vector transfers.
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  if (openmp)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::wrapper::buildCPUFrontendPipeline(
    OpPassManager &pm, const CPUPipelineOptions &options) {
  if (refuseInvalid(pm, options))
    return;
  addHostFrontend(pm, options, /*device=*/"", [&](OpPassManager &pm) {
    if (options.debugPrinter == DebugPrinterLevel::Off)
      return;
    WrapperInsertDebugPrinterPassOptions debug;
    debug.level = options.debugPrinter;
    debug.kernels.assign(options.debugKernels.begin(),
                         options.debugKernels.end());
    debug.directory = options.debugDir;
    pm.addPass(createWrapperInsertDebugPrinterPass(debug));
  });
}

void mlir::wrapper::buildCPUCodegenPipeline(OpPassManager &pm,
                                            const CPUCodegenOptions &options) {
  if (refuseInvalid(pm, options))
    return;
  addCPUCodegen(pm, options);
}

void mlir::wrapper::buildCPUCodegenPipeline(OpPassManager &pm,
                                            const CPUPipelineOptions &options,
                                            CodegenPart part) {
  if (part != CodegenPart::Host && refuseInvalid(pm, options))
    return;
  if (part != CodegenPart::Host)
    addCPUKernelCodegen(pm, options);
  if (part != CodegenPart::Kernels)
    addCPUHostCodegen(pm, options);
}

void mlir::wrapper::buildCPUPipeline(OpPassManager &pm,
                                     const CPUPipelineOptions &options) {
  // The front end refuses invalid options (with a failing pass first).
  buildCPUFrontendPipeline(pm, options);
  addCPUCodegen(pm, options);
}

void mlir::wrapper::buildWrapperToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(createWrapperSynthesizeExternVariantsPass());
  pm.addPass(createWrapperLowerExternABIPass());
  pm.addPass(createConvertWrapperToStandardPass());
  addLLVMLowering(pm, /*openmp=*/false);
}

/// Registers a pipeline whose option string is checked before it is
/// parsed (names, with the closest one suggested, and kinds of values:
/// checkOptionString) and whose values are checked before it is built
/// (checkPipelineOptions); MLIR's own registration reports an unknown name
/// without a suggestion and the values only when a pass runs.
template <typename Options>
static void registerCheckedPipeline(
    StringRef arg, StringRef description,
    std::function<void(OpPassManager &, const Options &)> build) {
  std::string flag = ("--" + arg).str();
  registerPassPipeline(
      arg, description,
      [build, flag](OpPassManager &pm, StringRef text,
                    function_ref<LogicalResult(const Twine &)> errorHandler)
          -> LogicalResult {
        Options options;
        if (std::optional<std::string> problem =
                checkOptionString(text, options, flag))
          return errorHandler(*problem);
        std::string parseError;
        llvm::raw_string_ostream os(parseError);
        // The command-line parser reports a value outside an option's set
        // itself (to stderr), before this.
        if (failed(options.parseFromString(text, os)))
          return errorHandler(
              flag + ": cannot parse the options '" + text.trim() + "'" +
              (parseError.empty() ? "" : ": " + StringRef(parseError).trim()));
        if (std::optional<std::string> problem = checkPipelineOptions(options))
          return errorHandler(flag + ": " + *problem);
        build(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(Options());
      });
}

void mlir::wrapper::registerPipelines() {
  PassPipelineRegistration<>(
      "convert-wrapper-to-llvm",
      "Lowers a wrapper host program on CPU buffers (and kernels already on "
      "buffers) to the LLVM dialect: --convert-wrapper-to-standard, then "
      "the upstream conversions of memref, func, arith and cf to LLVM",
      buildWrapperToLLVMPipeline);
  registerCheckedPipeline<CPUCodegenOptions>(
      "wrapper-cpu-codegen",
      "Lowers linalg programs (on tensors or buffers, func.func entries) to "
      "the LLVM dialect: bufferization, deallocation, parallel loops on "
      "OpenMP, and LLVM lowering; runnable with mlir-runner",
      [](OpPassManager &pm, const CPUCodegenOptions &options) {
        buildCPUCodegenPipeline(pm, options);
      });
  registerCheckedPipeline<CPUPipelineOptions>(
      "wrapper-cpu-pipeline",
      "Compiles tensor_program functions to the LLVM dialect for the CPU",
      buildCPUPipeline);
  registerCheckedPipeline<CPUPipelineOptions>(
      "wrapper-cpu-frontend",
      "The first half of --wrapper-cpu-pipeline: tensor_program to kernels "
      "(linalg on tensors) and a planned wrapper host graph",
      buildCPUFrontendPipeline);
  registerCheckedPipeline<CUDAPipelineOptions>(
      "wrapper-cuda-pipeline",
      "Compiles tensor_program functions for NVIDIA GPUs: host code in the "
      "LLVM dialect calling the runtime's mgpu* functions, kernels as PTX in "
      "a gpu.binary (first version: upstream's loop mapping)",
      buildCUDAPipeline);
}
