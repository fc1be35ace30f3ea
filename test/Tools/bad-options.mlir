// Options are checked before the input is read: a value outside its set
// (by the command-line parser, as every MLIR tool's enum options are), a
// negative size, a misspelled name (with the closest one suggested), GEMM
// options that do not parse, unknown CPU features; each refusal is one line
// naming the option and what it accepts. The input file does not exist, so
// a check that came after reading it would report that instead.
//
// RUN: not wrapper-run %t.missing.mlir --plan-memory=bogus 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: not wrapper-compile %t.missing.mlir -o %t.so --plan-memory=bogus 2>&1 | FileCheck %s --check-prefix=PLAN
// PLAN: for the --plan-memory option: Cannot find option named 'bogus'!
//
// RUN: not wrapper-run %t.missing.mlir --tile-elements=-5 2>&1 | FileCheck %s --check-prefix=TILE
// TILE: wrapper-run: error: tile-elements must be 0 (no tiling) or positive, got -5
//
// RUN: not wrapper-run %t.missing.mlir --gemm-options=kc=abc 2>&1 | FileCheck %s --check-prefix=GEMMVALUE
// GEMMVALUE: wrapper-run: error: option 'kc' of gemm-options is an integer, got 'abc'
// RUN: not wrapper-compile %t.missing.mlir -o %t.so --gemm-options="kc=128 nr=32 mcc=96" 2>&1 | FileCheck %s --check-prefix=GEMMNAME
// GEMMNAME: wrapper-compile: error: unknown option 'mcc' of gemm-options; did you mean 'mc'?
// RUN: not wrapper-run %t.missing.mlir --gemm-options=vector-width=8 2>&1 | FileCheck %s --check-prefix=GEMMWIDTH
// GEMMWIDTH: error: unknown option 'vector-width' of gemm-options; its options are
//
// RUN: not wrapper-run %t.missing.mlir --num-threads=0 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: wrapper-run: error: --num-threads must be at least 1, got 0 (leave it out to use every core)
//
// RUN: not wrapper-run %t.missing.mlir --debug-printer=loud 2>&1 | FileCheck %s --check-prefix=DEBUG
// DEBUG: wrapper-run: for the --debug-printer option: Cannot find option named 'loud'!
//
// RUN: not wrapper-run %t.missing.mlir --mattr=+avx512 2>&1 | FileCheck %s --check-prefix=FEATURE
// RUN: not wrapper-compile %t.missing.mlir -o %t.so --mattr=+avx512 2>&1 | FileCheck %s --check-prefix=FEATURE
// FEATURE: error: unknown CPU feature 'avx512' for {{.*}}; did you mean 'avx512f'? (llc -mattr=help lists the known ones)
// RUN: not wrapper-run %t.missing.mlir --mattr=avx2 2>&1 | FileCheck %s --check-prefix=SIGN
// SIGN: error: CPU feature 'avx2' needs a + (add) or - (remove) in front, as in +avx2
//
// RUN: not wrapper-compile %t.missing.mlir -o %t.so -O4 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: wrapper-compile: error: -O4: the optimization level is 0, 1, 2 or 3
//
// RUN: not wrapper-run %t.missing.mlir --target=cuda --cuda-chip=hopper 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: chip must name an NVIDIA architecture as sm_<N> (sm_80, sm_90, sm_90a), got 'hopper'
//
// The registered pipelines check their option strings the same way:
// RUN: not wrapper-opt %s --wrapper-cpu-pipeline="plan-memroy=pool" 2>&1 | FileCheck %s --check-prefix=SPELL
// SPELL: error: unknown option 'plan-memroy' of --wrapper-cpu-pipeline; did you mean 'plan-memory'?
// RUN: not wrapper-opt %s --wrapper-cpu-pipeline="parallel=maybe" 2>&1 | FileCheck %s --check-prefix=BOOL
// BOOL: error: option 'parallel' of --wrapper-cpu-pipeline is true or false, got 'maybe'
// RUN: not wrapper-opt %s --wrapper-cpu-codegen="tile-elements=-1" 2>&1 | FileCheck %s --check-prefix=CODEGEN
// CODEGEN: error: --wrapper-cpu-codegen: tile-elements must be 0 (no tiling) or positive, got -1
// RUN: not wrapper-opt %s --pass-pipeline="builtin.module(wrapper-cpu-pipeline{fuse=true gemm-options={kc=1 bogus=2}})" 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: error: unknown option 'bogus' of gemm-options of --wrapper-cpu-pipeline; its options are
// RUN: not wrapper-opt %s --wrapper-cuda-pipeline="device=gpu0" 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: error: --wrapper-cuda-pipeline: device must be cuda or cuda:N, got 'gpu0'
//
// Valid spellings pass (bare booleans, nested GEMM options):
// RUN: wrapper-opt %s --wrapper-cpu-pipeline="parallel gemm-options={kc=128 mc=96}" -o /dev/null
// RUN: wrapper-run %s --gemm-options="kc=128 mc=96" --num-threads=1 --print=false
//
// --debug-printer=save creates its --debug-dir:
// RUN: rm -rf %t.dbg && wrapper-run %s --debug-printer=save --debug-dir=%t.dbg/sub --print=false
// RUN: ls %t.dbg/sub | FileCheck %s --check-prefix=SAVED
// SAVED: relu_kernel_0_arg0_before.npy

func.func @relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tensor_program.relu %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
