"""The public model zoo (tests/zoo.py) through wrapper_mlir.compile (dynamic
batch) and torch.compile(backend="wrapper") (a static graph, then a dynamic
one after the batch changes), with no fallback of any kind: every op is
compiled. Outputs equal eager PyTorch's within 1e-3 of each output's
largest magnitude."""

import os
import warnings

import pytest

if os.environ.get("WRAPPER_REQUIRE_TORCH"):
    import torch  # scripts/test.sh: a missing torch is a failure, not a skip
else:
    torch = pytest.importorskip("torch")
pytest.importorskip("torchvision")
pytest.importorskip("transformers")

import wrapper_mlir  # noqa: E402

from zoo import ZOO, build, tensors  # noqa: E402

NAMES = [name for name, _, _ in ZOO]


def assert_matches(got, expected, what):
    got, expected = tensors(got), tensors(expected)
    assert len(got) == len(expected), f"{what}: {len(got)} outputs, expected {len(expected)}"
    for index, (g, e) in enumerate(zip(got, expected)):
        assert g.shape == e.shape, f"{what} output #{index}: shape {g.shape}, expected {e.shape}"
        scale = float(e.abs().max()) if e.numel() else 0.0
        error = float((g.double() - e.double()).abs().max()) if e.numel() else 0.0
        assert error <= 1e-3 * max(scale, 1e-6), (
            f"{what} output #{index}: max error {error:.3g}, largest magnitude {scale:.3g}")


@pytest.mark.parametrize("name", NAMES)
def test_compile(name):
    model, inputs = build(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # no fallback, no warning
        compiled = wrapper_mlir.compile(model, inputs(2), dynamic_batch=True, fallback=False)
    assert not compiled.fallbacks
    assert compiled.inputs[0][1][0] is None, "the batch dimension should be dynamic"
    for batch in (2, 3):
        x = inputs(batch)
        with torch.no_grad():
            assert_matches(compiled(*x), model(*x), f"{name}: compile, batch {batch}")


@pytest.mark.parametrize("name", NAMES)
def test_bfloat16(name):
    """The model in bf16 (weights and inputs), compiled with no fallback:
    bf16 tensors in and out, products on the GEMM template (bf16 pairs
    with vdpbf16ps where the CPU has AVX512-BF16). bf16 is not exact, so
    both eager bf16 and the compiled model are measured against the f32
    model: the compiled error at most twice eager's plus 1e-3 of the
    output's largest magnitude (PyTorch's accuracy checker has the same
    shape of rule)."""
    import copy

    model, inputs = build(name)
    x = inputs(2)
    low = copy.deepcopy(model).to(torch.bfloat16)
    xb = [t.to(torch.bfloat16) if t.is_floating_point() else t for t in x]
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        compiled = wrapper_mlir.compile(low, xb, fallback=False)
    assert compiled.inputs[0][0] == ("bfloat16" if x[0].is_floating_point() else "int64")
    with torch.no_grad():
        reference, eager, got = tensors(model(*x)), tensors(low(*xb)), tensors(compiled(*xb))
    for index, (r, e, g) in enumerate(zip(reference, eager, got)):
        assert g.dtype == e.dtype, f"{name} output #{index}: {g.dtype}, eager {e.dtype}"
        scale = float(r.abs().max())
        eager_error = float((e.double() - r.double()).abs().max())
        error = float((g.double() - r.double()).abs().max())
        assert error <= 2 * eager_error + 1e-3 * scale, (
            f"{name} output #{index}: bf16 error {error:.3g} against f32, "
            f"eager bf16's {eager_error:.3g}")


@pytest.mark.parametrize("name", NAMES)
def test_torch_compile(name):
    model, inputs = build(name)
    wrapper_mlir.register_backend()
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="wrapper", options={"fallback": False})
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # an eager fallback fails the test
        for batch in (2, 3):  # a static graph, then a dynamic one
            x = inputs(batch)
            assert_matches(compiled(*x), model(*x), f"{name}: torch.compile, batch {batch}")


@pytest.mark.parametrize("name", NAMES)
def test_swappable_package(name, tmp_path):
    """The model as a swappable package (parameters as inputs, their
    computation in the prepare library), loaded from the file, at another
    batch; then every parameter scaled by a swap, against eager with the
    scaled parameters."""
    model, inputs = build(name)
    path = wrapper_mlir.package(model, inputs(2), tmp_path / f"{name}.wpkg",
                                dynamic_batch=True, swappable=True)
    loaded = wrapper_mlir.load(path)
    x = inputs(3)
    with torch.no_grad():
        assert_matches(loaded(*x), model(*x), f"{name}: swappable package, batch 3")
        scaled = {k: v * 0.9 if v.is_floating_point() else v
                  for k, v in model.state_dict().items() if k in loaded.weights}
        loaded.swap_weights(scaled)
        model.load_state_dict(scaled, strict=False)
        assert_matches(loaded(*x), model(*x), f"{name}: after swapping every parameter")


@pytest.mark.parametrize("name", ["bert", "squeezenet1_1"])
def test_training_compiles(name):
    """A training step of zoo models in train mode (dropout, embedding and
    layer-norm backward in bert; convolutions, pooling and dropout in
    squeezenet): forward and backward graphs compiled with no fallback of
    any kind, gradients finite and the same from two calls with the same
    torch seed."""
    model, inputs = build(name)
    model.train()
    wrapper_mlir.register_backend()
    torch._dynamo.reset()
    wrapper_mlir.reset_stats()
    compiled = torch.compile(model, backend="wrapper", options={"fallback": False})
    x = inputs(2)
    grads = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        for _ in range(2):
            torch.manual_seed(7)
            loss = sum(o.float().square().mean() for o in tensors(compiled(*x))
                       if o.is_floating_point())
            loss.backward()
            grads.append([p.grad.clone() for p in model.parameters() if p.grad is not None])
            model.zero_grad()
    assert grads[0] and all(torch.isfinite(g).all() for g in grads[0])
    for a, b in zip(*grads):
        torch.testing.assert_close(a, b)
    stats = wrapper_mlir.stats()
    assert stats["compiled"]["forward"] == 1 and stats["compiled"]["backward"] == 1
    assert stats["graph_fallbacks"] == {} and stats["op_fallbacks"] == {}
