"""Training through torch.compile(backend="wrapper"): AOTAutograd's forward
and backward graphs compiled, parameters and buffers after optimizer steps
against eager PyTorch, the training decompositions against ATen's kernels,
input mutations, and wrapper_mlir.stats()."""

import copy
import itertools
import os
import re
import warnings

import pytest

torch = pytest.importorskip("torch")
import wrapper_mlir  # noqa: E402
from wrapper_mlir.importer.attention import attention, attention_backward  # noqa: E402
from wrapper_mlir.importer.training import (  # noqa: E402
    avg_pool2d_backward, convolution_backward, max_pool2d_with_indices_backward)

aten = torch.ops.aten
nn = torch.nn


def _devices():
    """The CPU, and CUDA where PyTorch sees a GPU (required, not skipped,
    under WRAPPER_REQUIRE_CUDA)."""
    cuda = torch.cuda.is_available() or bool(os.environ.get("WRAPPER_REQUIRE_CUDA"))
    return ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
        not cuda, reason="no CUDA device"))]


@pytest.fixture(autouse=True)
def fresh():
    torch._dynamo.reset()
    wrapper_mlir.reset_stats()
    yield
    torch._dynamo.reset()


def _optimizer(kind, parameters):
    if kind == "sgd":
        return torch.optim.SGD(parameters, lr=0.05, momentum=0.9)
    return torch.optim.AdamW(parameters, lr=1e-3)


def _train(model, inputs, targets, loss_fn, optimizer, steps, compiled):
    call = torch.compile(model, backend="wrapper") if compiled else model
    opt = _optimizer(optimizer, model.parameters())
    losses = []
    for _ in range(steps):
        loss = loss_fn(call(inputs), targets)
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(loss.item())
    return losses


def _relative(a, b):
    return ((a - b).abs().max() / (b.abs().max() + 1e-12)).item()


def _check_training(model, inputs, targets, loss_fn, optimizer, steps=5, tolerance=1e-4,
                    device="cpu"):
    model = model.to(device).train()
    inputs, targets = inputs.to(device), targets.to(device)
    ours, eager = copy.deepcopy(model), copy.deepcopy(model)
    released = wrapper_mlir.cuda_stats()["released_early"] if device == "cuda" else 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no graph or op runs in PyTorch
        our_losses = _train(ours, inputs, targets, loss_fn, optimizer, steps, True)
    if device == "cuda":
        # The backward freed the activations the forward saved for it at
        # their last use, every step.
        assert wrapper_mlir.cuda_stats()["released_early"] - released >= steps
    eager_losses = _train(eager, inputs, targets, loss_fn, optimizer, steps, False)
    assert our_losses == pytest.approx(eager_losses, rel=tolerance, abs=tolerance)
    for (name, a), b in zip(ours.named_parameters(), eager.parameters()):
        assert _relative(a, b) < tolerance, name
    for (name, a), b in zip(ours.named_buffers(), eager.buffers()):
        if a.dtype.is_floating_point:
            assert _relative(a, b) < tolerance, name
        else:
            assert torch.equal(a, b), name
    stats = wrapper_mlir.stats()
    assert stats["compiled"]["forward"] >= 1 and stats["compiled"]["backward"] >= 1
    assert stats["graph_fallbacks"] == {} and stats["op_fallbacks"] == {}


@pytest.mark.parametrize("device", _devices())
@pytest.mark.parametrize("optimizer", ["sgd", "adamw"])
def test_mlp(optimizer, device):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 16), nn.Tanh(),
                          nn.Linear(16, 10), nn.LogSoftmax(-1))
    _check_training(model, torch.randn(6, 8), torch.randint(0, 10, (6,)),
                    nn.functional.nll_loss, optimizer, device=device)


@pytest.mark.parametrize("device", _devices())
@pytest.mark.parametrize("optimizer", ["sgd", "adamw"])
def test_cnn_with_batch_norm_in_training_mode(optimizer, device):
    # Convolutions before a batch norm have no bias: its gradient is zero
    # up to rounding, which AdamW's normalized step turns into whole steps.
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
        nn.MaxPool2d(2), nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=2), nn.Sigmoid(),
        nn.AvgPool2d(3, stride=1, padding=1, count_include_pad=False),
        nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 10))
    _check_training(model, torch.randn(4, 3, 16, 16), torch.randint(0, 10, (4,)),
                    nn.functional.cross_entropy, optimizer, device=device)


