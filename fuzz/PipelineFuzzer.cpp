//===- PipelineFuzzer.cpp - passes and pipelines on mutated modules -------===//
//
// Part of the Wrapper project.
//
// libFuzzer target: the first byte picks one of the project's passes or
// pipelines, the rest is a module (the corpus is the test suite's modules,
// which libFuzzer mutates). A module that parses and verifies is run
// through the pass with verification after it: a diagnostic or a pass
// failure is fine; a crash, an assertion, a sanitizer report, a hang or a
// pass that leaves invalid IR is a finding.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>

/// The pipelines, as --pass-pipeline text.
static const char *const kPipelines[] = {
    "builtin.module(tensor-program-decompose)",
    "builtin.module(func.func(tensor-program-fold-constants))",
    "builtin.module(func.func(tensor-program-fuse))",
    "builtin.module(convert-tensor-program-to-wrapper)",
    "builtin.module(convert-tensor-program-to-linalg)",
    "builtin.module(wrapper.graph(wrapper-plan-memory{strategy=reuse}))",
    "builtin.module(wrapper.graph(wrapper-plan-memory{strategy=pool}))",
    "builtin.module(wrapper.graph(wrapper-verify-lifetimes))",
    "builtin.module(wrapper-insert-debug-printer)",
    "builtin.module(wrapper-dedupe-constants)",
    "builtin.module(convert-wrapper-to-standard)",
    "builtin.module(func.func(wrapper-tile-and-fuse))",
    "builtin.module(wrapper-cpu-frontend)",
    "builtin.module(wrapper-cpu-pipeline{parallel=false})",
    "builtin.module(canonicalize)",
};

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  constexpr size_t count = sizeof(kPipelines) / sizeof(kPipelines[0]);
  const char *pipeline = kPipelines[data[0] % count];
  mlir::MLIRContext &context = wrapper_fuzz::context();
  std::string input = wrapper_fuzz::text(data + 1, size - 1);
  if (!wrapper_fuzz::acceptedByTools(input))
    return 0;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(input, &context);
  if (!module || failed(mlir::verify(*module)))
    return 0;
  mlir::PassManager pm(&context);
  std::string error;
  llvm::raw_string_ostream errorStream(error);
  if (failed(mlir::parsePassPipeline(pipeline, pm, errorStream))) {
    std::fprintf(stderr, "bad pipeline %s: %s\n", pipeline, error.c_str());
    std::abort();
  }
  pm.enableVerifier(true);
  (void)pm.run(*module);
  return 0;
}
