// Products of transposed operands (a 2-D permute [1, 0] read only by a 2-D
// matmul) run in the product's kernel, the transpose read in place by the
// GEMM template's packing (no transposed copy), against the reference
// interpreter: A, B and both transposed with tails in M, N and K and a bias
// + relu epilogue; small blocks (several K slices, row and column blocks);
// one and two threads; dynamic M and K (0 included); bf16 operands (pairs
// for vdpbf16ps where the CPU has them, f32 panels otherwise); a training
// step's weight gradient, whose activation is another product's epilogue
// output; batched products (attention's q @ k^T as a batch_matmul, and
// p^T @ v of its backward, where the transpose of [B, H, T, T] is reshaped
// to [B*H, T, T] first), also of a single batch element (whose product
// loses its batch loop and becomes a plain matmul); and the same programs
// without the template.
// RUN: wrapper-run %s --entry=both --verify --print=false --seed 1 | FileCheck %s --check-prefix=THREE
// RUN: wrapper-run %s --entry=both --verify --print=false --seed 2 --num-threads=1 --parallel=false | FileCheck %s --check-prefix=THREE
// RUN: wrapper-run %s --entry=both --verify --print=false --seed 3 --gemm-options="kc=16 mc=24 nc=32 min-parallel-work=0" --num-threads=2 | FileCheck %s --check-prefix=THREE
// RUN: wrapper-run %s --entry=both --verify --print=false --seed 4 --gemm=false | FileCheck %s --check-prefix=THREE
// RUN: wrapper-run %s --entry=dynamic --verify --print=false --seed 5 --dynamic-size=29 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=dynamic --verify --print=false --seed 6 --dynamic-size=1 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=dynamic --verify --print=false --seed 7 --dynamic-size=0 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=half --verify --print=false --seed 8 --atol=2e-2 --rtol=2e-2 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=half --verify --print=false --seed 8 --atol=2e-2 --rtol=2e-2 --mattr=-avx512bf16 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --entry=gradient --verify --print=false --seed 9 --atol=1e-4 | FileCheck %s --check-prefix=TWO
// RUN: wrapper-run %s --entry=attention --verify --print=false --seed 10 | FileCheck %s --check-prefix=TWO
// RUN: wrapper-run %s --entry=attention --verify --print=false --seed 11 --num-threads=1 --parallel=false | FileCheck %s --check-prefix=TWO
// RUN: wrapper-run %s --entry=attention --verify --print=false --seed 12 --gemm=false | FileCheck %s --check-prefix=TWO
// RUN: wrapper-run %s --entry=one_head --verify --print=false --seed 13 | FileCheck %s --check-prefix=ONE
// The kernels: each product with its transposes, none of its own.
// RUN: wrapper-opt %s --wrapper-cpu-frontend | FileCheck %s --check-prefix=KERNELS
// KERNELS: wrapper.kernel @both_kernel_0 = {{.*}}source_ops = ["permute", "matmul", "add", "relu"]
// KERNELS: wrapper.kernel @both_kernel_1 = {{.*}}source_ops = ["permute", "matmul"]
// KERNELS: wrapper.kernel @both_kernel_2 = {{.*}}source_ops = ["permute", "permute", "matmul"]
// KERNELS: wrapper.kernel @gradient_kernel_0 = {{.*}}source_ops = ["permute", "matmul", "gelu"]
// KERNELS: wrapper.kernel @gradient_kernel_1 = {{.*}}source_ops = ["permute", "matmul"]
// KERNELS: wrapper.kernel @attention_kernel_0 = {{.*}}source_ops = ["permute", "batch_matmul"]
// KERNELS: wrapper.kernel @attention_kernel_1 = {{.*}}source_ops = ["permute", "matmul"]
// KERNELS-NOT: wrapper.kernel @attention_kernel_2
// ONE: output #0 vs interpreter: {{.*}}: ok
// ONE-NOT: output #1
// TWO-COUNT-2: vs interpreter: {{.*}}: ok
// THREE-COUNT-3: vs interpreter: {{.*}}: ok