@pytest.mark.parametrize("device", _devices())
@pytest.mark.parametrize("optimizer", ["sgd", "adamw"])
def test_transformer_encoder_layer(optimizer, device):
    # bias=False: the key projection's bias has a zero gradient (softmax
    # ignores a per-row constant), see the CNN test.
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True, bias=False),
        nn.Flatten(), nn.Linear(7 * 32, 10))
    _check_training(model, torch.randn(6, 7, 32), torch.randint(0, 10, (6,)),
                    nn.functional.cross_entropy, optimizer, device=device)


def test_resnet18_as_accurate_as_eager():
    """Five SGD steps of resnet18 (batch 8, 64x64 images). Its training is
    ill-conditioned in f32 (max-pool ties and batch statistics of few
    values: eager f32 itself drifts from f64 by up to 1e-2), so, as
    PyTorch's own accuracy checks do, each parameter's distance to an f64
    run may be at most twice eager f32's, plus 1e-4."""
    torchvision = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10).train()
    inputs, targets = torch.randn(8, 3, 64, 64), torch.randint(0, 10, (8,))
    ours, eager, exact = copy.deepcopy(model), copy.deepcopy(model), copy.deepcopy(model).double()
    loss_fn = nn.functional.cross_entropy
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _train(ours, inputs, targets, loss_fn, "sgd", 5, True)
    _train(eager, inputs, targets, loss_fn, "sgd", 5, False)
    _train(exact, inputs.double(), targets, loss_fn, "sgd", 5, False)
    for (name, a), b, c in zip(ours.named_parameters(), eager.parameters(), exact.parameters()):
        ours_error = ((a.double() - c).norm() / c.norm()).item()
        eager_error = ((b.double() - c).norm() / c.norm()).item()
        assert ours_error <= 2 * eager_error + 1e-4, (name, ours_error, eager_error)
    stats = wrapper_mlir.stats()
    assert stats["compiled"] == {"inference": 0, "forward": 1, "backward": 1}
    assert stats["op_fallbacks"] == {}


