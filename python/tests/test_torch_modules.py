"""torch modules compiled by wrapper_mlir.compile and by the torch.compile
backend, compared with eager PyTorch; the imported tensor_program is also
run by the NumPy reference interpreter, which must agree with eager too (so
a wrong import and a wrong compilation are told apart)."""

import os
import warnings

import numpy as np
import pytest

if os.environ.get("WRAPPER_REQUIRE_TORCH"):
    import torch  # scripts/test.sh: a missing torch is a failure, not a skip
else:
    torch = pytest.importorskip("torch")

import wrapper_mlir  # noqa: E402
from wrapper_mlir.interpreter import interpret  # noqa: E402

from modules import MODULES, build  # noqa: E402

TOLERANCE = dict(rtol=2e-4, atol=2e-5)


def as_tuple(value):
    return value if isinstance(value, (tuple, list)) else (value,)


def eager(module, inputs):
    with torch.no_grad():
        return as_tuple(module(*inputs))


def assert_close(got, expected, what):
    got, expected = as_tuple(got), as_tuple(expected)
    assert len(got) == len(expected), what
    for index, (g, e) in enumerate(zip(got, expected)):
        g = g.detach().numpy() if isinstance(g, torch.Tensor) else np.asarray(g)
        e = e.detach().numpy()
        assert g.shape == e.shape, f"{what} output #{index}: shape {g.shape}, expected {e.shape}"
        np.testing.assert_allclose(g.astype(np.float64), e.astype(np.float64),
                                   err_msg=f"{what} output #{index}", **TOLERANCE)


@pytest.mark.parametrize("name", [m[0] for m in MODULES])
def test_module_against_eager(name):
    entry = next(m for m in MODULES if m[0] == name)
    _, _, make_inputs, dynamic = entry
    module = build(name)
    torch.manual_seed(1)
    inputs = make_inputs(4)
    expected = eager(module, inputs)

    model = wrapper_mlir.compile(module, inputs, dynamic_batch=dynamic, fallback=False)
    imported = model.imported
    reference = interpret(imported.text, [inputs[i].numpy() for i in imported.arguments],
                          weights=imported.weights)
    assert_close(reference, expected, f"{name}: NumPy interpreter")

    result = model(*inputs)
    assert all(isinstance(r, torch.Tensor) for r in as_tuple(result))
    assert_close(result, expected, f"{name}: compiled")

    if dynamic:
        # The same compiled model at other batch sizes.
        for batch in (1, 9):
            other = make_inputs(batch)
            assert_close(model(*other), eager(module, other), f"{name}: compiled, batch {batch}")
        assert model.inputs[0][1][0] is None, "dimension 0 should be dynamic"


def test_numpy_inputs_give_numpy_outputs():
    module = build("mlp")
    x = torch.randn(3, 64)
    model = wrapper_mlir.compile(module, [x])
    (out,) = model.compiled(x.numpy())
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, eager(module, [x])[0].numpy(), **TOLERANCE)


def test_outputs_share_memory_with_the_model_buffers():
    """Outputs come back without a copy: a torch tensor over the NumPy
    array over the model's buffer."""
    module = build("mlp")
    x = torch.randn(2, 64)
    model = wrapper_mlir.compile(module, [x])
    out = model(x)
    (array,) = model.compiled(x.numpy())
    again = torch.from_numpy(array)
    assert again.data_ptr() == array.ctypes.data
    assert out.is_contiguous()


