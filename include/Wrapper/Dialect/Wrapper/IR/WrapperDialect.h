//===- WrapperDialect.h - The wrapper dialect -------------------*- C++ -*-===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_DIALECT_WRAPPER_IR_WRAPPERDIALECT_H
#define WRAPPER_DIALECT_WRAPPER_IR_WRAPPERDIALECT_H

#include "mlir/IR/Dialect.h"

#include "Wrapper/Dialect/Wrapper/IR/WrapperDialect.h.inc"

#endif // WRAPPER_DIALECT_WRAPPER_IR_WRAPPERDIALECT_H