@pytest.mark.parametrize("optimizer", ["sgd", "adamw"])
def test_compiled_optimizer_step(optimizer):
    """The whole step compiled: forward, backward, and optimizer.step()
    under torch.compile (an inference graph that updates the parameters
    and the optimizer's state in place: SGD's momentum buffers, AdamW's
    moments and step counts)."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    reference = copy.deepcopy(model)
    inputs, targets = torch.randn(5, 8), torch.randn(5, 4)
    ours_opt = _optimizer(optimizer, model.parameters())
    eager_opt = _optimizer(optimizer, reference.parameters())
    compiled_model = torch.compile(model, backend="wrapper")

    @torch.compile(backend="wrapper")
    def compiled_step():
        ours_opt.step()

    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # no graph or op in PyTorch
        for _ in range(5):
            nn.functional.mse_loss(compiled_model(inputs), targets).backward()
            compiled_step()
            ours_opt.zero_grad()
            nn.functional.mse_loss(reference(inputs), targets).backward()
            eager_opt.step()
            eager_opt.zero_grad()
    for (name, a), b in zip(model.named_parameters(), reference.parameters()):
        assert _relative(a, b) < 1e-5, name
    for a, b in zip(ours_opt.state.values(), eager_opt.state.values()):
        for key in a:
            torch.testing.assert_close(a[key], b[key], rtol=1e-5, atol=1e-6)
    stats = wrapper_mlir.stats()
    assert stats["compiled"]["inference"] >= 1  # the optimizer step
    assert stats["compiled"]["forward"] == 1 and stats["compiled"]["backward"] == 1
    assert stats["graph_fallbacks"] == {} and stats["op_fallbacks"] == {}


def test_inference_graph_mutating_buffers():
    """A forward that updates buffers in place (a running average, a step
    counter): the compiled program returns their new values and they are
    written back; the parameters stay frozen into the program."""

    class Running(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("average", torch.zeros(4))
            self.register_buffer("steps", torch.zeros((), dtype=torch.int64))
            self.linear = nn.Linear(4, 4)

        def forward(self, x):
            self.average.mul_(0.9).add_(x.mean(0) * 0.1)
            self.steps += 1
            return self.linear(x) + self.average

    torch.manual_seed(0)
    model, reference = Running(), Running()
    reference.load_state_dict(model.state_dict())
    compiled = torch.compile(model, backend="wrapper")
    with torch.no_grad():
        for _ in range(3):
            x = torch.randn(3, 4)
            torch.testing.assert_close(compiled(x), reference(x))
            torch.testing.assert_close(model.average, reference.average)
    assert model.steps.item() == 3
    assert wrapper_mlir.stats()["compiled"]["inference"] == 1


@pytest.mark.parametrize("device", _devices())
def test_mutated_buffers_are_written_in_place(device, monkeypatch):
    """The program writes the buffers a graph updates itself
    (`tensor_program.copy_back` into the argument; ImportedProgram.written)
    rather than returning their new values for a copy after the call: in a
    training step of a CNN, batch norm's running statistics and counters.
    A buffer that is not contiguous (a transposed view) is passed as a
    contiguous copy and copied back. Values equal eager's after 3 steps."""
    from wrapper_mlir import _torch as backend

    programs = []
    original = backend._CompiledGraph.__init__

    def record(self, imported, *rest):
        programs.append(imported)
        original(self, imported, *rest)

    monkeypatch.setattr(backend._CompiledGraph, "__init__", record)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv, self.norm = nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)
            self.register_buffer("total", torch.zeros(4, 2).t())  # not contiguous

        def forward(self, x):
            y = torch.relu(self.norm(self.conv(x))).mean((2, 3))
            self.total.add_(y[:2].detach())
            return y.sum(1)

    torch.manual_seed(0)
    model = Model().to(device)
    reference = copy.deepcopy(model)
    compiled = torch.compile(model, backend="wrapper")
    for _ in range(3):
        x = torch.randn(2, 3, 6, 6, device=device)
        compiled(x).sum().backward()
        reference(x).sum().backward()
    for (name, a), b in zip(model.named_buffers(), reference.buffers()):
        torch.testing.assert_close(a, b, msg=name)
    assert not model.total.is_contiguous()
    forward = programs[0]
    assert len(forward.written) == 4 and forward.mutations == []  # mean, var, count, total
    assert forward.text.count("tensor_program.copy_back") == 4


