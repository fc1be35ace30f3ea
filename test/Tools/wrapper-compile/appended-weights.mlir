// Tests weights appended to model.so and mapped at load: the same outputs
// as with embedded weights, a loader that finds and checks them, and a
// clear refusal when the trailer does not match (a stripped or altered
// library). External weights (a safetensors file): test external-weights.mlir.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: wrapper-run %s --interpret --print=false --dynamic-size=3 --seed=8 --save-inputs=%t/in_ --save=%t/ref_
// RUN: wrapper-compile %s -o %t/embedded.so --keep-temps
// RUN: wrapper-compile %s -o %t/appended.so --weights=appended --keep-temps
// RUN: run_model %t/embedded.so %t/in_0.npy --ref %t/ref_0.npy | FileCheck %s
// RUN: run_model %t/appended.so %t/in_0.npy --ref %t/ref_0.npy | FileCheck %s
// CHECK: output0: float32, 12 elements
// CHECK-NEXT: vs reference: max abs error {{.*}}: ok
//
// The embedded model maps nothing; the appended one maps both weights
// (the bias, and the weight as the GEMM template packed it at compile
// time: [1][4][nr] panels, nr from the target's vector width), 64-byte
// aligned:
// RUN: FileCheck %s --input-file=%t/embedded.so.weights.c --check-prefix=EMBEDDED
// EMBEDDED: no appended weights
// RUN: FileCheck %s --input-file=%t/appended.so.weights.c --check-prefix=APPENDED
// APPENDED: extern void *__wrapper_slot_w0;
// APPENDED-NEXT: extern void *__wrapper_slot_w1;
// APPENDED: static const uint64_t weight_offsets[] = {0ULL, 64ULL, 0};
// APPENDED: #define NUM_WEIGHTS 2
// APPENDED-NEXT: #define WEIGHTS_BYTES {{(576|320|1088)}}ULL
//
// A library whose last byte (part of the magic number) changed is refused:
// RUN: cp %t/appended.so %t/altered.so
// RUN: truncate -s -1 %t/altered.so
// RUN: not run_model %t/altered.so %t/in_0.npy 2>&1 | FileCheck %s --check-prefix=ALTERED
// ALTERED: does not end in the weights this model was compiled with (magic number or size mismatch; was the library stripped or its weights replaced?)
//
// RUN: not wrapper-compile %s -o %t/x.so --weights=somewhere 2>&1 | FileCheck %s --check-prefix=MODE
// MODE: wrapper-compile: error: unknown --weights 'somewhere'; expected embedded, appended or external

func.func @main(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %w = tensor_program.constant dense<[[1.0, 2.0, 3.0, 4.0], [-1.0, 0.0, 1.0, 2.0], [0.5, 1.0, -0.5, 0.25], [2.0, 2.0, 2.0, 2.0]]> : tensor<4x4xf32>
  %b = tensor_program.constant dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>
  %y = tensor_program.linear %x, %w bias %b : (tensor<?x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %g = tensor_program.gelu %y : tensor<?x4xf32>
  return %g : tensor<?x4xf32>
}
