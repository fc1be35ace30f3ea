//===- ToolSupport.cpp - shared pieces of the command-line tools ----------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "ToolSupport.h"

using namespace mlir;

func::FuncOp mlir::wrapper::findEntryFunction(ModuleOp module, StringRef name,
                                              std::string &error) {
  if (!name.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (!func || func.isExternal()) {
      error =
          "no function named '" + name.str() + "' with a body in the module";
      return {};
    }
    return func;
  }
  SmallVector<func::FuncOp> candidates;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      candidates.push_back(func);
  if (candidates.size() == 1)
    return candidates.front();
  if (auto main = module.lookupSymbol<func::FuncOp>("main"))
    return main;
  error = candidates.empty()
              ? "the module has no public function to run"
              : "the module has " + std::to_string(candidates.size()) +
                    " public functions; name one with --entry";
  return {};
}

void mlir::wrapper::privatizeAllBut(ModuleOp module, func::FuncOp entry) {
  for (auto other : module.getOps<func::FuncOp>())
    if (other != entry)
      other.setPrivate();
}
