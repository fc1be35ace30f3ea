// RUN: wrapper-opt %s -split-input-file -verify-diagnostics

// Tests the verifier rules of the tensor_program dialect, one case each.

func.func @broadcast_mismatch(%a: tensor<4x3xf32>, %b: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.add' op operand #1 dimension 0 has size 4, which does not broadcast with size 3 of operand #0 [4, 3]}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.add %a, %b : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @element_type_mismatch(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @below {{'tensor_program.mul' op operand #1 has element type f16, but operand #0 has f32}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.mul %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @wrong_result_type(%a: tensor<4x1xf32>, %b: tensor<8xf32>) {
  // expected-error @below {{'tensor_program.sub' op inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x4xf32>'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.sub %a, %b : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @pow_of_integers(%a: tensor<4xi32>) {
  // expected-error @below {{'tensor_program.pow' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<4xi32>'}}
  %0 = tensor_program.pow %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @exp_of_integers(%a: tensor<4xi32>) {
  // expected-error @below {{'tensor_program.exp' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<4xi32>'}}
  %0 = tensor_program.exp %a : tensor<4xi32>
  return
}

// -----

func.func @unary_result_type(%a: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.tanh' op requires the same type for all operands and results}}
  %0 = "tensor_program.tanh"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @unranked_operand(%a: tensor<*xf32>) {
  // expected-error @below {{custom op 'tensor_program.neg' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = tensor_program.neg %a : tensor<*xf32>
  return
}

// -----

func.func @where_condition_not_bool(%c: tensor<4xf32>, %a: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.where' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = tensor_program.where %c, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @where_value_types(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @below {{'tensor_program.where' op operand #2 has element type i32, but operand #1 has f32}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.where %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @where_broadcast(%c: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.where' op operand #1 dimension 0 has size 4, which does not broadcast with size 3 of operand #0 [3]}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.where %c, %a, %a : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @compare_element_types(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @below {{'tensor_program.compare' op operand #1 has element type i32, but operand #0 has f32}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.compare eq, %a, %b : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_unknown_predicate(%a: tensor<4xf32>) {
  // expected-error @below {{custom op 'tensor_program.compare' expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, lt, le, gt, ge]}}
  %0 = tensor_program.compare approx, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @cast_shape(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.cast' op result shape [8, 4] does not match input shape [4, 8]}}
  %0 = tensor_program.cast %a : tensor<4x8xf32> to tensor<8x4xf16>
  return
}

// -----

func.func @constant_vector() {
  // expected-error @below {{'tensor_program.constant' op value must have a ranked tensor type}}
  %0 = tensor_program.constant dense<1.0> : vector<4xf32>
  return
}

// -----

func.func @full_missing_size() {
  // expected-error @below {{'tensor_program.full' op expects 1 dynamic size operands (one per dynamic dimension of 'tensor<?x4xf32>'), got 0}}
  %0 = tensor_program.full 1.0 : tensor<?x4xf32>
  return
}

// -----

func.func @full_inexact_integer() {
  // expected-error @below {{'tensor_program.full' op value 5.000000e-01 is not exactly representable in 'i32'}}
  %0 = tensor_program.full 0.5 : tensor<4xi32>
  return
}

// -----

func.func @full_bool_out_of_range() {
  // expected-error @below {{'tensor_program.full' op value 2.000000e+00 is not exactly representable in 'i1'}}
  %0 = tensor_program.full 2.0 : tensor<4xi1>
  return
}

// -----

func.func @reduce_dim_out_of_range(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.reduce_sum' op dimension 2 is out of range [0, 2)}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.reduce_sum %a dims [2] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @reduce_negative_dim(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.reduce_max' op dimension -1 is out of range [0, 2)}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.reduce_max %a dims [-1] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_dim_twice(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.reduce_min' op dimension 1 appears twice}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.reduce_min %a dims [1, 1] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_no_dims(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.reduce_prod' op needs at least one dimension to reduce}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.reduce_prod %a dims [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @reduce_wrong_result(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.reduce_sum' op inferred type(s) 'tensor<4x1xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.reduce_sum %a dims [1] keepdim : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @mean_of_integers(%a: tensor<4x8xi32>) {
  // expected-error @below {{'tensor_program.reduce_mean' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<4x8xi32>'}}
  %0 = tensor_program.reduce_mean %a dims [1] : tensor<4x8xi32> -> tensor<4xi32>
  return
}

// -----

func.func @argmax_dim(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.argmax' op dimension 3 is out of range [0, 2)}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.argmax %a dim 3 : tensor<4x8xf32> -> tensor<4xi64>
  return
}

// -----

func.func @argmax_result_type(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.argmax' op result #0 must be ranked tensor of 64-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = tensor_program.argmax %a dim 1 : tensor<4x8xf32> -> tensor<4xi32>
  return
}

// -----

func.func @reshape_count(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.reshape' op cannot reshape 32 elements [4, 8] into 30 elements [5, 6]}}
  %0 = tensor_program.reshape %a : tensor<4x8xf32> -> tensor<5x6xf32>
  return
}

// -----

func.func @reshape_missing_size(%a: tensor<?x8xf32>) {
  // expected-error @below {{'tensor_program.reshape' op expects 1 dynamic size operands (one per dynamic dimension of 'tensor<?xf32>'), got 0}}
  %0 = tensor_program.reshape %a : tensor<?x8xf32> -> tensor<?xf32>
  return
}

// -----

func.func @reshape_element_type(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.reshape' op result element type 'f16' does not match input element type 'f32'}}
  %0 = tensor_program.reshape %a : tensor<4x8xf32> -> tensor<32xf16>
  return
}

// -----

func.func @permute_not_a_permutation(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.permute' op permutation entry 0 appears twice}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.permute %a [0, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @flip_out_of_range(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.flip' op dimension 2 is out of range for rank 2}}
  %0 = tensor_program.flip %a [2] : tensor<4x8xf32>
  return
}

// -----

func.func @flip_twice(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.flip' op dimension 1 is flipped twice}}
  %0 = tensor_program.flip %a [1, 1] : tensor<4x8xf32>
  return
}

// -----

func.func @flip_changes_type(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.flip' op requires the same type for all operands and results}}
  %0 = "tensor_program.flip"(%a) {dims = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @permute_length(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.permute' op permutation has 3 entries, but the input has rank 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.permute %a [0, 1, 2] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @broadcast_incompatible(%a: tensor<3xf32>) {
  // expected-error @below {{'tensor_program.broadcast' op input dimension 0 has size 3, which does not broadcast to size 4 of result dimension 1}}
  %0 = tensor_program.broadcast %a : tensor<3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @broadcast_to_lower_rank(%a: tensor<2x3xf32>) {
  // expected-error @below {{'tensor_program.broadcast' op input of rank 2 cannot broadcast to rank 1}}
  %0 = tensor_program.broadcast %a : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @broadcast_static_to_dynamic(%a: tensor<3xf32>, %n: index) {
  // expected-error @below {{'tensor_program.broadcast' op input dimension 0 has static size 3, which cannot broadcast to a dynamic result dimension}}
  %0 = tensor_program.broadcast %a [%n] : tensor<3xf32> -> tensor<?xf32>
  return
}

// -----

func.func @broadcast_element_type(%a: tensor<3xf32>) {
  // expected-error @below {{'tensor_program.broadcast' op result element type 'i32' does not match input element type 'f32'}}
  %0 = tensor_program.broadcast %a : tensor<3xf32> -> tensor<2x3xi32>
  return
}

// -----

func.func @broadcast_missing_size(%a: tensor<3xf32>) {
  // expected-error @below {{'tensor_program.broadcast' op expects 1 dynamic size operands (one per dynamic dimension of 'tensor<?x3xf32>'), got 0}}
  %0 = tensor_program.broadcast %a : tensor<3xf32> -> tensor<?x3xf32>
  return
}

// -----

func.func @slice_dim(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.slice' op dimension 2 is out of range [0, 2)}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.slice %a dim 2 start 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_step(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.slice' op step must be positive, got 0}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.slice %a dim 1 start 0 end 4 step 0 : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @slice_negative_start(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.slice' op start and end must be non-negative, got -1 and 4}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.slice %a dim 1 start -1 end 4 : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @below {{'tensor_program.concat' op input #1 has rank 1, but input #0 has rank 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.concat %a, %b dim 0 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<5x8xf32>
  return
}

// -----

func.func @concat_size(%a: tensor<4x8xf32>, %b: tensor<4x7xf32>) {
  // expected-error @below {{'tensor_program.concat' op input #1 dimension 1 has size 7, but the other inputs have size 8}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.concat %a, %b dim 0 : (tensor<4x8xf32>, tensor<4x7xf32>) -> tensor<8x8xf32>
  return
}

// -----

func.func @concat_wrong_static_size(%a: tensor<4x3xf32>, %b: tensor<4x4xf32>) {
  // A result may be more static than the inputs tell, never different.
  // expected-error @below {{'tensor_program.concat' op inferred type(s) 'tensor<4x7xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf32>'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.concat %a, %b dim 1 : (tensor<4x3xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @concat_element_type(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @below {{'tensor_program.concat' op operand #1 has element type i32, but operand #0 has f32}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.concat %a, %b dim 0 : (tensor<4xf32>, tensor<4xi32>) -> tensor<8xf32>
  return
}

// -----

func.func @concat_dim(%a: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.concat' op dimension 1 is out of range [0, 1)}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.concat %a, %a dim 1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @concat_nothing() {
  // expected-error @below {{'tensor_program.concat' op needs at least one input}}
  // expected-error @below {{failed to infer returned types}}
  %0 = "tensor_program.concat"() <{dim = 0 : i64}> : () -> tensor<0xf32>
  return
}

// -----

func.func @pad_length(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.pad' op low and high need one entry per dimension (2), got 1 and 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.pad %a low [1] high [0, 0] value 0.0 : tensor<4x8xf32> -> tensor<5x8xf32>
  return
}

// -----

func.func @pad_negative(%a: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.pad' op padding of dimension 1 must be non-negative}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.pad %a low [0, -1] high [0, 0] value 0.0 : tensor<4x8xf32> -> tensor<4x7xf32>
  return
}

// -----

func.func @as_strided_arity(%a: tensor<8xf32>) {
  // expected-error @below {{'tensor_program.as_strided' op has 2 sizes but 1 strides}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.as_strided %a sizes [2, 2] strides [1] offset 0 : tensor<8xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @as_strided_negative(%a: tensor<8xf32>) {
  // expected-error @below {{'tensor_program.as_strided' op sizes, strides and offset must be non-negative}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.as_strided %a sizes [2] strides [-1] offset 4 : tensor<8xf32> -> tensor<2xf32>
  return
}

// -----

func.func @as_strided_out_of_bounds(%a: tensor<8xf32>) {
  // expected-error @below {{'tensor_program.as_strided' op reaches element 9, but the input has 8 elements}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.as_strided %a sizes [2, 2] strides [4, 2] offset 3 : tensor<8xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @matmul_rank(%a: tensor<8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @below {{'tensor_program.matmul' op operands must have rank 2 or more, got ranks 1 and 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.matmul %a, %b : (tensor<8xf32>, tensor<8x2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<16x2xf32>) {
  // expected-error @below {{'tensor_program.matmul' op contracting dimension of the lhs has size 8, but the rhs has 16}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.matmul %a, %b : (tensor<4x8xf32>, tensor<16x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<3x4x8xf32>, %b: tensor<2x8x2xf32>) {
  // expected-error @below {{'tensor_program.matmul' op batch dimensions: operand #1 dimension 0 has size 2, which does not broadcast with size 3 of operand #0 [3]}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.matmul %a, %b : (tensor<3x4x8xf32>, tensor<2x8x2xf32>) -> tensor<3x4x2xf32>
  return
}

// -----

func.func @matmul_element_type(%a: tensor<4x8xf32>, %b: tensor<8x2xbf16>) {
  // expected-error @below {{'tensor_program.matmul' op operand #1 has element type bf16, but operand #0 has f32}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xbf16>) -> tensor<4x2xf32>
  return
}

// -----

func.func @batch_matmul_rank(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @below {{'tensor_program.batch_matmul' op operands must have rank 3, got ranks 2 and 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.batch_matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @batch_matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x2xf32>) {
  // expected-error @below {{'tensor_program.batch_matmul' op batch sizes differ: 2 and 3}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x2xf32>) -> tensor<2x4x2xf32>
  return
}

// -----

func.func @linear_weight_rank(%x: tensor<4x8xf32>, %w: tensor<8xf32>) {
  // expected-error @below {{'tensor_program.linear' op weight must have rank 2 ([out, in]), got rank 1}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.linear %x, %w : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @linear_features(%x: tensor<4x8xf32>, %w: tensor<16x4xf32>) {
  // expected-error @below {{'tensor_program.linear' op input has 8 features, but the weight expects 4}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.linear %x, %w : (tensor<4x8xf32>, tensor<16x4xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @linear_bias(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) {
  // expected-error @below {{'tensor_program.linear' op bias shape [8] must be [16]}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.linear %x, %w bias %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @linear_scalar_input(%x: tensor<f32>, %w: tensor<16x8xf32>) {
  // expected-error @below {{'tensor_program.linear' op input must have rank 1 or more}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.linear %x, %w : (tensor<f32>, tensor<16x8xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @softmax_dim(%x: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.softmax' op dimension 2 is out of range [0, 2)}}
  %0 = tensor_program.softmax %x dim 2 : tensor<4x8xf32>
  return
}

// -----

func.func @log_softmax_dim(%x: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.log_softmax' op dimension 5 is out of range [0, 2)}}
  %0 = tensor_program.log_softmax %x dim 5 : tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_rank(%x: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.layer_norm' op normalized_rank 3 must be in [1, 2]}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.layer_norm %x normalized_rank 3 eps 1.0e-05 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_zero_rank(%x: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.layer_norm' op attribute 'normalized_rank' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1}}
  %0 = tensor_program.layer_norm %x normalized_rank 0 eps 1.0e-05 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_weight_shape(%x: tensor<4x8xf32>, %w: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.layer_norm' op weight shape [4] does not match the normalized shape [8]}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.layer_norm %x weight %w normalized_rank 1 eps 1.0e-05 : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_bias_type(%x: tensor<4x8xf32>, %b: tensor<8xf16>) {
  // expected-error @below {{'tensor_program.layer_norm' op bias element type f16 does not match the input's f32}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.layer_norm %x bias %b normalized_rank 1 eps 1.0e-05 : (tensor<4x8xf32>, tensor<8xf16>) -> tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_negative_eps(%x: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.layer_norm' op eps must be non-negative}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.layer_norm %x normalized_rank 1 eps -1.0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @rms_norm_weight_shape(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.rms_norm' op weight shape [4, 8] does not match the normalized shape [8]}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.rms_norm %x weight %w eps 1.0e-06 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @rms_norm_negative_eps(%x: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.rms_norm' op eps must be non-negative}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.rms_norm %x eps -1.0e-06 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @rms_norm_scalar(%x: tensor<f32>) {
  // expected-error @below {{'tensor_program.rms_norm' op input must have rank 1 or more}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.rms_norm %x eps 1.0e-06 : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @extern_empty_callee(%x: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.extern' op callee name must not be empty}}
  %0 = tensor_program.extern ""(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @extern_callee_with_space(%x: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.extern' op callee name 'aten::relu x' must not contain whitespace}}
  %0 = tensor_program.extern "aten::relu x"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @extern_memref_input(%x: memref<4xf32>) {
  // expected-error @below {{'tensor_program.extern' op input #0 must be a ranked tensor or a scalar, got 'memref<4xf32>'}}
  %0 = tensor_program.extern "aten::relu"(%x) : (memref<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @extern_bad_schema(%x: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.extern' op schema 'relu(Tensor self)' must have the form 'name(args) -> results'}}
  %0 = tensor_program.extern "aten::relu"(%x) schema "relu(Tensor self)" : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @copy_back_to_value(%x: tensor<4xf32>) {
  %0 = tensor_program.neg %x : tensor<4xf32>
  // expected-error @below {{'tensor_program.copy_back' op target must be an argument of the enclosing function}}
  tensor_program.copy_back %x to %0 : tensor<4xf32>
  return
}

// -----

func.func @copy_back_twice(%x: tensor<4xf32>) {
  %0 = tensor_program.neg %x : tensor<4xf32>
  // expected-note @below {{first written back here}}
  tensor_program.copy_back %0 to %x : tensor<4xf32>
  // expected-error @below {{'tensor_program.copy_back' op writes back argument #0 a second time}}
  tensor_program.copy_back %0 to %x : tensor<4xf32>
  return
}

// -----

func.func @copy_back_type(%x: tensor<4xf32>, %y: tensor<8xf32>) {
  // expected-error @below {{'tensor_program.copy_back' op failed to verify that all of {value, target} have same type}}
  "tensor_program.copy_back"(%y, %x) : (tensor<8xf32>, tensor<4xf32>) -> ()
  return
}

// -----

func.func @fused_argument_count(%a: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.fused' op region has 2 arguments, but the op has 1 inputs}}
  %0 = tensor_program.fused pointwise (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    tensor_program.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @fused_argument_type(%a: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.fused' op region argument #0 has type 'tensor<8xf32>', but input #0 has type 'tensor<4xf32>'}}
  %0 = tensor_program.fused pointwise (%a) : (tensor<4xf32>) -> tensor<8xf32> {
  ^bb0(%x: tensor<8xf32>):
    tensor_program.yield %x : tensor<8xf32>
  }
  return
}

// -----

func.func @fused_yield_type(%a: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.fused' op yields 'tensor<4xf32>', but the op returns 'tensor<4xf16>'}}
  %0 = tensor_program.fused pointwise (%a) : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%x: tensor<4xf32>):
    tensor_program.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @fused_foreign_op(%a: tensor<4xf32>) {
  %0 = tensor_program.fused pointwise (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @below {{'tensor.empty' op is not allowed in a fused region}}
    %e = tensor.empty() : tensor<4xf32>
    tensor_program.yield %e : tensor<4xf32>
  }
  return
}

// -----

func.func @fused_extern(%a: tensor<4xf32>) {
  %0 = tensor_program.fused pointwise (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @below {{'tensor_program.extern' op is not allowed in a fused region}}
    %e = tensor_program.extern "aten::relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    tensor_program.yield %e : tensor<4xf32>
  }
  return
}

// -----

func.func @fused_composite(%a: tensor<4xf32>) {
  %0 = tensor_program.fused reduction (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @below {{'tensor_program.softmax' op is a composite; decompose it before fusion}}
    %s = tensor_program.softmax %x dim 0 : tensor<4xf32>
    tensor_program.yield %s : tensor<4xf32>
  }
  return
}

// -----

func.func @fused_pointwise_with_reduction(%a: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.fused' op of kind 'pointwise' may only contain elementwise and layout ops}}
  %0 = tensor_program.fused pointwise (%a) : (tensor<4xf32>) -> tensor<f32> {
  ^bb0(%x: tensor<4xf32>):
    %s = tensor_program.reduce_sum %x dims [0] : tensor<4xf32> -> tensor<f32>
    tensor_program.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @fused_reduction_without_reduction(%a: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.fused' op of kind 'reduction' must contain a reduction}}
  %0 = tensor_program.fused reduction (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %e = tensor_program.exp %x : tensor<4xf32>
    tensor_program.yield %e : tensor<4xf32>
  }
  return
}

// -----

func.func @fused_reduction_with_matmul(%a: tensor<4x4xf32>) {
  // expected-error @below {{'tensor_program.fused' op of kind 'reduction' cannot contain a matrix product}}
  %0 = tensor_program.fused reduction (%a) : (tensor<4x4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4x4xf32>):
    %m = tensor_program.matmul %x, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %s = tensor_program.reduce_sum %m dims [1] : tensor<4x4xf32> -> tensor<4xf32>
    tensor_program.yield %s : tensor<4xf32>
  }
  return
}

// -----

func.func @fused_matmul_without_matmul(%a: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.fused' op of kind 'matmul' must contain exactly one matrix product, found 0}}
  %0 = tensor_program.fused matmul (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    tensor_program.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @fused_matmul_with_reduction(%a: tensor<4x4xf32>) {
  // expected-error @below {{'tensor_program.fused' op of kind 'matmul' cannot contain a reduction}}
  %0 = tensor_program.fused matmul (%a) : (tensor<4x4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4x4xf32>):
    %m = tensor_program.matmul %x, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %s = tensor_program.reduce_sum %m dims [1] : tensor<4x4xf32> -> tensor<4xf32>
    tensor_program.yield %s : tensor<4xf32>
  }
  return
}

// -----

func.func @yield_outside_fused(%a: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.yield' op expects parent op 'tensor_program.fused'}}
  tensor_program.yield %a : tensor<4xf32>
}

// -----

func.func @pad_overflow(%x: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.pad' op padded size of dimension 0 overflows a 64-bit count}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.pad %x low [9223372036854775807] high [1] value 0.0 : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @concat_overflow(%x: tensor<9223372036854775807xf32>) {
  // expected-error @below {{'tensor_program.concat' op concatenated size of dimension 0 overflows a 64-bit count}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.concat %x, %x dim 0 : (tensor<9223372036854775807xf32>, tensor<9223372036854775807xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @as_strided_overflow(%x: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.as_strided' op reaches element beyond 2^63, but the input has 4 elements}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.as_strided %x sizes [9223372036854775807] strides [9223372036854775807] offset 1 : tensor<4xf32> -> tensor<9223372036854775807xf32>
  return
}

// -----

func.func @fused_foreign_terminator(%a: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.fused' op region must end in 'tensor_program.yield'}}
  %0 = "tensor_program.fused"(%a) <{kind = 0 : i32}> ({
  ^bb0(%x: tensor<4xf32>):
    "llvm.unreachable"() : () -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @erf_of_integers(%a: tensor<4xi32>) {
  // expected-error @below {{'tensor_program.erf' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<4xi32>'}}
  %0 = tensor_program.erf %a : tensor<4xi32>
  return
}

// -----

func.func @iota_dim_out_of_range(%n: index) {
  // expected-error @below {{'tensor_program.iota' op dim 2 is out of range [0, 2)}}
  %0 = tensor_program.iota dim 2 [%n] : tensor<?x4xi64>
  return
}

// -----

func.func @uniform_missing_size(%seed: tensor<i64>) {
  // expected-error @below {{'tensor_program.uniform' op expects 1 dynamic size operands (one per dynamic dimension of 'tensor<?x4xf32>'), got 0}}
  %0 = tensor_program.uniform %seed stream 0 : tensor<i64> -> tensor<?x4xf32>
  return
}

// -----

func.func @uniform_integer_result(%seed: tensor<i64>) {
  // expected-error @below {{'tensor_program.uniform' op result #0 must be ranked tensor of floating-point values}}
  %0 = tensor_program.uniform %seed stream 0 : tensor<i64> -> tensor<4xi32>
  return
}

// -----

func.func @iota_missing_size() {
  // expected-error @below {{'tensor_program.iota' op expects 1 dynamic size operands (one per dynamic dimension of 'tensor<?x4xi64>'), got 0}}
  %0 = tensor_program.iota dim 0 : tensor<?x4xi64>
  return
}

// -----

func.func @cumsum_dim_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error @below {{'tensor_program.cumsum' op dim 2 is out of range [0, 2)}}
  %0 = tensor_program.cumsum %x dim 2 : tensor<4x8xf32>
  return
}

// -----

func.func @and_of_floats(%x: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.and' op operand #0 must be ranked tensor of signless integer values, but got 'tensor<4xf32>'}}
  %0 = tensor_program.and %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @take_wrong_result(%w: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // expected-error @below {{'tensor_program.take' op result dimension 0 is 2, expected 3 ([3, 4])}}
  %0 = tensor_program.take %w, %i dim 0 : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<2x4xf32>
  return
}

// -----

func.func @take_float_index(%w: tensor<10x4xf32>, %i: tensor<3xf32>) {
  // expected-error @below {{'tensor_program.take' op operand #1 must be ranked tensor of signless integer values, but got 'tensor<3xf32>'}}
  %0 = tensor_program.take %w, %i dim 0 : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @gather_rank_mismatch(%x: tensor<4x8xf32>, %i: tensor<4xi64>) {
  // expected-error @below {{'tensor_program.gather' op index has rank 1, but the input has rank 2}}
  %0 = tensor_program.gather %x, %i dim 1 : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @gather_index_too_large(%x: tensor<4x8xf32>, %i: tensor<5x2xi64>) {
  // expected-error @below {{'tensor_program.gather' op index dimension 0 has size 5, larger than the input's 4}}
  %0 = tensor_program.gather %x, %i dim 1 : (tensor<4x8xf32>, tensor<5x2xi64>) -> tensor<5x2xf32>
  return
}

// -----

func.func @dynamic_slice_bad_step(%x: tensor<?x8xf32>, %a: index) {
  // expected-error @below {{'tensor_program.dynamic_slice' op step must be positive, got 0}}
  %0 = tensor_program.dynamic_slice %x dim 0 [%a, %a] step 0 : tensor<?x8xf32> -> tensor<?x8xf32>
  return
}

// -----

func.func @slice_scatter_out_of_range(%x: tensor<4x8xf32>, %s: tensor<4x2xf32>) {
  // expected-error @below {{'tensor_program.slice_scatter' op needs 0 <= start <= end <= 8 and a positive step, got start 6 end 10 step 2}}
  %0 = tensor_program.slice_scatter %x, %s dim 1 start 6 end 10 step 2 : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_scatter_wrong_source(%x: tensor<4x8xf32>, %s: tensor<4x3xf32>) {
  // expected-error @below {{'tensor_program.slice_scatter' op source dimension 1 is 3, but the slice has 2}}
  %0 = tensor_program.slice_scatter %x, %s dim 1 start 0 end 4 step 2 : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @convolution_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @below {{'tensor_program.convolution' op input has 3 channels, but the weight expects 2 x 1 groups}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.convolution %x, %w stride [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @convolution_stride_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @below {{'tensor_program.convolution' op stride and dilation need 2 entries (one per spatial dimension)}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.convolution %x, %w stride [1] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @convolution_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @below {{'tensor_program.convolution' op bias must have one value per filter ([4]), got [3]}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.convolution %x, %w bias %b stride [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @max_pool_window_entries(%x: tensor<1x3x8x8xf32>) {
  // expected-error @below {{'tensor_program.max_pool' op stride has 1 entries, expected 2 (one per window dimension)}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.max_pool %x window [2, 2] stride [2] dilation [1, 1] padding_low [0, 0] padding_high [0, 0] : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @avg_pool_negative_padding(%x: tensor<1x3x8x8xf32>) {
  // expected-error @below {{'tensor_program.avg_pool' op padding must be non-negative}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.avg_pool %x window [2, 2] stride [2, 2] padding_low [-1, 0] padding_high [0, 0] : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @avg_pool_divisor(%x: tensor<1x3x8x8xf32>) {
  // expected-error @below {{'tensor_program.avg_pool' op divisor must be positive}}
  // expected-error @below {{failed to infer returned types}}
  %0 = tensor_program.avg_pool %x window [2, 2] stride [2, 2] padding_low [0, 0] padding_high [0, 0] divisor 0 : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @scatter_index_larger_than_source(%x: tensor<4x8xf32>, %i: tensor<4x3xi64>, %v: tensor<4x2xf32>) {
  // expected-error @below {{'tensor_program.scatter' op index dimension 1 has size 3, larger than the source's 2}}
  %0 = tensor_program.scatter %x, %i, %v dim 1 : (tensor<4x8xf32>, tensor<4x3xi64>, tensor<4x2xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @scatter_rank(%x: tensor<4x8xf32>, %i: tensor<4xi64>, %v: tensor<4xf32>) {
  // expected-error @below {{'tensor_program.scatter' op index and source need the input's rank (2), got 1 and 1}}
  %0 = tensor_program.scatter %x, %i, %v dim 0 : (tensor<4x8xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}