def test_parameters_only_require_grad():
    """The usual case (inputs without gradients, parameters with): outputs
    carry a grad_fn and backward fills every parameter's .grad."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    compiled = torch.compile(model, backend="wrapper")
    out = compiled(torch.randn(5, 4))
    assert out.grad_fn is not None
    out.sum().backward()
    assert all(p.grad is not None for p in model.parameters())


@pytest.mark.parametrize("device", _devices())
def test_gradients_are_taken_over_not_copied(device):
    """The backward graph's gradients become the parameters' .grad as they
    are: nothing else holds them (a reference cycle in the output
    unflattening did, until the garbage collector ran), so AccumulateGrad
    takes each over instead of copying it (one allocation and one copy per
    parameter and step, the memory of every output kept until collected).
    With the collector off, the tensor a parameter's hook receives is the
    one its .grad holds afterwards."""
    import gc

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8)).to(device)
    compiled = torch.compile(model, backend="wrapper")
    x = torch.randn(4, 16, device=device)
    compiled(x).sum().backward()  # compiles
    for p in model.parameters():
        p.grad = None
    received = {}
    hooks = [p.register_hook(lambda g, i=i: received.__setitem__(i, g.data_ptr()))
             for i, p in enumerate(model.parameters())]
    enabled = gc.isenabled()
    gc.disable()
    try:
        compiled(x).sum().backward()
    finally:
        if enabled:
            gc.enable()
        for hook in hooks:
            hook.remove()
    assert len(received) == 4
    for i, p in enumerate(model.parameters()):
        assert p.grad.data_ptr() == received[i], f"parameter {i}: its gradient was copied"


def test_backward_saves_no_views(monkeypatch):
    """The partition recomputes views in the backward graph instead of
    saving them: a saved view (the transposed weight or activation a
    linear layer's backward reads) would be a copy the forward writes,
    while the backward's products read a transpose in place. No argument of
    the backward graph is a view node of the forward (permute, view, t,
    expand, ...)."""
    from wrapper_mlir import _torch as backend

    texts = []
    original = backend._CompiledGraph.__init__

    def record(self, imported, *rest):
        texts.append(imported.text)
        original(self, imported, *rest)

    class Conv1D(nn.Module):  # GPT-2's projection: x @ W, W of [in, out]
        def __init__(self, n_in, n_out):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(n_in, n_out) * 0.1)
            self.bias = nn.Parameter(torch.zeros(n_out))

        def forward(self, x):
            return torch.addmm(self.bias, x, self.weight)

    monkeypatch.setattr(backend._CompiledGraph, "__init__", record)
    torch.manual_seed(0)
    model = nn.Sequential(Conv1D(8, 16), nn.GELU(), Conv1D(16, 4))
    compiled = torch.compile(model, backend="wrapper")
    compiled(torch.randn(5, 8)).sum().backward()
    assert len(texts) == 2  # the forward and the backward graph
    backward = texts[1].split("\n", 1)[0]
    names = re.findall(r'tensor_program.name = "([a-z_]+?)(?:_\d+)?"', backward)
    assert names, backward
    views = {"permute", "view", "t", "expand", "transpose", "reshape", "unsqueeze",
             "squeeze", "slice", "select", "alias"}
    assert not views & set(names), names


def test_graph_fallback_is_counted():
    """With fallback=False, an op outside the table (logcumsumexp) sends the
    forward graph to PyTorch: a warning, the reason in stats(), and
    gradients still right."""

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(8, 8)

        def forward(self, x):
            return torch.logcumsumexp(self.linear(x), 1)

    torch.manual_seed(0)
    model = Model()
    compiled = torch.compile(model, backend="wrapper", options={"fallback": False})
    with pytest.warns(UserWarning, match="running the forward graph eagerly"):
        out = compiled(torch.randn(4, 8))
    out.sum().backward()
    stats = wrapper_mlir.stats()
    assert any("logcumsumexp" in reason for reason in stats["graph_fallbacks"])
    assert stats["compiled"]["forward"] == 0
    assert all(p.grad is not None for p in model.parameters())


@pytest.mark.parametrize("device", _devices())
def test_dropout_is_compiled(device):
    """Training-mode dropout on the program's counter-based generator:
    reproducible under torch.manual_seed, a new mask per call, about 1 - p
    of the elements kept and scaled by 1 / (1 - p), and the backward uses
    the forward's mask."""
    torch.manual_seed(0)
    compiled = torch.compile(nn.Dropout(0.3).train(), backend="wrapper")
    x = torch.randn(500, 200, device=device, requires_grad=True)
    torch.manual_seed(5)
    first = compiled(x)
    torch.manual_seed(5)
    again = compiled(x)
    other = compiled(x)
    assert torch.equal(first, again) and not torch.equal(first, other)
    keep = first != 0
    assert 0.69 < keep.float().mean().item() < 0.71
    torch.testing.assert_close(first[keep], x[keep] / 0.7)
    first.backward(torch.ones_like(first))
    torch.testing.assert_close(x.grad, keep.float() / 0.7)
    stats = wrapper_mlir.stats()
    assert stats["compiled"]["forward"] == 1 and stats["compiled"]["backward"] == 1
    assert stats["op_fallbacks"] == {} and stats["graph_fallbacks"] == {}


def test_uniform_matches_the_numpy_interpreter():
    """tensor_program.uniform compiled and in the NumPy interpreter (two
    implementations of Philox4x32-10): the same numbers, in [0, 1), mean
    about 1/2, streams independent."""
    from wrapper_mlir.interpreter import interpret

    text = """
func.func @main(%seed: tensor<i64>, %x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %a = tensor_program.uniform %seed stream 0 [%n] : tensor<i64> -> tensor<?x64xf32>
  %b = tensor_program.uniform %seed stream 1 [%n] : tensor<i64> -> tensor<?x64xf32>
  return %a, %b : tensor<?x64xf32>, tensor<?x64xf32>
}
"""
    model = wrapper_mlir.compile(text)
    import numpy as np

    for seed in (0, 12345, 2**52 + 7):
        inputs = [np.array(seed, dtype=np.int64), np.zeros((300, 64), np.float32)]
        compiled = model(*inputs)
        reference = interpret(text, inputs)
        for got, expected in zip(compiled, reference):
            np.testing.assert_array_equal(got, expected.astype(np.float32))
            assert got.min() >= 0.0 and got.max() < 1.0
            assert abs(got.mean() - 0.5) < 0.01
        assert not np.array_equal(compiled[0], compiled[1])


def test_stats_reset_and_snapshot():
    model = nn.Linear(3, 2)
    with torch.no_grad():
        torch.compile(model, backend="wrapper")(torch.randn(2, 3))
    snapshot = wrapper_mlir.stats()
    assert snapshot["compiled"]["inference"] == 1 and snapshot["compile_seconds"] > 0
    snapshot["compiled"]["inference"] = 99  # a copy, not the counters
    assert wrapper_mlir.stats()["compiled"]["inference"] == 1
    wrapper_mlir.reset_stats()
    assert wrapper_mlir.stats()["compiled"]["inference"] == 0


# -- the decompositions against ATen's kernels (f64) ---------------------------

def _convolution_cases():
    for spatial, stride, padding, dilation, groups, transposed in itertools.product(
            (1, 2, 3), (1, 2), (0, 1), (1, 2), (1, 2), (False, True)):
        if spatial == 3 and dilation == 2:
            continue
        yield spatial, stride, padding, dilation, groups, transposed


@pytest.mark.parametrize("case", list(_convolution_cases()))
def test_convolution_backward_decomposition(case):
    spatial, stride, padding, dilation, groups, transposed = case
    torch.manual_seed(0)
    x = torch.randn(2, 4, *([7] * spatial), dtype=torch.float64)
    if transposed:
        weight = torch.randn(4, 6 // groups, *([3] * spatial), dtype=torch.float64)
        output_padding = [1 if stride > 1 else 0] * spatial
    else:
        weight = torch.randn(6, 4 // groups, *([3] * spatial), dtype=torch.float64)
        output_padding = [0] * spatial
    geometry = ([stride] * spatial, [padding] * spatial, [dilation] * spatial, transposed,
                output_padding, groups)
    y = aten.convolution.default(x, weight, None, *geometry)
    grad = torch.randn_like(y)
    args = (grad, x, weight, [6]) + geometry + ([True, True, True],)
    for expected, got in zip(aten.convolution_backward.default(*args),
                             convolution_backward(*args)):
        torch.testing.assert_close(got, expected)


@pytest.mark.parametrize("spatial,kernel,stride,padding,dilation,size", [
    (2, 1, 2, 0, 1, 7), (2, 1, 1, 2, 1, 5), (2, 5, 3, 1, 1, 9), (2, 5, 1, 4, 2, 6),
    (2, 7, 2, 3, 1, 8), (1, 4, 3, 2, 1, 10), (3, 2, 2, 1, 1, 5), (2, 3, 2, 0, 3, 11),
])
def test_convolution_gradients_by_columns(spatial, kernel, stride, padding, dilation, size):
    """The input gradient of a one-group direct convolution as a product and
    a sum of shifted windows (and the weight gradient beside it): kernels of 1 to 7 taps, strides that skip
    input rows at the end, padding past the kernel's reach (taps that land
    nowhere), dilation."""
    torch.manual_seed(1)
    x = torch.randn(2, 3, *([size] * spatial), dtype=torch.float64)
    weight = torch.randn(5, 3, *([kernel] * spatial), dtype=torch.float64)
    geometry = ([stride] * spatial, [padding] * spatial, [dilation] * spatial, False,
                [0] * spatial, 1)
    y = aten.convolution.default(x, weight, None, *geometry)
    grad = torch.randn_like(y)
    args = (grad, x, weight, [5]) + geometry + ([True, True, False],)
    expected = aten.convolution_backward.default(*args)
    got = convolution_backward(*args)
    torch.testing.assert_close(got[0], expected[0])
    torch.testing.assert_close(got[1], expected[1])


@pytest.mark.parametrize("kernel,stride,padding,ceil_mode,count_include_pad,divisor", [
    (2, 2, 0, False, True, None), (3, 1, 1, False, False, None), (3, 2, 1, True, True, None),
    (3, 2, 1, True, False, None), (2, 3, 1, True, True, 5), (3, 3, 0, True, False, None)])
def test_avg_pool2d_backward_decomposition(kernel, stride, padding, ceil_mode,
                                           count_include_pad, divisor):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 10, 11, dtype=torch.float64)
    args = ([kernel] * 2, [stride] * 2, [padding] * 2, ceil_mode, count_include_pad, divisor)
    grad = torch.randn_like(aten.avg_pool2d.default(x, *args))
    torch.testing.assert_close(avg_pool2d_backward(grad, x, *args),
                               aten.avg_pool2d_backward.default(grad, x, *args))


@pytest.mark.parametrize("kernel,stride,padding,dilation,ceil_mode", [
    (2, 2, 0, 1, False), (3, 2, 1, 1, False), (3, 1, 1, 2, False), (3, 2, 1, 1, True),
    (2, 3, 1, 1, True)])
def test_max_pool2d_backward_decomposition(kernel, stride, padding, dilation, ceil_mode):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 10, 11, dtype=torch.float64)
    args = ([kernel] * 2, [stride] * 2, [padding] * 2, [dilation] * 2, ceil_mode)
    out, indices = aten.max_pool2d_with_indices.default(x, *args)
    grad = torch.randn_like(out)
    torch.testing.assert_close(
        max_pool2d_with_indices_backward(grad, x, *args, indices),
        aten.max_pool2d_with_indices_backward.default(grad, x, *args, indices))


@pytest.mark.parametrize("causal,masked", [(False, False), (True, False), (False, True)])
def test_attention_backward_math(causal, masked):
    """attention_backward (from the log-sum-exp) against autograd through
    the math forward."""
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 3, 5, 4, dtype=torch.float64, requires_grad=True)
               for _ in range(3))
    bias = torch.randn(5, 5, dtype=torch.float64) if masked else None
    out, lse = attention(q, k, v, bias, causal, 0.7)
    grad = torch.randn_like(out)
    expected = torch.autograd.grad(out, (q, k, v), grad)
    got = attention_backward(grad, q, k, v, out.detach(), lse.detach(), bias, causal, 0.7)[:3]
    for a, b in zip(got, expected):
        torch.testing.assert_close(a, b)


