// RUN: wrapper-opt %s --wrapper-cuda-return-without-waiting | FileCheck %s

// The blocking wait before a public function's return goes; a private
// function and a wait that yields a token keep theirs.

// CHECK-LABEL: func.func @entry
// CHECK-NOT: gpu.wait
// CHECK: return
func.func @entry(%t: !gpu.async.token) {
  gpu.wait [%t]
  return
}

// CHECK-LABEL: func.func private @helper
// CHECK: gpu.wait [
// CHECK-NEXT: return
func.func private @helper(%t: !gpu.async.token) {
  gpu.wait [%t]
  return
}

// CHECK-LABEL: func.func @async_token
// CHECK: gpu.wait async
func.func @async_token(%t: !gpu.async.token) -> !gpu.async.token {
  %u = gpu.wait async [%t]
  return %u : !gpu.async.token
}
