"""wrapper_mlir.compile on tensor_program text, checked against NumPy
written here (independent of the compiler and of its interpreter)."""

import math
import os

import numpy as np
import pytest

import wrapper_mlir

erf = np.vectorize(math.erf, otypes=[np.float64])

MLP = """
func.func @main(%x: tensor<?x64xf32>, %w1: tensor<96x64xf32>, %b1: tensor<96xf32>,
                %w2: tensor<32x96xf32>, %b2: tensor<32xf32>) -> tensor<?x32xf32> {
  %h = tensor_program.linear %x, %w1 bias %b1 : (tensor<?x64xf32>, tensor<96x64xf32>, tensor<96xf32>) -> tensor<?x96xf32>
  %g = tensor_program.gelu %h : tensor<?x96xf32>
  %o = tensor_program.linear %g, %w2 bias %b2 : (tensor<?x96xf32>, tensor<32x96xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  return %o : tensor<?x32xf32>
}
"""

SOFTMAX_SUM = """
func.func @main(%x: tensor<?x50xf32>) -> (tensor<?x50xf32>, tensor<?xf32>) {
  %s = tensor_program.softmax %x dim 1 : tensor<?x50xf32>
  %r = tensor_program.reduce_sum %x dims [1] : tensor<?x50xf32> -> tensor<?xf32>
  return %s, %r : tensor<?x50xf32>, tensor<?xf32>
}
"""


def mlp_reference(x, w1, b1, w2, b2):
    h = x.astype(np.float64) @ w1.T.astype(np.float64) + b1
    g = 0.5 * h * (1.0 + erf(h / math.sqrt(2.0)))
    return g @ w2.T.astype(np.float64) + b2


@pytest.fixture(scope="module")
def mlp():
    return wrapper_mlir.compile(MLP)


@pytest.mark.parametrize("batch", [1, 7, 33])
def test_mlp_dynamic_batch(mlp, batch):
    rng = np.random.default_rng(batch)
    x = rng.standard_normal((batch, 64), dtype=np.float32)
    w1 = rng.standard_normal((96, 64), dtype=np.float32) * 0.1
    b1 = rng.standard_normal(96, dtype=np.float32)
    w2 = rng.standard_normal((32, 96), dtype=np.float32) * 0.1
    b2 = rng.standard_normal(32, dtype=np.float32)
    (y,) = mlp(x, w1, b1, w2, b2)
    assert y.shape == (batch, 32) and y.dtype == np.float32
    np.testing.assert_allclose(y, mlp_reference(x, w1, b1, w2, b2), rtol=1e-4, atol=1e-4)


def test_signature(mlp):
    assert mlp.inputs[0] == ("float32", (None, 64))
    assert mlp.inputs[1] == ("float32", (96, 64))
    assert mlp.outputs == [("float32", (None, 32))]


def test_two_outputs_and_non_contiguous_input():
    model = wrapper_mlir.compile(SOFTMAX_SUM, parallel=False)
    rng = np.random.default_rng(3)
    base = rng.standard_normal((50, 9), dtype=np.float32)
    x = base.T  # a transposed view: copied to C order on the way in
    s, r = model(x)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(s, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r, x.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-5)
    # The outputs own the model's buffers: dropping them must not disturb
    # the next run.
    del s, r
    s2, _ = model(np.zeros((4, 50), np.float32))
    np.testing.assert_allclose(s2, np.full((4, 50), 1 / 50), rtol=1e-6)


