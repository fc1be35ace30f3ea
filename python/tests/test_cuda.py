"""target="cuda": models compiled by --wrapper-cuda-pipeline into a CUDA
model.so. Without a GPU (CI), compiling works and creating the model says
why it cannot run; on a GPU, the outputs match NumPy and eager PyTorch."""

import os

import numpy as np
import pytest

import wrapper_mlir

from test_compile import mlp_reference  # the same MLP's float64 reference

MLP = """
func.func @main(%x: tensor<?x64xf32>, %w1: tensor<96x64xf32>, %b1: tensor<96xf32>,
                %w2: tensor<32x96xf32>, %b2: tensor<32xf32>) -> (tensor<?x32xf32>, tensor<?xf32>) {
  %h = tensor_program.linear %x, %w1 bias %b1 : (tensor<?x64xf32>, tensor<96x64xf32>, tensor<96xf32>) -> tensor<?x96xf32>
  %g = tensor_program.gelu %h : tensor<?x96xf32>
  %o = tensor_program.linear %g, %w2 bias %b2 : (tensor<?x96xf32>, tensor<32x96xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  %s = tensor_program.softmax %o dim 1 : tensor<?x32xf32>
  %m = tensor_program.reduce_max %s dims [1] : tensor<?x32xf32> -> tensor<?xf32>
  return %o, %m : tensor<?x32xf32>, tensor<?xf32>
}
"""

NO_GPU = "this model runs on CUDA: CUDA is not available"


def _compile_or_skip(graph, *args, **kwargs):
    """The compiled CUDA model; without a GPU, checks the refusal and skips."""
    try:
        return wrapper_mlir.compile(graph, *args, target="cuda", **kwargs)
    except wrapper_mlir.WrapperError as error:
        if NO_GPU in str(error) and not os.environ.get("WRAPPER_REQUIRE_CUDA"):
            pytest.skip(f"no GPU: {error}")
        raise


def test_without_gpu_creating_the_model_says_why():
    if os.environ.get("WRAPPER_REQUIRE_CUDA"):
        pytest.skip("a GPU is present")
    try:
        wrapper_mlir.compile(MLP, target="cuda")
    except wrapper_mlir.WrapperError as error:
        assert NO_GPU in str(error)
    else:  # a machine with a GPU but WRAPPER_REQUIRE_CUDA unset
        pass


def test_unknown_target():
    with pytest.raises(wrapper_mlir.WrapperError, match="unknown target 'tpu'"):
        wrapper_mlir.compile(MLP, target="tpu")


@pytest.mark.parametrize("batch", [1, 37])
def test_mlp_on_gpu_matches_numpy(batch):
    model = _compile_or_skip(MLP)
    assert model.target == "cuda"
    rng = np.random.default_rng(batch)
    x = rng.standard_normal((batch, 64), dtype=np.float32)
    w1 = rng.standard_normal((96, 64), dtype=np.float32) * 0.1
    b1 = rng.standard_normal(96, dtype=np.float32)
    w2 = rng.standard_normal((32, 96), dtype=np.float32) * 0.1
    b2 = rng.standard_normal(32, dtype=np.float32)
    out, top = model(x, w1, b1, w2, b2)
    o = mlp_reference(x, w1, b1, w2, b2)
    e = np.exp(o - o.max(axis=1, keepdims=True))
    s = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out, o, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(top, s.max(axis=1), rtol=1e-4, atol=1e-5)


def test_torch_modules_on_gpu():
    torch = pytest.importorskip("torch")
    from modules import MODULES, build

    if not torch.cuda.is_available():
        _compile_or_skip(MLP)  # checks the refusal, then skips
        pytest.skip("torch sees no GPU")
    failures = []
    for name, _, make_inputs, _ in MODULES:
        module = build(name).cuda()
        inputs = [t.cuda() for t in make_inputs(3)]
        try:
            model = wrapper_mlir.compile(module, inputs, target="cuda")
        except wrapper_mlir.WrapperError as error:
            failures.append(f"{name}: {error}")
            continue
        with torch.no_grad():
            expected = module(*inputs)
        got = model(*inputs)
        expected = expected if isinstance(expected, (tuple, list)) else (expected,)
        got = got if isinstance(got, (tuple, list)) else (got,)
        for g, e in zip(got, expected):
            assert g.device.type == "cuda", name
            torch.testing.assert_close(g.float(), e.float(), rtol=2e-4, atol=2e-4,
                                       msg=lambda m: f"{name}: {m}")
    # Every module imports to tensor_program ops (convolution, take, the
    # fused attention and rms_norm kernels of CUDA's dispatch included), all
    # of which the CUDA pipeline lowers.
    assert not failures, "\n".join(failures)


def test_target_follows_the_example_inputs_device():
    """Without target=, compile() and torch.compile(backend="wrapper") pick
    "cuda" for CUDA example inputs (and "cpu" for CPU ones)."""
    torch = pytest.importorskip("torch")
    import warnings

    from modules import build

    cpu_model = wrapper_mlir.compile(build("mlp").eval(), [torch.randn(3, 64)])
    assert cpu_model.compiled.target == "cpu"
    if not torch.cuda.is_available():
        _compile_or_skip(MLP)  # checks the refusal, then skips
        pytest.skip("torch sees no GPU")
    module = build("mlp").cuda().eval()
    x = torch.randn(3, 64, device="cuda")
    model = wrapper_mlir.compile(module, [x])
    assert model.compiled.target == "cuda"
    wrapper_mlir.register_backend()  # torch was imported after wrapper_mlir
    torch._dynamo.reset()
    compiled = torch.compile(module, backend="wrapper")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # an eager fallback fails the test
        with torch.no_grad():
            got = compiled(x)
            expected = module(x)
    assert got.device.type == "cuda"
    torch.testing.assert_close(got, expected, rtol=2e-4, atol=2e-4)
    torch.testing.assert_close(model(x), expected, rtol=2e-4, atol=2e-4)
