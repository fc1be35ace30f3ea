//===- ToolSupport.h - shared pieces of the command-line tools --*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_TOOLS_COMMON_TOOLSUPPORT_H
#define WRAPPER_TOOLS_COMMON_TOOLSUPPORT_H

#include "Wrapper/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <optional>

#include <string>

namespace mlir {
namespace wrapper {

/// Registers what the compiling tools need: every dialect of the project,
/// and the translations to LLVM IR of the builtin, LLVM and OpenMP dialects.
void registerToolDialects(DialectRegistry &registry);

/// The deepest nesting of brackets ({, [, (, <) the tools accept: MLIR's
/// parser recurses per level, so deeper input would overflow the stack.
constexpr unsigned kMaxNestingDepth = 1024;

/// Checks that `text` nests brackets at most `limit` deep (outside string
/// literals and comments); otherwise returns a message naming the line.
std::optional<std::string> checkNestingDepth(StringRef text,
                                             unsigned limit = kMaxNestingDepth);

/// Checks what the tools check before parsing: the nesting depth
/// (checkNestingDepth) and the input patterns on which an upstream parser
/// crashes instead of failing (see ToolSupport.cpp); returns a message
/// naming the line, or nothing when `text` may be handed to the parser.
std::optional<std::string> checkParsable(StringRef text);

/// What every compiling tool starts with: a context with the tool dialects
/// (registerToolDialects) and the parsed input module, whose diagnostics
/// (parsing and later compilation) print with their source lines.
class ToolInput {
public:
  /// Parses `path` ("-" for stdin). Null when the file cannot be opened
  /// (`error` set) or does not parse (diagnostics already printed).
  static std::unique_ptr<ToolInput> load(StringRef path, std::string &error);

  MLIRContext &getContext() { return context; }
  ModuleOp getModule() { return *module; }

private:
  ToolInput();

  MLIRContext context;
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler;
  OwningOpRef<ModuleOp> module;
};

/// A TargetMachine for the host, optionally for another CPU (`cpu`, as
/// -mcpu) or with features added or removed (`features`, as -mattr:
/// "+avx2,-avx512f"); position independent when `pic`. Null with a message
/// in `error`.
std::unique_ptr<llvm::TargetMachine>
createHostTargetMachine(StringRef cpu, StringRef features, bool pic,
                        std::string &error);

/// Functions of more than this many LLVM instructions are compiled without
/// optimization by default (see exemptHugeFunctionsFromOptimization).
constexpr unsigned kMaxOptimizedInstructions = 60000;

/// Marks the functions of `module` larger than `limit` instructions
/// `optnone` (and `noinline`, which LLVM requires with it): a host program
/// of a thousand kernel launches (RAFT's twelve unrolled refinement steps on
/// CUDA: 330,000 instructions in one function) took LLVM's O2 pipeline
/// more than 20 minutes, against 17 s unoptimized, and its code is glue
/// between kernels that optimization does not make measurably faster.
/// Returns the functions marked.
SmallVector<std::string>
exemptHugeFunctionsFromOptimization(llvm::Module &module,
                                    unsigned limit = kMaxOptimizedInstructions);

/// The CPU target `machine` generates code for, as the code generator
/// records it (--wrapper-cpu-target): its CPU name, features and the width
/// of its vector registers.
CPUTarget cpuTargetOf(const llvm::TargetMachine &machine);

/// The function to run or compile: `name` when given, else the only public
/// function with a body, else `main`. Null with a message in `error`.
func::FuncOp findEntryFunction(ModuleOp module, StringRef name,
                               std::string &error);

/// Fails with a message in `error` when an argument or a value of `func`
/// is a static tensor of more than `limit` bytes (a shape no machine could
/// allocate, found before hours of compilation).
LogicalResult checkTensorSizes(func::FuncOp func, uint64_t limit,
                               std::string &error);

/// Fails with a message in `error` when a `wrapper.kernel` is implemented
/// by a function that is only declared: the tools compile the module alone,
/// so the JIT or the linker would fail later with a bare symbol name.
LogicalResult checkKernelImplementations(ModuleOp module, std::string &error);

/// Makes every other function private, so that symbol-dce keeps only what
/// the entry needs.
void privatizeAllBut(ModuleOp module, func::FuncOp entry);

/// Appends "(default: X)" to an option's --help text: a string's value, an
/// integer's, `true` for a flag that is on unless turned off. Call before
/// the command line is parsed, while the options hold their defaults.
void appendDefaultToHelp(llvm::cl::Option &option, llvm::StringRef value);
inline void showDefault(llvm::cl::opt<std::string> &option) {
  appendDefaultToHelp(option, option.empty() ? "none" : "'" + option + "'");
}
inline void showDefault(llvm::cl::opt<bool> &option) {
  if (option)
    appendDefaultToHelp(option, "true");
}
template <typename T> void showDefault(llvm::cl::opt<T> &option) {
  appendDefaultToHelp(option, std::to_string(option.getValue()));
}
template <typename... Options> void showDefaults(Options &...options) {
  (showDefault(options), ...);
}

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_TOOLS_COMMON_TOOLSUPPORT_H
