//===- ParseVerifyFuzzer.cpp - parse and verify arbitrary text ------------===//
//
// Part of the Wrapper project.
//
// libFuzzer target: any text is parsed with every dialect the project
// registers and verified. A diagnostic is a fine outcome; a crash, an
// assertion, a sanitizer report or a hang is a finding.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext &context = wrapper_fuzz::context();
  std::string input = wrapper_fuzz::text(data, size);
  if (!wrapper_fuzz::acceptedByTools(input))
    return 0;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(input, &context);
  if (module)
    (void)mlir::verify(*module);
  return 0;
}