func.func @both(%a: tensor<37x50xf32>, %at: tensor<50x37xf32>, %b: tensor<50x70xf32>, %bt: tensor<70x50xf32>, %bias: tensor<70xf32>)
    -> (tensor<37x70xf32>, tensor<37x70xf32>, tensor<37x70xf32>) {
  %wt = tensor_program.permute %bt [1, 0] : tensor<70x50xf32> -> tensor<50x70xf32>
  %y = tensor_program.matmul %a, %wt : (tensor<37x50xf32>, tensor<50x70xf32>) -> tensor<37x70xf32>
  %z = tensor_program.add %y, %bias : (tensor<37x70xf32>, tensor<70xf32>) -> tensor<37x70xf32>
  %r = tensor_program.relu %z : tensor<37x70xf32>
  %xt = tensor_program.permute %at [1, 0] : tensor<50x37xf32> -> tensor<37x50xf32>
  %u = tensor_program.matmul %xt, %b : (tensor<37x50xf32>, tensor<50x70xf32>) -> tensor<37x70xf32>
  %xt2 = tensor_program.permute %at [1, 0] : tensor<50x37xf32> -> tensor<37x50xf32>
  %wt2 = tensor_program.permute %bt [1, 0] : tensor<70x50xf32> -> tensor<50x70xf32>
  %v = tensor_program.matmul %xt2, %wt2 : (tensor<37x50xf32>, tensor<50x70xf32>) -> tensor<37x70xf32>
  return %r, %u, %v : tensor<37x70xf32>, tensor<37x70xf32>, tensor<37x70xf32>
}

func.func @dynamic(%at: tensor<?x45xf32>, %bt: tensor<53x?xf32>) -> tensor<45x53xf32> {
  %xt = tensor_program.permute %at [1, 0] : tensor<?x45xf32> -> tensor<45x?xf32>
  %wt = tensor_program.permute %bt [1, 0] : tensor<53x?xf32> -> tensor<?x53xf32>
  %y = tensor_program.matmul %xt, %wt : (tensor<45x?xf32>, tensor<?x53xf32>) -> tensor<45x53xf32>
  return %y : tensor<45x53xf32>
}

func.func @half(%at: tensor<51x30xbf16>, %bt: tensor<40x51xbf16>) -> tensor<30x40xbf16> {
  %xt = tensor_program.permute %at [1, 0] : tensor<51x30xbf16> -> tensor<30x51xbf16>
  %wt = tensor_program.permute %bt [1, 0] : tensor<40x51xbf16> -> tensor<51x40xbf16>
  %y = tensor_program.matmul %xt, %wt : (tensor<30x51xbf16>, tensor<51x40xbf16>) -> tensor<30x40xbf16>
  return %y : tensor<30x40xbf16>
}

// y = gelu(x @ w^T) and, for the next layer's weight gradient, y^T @ dz.
func.func @gradient(%x: tensor<64x24xf32>, %w: tensor<40x24xf32>, %dz: tensor<64x16xf32>)
    -> (tensor<64x40xf32>, tensor<40x16xf32>) {
  %wt = tensor_program.permute %w [1, 0] : tensor<40x24xf32> -> tensor<24x40xf32>
  %h = tensor_program.matmul %x, %wt : (tensor<64x24xf32>, tensor<24x40xf32>) -> tensor<64x40xf32>
  %y = tensor_program.gelu %h : tensor<64x40xf32>
  %yt = tensor_program.permute %y [1, 0] : tensor<64x40xf32> -> tensor<40x64xf32>
  %dw = tensor_program.matmul %yt, %dz : (tensor<40x64xf32>, tensor<64x16xf32>) -> tensor<40x16xf32>
  return %y, %dw : tensor<64x40xf32>, tensor<40x16xf32>
}

// s = q @ k^T per head, and dv = p^T @ dout with p of [B, H, T, T].
func.func @attention(%q: tensor<6x37x20xf32>, %k: tensor<6x45x20xf32>, %p: tensor<2x3x37x45xf32>, %dout: tensor<6x37x20xf32>)
    -> (tensor<6x37x45xf32>, tensor<6x45x20xf32>) {
  %kt = tensor_program.permute %k [0, 2, 1] : tensor<6x45x20xf32> -> tensor<6x20x45xf32>
  %s = tensor_program.batch_matmul %q, %kt : (tensor<6x37x20xf32>, tensor<6x20x45xf32>) -> tensor<6x37x45xf32>
  %pt = tensor_program.permute %p [0, 1, 3, 2] : tensor<2x3x37x45xf32> -> tensor<2x3x45x37xf32>
  %r = tensor_program.reshape %pt : tensor<2x3x45x37xf32> -> tensor<6x45x37xf32>
  %dv = tensor_program.matmul %r, %dout : (tensor<6x45x37xf32>, tensor<6x37x20xf32>) -> tensor<6x45x20xf32>
  return %s, %dv : tensor<6x37x45xf32>, tensor<6x45x20xf32>
}

func.func @one_head(%q: tensor<1x37x20xf32>, %k: tensor<1x45x20xf32>) -> tensor<1x37x45xf32> {
  %kt = tensor_program.permute %k [0, 2, 1] : tensor<1x45x20xf32> -> tensor<1x20x45xf32>
  %s = tensor_program.batch_matmul %q, %kt : (tensor<1x37x20xf32>, tensor<1x20x45xf32>) -> tensor<1x37x45xf32>
  return %s : tensor<1x37x45xf32>
}
