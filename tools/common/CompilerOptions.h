//===- CompilerOptions.h - the tools' shared compiler options ---*- C++ -*-===//
//
// Part of the Wrapper project.
//
// The command-line options with which wrapper-run and wrapper-compile choose
// what the compiler does (fusion, folding, memory planning, tiling, the GEMM
// template, the CPU target, the CUDA chip and binary), declared and
// registered once for both tools, as CIRCT's firtool options are: a tool
// registers them into its option category before parsing its command line,
// then fills the pipelines' typed options from them, checked.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_TOOLS_COMMON_COMPILEROPTIONS_H
#define WRAPPER_TOOLS_COMMON_COMPILEROPTIONS_H

#include "Wrapper/Pipelines/Pipelines.h"

#include "mlir/Support/LLVM.h"
#include "llvm/Support/CommandLine.h"

#include <string>

namespace mlir {
namespace wrapper {

/// Registers the shared options (--parallel, --fuse, --fold-constants,
/// --plan-memory, --tile-elements, --gemm, --gemm-options, --mcpu, --mattr,
/// --cuda-chip, --cuda-binary) in `category`, with their defaults in
/// --help. Call once, before llvm::cl::ParseCommandLineOptions.
void registerCompilerCLOptions(llvm::cl::OptionCategory &category);

/// Fills the front end's and the CPU code generator's options of `options`
/// from the command line and checks them: a message naming the option when
/// one is invalid. The target (target-cpu, target-features, vector-width)
/// is the tool's to set, from the TargetMachine it made of --mcpu/--mattr.
LogicalResult setCPUPipelineOptions(CPUPipelineOptions &options,
                                    std::string &error);

/// Fills and checks the front end's and the CUDA code generator's options.
LogicalResult setCUDAPipelineOptions(CUDAPipelineOptions &options,
                                     std::string &error);

/// Refuses options that only mean something for --target=cuda
/// (--cuda-release-arguments) on a CPU compilation, naming them.
LogicalResult refuseCUDAOnlyOptions(std::string &error);

/// The --mcpu and --mattr of the command line.
StringRef getCommandLineCPU();
StringRef getCommandLineFeatures();

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_TOOLS_COMMON_COMPILEROPTIONS_H
