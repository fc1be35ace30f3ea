"""AOT training steps (wrapper_mlir.compile_training): the whole step --
forward, loss, backward, optimizer update -- in one model.so with the
training ABI, against eager PyTorch with torch.optim; saved and trained by
the C example (examples/aot/train_model) without Python; refusals."""

import copy
import subprocess

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import wrapper_mlir  # noqa: E402
from wrapper_mlir import WrapperError  # noqa: E402

nn = torch.nn
F = torch.nn.functional


def _mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 32), nn.GELU(),
                         nn.Linear(32, 5))


def _cnn():
    torch.manual_seed(0)
    # No conv bias before batch_norm (its gradient is rounding noise, which
    # Adam would scale into full-size steps).
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(8, 8, 3, bias=False), nn.BatchNorm2d(8),
                         nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))


def _batch(model):
    torch.manual_seed(1)
    if isinstance(model[0], nn.Conv2d):
        return torch.randn(4, 3, 12, 12), torch.randint(0, 4, (4,))
    return torch.randn(6, 12), torch.randint(0, 5, (6,))


def _relative(a, b):
    a, b = torch.as_tensor(np.asarray(a)), torch.as_tensor(np.asarray(b))
    return ((a.double() - b.double()).abs().max() / (b.double().abs().max() + 1e-12)).item()


def _eager(model, optimizer, x, y, steps, loss_fn=F.cross_entropy):
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


OPTIMIZERS = {
    "sgd-momentum": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9),
    "sgd-nesterov-decay": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.8, nesterov=True,
                                                    weight_decay=1e-2),
    "sgd-dampening": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, dampening=0.3),
    "adam": lambda p: torch.optim.Adam(p, lr=1e-2, weight_decay=1e-3),
    "adamw-amsgrad": lambda p: torch.optim.AdamW(p, lr=1e-2, amsgrad=True),
    "adamw-maximize": lambda p: torch.optim.AdamW(p, lr=1e-3, maximize=True),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_mlp_steps_match_eager(name):
    model = _mlp()
    reference = copy.deepcopy(model)
    x, y = _batch(model)
    step = wrapper_mlir.compile_training(model, F.cross_entropy,
                                         OPTIMIZERS[name](model.parameters()), [x, y])
    losses = [step(x, y) for _ in range(5)]
    expected = _eager(reference, OPTIMIZERS[name](reference.parameters()), x, y, 5)
    assert np.allclose(losses, expected, rtol=1e-4), (losses, expected)
    state = step.state_dict()
    for param_name, param in reference.named_parameters():
        assert _relative(state[param_name], param.detach()) < 1e-4, param_name
    assert step.steps == 5
    assert state["optimizer.step"] == 5.0


def test_cnn_batch_norm_adamw_from_a_dict():
    """Batch statistics in training mode, running statistics as state the
    step updates, AdamW given as a dict; the result copied into the model."""
    model = _cnn().train()
    reference = copy.deepcopy(model)
    x, y = _batch(model)
    config = {"type": "adamw", "lr": 2e-3, "weight_decay": 0.05}
    step = wrapper_mlir.compile_training(model, F.cross_entropy, config, [x, y])
    assert {"1.running_mean", "1.running_var", "1.num_batches_tracked"} <= step.updated
    losses = [step(x, y) for _ in range(5)]
    optimizer = torch.optim.AdamW(reference.parameters(), lr=2e-3, weight_decay=0.05)
    expected = _eager(reference, optimizer, x, y, 5)
    assert np.allclose(losses, expected, rtol=1e-4), (losses, expected)
    step.copy_to(model)
    for (name, ours), (_, theirs) in zip(model.state_dict().items(),
                                         reference.state_dict().items()):
        assert _relative(ours, theirs) < 1e-4, name
    assert model.state_dict()["1.num_batches_tracked"].item() == 5


@pytest.mark.parametrize("config", [{"type": "sgd", "lr": 0.05, "momentum": 0.9},
                                    {"type": "adamw", "lr": 2e-3, "weight_decay": 0.05}],
                         ids=["sgd-momentum", "adamw"])
