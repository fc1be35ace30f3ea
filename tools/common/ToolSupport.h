//===- ToolSupport.h - shared pieces of the command-line tools --*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_TOOLS_COMMON_TOOLSUPPORT_H
#define WRAPPER_TOOLS_COMMON_TOOLSUPPORT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>

#include <string>

namespace mlir {
namespace wrapper {

/// Registers what the compiling tools need: every dialect of the project,
/// and the translations to LLVM IR of the builtin, LLVM and OpenMP dialects.
void registerToolDialects(DialectRegistry &registry);

/// Parses `path` ("-" for stdin) into a module; diagnostics go to stderr
/// through `sourceMgr`, which must outlive the module. Null on failure, with
/// `error` set when the file could not be opened.
OwningOpRef<ModuleOp> parseModuleFile(StringRef path, MLIRContext &context,
                                      llvm::SourceMgr &sourceMgr,
                                      std::string &error);

/// A TargetMachine for the host, optionally for another CPU (`cpu`, as
/// -mcpu) or with features added or removed (`features`, as -mattr:
/// "+avx2,-avx512f"); position independent when `pic`. Null with a message
/// in `error`.
std::unique_ptr<llvm::TargetMachine>
createHostTargetMachine(StringRef cpu, StringRef features, bool pic,
                        std::string &error);

/// The function to run or compile: `name` when given, else the only public
/// function with a body, else `main`. Null with a message in `error`.
func::FuncOp findEntryFunction(ModuleOp module, StringRef name,
                               std::string &error);

/// Makes every other function private, so that symbol-dce keeps only what
/// the entry needs.
void privatizeAllBut(ModuleOp module, func::FuncOp entry);

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_TOOLS_COMMON_TOOLSUPPORT_H
