// The program of fault-injection.c: products on the GEMM template, an
// extern kernel (embedding) whose result the shim allocates, fused kernels
// with temporaries, two outputs, dynamic rows.
func.func @main(%x: tensor<?x64xf32>, %w: tensor<96x64xf32>, %table: tensor<16x96xf32>, %idx: tensor<?xi64>) -> (tensor<?x96xf32>, tensor<?xf32>) {
  %h = tensor_program.linear %x, %w : (tensor<?x64xf32>, tensor<96x64xf32>) -> tensor<?x96xf32>
  %e = tensor_program.extern "aten::embedding"(%table, %idx) : (tensor<16x96xf32>, tensor<?xi64>) -> tensor<?x96xf32>
  %s = tensor_program.add %h, %e : (tensor<?x96xf32>, tensor<?x96xf32>) -> tensor<?x96xf32>
  %t = tensor_program.tanh %s : tensor<?x96xf32>
  %r = tensor_program.softmax %t dim 1 : tensor<?x96xf32>
  %m = tensor_program.reduce_max %s dims [1] : tensor<?x96xf32> -> tensor<?xf32>
  return %r, %m : tensor<?x96xf32>, tensor<?xf32>
}