def test_grouped_query_attention_backward_math():
    """With fewer key/value heads than query heads, the math forward equals
    PyTorch's scaled_dot_product_attention(enable_gqa=True) and the key and
    value gradients are summed over each group of query heads."""
    torch.manual_seed(0)
    q = torch.randn(2, 6, 5, 4, dtype=torch.float64, requires_grad=True)
    k, v = (torch.randn(2, 2, 5, 4, dtype=torch.float64, requires_grad=True) for _ in range(2))
    out, lse = attention(q, k, v, None, True, None)
    reference = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                           enable_gqa=True)
    torch.testing.assert_close(out, reference)
    grad = torch.randn_like(out)
    expected = torch.autograd.grad(reference, (q, k, v), grad)
    got = attention_backward(grad, q, k, v, out.detach(), lse.detach(), None, True, None)[:3]
    assert got[1].shape == k.shape and got[2].shape == v.shape
    for a, b in zip(got, expected):
        torch.testing.assert_close(a, b)


@pytest.mark.parametrize("device", _devices())
def test_grouped_query_attention_training(device):
    torch.manual_seed(0)
    from modules import GroupedQueryAttention

    _check_training(GroupedQueryAttention(), torch.randn(3, 6, 32), torch.randint(0, 10, (3,)),
                    nn.functional.cross_entropy, "adamw", device=device)


