"""The NumPy reference interpreter: against NumPy written here for single
ops, and against the compiled model on every CPU integration program of the
lit suite (so the interpreter and the compiler check each other)."""

import math
from pathlib import Path

import numpy as np
import pytest

import wrapper_mlir
from wrapper_mlir.interpreter import InterpreterError, interpret, parse_generic, to_generic, TensorType

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = sorted((ROOT / "test" / "Integration" / "CPU").glob("*.mlir"))
# Programs whose inputs NumPy cannot make (bf16 arguments), or that are
# about the debug printer's output rather than values.
SKIP = {"bfloat16.mlir", "debug-printer.mlir"}
_NUMPY = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i64": np.int64,
          "i32": np.int32, "i16": np.int16, "i8": np.int8, "i1": np.bool_}


def signature(text):
    """Argument types of @main (or the first function)."""
    generic = to_generic(text)
    match = [line for line in generic.splitlines() if '"func.func"' in line and "sym_name" in line]
    header = next((line for line in match if 'sym_name = "main"' in line), match[0])
    arguments = header.split("function_type = (", 1)[1].split(") ->", 1)[0]
    from wrapper_mlir.interpreter import _parse_type, _split_top
    return [_parse_type(t) for t in _split_top(arguments)]


def make_input(rng, tensor_type, dynamic):
    shape = [dynamic if d is None else d for d in tensor_type.shape]
    dtype = _NUMPY[tensor_type.element]
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-4, 5, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("program", [p for p in PROGRAMS if p.name not in SKIP], ids=lambda p: p.name)
def test_interpreter_agrees_with_the_compiler(program):
    text = program.read_text()
    if "func.func @main" not in text:
        pytest.skip("no @main")
    types = signature(text)
    if not all(isinstance(t, TensorType) and t.element in _NUMPY for t in types):
        pytest.skip("arguments NumPy cannot make")
    rng = np.random.default_rng(7)
    inputs = [make_input(rng, t, 3) for t in types]
    expected = interpret(text, inputs)
    compiled = wrapper_mlir.compile(text)(*inputs)
    assert len(compiled) == len(expected)
    for index, (got, want) in enumerate(zip(compiled, expected)):
        assert got.shape == want.shape, f"output #{index}"
        np.testing.assert_allclose(got.astype(np.float64), np.asarray(want, dtype=np.float64),
                                   rtol=2e-4, atol=2e-4, equal_nan=True,
                                   err_msg=f"{program.name} output #{index}")


def test_single_ops_against_numpy():
    text = """
    func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<2x2xf32>) {
      %a = tensor_program.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      %p = tensor_program.permute %a [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
      %m = tensor_program.reduce_max %x dims [1] : tensor<2x3xf32> -> tensor<2xf32>
      %g = tensor_program.gelu %x approximate tanh : tensor<2x3xf32>
      %c = tensor_program.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
      %mm = tensor_program.matmul %x, %c : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
      return %a, %p, %m, %g, %mm : tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<2x2xf32>
    }
    """
    x = np.array([[1.0, -2.0, 3.0], [0.5, 0.25, -4.0]], dtype=np.float32)
    y = np.array([10.0, 20.0, 30.0], dtype=np.float32)
    a, p, m, g, mm = interpret(text, [x, y])
    np.testing.assert_array_equal(a, x + y)
    np.testing.assert_array_equal(p, (x + y).T)
    np.testing.assert_array_equal(m, [3.0, 0.5])
    tanh_gelu = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(g, tanh_gelu, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(mm, x @ np.arange(1, 7, dtype=np.float32).reshape(3, 2), rtol=1e-6)
    assert a.dtype == np.float32


def test_fused_region_and_hex_constants():
    text = """
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = tensor_program.fused pointwise (%x) : (tensor<4xf32>) -> tensor<4xf32> {
      ^bb0(%a: tensor<4xf32>):
        %c = tensor_program.constant dense<"0x0000803F000000400000404000008040"> : tensor<4xf32>
        %m = tensor_program.mul %a, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
        %r = tensor_program.relu %m : tensor<4xf32>
        tensor_program.yield %r : tensor<4xf32>
      }
      return %0 : tensor<4xf32>
    }
    """
    (out,) = interpret(text, [np.array([1.0, -1.0, 2.0, 0.5], dtype=np.float32)])
    np.testing.assert_array_equal(out, [1.0, 0.0, 6.0, 2.0])


def test_rounding_to_the_element_type():
    text = """
    func.func @main(%x: tensor<3xf32>) -> (tensor<3xi32>, tensor<3xf16>) {
      %i = tensor_program.cast %x : tensor<3xf32> to tensor<3xi32>
      %h = tensor_program.cast %x : tensor<3xf32> to tensor<3xf16>
      return %i, %h : tensor<3xi32>, tensor<3xf16>
    }
    """
    i, h = interpret(text, [np.array([2.7, -2.7, 1e-4], dtype=np.float32)])
    np.testing.assert_array_equal(i, [2, -2, 0])
    assert h.dtype == np.float16 and h[2] == np.float16(1e-4)


def test_refusals():
    with pytest.raises(wrapper_mlir.WrapperError, match="wrapper-opt rejected the program"):
        interpret("func.func @main(%x: tensor<2xf32>) { %y = tensor_program.bogus %x }", [])
    program = """
    func.func @main(%x: tensor<4x8xf32>) -> tensor<4x2xf32> {
      %v, %i = tensor_program.extern "aten::topk"(%x) args {k = 2 : i64} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
      return %v : tensor<4x2xf32>
    }
    """
    with pytest.raises(InterpreterError, match="extern 'aten::topk' is not implemented"):
        interpret(program, [np.zeros((4, 8), np.float32)])
    with pytest.raises(InterpreterError, match="takes 1 inputs, got 0"):
        interpret(program, [])
    with pytest.raises(InterpreterError, match="no function '@nope'"):
        interpret(program, [np.zeros((4, 8), np.float32)], entry="nope")
    assert set(parse_generic(to_generic(program))) == {"main"}