def test_bfloat16_tensors_in_and_out():
    """bf16 tensors go in and come out without a copy or a NumPy type (their
    bits as int16, viewed as bf16 by torch), from compile() and from the
    torch.compile backend; NumPy, which has no bf16, gets an error naming
    the dtypes."""
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(64, 96), torch.nn.GELU(),
                              torch.nn.Linear(96, 32)).eval().to(torch.bfloat16)
    x = torch.randn(8, 64, dtype=torch.bfloat16)
    model = wrapper_mlir.compile(net, [x], dynamic_batch=True, fallback=False)
    assert model.inputs == [("bfloat16", (None, 64))]
    assert model.outputs == [("bfloat16", (None, 32))]
    transposed = torch.randn(64, 5, dtype=torch.bfloat16).t()  # not contiguous
    for value in (x, transposed):
        with torch.no_grad():
            expected = net(value)
        got = model(value)
        assert got.dtype == torch.bfloat16 and got.shape == expected.shape
        torch.testing.assert_close(got, expected, rtol=2e-2, atol=2e-2)
    with pytest.raises(wrapper_mlir.WrapperError,
                       match="input arg0 has dtype float32, expected bfloat16"):
        model.compiled(x.float().numpy())
    wrapper_mlir.register_backend()
    torch._dynamo.reset()
    wrapper_mlir.reset_stats()
    compiled = torch.compile(net, backend="wrapper", options={"fallback": False})
    with torch.no_grad():
        got = compiled(x)
    assert got.dtype == torch.bfloat16
    torch.testing.assert_close(got, net(x), rtol=2e-2, atol=2e-2)
    stats = wrapper_mlir.stats()
    assert stats["compiled"]["inference"] == 1 and not stats["graph_fallbacks"]


def test_ir_stages():
    module = build("gelu_mlp")
    x = torch.randn(2, 5, 48)
    model = wrapper_mlir.compile(module, [x])
    assert "aten.addmm" in model.ir("aten")
    source = model.ir("source")
    assert "dense_resource" in source and 'dense<"0x' not in source  # weights are not text
    assert "tensor_program.linear" in source and "gelu" in source and "approximate tanh" in source
    assert "wrapper.call" in model.ir("frontend")
    assert "llvm.func" in model.ir("llvm")


@pytest.mark.parametrize("name", [m[0] for m in MODULES])
def test_dynamo_backend_matches_eager(name):
    """Dynamo's graphs (parameters as inputs, torch._C spellings, size
    symbols after a second batch size) through the backend, never falling
    back to eager."""
    wrapper_mlir.register_backend()
    module = build(name)
    entry = next(m for m in MODULES if m[0] == name)
    inputs = entry[2](3)
    torch._dynamo.reset()
    compiled = torch.compile(module, backend="wrapper", options={"fallback": False})
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # an eager fallback fails the test
        result = compiled(*inputs)
        assert_close(result, eager(module, inputs), f"{name}: torch.compile backend")
        # Another batch: a recompiled (dynamic or specialized) graph.
        other = entry[2](5)
        assert_close(compiled(*other), eager(module, other), f"{name}: torch.compile, batch 5")


class Unsupported(torch.nn.Module):
    """logcumsumexp is a core ATen op outside the importer's table (and outside
    PyTorch's decompositions)."""

    def forward(self, x):
        return torch.logcumsumexp(x.relu() + 1.0, dim=1) * 2.0


def test_backend_without_fallback_runs_the_graph_eagerly_with_a_warning():
    wrapper_mlir.register_backend()
    torch._dynamo.reset()
    module = Unsupported()
    x = torch.rand(4, 5)
    compiled = torch.compile(module, backend="wrapper", options={"fallback": False})
    with pytest.warns(UserWarning, match=r"running the inference graph eagerly: .*logcumsumexp.*at node 'logcumsumexp'"):
        result = compiled(x)
    torch.testing.assert_close(result, module(x))


def test_per_op_fallback_keeps_the_rest_compiled():
    """An op outside the table runs in PyTorch on its own (a proxy call);
    the ops around it stay compiled, through compile() and the backend."""
    module = Unsupported()
    x = torch.rand(4, 5)
    with pytest.warns(UserWarning, match=r"'aten.logcumsumexp.default' at node 'logcumsumexp' runs in PyTorch"):
        model = wrapper_mlir.compile(module, [x], dynamic_batch=True)
    source = model.ir("source")
    assert 'tensor_program.extern "proxy::' in source
    assert "tensor_program.relu" in source and "tensor_program.mul" in source
    assert [node.name for node, _ in model.fallbacks] == ["logcumsumexp"]
    for batch in (4, 7):
        x = torch.rand(batch, 5)
        torch.testing.assert_close(model(x), module(x))
    wrapper_mlir.register_backend()
    torch._dynamo.reset()
    compiled = torch.compile(module, backend="wrapper")
    with pytest.warns(UserWarning, match=r"logcumsumexp.*runs in PyTorch"):
        torch.testing.assert_close(compiled(x), module(x))


