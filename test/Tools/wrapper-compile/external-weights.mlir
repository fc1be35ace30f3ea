// Tests --weights=external: the weights in a safetensors file next to
// model.so (its header names each weight with its dtype and shape, the
// alignment gaps as padding tensors, and the model's magic number), the same
// outputs as embedded weights, and refusals: a missing file, another model's
// weights, a truncated file, options that do not go together.
//
// RUN: rm -rf %t && mkdir -p %t/other
// RUN: wrapper-run %s --interpret --print=false --dynamic-size=3 --seed=8 --save-inputs=%t/in_ --save=%t/ref_
// RUN: wrapper-compile %s -o %t/model.so --weights=external
// RUN: run_model %t/model.so %t/in_0.npy --ref %t/ref_0.npy | FileCheck %s
// CHECK: output0: float32, 12 elements
// CHECK-NEXT: vs reference: max abs error {{.*}}: ok
//
// The file: an 8-byte header length, the JSON header padded to a page, then
// the data (the bias, and the weight as the GEMM template packed it).
// RUN: %python -c "import json, struct, sys; d = open(sys.argv[1], 'rb').read(); n = struct.unpack('<Q', d[:8])[0]; h = json.loads(d[8:8 + n]); print((8 + n) % 4096, len(d) - 8 - n); [print(k, v) for k, v in sorted(h.items())]" %t/model.safetensors | FileCheck %s --check-prefix=FILE
// FILE: 0 {{(576|320|1088)}}
// FILE-NEXT: __metadata__ {'wrapper.magic': '0x{{[0-9a-f]+}}', 'wrapper.format': 'wrapper-compile --weights=external'}
// FILE-NEXT: main_constant_0 {'dtype': 'F32', 'shape': [4], 'data_offsets': [0, 16]}
// FILE-NEXT: main_constant_1_packed{{[0-9]+}} {'dtype': 'F32', 'shape': [1, 4, {{[0-9]+}}], 'data_offsets': [64, {{[0-9]+}}]}
// FILE-NEXT: wrapper.pad.0 {'dtype': 'U8', 'shape': [48], 'data_offsets': [16, 64]}
//
// --weights-file names the file; the library finds it by that name.
// RUN: wrapper-compile %s -o %t/named.so --weights=external --weights-file=%t/named-weights.safetensors
// RUN: run_model %t/named.so %t/in_0.npy --ref %t/ref_0.npy | FileCheck %s
//
// Without the file, or with another compilation's weights (another magic
// number), or with a truncated file, the model is not created:
// RUN: cp %t/model.so %t/other/model.so
// RUN: not run_model %t/other/model.so %t/in_0.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: this model's weights are external (wrapper-compile --weights=external): bind them with wrapper_model_bind_weights (a package does) or put model.safetensors next to the library (cannot open '{{.*}}other/model.safetensors': No such file or directory)
// RUN: wrapper-compile %s -o %t/again.so --weights=external
// RUN: cp %t/again.safetensors %t/other/model.safetensors
// RUN: not run_model %t/other/model.so %t/in_0.npy 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: {{.*}}other/model.safetensors: not the weights this model was compiled with (its header lacks this model's "wrapper.magic":"0x{{[0-9a-f]+}}")
// RUN: cp %t/model.safetensors %t/other/model.safetensors
// RUN: truncate -s -4 %t/other/model.safetensors
// RUN: not run_model %t/other/model.so %t/in_0.npy 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: {{.*}}other/model.safetensors: {{[0-9]+}} bytes of tensor data, this model's weights are {{[0-9]+}} bytes: truncated or damaged
//
// RUN: not wrapper-compile %s -o %t/x.so --weights-file=%t/x.safetensors 2>&1 | FileCheck %s --check-prefix=FILEONLY
// FILEONLY: wrapper-compile: error: --weights-file is for --weights=external
// RUN: not wrapper-compile %s -o %t/x.so --weights=external --target=cuda 2>&1 | FileCheck %s --check-prefix=CUDA
// CUDA: wrapper-compile: error: --weights=external is not supported with --target=cuda

func.func @main(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %w = tensor_program.constant dense<[[1.0, 2.0, 3.0, 4.0], [-1.0, 0.0, 1.0, 2.0], [0.5, 1.0, -0.5, 0.25], [2.0, 2.0, 2.0, 2.0]]> : tensor<4x4xf32>
  %b = tensor_program.constant dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>
  %y = tensor_program.linear %x, %w bias %b : (tensor<?x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %g = tensor_program.gelu %y : tensor<?x4xf32>
  return %g : tensor<?x4xf32>
}