class _BiasedSdpa(nn.Module):
    """Attention through scaled_dot_product_attention with an additive
    float mask (a padding mask as Hugging Face models pass it) and a
    classifier head."""

    def __init__(self, d=32, heads=4, classes=5):
        super().__init__()
        self.heads = heads
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, classes)

    def forward(self, x):
        b, t, c = x.shape
        qkv = self.qkv(x).reshape(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        mask = torch.zeros(t, t, device=x.device).masked_fill(
            torch.ones(t, t, device=x.device).triu(3).bool(), -1e4)
        y = nn.functional.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=mask)
        return self.out(y.transpose(1, 2).reshape(b, t, c).mean(1))


@pytest.mark.parametrize("device", _devices())
@pytest.mark.parametrize("module", ["causal", "biased"])
def test_attention_training_saves_no_probabilities(module, device, monkeypatch):
    """scaled_dot_product_attention's fused kernels stay whole through
    AOTAutograd's partition and become their math afterwards (importer.
    decompose_attention): the forward graph saves the log-sum-exp, not a
    [T, T] tensor per head (scores or probabilities), and the backward
    recomputes the probabilities, as PyTorch's kernels do. Parameters after
    5 SGD steps equal eager's (not AdamW: the key bias's gradient is zero
    in exact arithmetic, and AdamW turns rounding noise into whole steps)."""
    from modules import CausalSdpa
    from wrapper_mlir import _torch as backend

    texts = []
    original = backend._CompiledGraph.__init__

    def record(self, imported, *rest):
        texts.append(imported.text)
        original(self, imported, *rest)

    monkeypatch.setattr(backend._CompiledGraph, "__init__", record)
    torch.manual_seed(0)
    tokens = 24
    if module == "causal":
        model = nn.Sequential(CausalSdpa(d=32, heads=2), nn.Flatten(), nn.Linear(tokens * 32, 5))
    else:
        model = _BiasedSdpa()
    _check_training(model, torch.randn(3, tokens, 32), torch.randint(0, 5, (3,)),
                    nn.functional.cross_entropy, "sgd", device=device)
    results = texts[0].split("\n", 1)[0].rsplit("->", 1)[1]  # the forward's result types
    assert "x24x24x" not in results, results
    # The log-sum-exp, [B, H, T] (the memory-efficient kernel's on CUDA
    # rounds T up to a multiple of 32).
    assert re.search(r"tensor<3x[24]x(24|32)xf32>", results), results


