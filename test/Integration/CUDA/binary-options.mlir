// RUN: not wrapper-opt %s --wrapper-cuda-pipeline="binary=elf" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not wrapper-opt %s --wrapper-cuda-pipeline="binary=cubin cuda-toolkit=%t.missing" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS
// The binary option of --wrapper-cuda-pipeline: an unknown value, and
// cubin without a ptxas in the toolkit, are refused with what to do.
// UNKNOWN: for the --binary option: Cannot find option named 'elf'!
// UNKNOWN: error: --wrapper-cuda-pipeline: cannot parse the options 'binary=elf'
// PTXAS: error: binary=cubin needs ptxas: not found in the CUDA toolkit ({{.*}}.missing); set the cuda-toolkit option or use binary=ptx
func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {
  %r = tensor_program.relu %x : tensor<64xf32>
  return %r : tensor<64xf32>
}
