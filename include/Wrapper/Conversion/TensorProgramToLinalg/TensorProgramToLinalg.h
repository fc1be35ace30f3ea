//===- TensorProgramToLinalg.h - tensor_program to linalg -------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_CONVERSION_TENSORPROGRAMTOLINALG_H
#define WRAPPER_CONVERSION_TENSORPROGRAMTOLINALG_H

namespace mlir {
class RewritePatternSet;

namespace wrapper {
/// Adds the patterns lowering tensor_program ops (but extern and copy_back)
/// to linalg, tensor, arith and math on tensors.
void populateTensorProgramToLinalgPatterns(RewritePatternSet &patterns);
} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_CONVERSION_TENSORPROGRAMTOLINALG_H
