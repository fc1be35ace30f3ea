// RUN: wrapper-opt %s --wrapper-cpu-codegen | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs | FileCheck %s

// Tests that --wrapper-cpu-codegen takes a buffer-level program that frees
// its own buffers: a function returns a buffer it allocated, the caller
// frees it with memref.dealloc. Functions with a memref.dealloc keep their
// buffers as written (the automatic deallocation would free them twice);
// the others, here @filled and @scaled, which bufferizes a tensor, still get
// the deallocation of what they allocate and do not return.
//   in = [1, 1, 1, 7, 1, 1, 1, 1] (7 at 3), w = [1, 2, 1]
//   out[i] = in[i] + 2 in[i+1] + in[i+2] = [4, 10, 16, 10, 4, 4]
//   scaled = 2 * out = [8, 20, 32, 20, 8, 8]

func.func private @printMemrefF32(memref<*xf32>)

func.func @filled(%n: index, %v: f32) -> memref<?xf32> {
  %b = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%v : f32) outs(%b : memref<?xf32>)
  return %b : memref<?xf32>
}

func.func @scaled(%x: memref<?xf32>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %t = bufferization.to_tensor %x restrict : memref<?xf32> to tensor<?xf32>
  %n = tensor.dim %t, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%t : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %m = bufferization.to_buffer %r : tensor<?xf32> to memref<?xf32>
  return %m : memref<?xf32>
}

func.func @main() {
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %seven = arith.constant 7.0 : f32
  %zero = arith.constant 0.0 : f32
  %in = call @filled(%c8, %one) : (index, f32) -> memref<?xf32>
  %w = call @filled(%c3, %one) : (index, f32) -> memref<?xf32>
  %out = call @filled(%c6, %zero) : (index, f32) -> memref<?xf32>
  %c1 = arith.constant 1 : index
  memref.store %seven, %in[%c3] : memref<?xf32>
  memref.store %two, %w[%c1] : memref<?xf32>
  linalg.conv_1d ins(%in, %w : memref<?xf32>, memref<?xf32>) outs(%out : memref<?xf32>)
  %u = memref.cast %out : memref<?xf32> to memref<*xf32>
  // CHECK: [4,  10,  16,  10,  4,  4]
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %s = call @scaled(%out) : (memref<?xf32>) -> memref<?xf32>
  %su = memref.cast %s : memref<?xf32> to memref<*xf32>
  // CHECK: [8,  20,  32,  20,  8,  8]
  call @printMemrefF32(%su) : (memref<*xf32>) -> ()
  memref.dealloc %s : memref<?xf32>
  memref.dealloc %in : memref<?xf32>
  memref.dealloc %w : memref<?xf32>
  memref.dealloc %out : memref<?xf32>
  return
}
