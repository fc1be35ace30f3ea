//===- InitAll.h - register everything Wrapper provides ---------*- C++ -*-===//
//
// Part of the Wrapper project.
//
// One call each to make the project's dialects, and the upstream dialects its
// pipelines use, available to a tool: what wrapper-opt does, and what a
// downstream MLIR-based compiler does to link the dialects in.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_INITALL_H
#define WRAPPER_INITALL_H

namespace mlir {
class DialectRegistry;

namespace wrapper {

/// Registers the `wrapper` and `tensor_program` dialects only.
void registerWrapperDialects(DialectRegistry &registry);

/// Registers the project's dialects plus the upstream dialects its programs
/// and pipelines use (func, arith, math, memref, tensor, linalg, scf, gpu,
/// ...), with their interface implementations.
void registerAllDialects(DialectRegistry &registry);

/// Registers every project pass and named pipeline, plus the upstream passes
/// the pipelines are built from, for command-line use.
void registerAllPasses();

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_INITALL_H
