// RUN: wrapper-run %s --verify --print=false --seed 3 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 4 --fold-constants=false | FileCheck %s
// CHECK-COUNT-2: vs interpreter: {{.*}}: ok

// Inference batch norms after convolutions, as the importer writes them
// (the scale and shift computed from the running statistics, then a mul
// and an add), folded into the convolutions' weights and biases at compile
// time and checked against the interpreter running them as written: a
// convolution without bias, one with a bias, a grouped (depthwise) one, and
// a scale without a shift.
func.func @main(%x: tensor<2x3x6x6xf32>) -> (tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>, tensor<2x3x4x4xf32>, tensor<2x4x4x4xf32>) {
  %w = tensor_program.constant dense<[[[[-0.095, 0.12, 0.848], [-0.069, 0.016, 0.175], [-0.631, 0.024, 0.26]], [[0.586, -0.812, -0.393], [-0.819, 0.619, 0.387], [-0.916, 0.964, 0.93]], [[0.308, 0.231, -0.685], [-0.97, 0.057, -0.881], [-0.62, -0.516, -0.94]]], [[[-0.072, -0.119, 0.685], [0.038, 0.281, -0.0], [0.325, -0.085, -0.444]], [[0.995, 0.991, 0.68], [0.416, -0.369, -0.541], [-0.422, -0.86, 0.533]], [[-0.199, 0.693, -0.227], [0.916, 0.695, -0.999], [-0.581, 0.821, -0.06]]], [[[0.961, -0.205, -0.854], [0.259, 0.557, -0.46], [-0.826, -0.335, 0.928]], [[0.516, -0.764, -0.507], [-0.798, -0.88, 0.594], [-0.645, 0.119, -0.105]], [[-0.619, 0.464, -0.738], [0.287, -0.767, -0.158], [-0.574, -0.46, 0.942]]], [[[0.607, -0.392, 0.77], [-0.579, -0.211, 0.709], [0.284, -0.799, 0.979]], [[-0.574, -0.483, 0.545], [-0.342, -0.407, -0.853], [-0.82, 0.165, -0.514]], [[0.203, -0.257, -0.094], [0.918, -0.033, 0.149], [0.733, -0.634, -0.692]]]]> : tensor<4x3x3x3xf32>
  %b = tensor_program.constant dense<[0.817, 0.636, -0.501, -0.62]> : tensor<4xf32>
  %dw = tensor_program.constant dense<[[[[0.479, 0.881, -0.607], [0.9, 0.764, 0.207], [-0.157, -0.792, -0.923]]], [[[0.925, -0.523, 0.409], [-0.486, 0.647, 0.193], [-0.413, -0.649, 0.441]]], [[[-0.862, -0.543, 0.119], [0.705, 0.229, -0.44], [0.835, -0.592, -0.967]]]]> : tensor<3x1x3x3xf32>
  %gamma = tensor_program.constant dense<[[[0.769]], [[0.946]], [[0.56]], [[0.676]]]> : tensor<4x1x1xf32>
  %beta = tensor_program.constant dense<[[[-0.262]], [[0.144]], [[-0.737]], [[-0.276]]]> : tensor<4x1x1xf32>
  %mean = tensor_program.constant dense<[[[0.782]], [[0.961]], [[0.314]], [[0.382]]]> : tensor<4x1x1xf32>
  %var = tensor_program.constant dense<[[[1.252]], [[0.453]], [[0.263]], [[0.232]]]> : tensor<4x1x1xf32>
  %eps = tensor_program.constant dense<1.0e-05> : tensor<f32>
  %ve = tensor_program.add %var, %eps : (tensor<4x1x1xf32>, tensor<f32>) -> tensor<4x1x1xf32>
  %r = tensor_program.rsqrt %ve : tensor<4x1x1xf32>
  %scale = tensor_program.mul %gamma, %r : (tensor<4x1x1xf32>, tensor<4x1x1xf32>) -> tensor<4x1x1xf32>
  %ms = tensor_program.mul %mean, %scale : (tensor<4x1x1xf32>, tensor<4x1x1xf32>) -> tensor<4x1x1xf32>
  %shift = tensor_program.sub %beta, %ms : (tensor<4x1x1xf32>, tensor<4x1x1xf32>) -> tensor<4x1x1xf32>
  %s3 = tensor_program.constant dense<[[[[1.41]], [[1.201]], [[1.463]]]]> : tensor<1x3x1x1xf32>
  %t3 = tensor_program.constant dense<[[[-0.957]], [[0.272]], [[-0.036]]]> : tensor<3x1x1xf32>

  %c0 = tensor_program.convolution %x, %w stride [1, 1] dilation [1, 1] groups 1 : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
  %m0 = tensor_program.mul %c0, %scale : (tensor<2x4x4x4xf32>, tensor<4x1x1xf32>) -> tensor<2x4x4x4xf32>
  %a0 = tensor_program.add %m0, %shift : (tensor<2x4x4x4xf32>, tensor<4x1x1xf32>) -> tensor<2x4x4x4xf32>
  %o0 = tensor_program.relu %a0 : tensor<2x4x4x4xf32>

  %c1 = tensor_program.convolution %x, %w bias %b stride [1, 1] dilation [1, 1] groups 1 : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x4x4xf32>
  %m1 = tensor_program.mul %scale, %c1 : (tensor<4x1x1xf32>, tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %a1 = tensor_program.add %shift, %m1 : (tensor<4x1x1xf32>, tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>

  %c2 = tensor_program.convolution %x, %dw stride [1, 1] dilation [1, 1] groups 3 : (tensor<2x3x6x6xf32>, tensor<3x1x3x3xf32>) -> tensor<2x3x4x4xf32>
  %m2 = tensor_program.mul %c2, %s3 : (tensor<2x3x4x4xf32>, tensor<1x3x1x1xf32>) -> tensor<2x3x4x4xf32>
  %a2 = tensor_program.add %m2, %t3 : (tensor<2x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<2x3x4x4xf32>

  %c3 = tensor_program.convolution %x, %w bias %b stride [1, 1] dilation [1, 1] groups 1 : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x4x4xf32>
  %m3 = tensor_program.mul %c3, %gamma : (tensor<2x4x4x4xf32>, tensor<4x1x1xf32>) -> tensor<2x4x4x4xf32>
  return %o0, %a1, %a2, %m3 : tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>, tensor<2x3x4x4xf32>, tensor<2x4x4x4xf32>
}