def test_updates_in_place_match_updates_returned(config):
    """The default step writes its state in place (copy_back, no state
    results); it computes what the step that returns the new values does."""
    model = _cnn().train()
    x, y = _batch(model)
    in_place = wrapper_mlir.compile_training(model, F.cross_entropy, config, [x, y])
    returned = wrapper_mlir.compile_training(model, F.cross_entropy, config, [x, y],
                                             update_in_place=False)
    assert "tensor_program.copy_back" in in_place.source()
    assert "tensor_program.copy_back" not in returned.source()
    assert in_place.updated == returned.updated
    for _ in range(3):
        assert in_place(x, y) == pytest.approx(returned(x, y), rel=1e-6)
    ours, theirs = in_place.state_dict(), returned.state_dict()
    for name in theirs:
        assert _relative(ours[name], theirs[name]) < 1e-6, name


def test_mse_regression_with_two_inputs():
    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(4, 3)
            self.b = nn.Linear(5, 3)

        def forward(self, x, z):
            return torch.tanh(self.a(x)) * self.b(z)

    torch.manual_seed(2)
    model = Two()
    reference = copy.deepcopy(model)
    x, z, t = torch.randn(7, 4), torch.randn(7, 5), torch.randn(7, 3)
    step = wrapper_mlir.compile_training(model, F.mse_loss, {"type": "sgd", "lr": 0.1},
                                         [x, z, t])
    assert [name for name, _ in step.inputs] == ["input0", "input1", "target"]
    losses = [step(x, z, t) for _ in range(4)]
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    expected = []
    for _ in range(4):
        optimizer.zero_grad()
        loss = F.mse_loss(reference(x, z), t)
        loss.backward()
        optimizer.step()
        expected.append(loss.item())
    assert np.allclose(losses, expected, rtol=1e-4)


def test_optimizer_state_is_taken_over():
    """An optimizer that has stepped already: its momentum buffers and step
    count are the compiled step's starting state."""
    model = _mlp()
    x, y = _batch(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    _eager(model, optimizer, x, y, 2)
    reference = copy.deepcopy(model)
    reference_optimizer = torch.optim.Adam(reference.parameters(), lr=1e-2)
    reference_optimizer.load_state_dict(optimizer.state_dict())
    step = wrapper_mlir.compile_training(model, F.cross_entropy, optimizer, [x, y])
    assert step.get_state("optimizer.step") == 2.0
    losses = [step(x, y) for _ in range(3)]
    expected = _eager(reference, reference_optimizer, x, y, 3)
    assert np.allclose(losses, expected, rtol=1e-4)


def test_cpu_steps_share_torchs_openmp_threads():
    """In a process with PyTorch, a CPU step runs its parallel loops on
    PyTorch's OpenMP threads (the __kmpc_* adapter over libgomp), not on a
    second pool that fights PyTorch's spinning workers for the cores; its
    steps, interleaved with eager ones, match eager's."""
    import os

    from wrapper_mlir import _compile

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 10))
    reference = copy.deepcopy(model)
    x, y = torch.randn(256, 128), torch.randint(0, 10, (256,))
    step = wrapper_mlir.compile_training(model, F.cross_entropy,
                                         torch.optim.SGD(model.parameters(), lr=0.1), [x, y])
    if os.environ.get("WRAPPER_OPENMP") == "libomp":
        pytest.skip("WRAPPER_OPENMP=libomp keeps LLVM's runtime")
    assert _compile._kmpc_adapter_state is True
    forks = _compile._kmpc_over_gomp.wrapper_kmpc_over_gomp_forks
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    losses, expected = [], []
    for _ in range(3):
        before = forks()
        losses.append(step(x, y))
        assert forks() > before
        expected += _eager(reference, optimizer, x, y, 1)
    assert np.allclose(losses, expected, rtol=1e-4), (losses, expected)


