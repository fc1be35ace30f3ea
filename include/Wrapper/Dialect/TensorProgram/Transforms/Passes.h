//===- Passes.h - tensor_program passes -------------------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_TENSORPROGRAM_TRANSFORMS_PASSES_H
#define WRAPPER_DIALECT_TENSORPROGRAM_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;

namespace tensor_program {

#define GEN_PASS_DECL
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h.inc"

/// Options of the decomposition patterns.
struct DecomposeOptions {
  bool activations = true;
  bool linear = true;
};

/// Adds the patterns that expand composite ops into primitives.
void populateDecomposePatterns(RewritePatternSet &patterns,
                               const DecomposeOptions &options = {});

/// The safetensors dtype name of an element type ("F32", "BF16", "I64",
/// "BOOL", ...; integers signless or signed read as signed), or "" for one
/// safetensors has no name for: the names --tensor-program-load-weights
/// expects, and wrapper-compile --weights=external writes.
std::string safetensorsDtypeName(Type type);

#define GEN_PASS_REGISTRATION
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h.inc"

} // namespace tensor_program
} // namespace mlir

#endif // WRAPPER_DIALECT_TENSORPROGRAM_TRANSFORMS_PASSES_H