def test_proxy_failures_are_errors_not_crashes():
    """A fallback op that raises in PyTorch gives the model's error (the
    process goes on), and the next call works."""
    class Raises(torch.nn.Module):
        def forward(self, x):
            return torch.logcumsumexp(x, 0) + 1

    model = wrapper_mlir.compile(Raises(), [torch.rand(3)], fallback=True)
    from wrapper_mlir.importer import fallback

    # The latest such call (other tests registered their own before).
    key = [k for k, v in fallback._calls.items() if v.name.endswith("'logcumsumexp'")][-1]
    good = fallback._calls[key].target
    fallback._calls[key].target = lambda *a: (_ for _ in ()).throw(ValueError("injected"))
    try:
        with pytest.raises(wrapper_mlir.WrapperError, match=r"logcumsumexp.*failed in PyTorch: ValueError: injected"):
            model(torch.rand(3))
    finally:
        fallback._calls[key].target = good
    x = torch.rand(3)
    torch.testing.assert_close(model(x), torch.logcumsumexp(x, 0) + 1)


def test_unsupported_operation_names_the_op_and_node():
    with pytest.raises(wrapper_mlir.WrapperError,
                       match=r"unsupported operation 'aten.logcumsumexp.default' at node 'logcumsumexp'"):
        wrapper_mlir.compile(Unsupported(), [torch.rand(4, 5)], fallback=False)


class Training(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.dropout(x, 0.5, training=True)


class Cumprod(torch.nn.Module):
    def forward(self, x):
        return torch.logcumsumexp(x, 0)


def test_explicit_training_mode_dropout_is_compiled():
    """dropout(training=True) written in the model: random numbers drawn
    by the program (seeded from PyTorch's generator), each element zero or
    doubled, about half of them kept."""
    x = torch.rand(20000) + 1.0
    model = wrapper_mlir.compile(Training(), [x], fallback=False)
    y = model(x)
    kept = y != 0
    torch.testing.assert_close(y[kept], 2 * x[kept])
    assert 0.48 < kept.float().mean().item() < 0.52
    torch.manual_seed(3)
    first = model(x)
    torch.manual_seed(3)
    assert torch.equal(first, model(x))


def test_refusals():
    with pytest.raises(wrapper_mlir.WrapperError, match="logcumsumexp"):
        wrapper_mlir.compile(Cumprod(), [torch.rand(3)], fallback=False)
    with pytest.raises(wrapper_mlir.WrapperError, match="example_inputs"):
        wrapper_mlir.compile(build("mlp"), None)
    with pytest.raises(wrapper_mlir.WrapperError, match="unknown target 'tpu'"):
        wrapper_mlir.compile(build("mlp"), [torch.rand(2, 64)], target="tpu")
    with pytest.raises(wrapper_mlir.WrapperError, match="graph must be tensor_program text"):
        wrapper_mlir.compile(lambda x: x, [torch.rand(2)])
    with pytest.raises(wrapper_mlir.WrapperError, match="unknown option 'bogus'; known options: parallel"):
        wrapper_mlir._torch.check_options({"bogus": 1}, "test")
    with pytest.raises(wrapper_mlir.WrapperError, match="entry= names a function"):
        wrapper_mlir.compile(build("mlp"), [torch.rand(2, 64)], entry="f")
    # A view that hard-codes the batch keeps it static, and the model
    # refuses another.
    class Hardcoded(torch.nn.Module):
        def forward(self, x):
            return x.view(4, 2, 3)
    model = wrapper_mlir.compile(Hardcoded(), [torch.rand(4, 6)], dynamic_batch=True)
    with pytest.raises(wrapper_mlir.WrapperError, match="dimension 0 is 5, expected 4"):
        model(torch.rand(5, 6))


def test_call_structures():
    """A compiled module's calls with plain positional tensors skip pytree
    (TorchModel's fast path) and return what eager returns: one tensor, a
    tuple of them, or a dict (through pytree); keyword arguments, tensor
    subclasses and a wrong argument count take the general path."""
    class Pair(torch.nn.Module):
        def forward(self, x, y):
            return x + y, x * y

    class Single(torch.nn.Module):
        def forward(self, x, scale=None):
            return x * 2 if scale is None else x * scale

    class Named(torch.nn.Module):
        def forward(self, x):
            return {"a": x + 1, "b": x - 1}

    x, y = torch.rand(3, 4), torch.rand(3, 4)
    pair = wrapper_mlir.compile(Pair().eval(), [x, y])
    got = pair(x, y)
    assert isinstance(got, tuple) and len(got) == 2
    assert_close(got, eager(Pair(), [x, y]), "pair")
    single = wrapper_mlir.compile(Single().eval(), [x])
    out = single(x)
    assert isinstance(out, torch.Tensor)
    assert_close(out, x * 2, "single")
    # A parameter (a tensor subclass) as the input: the general path.
    assert_close(single(torch.nn.Parameter(x, requires_grad=False)), x * 2, "parameter input")
    with pytest.raises(wrapper_mlir.WrapperError, match="structure the model was exported"):
        single(x, x)
    named = wrapper_mlir.compile(Named().eval(), [x])
    result = named(x)
    assert isinstance(result, dict) and sorted(result) == ["a", "b"]
    assert_close(result["a"], x + 1, "named a")
    kw = wrapper_mlir.compile(Single().eval(), [], example_kwargs={"x": x})
    assert_close(kw(x=x), x * 2, "keyword call")


def test_training_mode_module_is_compiled_in_eval_mode():
    module = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.5))
    x = torch.rand(3, 4)
    with pytest.warns(UserWarning, match="training mode"):
        model = wrapper_mlir.compile(module, [x])
    assert module.training  # left as it was
    module.eval()
    torch.testing.assert_close(model(x), module(x))