def test_dropout_is_reproducible_from_the_seed():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 3)).train()
    x, y = torch.randn(8, 16), torch.randint(0, 3, (8,))

    def run(seed):
        step = wrapper_mlir.compile_training(copy.deepcopy(model), F.cross_entropy,
                                             {"type": "sgd", "lr": 0.1}, [x, y], seed=seed)
        return [step(x, y) for _ in range(3)], step.get_state("0.weight")

    first, weights = run(7)
    again, weights_again = run(7)
    other, _ = run(8)
    assert first == again and np.array_equal(weights, weights_again)
    assert first[1:] != other[1:]
    # Dropout is active: the compiled losses differ from the eval-mode ones.
    evaluated = wrapper_mlir.compile_training(copy.deepcopy(model).eval(), F.cross_entropy,
                                              {"type": "sgd", "lr": 0.1}, [x, y])
    assert evaluated(x, y) != first[0]


def test_saved_step_trains_in_c_like_in_python(tmp_path):
    """The C example (no Python) trains the saved artifact to a lower loss,
    step for step as TrainingStep does, and writes the same state."""
    model = _cnn().train()
    x, y = _batch(model)
    step = wrapper_mlir.compile_training(model, F.cross_entropy,
                                         torch.optim.SGD(model.parameters(), lr=0.05,
                                                         momentum=0.9), [x, y])
    step.save(tmp_path / "artifact")
    np.save(tmp_path / "x.npy", x.numpy())
    np.save(tmp_path / "y.npy", y.numpy())
    losses = [step(x, y) for _ in range(6)]
    tool = wrapper_mlir.find_tool("train_model")
    out = subprocess.run(
        [tool, str(tmp_path / "artifact" / "train_step.so"), str(tmp_path / "artifact" / "state"),
         str(tmp_path / "x.npy"), str(tmp_path / "y.npy"), "--steps", "6",
         "--save", str(tmp_path / "after"), "--expect-decrease"],
        capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr + out.stdout
    printed = [float(line.split("loss ")[1]) for line in out.stdout.splitlines()
               if line.startswith("step ")]
    assert np.allclose(printed, losses, rtol=1e-5), (printed, losses)
    assert "decreased" in out.stdout
    for name, value in step.state_dict().items():
        saved = np.load(tmp_path / "after" / f"{name}.npy")
        assert np.array_equal(saved, value), name

    # Loaded back in Python, it goes on from the state C wrote.
    loaded = wrapper_mlir.TrainingStep.load(tmp_path / "artifact")
    loaded.load_state(tmp_path / "after")
    assert np.isclose(loaded(x, y), step(x, y), rtol=1e-6)


def test_learning_rate_is_state():
    model = _mlp()
    x, y = _batch(model)
    step = wrapper_mlir.compile_training(model, F.cross_entropy, {"type": "sgd", "lr": 0.1},
                                         [x, y])
    assert "optimizer.lr" not in step.updated
    step.set_state("optimizer.lr", np.array(0.0))
    before = step.state_dict()
    step(x, y)
    after = step.state_dict()
    assert all(np.array_equal(before[n], after[n]) for n in before if not n.startswith("opt"))


def test_grouped_query_attention_step_matches_eager():
    """Grouped-query attention (4 query heads on 2 key/value heads): five
    AdamW steps of the AOT step against eager."""
    from modules import GroupedQueryAttention

    torch.manual_seed(0)
    model = GroupedQueryAttention()
    reference = copy.deepcopy(model)
    x, y = torch.randn(3, 6, 32), torch.randint(0, 10, (3,))
    step = wrapper_mlir.compile_training(model, F.cross_entropy,
                                         torch.optim.AdamW(model.parameters(), lr=1e-2), [x, y])
    losses = [step(x, y) for _ in range(5)]
    expected = _eager(reference, torch.optim.AdamW(reference.parameters(), lr=1e-2), x, y, 5)
    assert np.allclose(losses, expected, rtol=1e-4), (losses, expected)
    state = step.state_dict()
    for param_name, param in reference.named_parameters():
        assert _relative(state[param_name], param.detach()) < 1e-4, param_name


def test_refusals():
    model = _mlp()
    x, y = _batch(model)
    with pytest.raises(WrapperError, match="RMSprop is not supported"):
        wrapper_mlir.compile_training(model, F.cross_entropy,
                                      torch.optim.RMSprop(model.parameters()), [x, y])
    with pytest.raises(WrapperError, match="unknown sgd option"):
        wrapper_mlir.compile_training(model, F.cross_entropy, {"type": "sgd", "rate": 1}, [x, y])
    with pytest.raises(WrapperError, match="optimizer type 'lion' is not supported"):
        wrapper_mlir.compile_training(model, F.cross_entropy, {"type": "lion"}, [x, y])
    groups = [{"params": list(model[0].parameters())},
              {"params": list(model[2].parameters()), "lr": 0.1}]
    with pytest.raises(WrapperError, match="2 parameter groups"):
        wrapper_mlir.compile_training(model, F.cross_entropy, torch.optim.SGD(groups, lr=0.1),
                                      [x, y])
    with pytest.raises(WrapperError, match="loss_fn must return a scalar"):
        wrapper_mlir.compile_training(model, lambda out, t: out, {"type": "sgd"}, [x, y])
    with pytest.raises(WrapperError, match="followed by the targets"):
        wrapper_mlir.compile_training(model, F.cross_entropy, {"type": "sgd"}, [x])
    with pytest.raises(WrapperError, match="update_in_place must be True or False"):
        wrapper_mlir.compile_training(model, F.cross_entropy, {"type": "sgd"}, [x, y],
                                      update_in_place="yes")

    step = wrapper_mlir.compile_training(model, F.cross_entropy, {"type": "sgd"}, [x, y])
    with pytest.raises(WrapperError, match=r"input 'input' is float32\[6, 12\], got float32\[3, 12\]"):
        step(x[:3], y)
    with pytest.raises(WrapperError, match=r"takes 2 inputs \(input, target\), got 1"):
        step(x)
    with pytest.raises(WrapperError, match="no state 'nope'"):
        step.get_state("nope")
    with pytest.raises(WrapperError, match=r"state '0.bias' is float32\[32\], got float64\[32\]"):
        step.set_state("0.bias", np.zeros(32))
    with pytest.raises(WrapperError, match="unknown states"):
        step.load_state_dict({"nope": np.zeros(1)})
    with pytest.raises(WrapperError, match="cannot open"):
        step.load_state("/nonexistent")
    assert step.steps == 0


@pytest.mark.skipif(not (torch.cuda.is_available() or __import__("os").environ.get(
    "WRAPPER_REQUIRE_CUDA")), reason="no CUDA device")
def test_cuda_step_matches_eager():
    """A regression step with AdamW on the GPU matches eager."""
    model = _mlp().cuda()
    reference = copy.deepcopy(model)
    torch.manual_seed(3)
    x, y = torch.randn(6, 12).cuda(), torch.randn(6, 5).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    step = wrapper_mlir.compile_training(model, F.mse_loss, optimizer, [x, y])
    assert step.target == "cuda"
    losses = [step(x, y) for _ in range(5)]
    expected = _eager(reference, torch.optim.AdamW(reference.parameters(), lr=1e-2), x, y, 5,
                      loss_fn=F.mse_loss)
    assert np.allclose(losses, expected, rtol=1e-4), (losses, expected)
    step.copy_to(model)
    for (name, ours), (_, theirs) in zip(model.named_parameters(), reference.named_parameters()):
        assert _relative(ours.detach().cpu(), theirs.detach().cpu()) < 1e-4, name


@pytest.mark.skipif(not (torch.cuda.is_available() or __import__("os").environ.get(
    "WRAPPER_REQUIRE_CUDA")), reason="no CUDA device")
def test_cuda_step_keeps_its_state_on_the_device():
    """A CUDA step called on CUDA tensors: no copy between host and device
    but the loss read back (the state lives in device memory), sync=False
    reads nothing; with dropout, the same losses and weights as the CPU
    step from the same seed (the counter-based random numbers are the same
    on both targets)."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 3)).train()
    x, y = torch.randn(8, 16), torch.randn(8, 3)
    sgd = {"type": "sgd", "lr": 0.1, "momentum": 0.9}
    cpu = wrapper_mlir.compile_training(copy.deepcopy(model), F.mse_loss, sgd, [x, y], seed=5)
    gpu = wrapper_mlir.compile_training(copy.deepcopy(model).cuda(), F.mse_loss, sgd,
                                        [x.cuda(), y.cuda()], seed=5)
    assert gpu.target == "cuda"
    xs, ys = x.cuda(), y.cuda()
    expected = [cpu(x, y) for _ in range(6)]
    losses = [gpu(xs, ys)]  # uploads the seeds of the next steps
    before = wrapper_mlir.cuda_stats()
    losses += [gpu(xs, ys) for _ in range(3)]
    assert gpu(xs, ys, sync=False) is None
    losses.append(gpu(xs, ys))
    after = wrapper_mlir.cuda_stats()
    assert after["copies_to_device"] == before["copies_to_device"]
    assert after["copies_to_host"] - before["copies_to_host"] == 4
    del expected[4]  # the step that returned None
    assert np.allclose(losses, expected, rtol=1e-4), (losses, expected)
    assert gpu.steps == cpu.steps == 6
    for name in ("0.weight", "3.bias", "optimizer.momentum_buffer.0.weight"):
        if name in gpu.states:
            assert _relative(gpu.get_state(name), cpu.get_state(name)) < 1e-4, name
    # Host inputs still work (copied to the device), and state set from the
    # host is what the next step reads.
    gpu.set_state("3.bias", cpu.get_state("3.bias"))
    assert np.isfinite(gpu(x, y))


@pytest.mark.skipif(not (torch.cuda.is_available() or __import__("os").environ.get(
    "WRAPPER_REQUIRE_CUDA")), reason="no CUDA device")
def test_cuda_graph_steps_match_plain_steps():
    """CUDA graph mode: from the second step on one graph replay per step
    (the runtime's graph_launches count them), the same losses and state as
    steps without a graph (dropout seeds included); turned off, plain steps
    again."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Dropout(0.2), nn.Linear(64, 4)).train()
    x, y = torch.randn(32, 16).cuda(), torch.randn(32, 4).cuda()
    adamw = {"type": "adamw", "lr": 1e-2}
    graphed = wrapper_mlir.compile_training(copy.deepcopy(model).cuda(), F.mse_loss, adamw,
                                            [x, y], seed=3, cuda_graph=True)
    plain = wrapper_mlir.compile_training(copy.deepcopy(model).cuda(), F.mse_loss, adamw,
                                          [x, y], seed=3, cuda_graph=False)
    assert graphed.cuda_graph and not plain.cuda_graph
    expected = [plain(x, y) for _ in range(6)]
    before = wrapper_mlir.cuda_stats()["graph_launches"]
    losses = [graphed(x, y) for _ in range(6)]
    assert wrapper_mlir.cuda_stats()["graph_launches"] - before == 5
    assert graphed.cuda_graph_captured and not plain.cuda_graph_captured
    assert np.allclose(losses, expected, rtol=1e-5), (losses, expected)
    for name in graphed.state_names:
        assert _relative(graphed.get_state(name), plain.get_state(name)) < 1e-5, name
    # New data each step goes through the graph's static inputs; state set
    # from the host is read by the next replay.
    x2 = torch.randn(32, 16).cuda()
    graphed.set_state("3.bias", plain.get_state("3.bias"))
    assert np.isclose(graphed(x2, y), plain(x2, y), rtol=1e-5)
    graphed.cuda_graph = False
    assert not graphed.cuda_graph_captured
    assert np.isclose(graphed(x, y), plain(x, y), rtol=1e-5)


def test_cuda_graph_needs_a_cuda_step():
    with pytest.raises(WrapperError, match="cuda_graph needs target='cuda', got 'cpu'"):
        wrapper_mlir.compile_training(_mlp(), F.mse_loss, {"type": "sgd", "lr": 0.1},
                                      [torch.randn(6, 12), torch.randn(6, 5)], cuda_graph=True)
