//===- Passes.h - CPU code generation passes --------------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_CODEGEN_CPU_PASSES_H
#define WRAPPER_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <optional>
#include <string>

namespace mlir {
namespace wrapper {

#define GEN_PASS_DECL
#include "Wrapper/Codegen/CPU/Passes.h.inc"

/// The CPU code is generated for: what --wrapper-cpu-target records on the
/// module as the attribute `wrapper.cpu_target`.
struct CPUTarget {
  std::string cpu;
  std::string features;
  /// f32 lanes of a vector register (16 with AVX-512F, 8 with AVX2).
  int64_t vectorWidth = 4;
};
constexpr llvm::StringLiteral kCPUTargetAttrName = "wrapper.cpu_target";

/// The host CPU (its name, features and vector width): the one place the
/// code generator probes the machine it runs on.
CPUTarget getHostCPUTarget();

/// f32 lanes of the vector registers that `hasFeature` (an LLVM feature
/// name such as "avx512f" -> available) describes.
int64_t
vectorWidthForFeatures(llvm::function_ref<bool(llvm::StringRef)> hasFeature);

/// The target recorded on `module`, if any.
std::optional<CPUTarget> getCPUTarget(ModuleOp module);

/// Records `target` on `module`.
void setCPUTarget(ModuleOp module, const CPUTarget &target);

/// Whether the GEMM template (--wrapper-gemm-template) takes `op`: a
/// linalg.matmul whose operands all have f32 elements.
bool isGemmTemplateCandidate(Operation *op);

#define GEN_PASS_REGISTRATION
#include "Wrapper/Codegen/CPU/Passes.h.inc"

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_CODEGEN_CPU_PASSES_H