def _backward_alongside(model, reference, compiled, close, inputs):
    """Calls `compiled` (of `model`) and the eager `reference` on each input
    with no graph or op running in PyTorch, backward of the squared
    outputs' sum; outputs and accumulated gradients compared after each."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for x in inputs:
            ours, theirs = compiled(x), reference(x)
            torch.testing.assert_close(ours, theirs, **close)
            ours.square().sum().backward()
            theirs.square().sum().backward()
            for (name, a), b in zip(model.named_parameters(), reference.parameters()):
                torch.testing.assert_close(a.grad, b.grad, msg=name, **close)


@pytest.mark.parametrize("device", _devices())
def test_dynamic_shapes_training_with_saved_sizes(device):
    """Under dynamic shapes the forward graph returns size expressions the
    backward needs (AOTAutograd's saved SymInts, `s0 * s1` here): the
    runner computes them from the arguments' sizes, so both graphs compile
    for every batch and sequence length (they ran eagerly before: "output
    'mul' is a symbolic size"). Outputs and gradients equal eager's."""
    from modules import CausalSdpa

    torch.manual_seed(0)
    model = nn.Sequential(CausalSdpa(d=32, heads=2), nn.Linear(32, 5)).to(device)
    reference = copy.deepcopy(model)
    compiled = torch.compile(model, backend="wrapper", dynamic=True)
    close = {} if device == "cpu" else {"rtol": 1e-4, "atol": 1e-4}  # cuBLAS's sums
    _backward_alongside(model, reference, compiled, close,
                        [torch.randn(b, t, 32, device=device) for b, t in [(2, 12), (3, 7), (5, 20)]])
    stats = wrapper_mlir.stats()
    assert stats["compiled"]["forward"] == 1 and stats["compiled"]["backward"] == 1
    assert stats["graph_fallbacks"] == {}


@pytest.mark.parametrize("tracing", ["fake", "symbolic"])
def test_decompose_attention_keeps_the_kernels_sizes(tracing):
    """importer.decompose_attention on a graph of the memory-efficient
    kernel (CUDA's for f32; its metadata and math run on any device): the
    math's output equals scaled_dot_product_attention's, and its
    log-sum-exp has the kernel's rows rounded up to a multiple of 32,
    static or symbolic (the backward graph was traced with that size)."""
    from torch._guards import detect_fake_mode
    from torch.fx.experimental.proxy_tensor import make_fx

    from wrapper_mlir.importer import decompose_attention

    def kernel(q, k, v):
        out, lse, _, _ = torch.ops.aten._scaled_dot_product_efficient_attention(
            q, k, v, None, True, 0.0, True)
        return out, lse

    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 3, 20, 8) for _ in range(3))
    graph = make_fx(kernel, tracing_mode=tracing)(q, k, v)
    fakes = [node.meta["val"] for node in graph.graph.nodes if node.op == "placeholder"]
    with detect_fake_mode(fakes):
        decomposed = decompose_attention(graph, fakes)
    targets = {str(node.target) for node in decomposed.graph.nodes}
    assert not any("efficient_attention" in t for t in targets), targets
    out, lse = decomposed(q, k, v)
    expected = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.testing.assert_close(out, expected)
    assert lse.shape == (2, 3, 32) and lse.dtype == torch.float32
    scores = (q @ k.transpose(-2, -1) / 8 ** 0.5).masked_fill(
        torch.ones(20, 20).triu(1).bool(), float("-inf"))
    torch.testing.assert_close(lse[..., :20], scores.logsumexp(-1))