def test_backend_options_are_checked():
    wrapper_mlir.register_backend()
    torch._dynamo.reset()
    compiled = torch.compile(build("mlp"), backend="wrapper", options={"plan_memroy": "pool"})
    with pytest.raises(Exception, match="unknown option 'plan_memroy'; known options"):
        compiled(torch.rand(2, 64))
    torch._dynamo.reset()
    compiled = torch.compile(build("mlp"), backend="wrapper", options={"plan_memory": "pool"})
    with torch.no_grad():
        x = torch.rand(2, 64)
        assert_close(compiled(x), eager(build("mlp"), [x]), "options={'plan_memory': 'pool'}")


def test_modified_parameters_are_detected():
    module = build("mlp")
    x = torch.randn(2, 64)
    model = wrapper_mlir.compile(module, [x])
    with torch.no_grad():
        module.net[0].weight.mul_(2.0)
    with pytest.raises(wrapper_mlir.WrapperError, match="modified after compilation"):
        model(x)


def test_backend_recompiles_after_a_parameter_changes():
    wrapper_mlir.register_backend()
    torch._dynamo.reset()
    module = build("mlp")
    x = torch.randn(2, 64)
    compiled = torch.compile(module, backend="wrapper")
    with torch.no_grad():
        compiled(x)
        module.net[2].bias.add_(1.0)
        assert_close(compiled(x), eager(module, [x]), "after an in-place parameter update")


