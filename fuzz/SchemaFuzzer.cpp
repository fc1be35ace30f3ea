//===- SchemaFuzzer.cpp - the operator schema parser ----------------------===//
//
// Part of the Wrapper project.
//
// libFuzzer target: any text goes to parseSchema; a schema that parses must
// print to a string that parses again to the same printed form.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Extern/Schema.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  std::string error;
  std::optional<mlir::wrapper::Schema> schema =
      mlir::wrapper::parseSchema(text, error);
  if (!schema)
    return 0;
  std::string printed = schema->str();
  std::optional<mlir::wrapper::Schema> again =
      mlir::wrapper::parseSchema(printed, error);
  if (!again || again->str() != printed)
    std::abort();
  return 0;
}