def test_efficient_attention_kernel_under_dynamic_shapes():
    """The memory-efficient kernel (CUDA's for f32) called directly in a
    model, compiled for the CPU under dynamic shapes: its math (a
    log-sum-exp padded to a symbolic multiple of 32 rows) compiles forward
    and backward without a fallback, and output and gradients equal
    scaled_dot_product_attention's through eager autograd."""

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(16, 48)

        def heads(self, x):
            b, t, _ = x.shape
            return self.qkv(x).reshape(b, t, 3, 2, 8).permute(2, 0, 3, 1, 4)

        def forward(self, x):
            q, k, v = self.heads(x)
            return torch.ops.aten._scaled_dot_product_efficient_attention(
                q, k, v, None, True, 0.0, True)[0]

    torch.manual_seed(0)
    model = Model()
    reference = copy.deepcopy(model)
    compiled = torch.compile(model, backend="wrapper", dynamic=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no graph or op runs in PyTorch
        for batch, tokens in [(2, 12), (3, 40)]:
            x = torch.randn(batch, tokens, 16)
            ours = compiled(x)
            q, k, v = reference.heads(x)
            theirs = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            torch.testing.assert_close(ours, theirs)
            ours.square().sum().backward()
            theirs.square().sum().backward()
            torch.testing.assert_close(model.qkv.weight.grad, reference.qkv.weight.grad,
                                       rtol=1e-5, atol=1e-5)
    assert wrapper_mlir.stats()["graph_fallbacks"] == {}


@pytest.mark.parametrize("device", _devices())
def test_batch_change_compiles_training_with_batch_norm(device):
    """A CNN with batch norm (training mode) and max-pooling stepped with
    three batch sizes: after the first change Dynamo's automatic dynamic
    shapes give graphs with a symbolic batch, and they compile too (the
    variance's count and the running variance's unbiased correction
    n / (n - 1) are computed from the sizes at run time; a SymFloat ran the
    graph eagerly before). Outputs, gradients and running statistics equal
    eager's."""
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 8, 3, stride=2), nn.BatchNorm2d(8), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4)).to(device)
    reference = copy.deepcopy(model)
    compiled = torch.compile(model, backend="wrapper")
    close = {} if device == "cpu" else {"rtol": 1e-4, "atol": 1e-4}
    _backward_alongside(model, reference, compiled, close,
                        [torch.randn(b, 3, 16, 16, device=device) for b in (2, 3, 5)])
    for (name, a), b in zip(model.named_buffers(), reference.buffers()):
        torch.testing.assert_close(a, b, msg=name, **close)
    stats = wrapper_mlir.stats()
    assert stats["compiled"]["forward"] == 2 and stats["compiled"]["backward"] == 2
    assert stats["graph_fallbacks"] == {} and stats["op_fallbacks"] == {}