def test_getting_started_example_runs():
    """The example of docs/GettingStarted.md, as a user runs it."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, str(root / "examples" / "torch_module.py")],
                            capture_output=True, text=True, env=dict(os.environ))
    assert result.returncode == 0, result.stderr[-2000:]
    assert "batch 3: matches eager" in result.stdout
    assert "torch.compile(backend='wrapper'): matches eager" in result.stdout


def test_explain_lists_ops_and_fallbacks():
    """explain() reports each ATen op, what it became and what would run
    in PyTorch, through torch.export and through Dynamo, compiling
    nothing."""
    for mode in ("export", "dynamo"):
        report = wrapper_mlir.explain(Unsupported(), [torch.rand(3, 4)], mode=mode)
        text = str(report)
        assert "1 graph(s)" in text and "1 would run in PyTorch" in text, text
        assert "aten.relu.default" in text and "compiled (relu)" in text, text
        assert "fallback: aten.logcumsumexp.default at node 'logcumsumexp'" in text, text
        assert [f[1] for f in report.fallbacks] == ["aten.logcumsumexp.default"]
    clean = wrapper_mlir.explain(build("mlp"), [torch.rand(2, 64)])
    assert not clean.fallbacks and "0 would run in PyTorch" in str(clean)


@torch.library.custom_op("wrapper_test::shifted_sigmoid", mutates_args=())
def shifted_sigmoid(x: torch.Tensor, shift: float) -> torch.Tensor:
    return torch.sigmoid(x - shift)


@shifted_sigmoid.register_fake
def _(x, shift):
    return torch.empty_like(x)


class UsesCustomOp(torch.nn.Module):
    def forward(self, x):
        return shifted_sigmoid(x * 2, 0.5) + 1


def test_custom_ops_run_in_pytorch():
    """A torch.library custom op is outside the table: it runs in PyTorch
    (a proxy call with its non-tensor arguments), the rest compiled."""
    module = UsesCustomOp()
    x = torch.rand(3, 4)
    with pytest.warns(UserWarning, match=r"wrapper_test.shifted_sigmoid.default.*runs in PyTorch"):
        model = wrapper_mlir.compile(module, [x], dynamic_batch=True)
    for batch in (3, 6):
        x = torch.rand(batch, 4)
        torch.testing.assert_close(model(x), module(x))


class PairwiseSum(torch.nn.Module):
    def forward(self, x, y):
        return x.relu() + y


def test_exported_dims_are_checked_at_run_time():
    """torch.export's Dims become checks of the compiled model: inputs that
    share a Dim must agree, and each stays in its range, with messages
    naming the input and dimension."""
    from torch.export import Dim

    batch = Dim("batch", min=2, max=8)
    program = torch.export.export(PairwiseSum(), (torch.rand(4, 3), torch.rand(4, 3)),
                                  dynamic_shapes=({0: batch}, {0: batch}))
    model = wrapper_mlir.compile(program)
    x = torch.rand(5, 3)
    torch.testing.assert_close(model(x, x), PairwiseSum()(x, x))
    with pytest.raises(wrapper_mlir.WrapperError,
                       match=r"input 'y' dimension 0 \(6\) must equal input 'x' dimension 0 \(5\), "
                             r"as the inputs share the size"):
        model(x, torch.rand(6, 3))
    with pytest.raises(wrapper_mlir.WrapperError,
                       match=r"input 'x' dimension 0 \(9\) must not exceed 8, as the size '.*' "
                             r"ranges over \[2, 8\]"):
        big = torch.rand(9, 3)
        model(big, big)


def test_tensors_made_in_the_graph_compile():
    """torch.tensor / torch.as_tensor in forward (raft's and SSD's
    normalization constants) are lifted constants of Dynamo's graph; they
    stay so under the decompositions beyond the core set (decomposing
    `lift_fresh` made AOTAutograd fail on a real tensor in fake mode)."""
    class Normalize(torch.nn.Module):
        def forward(self, x):
            mean = torch.as_tensor([0.5, 0.25, 0.125], dtype=x.dtype)
            return (x - mean[:, None, None]) * torch.tensor(128.0) / torch.tensor(3)

    wrapper_mlir.register_backend()
    torch._dynamo.reset()
    wrapper_mlir.reset_stats()
    x = torch.randn(2, 3, 4, 4)
    compiled = torch.compile(Normalize(), backend="wrapper")
    torch.testing.assert_close(compiled(x), Normalize()(x))
    stats = wrapper_mlir.stats()
    assert stats["compiled"]["inference"] == 1 and not stats["graph_fallbacks"], stats


def test_integer_argument_no_tensor_has_compiles():
    """An int argument that changes between calls is a SymInt of Dynamo's
    graph that no input tensor has as a dimension: the program takes it as
    the length of a carrier tensor, used as a size (a slice's end) and as a
    number. A negative value, which no length can carry, runs eagerly."""
    class Slice(torch.nn.Module):
        def forward(self, x, n):
            return (x[:, :n] * 2).relu() + n

    wrapper_mlir.register_backend()
    torch._dynamo.reset()
    wrapper_mlir.reset_stats()
    model = Slice()
    compiled = torch.compile(model, backend="wrapper")
    x = torch.randn(4, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in (3, 5, 7, 0):
            torch.testing.assert_close(compiled(x, n), model(x, n))
    stats = wrapper_mlir.stats()
    # n = 3 specialized, then one dynamic graph for 5 and 7 (Dynamo
    # specializes 0 again).
    assert stats["compiled"]["inference"] == 3, stats
    assert not stats["graph_fallbacks"], stats["graph_fallbacks"]

    class Scale(torch.nn.Module):
        def forward(self, x, n):
            return x * n + 1

    torch._dynamo.reset()
    compiled = torch.compile(Scale(), backend="wrapper")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in (3, 5, -7):
            torch.testing.assert_close(compiled(x, n), x * n + 1)
    assert any("calls with a negative value run eagerly" in str(w.message) for w in caught)


def test_graph_returning_a_size_it_takes_compiles():
    """After a graph break, Dynamo's graphs take sizes (SymInts) with the
    tensors and may return them as they are: the compiled graph hands the
    caller's size back (it used to run eagerly, 'output ... is a symbolic
    size')."""
    def f(x):
        n = x.shape[0]
        y = x * 2
        torch._dynamo.graph_break()
        return y + n, n

    wrapper_mlir.register_backend()
    torch._dynamo.reset()
    wrapper_mlir.reset_stats()
    compiled = torch.compile(f, backend="wrapper", dynamic=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for batch in (3, 5):
            y, n = compiled(torch.ones(batch, 2))
            assert n == batch
            torch.testing.assert_close(y, torch.full((batch, 2), 2.0 + batch))
    stats = wrapper_mlir.stats()
    assert stats["compiled"]["inference"] >= 1
    assert not any("is a symbolic size" in reason and "output" in reason
                   for reason in stats["graph_fallbacks"]), stats["graph_fallbacks"]


def test_padding_by_symbolic_sizes():
    """constant_pad_nd by amounts that are size expressions (a convolution
    backward's under dynamic shapes): blocks of the value joined on before
    and after, for every shape, against eager; an amount that may be
    negative is refused with its expression (and runs in PyTorch)."""
    def f(x):
        return torch.nn.functional.pad(x, (x.shape[0], x.shape[1] - 1), value=2.5) * 2

    def h(x):  # a strided convolution backward's amount: (a - 3) mod 2 + 2 for a = n // 2
        a = x.shape[1] // 2
        return torch.nn.functional.pad(x, (0, a - 2 * ((a - 3) // 2) - 1)) - 1

    def g(x):
        return torch.nn.functional.pad(x, (0, x.shape[1] - x.shape[0])) + 1

    wrapper_mlir.register_backend()
    torch._dynamo.reset()
    wrapper_mlir.reset_stats()
    compiled = torch.compile(f, backend="wrapper", dynamic=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # compiled, no fallback
        for shape in [(2, 3), (4, 5), (3, 9)]:
            x = torch.randn(*shape)
            torch.testing.assert_close(compiled(x), f(x))
        torch._dynamo.reset()
        strided = torch.compile(h, backend="wrapper", dynamic=True)
        for shape in [(2, 9), (3, 12), (4, 14)]:
            x = torch.randn(*shape)
            torch.testing.assert_close(strided(x), h(x))
    torch._dynamo.reset()
    refused = torch.compile(g, backend="wrapper", dynamic=True)
    with pytest.warns(UserWarning, match="may be negative"):
        x = torch.randn(4, 6)
        torch.testing.assert_close(refused(x), g(x))
