//===- wrapper-run.cpp - compile and run a module -------------------------===//
//
// Part of the Wrapper project.
//
// Compiles a tensor_program (or wrapper-level) module with the CPU or CUDA
// pipeline, JIT-compiles it, runs its entry on inputs read from .npy files
// or generated from a seed, and prints, saves or checks the outputs: against
// .npy references (--compare) or against the reference interpreter
// (--verify). --benchmark times repeated runs. The tool is the library
// function wrapperRunMain (Runner.h).
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

int main(int argc, char **argv) {
  return mlir::wrapper::wrapperRunMain(argc, argv);
}
