//===- ToolSupport.h - shared pieces of the command-line tools --*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_TOOLS_COMMON_TOOLSUPPORT_H
#define WRAPPER_TOOLS_COMMON_TOOLSUPPORT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir {
namespace wrapper {

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