def test_the_gemm_template_and_plain_loops_agree():
    rng = np.random.default_rng(5)
    args = [
        rng.standard_normal((5, 64), dtype=np.float32),
        rng.standard_normal((96, 64), dtype=np.float32),
        rng.standard_normal(96, dtype=np.float32),
        rng.standard_normal((32, 96), dtype=np.float32),
        rng.standard_normal(32, dtype=np.float32),
    ]
    (with_gemm,) = wrapper_mlir.compile(MLP)(*args)
    (without,) = wrapper_mlir.compile(MLP, gemm=False)(*args)
    np.testing.assert_allclose(with_gemm, without, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("strategy", ["none", "greedy", "cost", "horizontal", False])
def test_fusion_strategies_compute_the_same(strategy):
    # Each fusion strategy (docs/Fusion.md) gives the MLP's values and the
    # softmax/sum pair's; an unknown name is refused with the known ones.
    rng = np.random.default_rng(11)
    args = [rng.standard_normal((6, 64), dtype=np.float32),
            rng.standard_normal((96, 64), dtype=np.float32) * 0.1,
            rng.standard_normal(96, dtype=np.float32),
            rng.standard_normal((32, 96), dtype=np.float32) * 0.1,
            rng.standard_normal(32, dtype=np.float32)]
    (y,) = wrapper_mlir.compile(MLP, fuse=strategy)(*args)
    np.testing.assert_allclose(y, mlp_reference(*args), rtol=1e-4, atol=1e-4)
    x = rng.standard_normal((3, 50), dtype=np.float32)
    s, r = wrapper_mlir.compile(SOFTMAX_SUM, fuse=strategy)(x)
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(s, e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r, x.sum(1), rtol=1e-5, atol=1e-5)


def test_unknown_fusion_strategy():
    with pytest.raises(wrapper_mlir.WrapperError,
                       match="fuse-strategy 'nope' is not a registered fusion strategy; "
                             "the strategies are cost, greedy, horizontal, none"):
        wrapper_mlir.compile(MLP, fuse="nope")
    with pytest.raises(wrapper_mlir.WrapperError, match="fuse must be True, False or"):
        wrapper_mlir.compile(MLP, fuse=3)


def test_ir_stages(mlp):
    assert "tensor_program.linear" in mlp.ir("source")
    frontend = mlp.ir("frontend")
    assert "wrapper.graph @main" in frontend and "wrapper.call" in frontend
    assert "llvm.func @main" in mlp.ir("llvm")
    with pytest.raises(wrapper_mlir.WrapperError, match="unknown stage 'bogus'"):
        mlp.ir("bogus")


def test_ir_elides_large_constants():
    """Constants print elided unless asked for in full (a model's weights
    would otherwise fill the screen with hex)."""
    values = ", ".join(f"{i}.0" for i in range(64))
    text = f"""
func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {{
  %w = tensor_program.constant dense<[{values}]> : tensor<64xf32>
  %y = tensor_program.add %x, %w : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %y : tensor<64xf32>
}}
"""
    model = wrapper_mlir.compile(text)
    x = np.ones(64, dtype=np.float32)
    np.testing.assert_array_equal(model(x)[0], 1 + np.arange(64, dtype=np.float32))
    elided, full = model.ir("frontend"), model.ir("frontend", full=True)
    assert "__elided__" in elided and "__elided__" not in full
    assert "6.300000e+01" in full and "6.300000e+01" not in elided


def test_compile_errors_cite_a_kept_file():
    """The program a compile error cites is kept where the error says (the
    compilation's own directory is removed)."""
    bad = "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  bogus\n}\n"
    with pytest.raises(wrapper_mlir.WrapperError) as info:
        wrapper_mlir.compile(bad)
    message = str(info.value)
    kept = message.rsplit("(the program is kept in ", 1)[1].rstrip(")")
    assert f"{kept}:2:3" in message
    with open(kept) as f:
        assert f.read() == bad
    os.remove(kept)


def test_wrong_build_dir_is_named(monkeypatch):
    from wrapper_mlir._compile import find_tool

    monkeypatch.setenv("WRAPPER_BUILD_DIR", "/nonexistent/build")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    with pytest.raises(wrapper_mlir.WrapperError,
                       match="WRAPPER_BUILD_DIR is '/nonexistent/build', which has no "
                             "bin/wrapper-no-such-tool"):
        find_tool("wrapper-no-such-tool")


def test_bad_inputs_are_errors(mlp):
    x = np.zeros((2, 64), np.float32)
    w1 = np.zeros((96, 64), np.float32)
    b1 = np.zeros(96, np.float32)
    w2 = np.zeros((32, 96), np.float32)
    b2 = np.zeros(32, np.float32)
    with pytest.raises(wrapper_mlir.WrapperError, match="takes 5 inputs, got 4"):
        mlp(x, w1, b1, w2)
    with pytest.raises(wrapper_mlir.WrapperError, match="input arg0 has dtype float64, expected float32"):
        mlp(x.astype(np.float64), w1, b1, w2, b2)
    with pytest.raises(wrapper_mlir.WrapperError, match="input arg1 dimension 0 is 95, expected 96"):
        mlp(x, w1[:95], b1, w2, b2)
    with pytest.raises(wrapper_mlir.WrapperError, match="unsupported dtype complex64"):
        mlp(x.astype(np.complex64), w1, b1, w2, b2)


def test_bad_programs_are_errors():
    with pytest.raises(wrapper_mlir.WrapperError, match="wrapper-compile failed"):
        wrapper_mlir.compile("func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> { bogus }")
    with pytest.raises(wrapper_mlir.WrapperError, match="unknown target 'tpu'"):
        wrapper_mlir.compile(MLP, target="tpu")
    with pytest.raises(wrapper_mlir.WrapperError, match="unknown plan_memory 'reuze'"):
        wrapper_mlir.compile(MLP, plan_memory="reuze")
    with pytest.raises(wrapper_mlir.WrapperError, match="tensor_program text"):
        wrapper_mlir.compile(object())


def test_unloadable_model_is_an_error(tmp_path):
    """A model.so that cannot be loaded (a library it needs is missing on
    this machine) is a WrapperError, which the torch.compile backend turns
    into an eager fallback, not a crash."""
    from wrapper_mlir._compile import CompiledModel

    bogus = tmp_path / "model.so"
    bogus.write_bytes(b"not an ELF file")
    with pytest.raises(wrapper_mlir.WrapperError, match="cannot load the compiled model"):
        CompiledModel(str(bogus), "", "", None)


ADD_DYNAMIC = """
func.func @main(%x: tensor<?x8xf32>, %y: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = tensor_program.add %x, %y : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
"""


def test_dynamic_sizes_must_agree():
    """Inputs whose dynamic sizes break a relation the code relies on are
    refused before anything is read (they used to read past the smaller
    input and return garbage)."""
    model = wrapper_mlir.compile(ADD_DYNAMIC)
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    (y,) = model(x, x)
    np.testing.assert_array_equal(y, x + x)
    with pytest.raises(wrapper_mlir.WrapperError,
                       match=r"input #1 dimension 0 \(3\) must equal input #0 dimension 0 \(4\)"):
        model(x, np.ones((3, 8), np.float32))
    with pytest.raises(wrapper_mlir.WrapperError, match="must equal"):
        model(np.ones((1, 8), np.float32), x)  # a dynamic 1 is not broadcast


def test_torch_cpu_tensors_in_and_out():
    """torch CPU tensors go straight into the call (no NumPy views): a
    transposed (non-contiguous) one, a bf16 one, zero rows, a mix with
    NumPy arrays; outputs are torch tensors equal to NumPy's sums, and a
    tensor of another dtype or rank than the program's is refused as with
    NumPy arrays."""
    torch = pytest.importorskip("torch")
    model = wrapper_mlir.compile(ADD_DYNAMIC)
    x = torch.arange(32, dtype=torch.float32).reshape(8, 4).t()  # 4x8, strided
    y = torch.ones(4, 8)
    (z,) = model(x, y)
    assert isinstance(z, torch.Tensor)
    np.testing.assert_array_equal(z.numpy(), x.numpy() + 1)
    (z,) = model(x, np.ones((4, 8), np.float32))  # mixed
    np.testing.assert_array_equal(np.asarray(z), x.numpy() + 1)
    (z,) = model(torch.ones(0, 8), torch.ones(0, 8))
    assert tuple(z.shape) == (0, 8)
    with pytest.raises(wrapper_mlir.WrapperError, match="must equal"):
        model(y, torch.ones(3, 8))
    with pytest.raises(wrapper_mlir.WrapperError):
        model(y.double(), y.double())
    half = wrapper_mlir.compile(ADD_DYNAMIC.replace("f32", "bf16"))
    a = torch.randn(3, 8).to(torch.bfloat16)
    (b,) = half(a, a)
    assert b.dtype == torch.bfloat16
    torch.testing.assert_close(b, a + a)


def test_torch_cpu_outputs_own_the_runtime_blocks():
    """Outputs to torch CPU tensors come through DLPack, all made by one
    runtime call (wrapper_dlpack_arrays): each tensor owns its block (no
    copy; freed when the tensor goes), for every dtype DLPack has, rank 0
    and empty ones; the NumPy views of a runtime without the call give the
    same values."""
    import ctypes
    import gc

    torch = pytest.importorskip("torch")
    model = wrapper_mlir.compile("""
func.func @main(%a: tensor<0x3xf32>, %b: tensor<f32>, %c: tensor<4xbf16>, %d: tensor<5xi64>,
                %e: tensor<2xi1>, %f: tensor<3x2xf16>)
    -> (tensor<0x3xf32>, tensor<f32>, tensor<4xbf16>, tensor<5xi64>, tensor<2xi1>, tensor<3x2xf16>) {
  %0 = tensor_program.neg %a : tensor<0x3xf32>
  %1 = tensor_program.neg %b : tensor<f32>
  %2 = tensor_program.neg %c : tensor<4xbf16>
  %3 = tensor_program.neg %d : tensor<5xi64>
  %4 = tensor_program.not %e : tensor<2xi1>
  %5 = tensor_program.neg %f : tensor<3x2xf16>
  return %0, %1, %2, %3, %4, %5 : tensor<0x3xf32>, tensor<f32>, tensor<4xbf16>, tensor<5xi64>, tensor<2xi1>, tensor<3x2xf16>
}""")
    inputs = [torch.randn(0, 3), torch.tensor(2.5), torch.randn(4).to(torch.bfloat16),
              torch.arange(5), torch.tensor([True, False]), torch.randn(3, 2).half()]
    expected = [-inputs[0], -inputs[1], -inputs[2], -inputs[3], ~inputs[4], -inputs[5]]
    lib = model._lib
    lib.wrapper_live_blocks.restype = ctypes.c_int64
    gc.collect()
    blocks = lib.wrapper_live_blocks()
    outputs = model(*inputs)
    assert model._dlpack_arrays is not None
    for got, want in zip(outputs, expected):
        assert got.dtype == want.dtype and got.shape == want.shape and got.is_contiguous()
        torch.testing.assert_close(got, want, rtol=0, atol=0)
    assert lib.wrapper_live_blocks() > blocks
    # The tensors own the blocks: writing one is seen by a view, and the
    # blocks go back when the tensors go.
    view = outputs[5].view(-1)
    outputs[5][0, 0] = 7
    assert view[0] == 7
    del outputs, view, got
    gc.collect()
    assert lib.wrapper_live_blocks() == blocks
    model._outputs_by_dlpack = False  # as for a package of an older runtime
    for got, want in zip(model(*inputs), expected):
        torch.testing.assert_close(got, want, rtol=0, atol=0)


def test_package_modules_import_without_cycles():
    """The package's modules form layers: the front (_api) above the torch
    path (_torch) above the text path (_compile); no module imports one that
    imports it back (statically, lazy imports inside functions included)."""
    import ast
    from pathlib import Path

    import wrapper_mlir

    root = Path(wrapper_mlir.__file__).parent
    modules = {}
    for path in root.rglob("*.py"):
        name = ".".join(path.relative_to(root).with_suffix("").parts)
        name = name.removesuffix(".__init__") if name != "__init__" else ""
        modules[name] = path
    edges = {name: set() for name in modules}
    for name, path in modules.items():
        package = name.split(".")[:-1] if not path.name == "__init__.py" else name.split(".")
        package = [p for p in package if p]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
                # `from . import x` imports the submodule x when there is one.
                submodules = [f"{target}.{a.name}".lstrip(".") for a in node.names]
                for found in [m for m in submodules if m in modules] or [target]:
                    if found in modules and found != name:
                        edges[name].add(found)
    # The package __init__ re-exports; cycles through it are not layering.
    edges.pop("", None)
    for targets in edges.values():
        targets.discard("")
    state = {}

    def visit(node, trail):
        state[node] = "open"
        for target in edges.get(node, ()):
            assert state.get(target) != "open", "import cycle: " + " -> ".join(trail + [target])
            if target not in state:
                visit(target, trail + [target])
        state[node] = "done"

    for name in edges:
        if name not in state:
            visit(name, [name])
    assert "_torch" in edges["_api"] and "_compile" in edges["_torch"]
    assert "_torch" not in edges["_compile"]


def test_explore_compares_strategies(tmp_path):
    # python -m wrapper_mlir.explore on a tensor_program file: one row per
    # strategy and planner, each correct against the reference interpreter,
    # with fewer kernels and fewer bytes moved for the fusing strategies
    # than for none; the bytes the runtime counted equal the estimate (a
    # static program, each call once); CSV, JSON and the PNG plot written;
    # unknown models refused.
    import csv
    import json
    import subprocess
    import sys

    program = tmp_path / "bias.mlir"
    program.write_text("""
func.func @main(%x: tensor<64x256xf32>, %b: tensor<256xf32>) -> (tensor<64xf32>, tensor<256xf32>) {
  %bb = tensor_program.broadcast %b : tensor<256xf32> -> tensor<64x256xf32>
  %y = tensor_program.mul %x, %bb : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32>
  %rows = tensor_program.reduce_sum %y dims [1] : tensor<64x256xf32> -> tensor<64xf32>
  %z = tensor_program.add %x, %bb : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32>
  %cols = tensor_program.reduce_max %z dims [0] : tensor<64x256xf32> -> tensor<256xf32>
  return %rows, %cols : tensor<64xf32>, tensor<256xf32>
}
""")
    command = [sys.executable, "-m", "wrapper_mlir.explore", str(program), "--fuse",
               "none,greedy,cost", "--plan", "reuse,pool", "--runs", "2", "--repeat", "2",
               "--csv", str(tmp_path / "out.csv"), "--json", str(tmp_path / "out.json"),
               "--plot", str(tmp_path / "out.png"), "--kernels", "2"]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = json.loads((tmp_path / "out.json").read_text())
    assert [(r["fuse"], r["plan"]) for r in rows] == [
        (f, p) for f in ("none", "greedy", "cost") for p in ("reuse", "pool")]
    assert all(r["max_error"] < 1e-5 for r in rows)
    # --repeat 2: two processes per cell, the median of their medians.
    assert all(len(r["run_ms_processes"]) == 2 and r["run_ms_min"] <= r["run_ms"] <= r["run_ms_max"]
               for r in rows)
    by = {(r["fuse"], r["plan"]): r for r in rows}
    # The elementwise ops read the broadcast's input (canonicalization): no
    # broadcast kernel even for none, and no [64, 256] value between the
    # fusing strategies' kernels.
    assert by["none", "reuse"]["kernels"] == 4 and by["greedy", "reuse"]["kernels"] == 2
    assert (by["cost", "reuse"]["bytes_estimated"] <= by["greedy", "reuse"]["bytes_estimated"]
            < by["none", "reuse"]["bytes_estimated"])
    # none: 4 calls; x and the 64x256 f32 values between them dominate.
    assert by["none", "reuse"]["bytes_estimated"] > 3 * 64 * 256 * 4
    assert all(r["bytes_measured"] == r["bytes_estimated"] for r in rows)
    # --kernels 2: each cell's two slowest kernels, named as in its IR, with
    # their ops and bytes; none's kernels are single ops.
    for r in rows:
        assert len(r["top_kernels"]) == 2
        assert all(k["kernel"].startswith("main_kernel_") and k["bytes"] > 0
                   for k in r["top_kernels"])
    assert all(len(k["ops"]) == 1 for k in by["none", "reuse"]["top_kernels"])
    assert all(len(k["ops"]) >= 2 for k in by["cost", "reuse"]["top_kernels"])
    assert (tmp_path / "out.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with open(tmp_path / "out.csv") as stream:
        assert len(list(csv.DictReader(stream))) == 6
    refused = subprocess.run([sys.executable, "-m", "wrapper_mlir.explore", "no-such-model",
                              "--runs", "1"], capture_output=True, text=True)
    assert refused.returncode == 1
    assert "is neither a tensor_program file nor a zoo model" in refused.stdout
    # Bad choices are refused before any cell runs, naming what is wrong.
    for flags, message in [
            (["--fuse", "greedy,bogus"], "unknown strategy 'bogus'; the registered strategies "
                                         "are cost, greedy, horizontal, none"),
            (["--plan", "bogus"], "--plan: unknown planner 'bogus'"),
            (["--target", "cuda"], "explore measures CPU models only"),
            (["--repeat", "0"], "must be at least 1")]:
        refused = subprocess.run([sys.executable, "-m", "wrapper_mlir.explore", str(program)]
                                 + flags, capture_output=True, text=True)
        assert refused.returncode == 2 and message in refused.stderr, (flags, refused.stderr)
        assert "model " not in refused.stdout  # no table started


def test_device_descriptors_match_their_fields():
    # The descriptors of a CUDA call's inputs (wrapper_strided_array, packed
    # in one call each) hold what setting each ctypes field gives: dtype,
    # rank, sizes and strides (zeros past the rank), data; allocated 0.
    torch = pytest.importorskip("torch")
    from wrapper_mlir import _compile
    from wrapper_mlir.importer.fallback import TORCH_DTYPE_CODES

    tensors = [torch.tensor(2.5), torch.arange(6, dtype=torch.int64),
               torch.ones(3, 4, dtype=torch.bfloat16).t(),
               torch.zeros(2, 3, 4, 5, dtype=torch.bool)[:, 1:],
               torch.randn(*([2] * _compile._MAX_RANK))]
    packed = _compile._strided_arrays(tensors)
    for slot, tensor in zip(packed, tensors):
        expected = _compile._StridedArray()
        expected.dtype = TORCH_DTYPE_CODES[tensor.dtype]
        expected.rank = tensor.dim()
        expected.shape[: tensor.dim()] = tensor.shape
        expected.strides[: tensor.dim()] = tensor.stride()
        expected.data = tensor.data_ptr()
        assert bytes(slot) == bytes(expected)
        assert slot.rank == tensor.dim() and slot.data == tensor.data_ptr()
