//===- TensorProgramDialect.h - tensor_program dialect ----------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMDIALECT_H
#define WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMDIALECT_H

#include "mlir/IR/Dialect.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramDialect.h.inc"

#endif // WRAPPER_DIALECT_TENSORPROGRAM_IR_TENSORPROGRAMDIALECT_H
