//===- FuzzSupport.h - shared setup of the fuzz targets ---------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_FUZZ_FUZZSUPPORT_H
#define WRAPPER_FUZZ_FUZZSUPPORT_H

#include "ToolSupport.h"
#include "Wrapper/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace wrapper_fuzz {

/// One context for the whole run, with every dialect and pass registered
/// and diagnostics swallowed (they are expected outcomes). Single-threaded:
/// a fuzzer input must not spawn threads that outlive it.
inline mlir::MLIRContext &context() {
  static mlir::MLIRContext *context = [] {
    mlir::DialectRegistry registry;
    mlir::wrapper::registerAllDialects(registry);
    mlir::wrapper::registerAllPasses();
    auto *ctx =
        new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    ctx->getDiagEngine().registerHandler(
        [](mlir::Diagnostic &) { return mlir::success(); });
    return ctx;
  }();
  return *context;
}

/// Whether the tools would parse `text` at all: they refuse nesting deeper
/// than MLIR's recursive parser can take and the inputs an upstream parser
/// crashes on (ToolSupport's checkParsable), so the fuzzers do too; such
/// input is an expected refusal, not a finding.
inline bool acceptedByTools(const std::string &text) {
  return !mlir::wrapper::checkParsable(text).has_value();
}

/// The input as text (NUL bytes and all).
inline std::string text(const uint8_t *data, size_t size) {
  return std::string(reinterpret_cast<const char *>(data), size);
}

} // namespace wrapper_fuzz

#endif // WRAPPER_FUZZ_FUZZSUPPORT_H
