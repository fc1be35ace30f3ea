"""target="cuda": models compiled by --wrapper-cuda-pipeline into a CUDA
model.so. Without a GPU (CI), compiling works and creating the model says
why it cannot run; on a GPU, the outputs match NumPy and eager PyTorch."""

import ctypes
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


def _torch_on_gpu_or_skip():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        _compile_or_skip(MLP)  # checks the refusal, then skips
        pytest.skip("torch sees no GPU")
    return torch


def _mlp_weights(torch, seed=0):
    g = torch.Generator().manual_seed(seed)
    shapes = [(96, 64), (96,), (32, 96), (32,)]
    return [(torch.randn(s, generator=g) * 0.1).cuda() for s in shapes]


def _mlp_eager(torch, x, w1, b1, w2, b2):
    h = torch.nn.functional.gelu(x @ w1.T + b1)
    o = h @ w2.T + b2
    return o, o.softmax(1).amax(1)


def _copies(stats):
    return stats["copies_to_device"] + stats["copies_to_host"]


def test_cuda_tensors_stay_on_the_device():
    """CUDA tensors in, CUDA tensors out, no copy through the host: the
    runtime's copy counters do not move during a call (after the first,
    which uploads nothing either: the MLP has no constants)."""
    torch = _torch_on_gpu_or_skip()
    model = _compile_or_skip(MLP)
    weights = _mlp_weights(torch)
    x = torch.randn(37, 64, device="cuda")
    model(x, *weights)
    torch.cuda.synchronize()
    before = wrapper_mlir.cuda_stats()
    out, top = model(x, *weights)
    after = wrapper_mlir.cuda_stats()
    assert _copies(after) == _copies(before)
    assert after["launches"] > before["launches"]
    assert out.device == x.device and top.device == x.device
    assert out.shape == (37, 32) and top.shape == (37,)
    expected_out, expected_top = _mlp_eager(torch, x, *weights)
    torch.testing.assert_close(out, expected_out, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(top, expected_top, rtol=1e-4, atol=1e-5)
    # Non-contiguous inputs are made contiguous on the device.
    xt = torch.randn(64, 37, device="cuda").T
    out_t, _ = model(xt, *weights)
    torch.testing.assert_close(out_t, _mlp_eager(torch, xt, *weights)[0], rtol=1e-4, atol=1e-4)


def test_outputs_give_their_memory_back():
    """An output tensor owns its block of the runtime's allocator (DLPack):
    deleting it returns the block, so calls in a loop do not grow."""
    torch = _torch_on_gpu_or_skip()
    model = _compile_or_skip(MLP)
    weights = _mlp_weights(torch)
    x = torch.randn(512, 64, device="cuda")
    for _ in range(3):
        model(x, *weights)
    torch.cuda.synchronize()
    before = wrapper_mlir.cuda_stats()
    outs = model(x, *weights)
    held = wrapper_mlir.cuda_stats()["bytes_in_use"]
    assert held >= before["bytes_in_use"] + 512 * 32 * 4
    del outs
    assert wrapper_mlir.cuda_stats()["bytes_in_use"] == before["bytes_in_use"]
    for _ in range(20):
        model(x, *weights)
    after = wrapper_mlir.cuda_stats()
    assert after["bytes_in_use"] == before["bytes_in_use"]
    assert after["bytes_reserved"] == before["bytes_reserved"]


def test_runs_on_the_current_torch_stream():
    """The model's work is queued on PyTorch's current stream, after what
    the caller queued there: an input still being computed on a side stream
    is read only once it is ready, without any synchronization."""
    torch = _torch_on_gpu_or_skip()
    model = _compile_or_skip(MLP)
    weights = _mlp_weights(torch)
    side = torch.cuda.Stream()
    base = torch.randn(4096, 4096, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        # Long work on the side stream, then the model's input from it.
        y = base
        for _ in range(8):
            y = torch.tanh(y @ base) * 0.01
        x = y[:64, :64].contiguous() * 100
        out, _ = model(x, *weights)
        expected, _ = _mlp_eager(torch, x, *weights)
    side.synchronize()
    torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-4)


def _agree_on_eight_streams(torch, call, inputs, expected):
    """Eight threads, thread i on a stream of its own, call `call(inputs[i])`
    20 times at once; the last result of each must equal expected[i] bit for
    bit."""
    import threading

    torch.cuda.synchronize()
    got, errors = {}, []

    def work(i):
        try:
            stream = torch.cuda.Stream()
            with torch.cuda.stream(stream):
                for _ in range(20):
                    out = call(inputs[i])
                got[i] = out.clone()
            stream.synchronize()
        except Exception as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for i in range(8):
        assert torch.equal(got[i], expected[i]), i


def test_threads_with_their_own_streams_agree():
    """Eight threads, each on its own stream, call one model at once: the
    outputs equal one thread's, bit for bit."""
    torch = _torch_on_gpu_or_skip()
    model = _compile_or_skip(MLP)
    weights = _mlp_weights(torch)
    inputs = [torch.randn(33 + i, 64, device="cuda") for i in range(8)]
    expected = [model(x, *weights)[0].clone() for x in inputs]
    _agree_on_eight_streams(torch, lambda x: model(x, *weights)[0], inputs, expected)


def test_torch_compile_on_cuda_makes_no_host_copies():
    """torch.compile(backend="wrapper") on CUDA inputs: the graph runs on
    the tensors where they are (weights frozen: uploaded once, at the first
    call); later calls make no copy between host and device."""
    torch = _torch_on_gpu_or_skip()
    from modules import build

    wrapper_mlir.register_backend()
    torch._dynamo.reset()
    module = build("mlp").cuda().eval()
    compiled = torch.compile(module, backend="wrapper")
    x = torch.randn(5, 64, device="cuda")
    with torch.no_grad():
        got = _second_call_without_copies(torch, compiled, x)
        expected = module(x)
    assert got.device.type == "cuda"
    torch.testing.assert_close(got, expected, rtol=2e-4, atol=2e-4)


def test_torch_compile_on_cuda_from_eight_threads():
    """A torch.compile-d module on CUDA, warmed up, called from 8 threads,
    each on a stream of its own: every result equals one thread's, bit for
    bit."""
    torch = _torch_on_gpu_or_skip()
    from modules import build

    wrapper_mlir.register_backend()
    torch._dynamo.reset()
    module = build("mlp").cuda().eval()
    compiled = torch.compile(module, backend="wrapper")
    inputs = [torch.randn(5, 64, device="cuda") for _ in range(8)]
    with torch.no_grad():
        expected = [compiled(x).clone() for x in inputs]

    def call(x):
        with torch.no_grad():  # grad mode is per thread
            return compiled(x)

    _agree_on_eight_streams(torch, call, inputs, expected)


def test_device_inputs_are_checked():
    """Refusals on the device path: a CPU tensor among CUDA ones is taken
    to the device, a wrong shape is refused by the model's checks, a CPU
    model refuses CUDA tensors."""
    torch = _torch_on_gpu_or_skip()
    model = _compile_or_skip(MLP)
    weights = _mlp_weights(torch)
    with pytest.raises(wrapper_mlir.WrapperError, match="dimension 1 is 63, expected 64"):
        model(torch.randn(3, 63, device="cuda"), *weights)
    cpu_weights = [w.cpu() for w in weights]
    out, _ = model(torch.randn(3, 64, device="cuda"), *cpu_weights)
    assert out.device.type == "cuda"
    cpu_model = wrapper_mlir.compile(MLP)
    with pytest.raises(wrapper_mlir.WrapperError, match="the model runs on the CPU"):
        cpu_model(torch.randn(3, 64, device="cuda"), *weights)


def test_first_call_on_the_legacy_default_stream():
    """A fresh process whose first CUDA model call runs on PyTorch's default
    stream (the legacy NULL stream) with a product (cuBLAS loaded then)."""
    torch = _torch_on_gpu_or_skip()
    import subprocess
    import sys

    script = f"""
import torch, wrapper_mlir
model = wrapper_mlir.compile('''{MLP}''', target="cuda")
assert torch.cuda.current_stream().cuda_stream == 0
g = torch.Generator().manual_seed(0)
ws = [(torch.randn(s, generator=g) * 0.1).cuda() for s in [(96, 64), (96,), (32, 96), (32,)]]
x = torch.randn(7, 64, device="cuda")
out, _ = model(x, *ws)
h = torch.nn.functional.gelu(x @ ws[0].T + ws[1])
torch.testing.assert_close(out, h @ ws[2].T + ws[3], rtol=1e-4, atol=1e-4)
print("ok")
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr[-2000:]


def test_cuda_graphs_need_the_cuda_target():
    with pytest.raises(wrapper_mlir.WrapperError, match="cuda_graphs needs a model compiled "
                                                        "for target='cuda'"):
        wrapper_mlir.compile(MLP, cuda_graphs=True)
    torch = pytest.importorskip("torch")
    from modules import build

    with pytest.raises(wrapper_mlir.WrapperError, match="cuda_graphs needs target 'cuda'"):
        wrapper_mlir.compile(build("mlp").eval(), [torch.randn(2, 64)], cuda_graphs=True)


def test_cuda_graphs_one_per_signature():
    """With cuda_graphs, the first call of each input signature captures a
    graph and later calls replay it: no kernel launch of their own, one
    graph launch per call, outputs equal to the model without graphs and
    not rewritten by later replays."""
    torch = _torch_on_gpu_or_skip()
    plain = _compile_or_skip(MLP)
    model = _compile_or_skip(MLP, cuda_graphs=True)
    weights = _mlp_weights(torch)
    x5 = torch.randn(5, 64, device="cuda")
    x9 = torch.randn(9, 64, device="cuda")
    first = model(x5, *weights)
    torch.cuda.synchronize()
    before = wrapper_mlir.cuda_stats()
    second = model(x5 * 2, *weights)
    third = model(x5, *weights)
    torch.cuda.synchronize()
    after = wrapper_mlir.cuda_stats()
    assert after["graph_launches"] - before["graph_launches"] == 2
    assert after["launches"] == before["launches"]
    assert _copies(after) == _copies(before)
    nine = model(x9, *weights)
    assert model._graphs.captures == 2 and model._graphs.replays == 4
    for got, inputs in [(first, x5), (second, x5 * 2), (third, x5), (nine, x9)]:
        expected = plain(inputs, *weights)
        for g, e in zip(got, expected):
            torch.testing.assert_close(g, e, rtol=1e-5, atol=1e-6)


def test_cuda_graphs_share_one_pool():
    """The graphs of one model share a memory pool: captured from the
    largest batch down, later graphs fit in the first one's blocks and the
    pool does not grow; replays of different sizes, interleaved and
    alternating between two streams, give the outputs of the model without
    graphs (a replay waits for the last one when the stream changes)."""
    torch = _torch_on_gpu_or_skip()
    plain = _compile_or_skip(MLP)
    model = _compile_or_skip(MLP, cuda_graphs=True)
    weights = _mlp_weights(torch)
    sizes = [512, 256, 64, 8]
    inputs = {n: torch.randn(n, 64, device="cuda") for n in sizes}
    model(inputs[512], *weights)
    largest = model._graphs.pool_bytes()
    assert largest >= 512 * 32 * 4
    for n in sizes[1:]:
        model(inputs[n], *weights)
    assert model._graphs.captures == 4
    assert model._graphs.pool_bytes() == largest
    side = torch.cuda.Stream()
    results = []
    for i in range(16):
        n = sizes[(i * 3) % 4]
        with torch.cuda.stream(side if i % 2 else torch.cuda.current_stream()):
            results.append((n, model(inputs[n], *weights)))
    torch.cuda.synchronize()
    for n, got in results:
        for g, e in zip(got, plain(inputs[n], *weights)):
            torch.testing.assert_close(g, e, rtol=1e-5, atol=1e-6)


def test_torch_compile_with_cuda_graphs():
    torch = _torch_on_gpu_or_skip()
    from modules import build

    wrapper_mlir.register_backend()
    torch._dynamo.reset()
    module = build("mlp").cuda().eval()
    compiled = torch.compile(module, backend="wrapper", options={"cuda_graphs": True})
    with torch.no_grad():
        for batch in (3, 3, 6, 3):
            x = torch.randn(batch, 64, device="cuda")
            torch.testing.assert_close(compiled(x), module(x), rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("inputs_on", ["device", "host"])
def test_injected_cuda_errors_free_everything(inputs_on):
    """CUDA driver errors injected (wrapper_cuda_fail_call_after): the k-th
    allocation, launch or copy of a call fails, for k = 0, 1, ... until a
    call makes fewer. Each failure is a WrapperError saying so; the call's
    remaining device work is skipped (no kernel writes through a buffer whose
    allocation failed, which would end the context); its blocks go back to
    the allocator; the next call gives the first call's outputs bit for bit.
    On CUDA tensors (no copies) and on NumPy arrays (copies in and out)."""
    torch = _torch_on_gpu_or_skip()
    model = _compile_or_skip(MLP)
    lib = wrapper_mlir._compile._cuda_runtime()
    lib.wrapper_cuda_fail_call_after.argtypes = [ctypes.c_int64]
    args = [torch.randn(37, 64, device="cuda"), *_mlp_weights(torch)]
    if inputs_on == "host":
        args = [a.cpu().numpy() for a in args]

    def same(outputs, expected):
        if inputs_on == "host":
            return all(np.array_equal(a, b) for a, b in zip(outputs, expected))
        return all(torch.equal(a, b) for a, b in zip(outputs, expected))

    expected = [o.clone() if inputs_on == "device" else o.copy() for o in model(*args)]
    torch.cuda.synchronize()
    in_use = wrapper_mlir.cuda_stats()["bytes_in_use"]
    injected = 0
    try:
        for k in range(500):
            lib.wrapper_cuda_fail_call_after(k)
            try:
                outputs = model(*args)
            except wrapper_mlir.WrapperError as error:
                lib.wrapper_cuda_fail_call_after(-1)
                assert "injected by wrapper_cuda_fail_call_after" in str(error), str(error)
                injected += 1
                torch.cuda.synchronize()
                assert wrapper_mlir.cuda_stats()["bytes_in_use"] == in_use, f"call {k}: a leak"
                assert same(model(*args), expected), f"the call after failure {k}"
                continue
            lib.wrapper_cuda_fail_call_after(-1)
            assert same(outputs, expected)
            del outputs
            break
    finally:
        lib.wrapper_cuda_fail_call_after(-1)
    torch.cuda.synchronize()
    assert wrapper_mlir.cuda_stats()["bytes_in_use"] == in_use
    # Products, launches and allocations at least; copies on the host path.
    assert injected >= (8 if inputs_on == "host" else 5), injected


def test_device_memory_stays_flat_over_many_calls():
    """5000 calls on CUDA tensors of one shape after a warm-up: the runtime's
    bytes in use and reserved, and PyTorch's, do not move (outputs are
    released as the tensors die). scripts/memory-growth.py --device cuda is
    the long form on zoo models."""
    torch = _torch_on_gpu_or_skip()
    model = _compile_or_skip(MLP)
    weights = _mlp_weights(torch)
    x = torch.randn(256, 64, device="cuda")
    for _ in range(50):
        model(x, *weights)
    torch.cuda.synchronize()
    before = wrapper_mlir.cuda_stats()
    torch_before = torch.cuda.memory_allocated()
    for _ in range(5000):
        out, top = model(x, *weights)
        del out, top
    torch.cuda.synchronize()
    after = wrapper_mlir.cuda_stats()
    assert after["bytes_in_use"] == before["bytes_in_use"]
    assert after["bytes_reserved"] == before["bytes_reserved"]
    assert torch.cuda.memory_allocated() == torch_before


def _load_cuda_or_skip(path):
    """The CUDA model of a package; without a GPU, checks the refusal and
    skips."""
    try:
        return wrapper_mlir.load(path, "cuda")
    except wrapper_mlir.WrapperError as error:
        if NO_GPU in str(error) and not os.environ.get("WRAPPER_REQUIRE_CUDA"):
            pytest.skip(f"no GPU: {error}")
        raise


def _second_call_without_copies(torch, model, x):
    """Calls `model(x)` twice (the first may upload constants) and returns
    the second call's result, asserting that it copied nothing between host
    and device."""
    model(x)
    torch.cuda.synchronize()
    before = wrapper_mlir.cuda_stats()
    out = model(x)
    after = wrapper_mlir.cuda_stats()
    assert _copies(after) == _copies(before)
    return out


def test_package_for_cpu_and_cuda(tmp_path):
    """One package with a CPU and a CUDA model of a torch module: each loads
    by its target (the CUDA one runs on CUDA tensors without host copies)
    and matches eager; without a GPU the CUDA model refuses to run and the
    CPU model still loads first."""
    import torch

    torch.manual_seed(0)
    block = torch.nn.Sequential(torch.nn.Linear(64, 96), torch.nn.GELU(),
                                torch.nn.Linear(96, 32)).eval()
    x = torch.randn(5, 64)
    path = wrapper_mlir.package(block, [x], tmp_path / "both.wpkg", target=["cpu", "cuda"],
                                dynamic_batch=True)
    model = wrapper_mlir.load(path)
    assert model.target == "cpu"
    assert [t["target"] for t in model.metadata["targets"]] == ["cpu", "cuda"]
    with torch.no_grad():
        torch.testing.assert_close(model(x), block(x), rtol=1e-4, atol=1e-5)
    gpu = _load_cuda_or_skip(path)
    assert gpu.target == "cuda"
    xc = torch.randn(9, 64, device="cuda")
    with torch.no_grad():
        out = _second_call_without_copies(torch, gpu, xc)
        assert out.device == xc.device
        torch.testing.assert_close(out, block.cuda()(xc), rtol=1e-4, atol=1e-4)


def test_swappable_package_on_cuda(tmp_path):
    """A swappable package's CUDA model: its parameters and prepared values
    on the device, a swap from host tensors (moved there), outputs as
    eager's before and after, no host copies per call."""
    import torch

    torch.manual_seed(0)
    block = torch.nn.Sequential(torch.nn.Linear(64, 96), torch.nn.GELU(),
                                torch.nn.Linear(96, 32)).eval()
    path = wrapper_mlir.package(block, [torch.randn(5, 64)], tmp_path / "swap.wpkg",
                                target=["cpu", "cuda"], swappable=True, dynamic_batch=True)
    gpu = _load_cuda_or_skip(path)
    assert all(t.device.type == "cuda" for t in gpu.weights.values())
    x = torch.randn(7, 64, device="cuda")
    with torch.no_grad():
        torch.testing.assert_close(gpu(x), block.cuda()(x), rtol=1e-4, atol=1e-4)
        block[2].weight.mul_(-1.5)
        gpu.swap_weights({"2.weight": block[2].weight.cpu()})
        out = _second_call_without_copies(torch, gpu, x)
        torch.testing.assert_close(out, block(x), rtol=1e-4, atol=1e-4)


def test_swappable_package_on_device_from_c(tmp_path):
    """From C (swap_weights --device): a CUDA swappable package runs on
    device inputs through wrapper_package_run_device with no host copies,
    swaps from device arrays (wrapper_package_weights_swap_device), and 4
    threads calling on their own streams while the main thread swaps back
    and forth see one set or the other, never a mix."""
    import subprocess

    import torch

    torch.manual_seed(0)
    block = torch.nn.Sequential(torch.nn.Linear(64, 96), torch.nn.GELU(),
                                torch.nn.Linear(96, 32)).eval()
    path = wrapper_mlir.package(block, [torch.randn(5, 64)], tmp_path / "dev.wpkg",
                                target=["cpu", "cuda"], swappable=True, dynamic_batch=True)
    _load_cuda_or_skip(path).close()
    x = torch.randn(7, 64)
    np.save(tmp_path / "x.npy", x.numpy())
    changed = torch.nn.Sequential(torch.nn.Linear(64, 96), torch.nn.GELU(),
                                  torch.nn.Linear(96, 32)).eval()
    changed.load_state_dict(block.state_dict())
    with torch.no_grad():
        changed[2].weight.mul_(-1.5)
        np.save(tmp_path / "ref.npy", block(x).numpy())
        np.save(tmp_path / "ref2.npy", changed(x).numpy())
    np.save(tmp_path / "w.npy", changed[2].weight.detach().numpy())
    result = subprocess.run(
        [wrapper_mlir.find_tool("swap_weights"), str(path), str(tmp_path / "x.npy"),
         "--target", "cuda", "--device", "--ref", str(tmp_path / "ref.npy"),
         "--swap", f"2.weight={tmp_path / 'w.npy'}", "--ref-swapped", str(tmp_path / "ref2.npy"),
         "--threads", "4", "--calls", "25"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(": ok") == 2, result.stdout
    assert "4 threads x 25 calls during" in result.stdout and ", 0 mixed" in result.stdout
    assert "device runs: 0 copies between host and device" in result.stdout


def test_collective_handler_orders_on_the_runtime_stream():
    """The collective handler gives torch.distributed the stream our kernels
    run on: the legacy default stream (a null pointer) is torch's default
    stream, not a fresh stream of torch's pool (which ExternalStream(0)
    would be), and another stream is that stream."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no GPU")
    from wrapper_mlir._collectives import _torch_stream

    device = torch.cuda.current_device()
    legacy = _torch_stream(None, device)
    assert legacy == torch.cuda.default_stream(device) and legacy.cuda_stream == 0
    side = torch.cuda.Stream(device)
    assert _torch_stream(side.cuda_stream, device).cuda_stream == side.cuda_stream


ADD = """
func.func @main(%x: tensor<4096xf32>, %y: tensor<4096xf32>) -> tensor<4096xf32> {
  %s = tensor_program.add %x, %y : (tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096xf32>
  return %s : tensor<4096xf32>
}
"""


def test_donated_inputs_are_freed_at_their_last_use():
    """A program compiled with --cuda-release-arguments frees the inputs
    given up for the call (wrapper_mlir._compile.donating: blocks our
    outputs own through DLPack) after its last reader, and nothing else:
    not an input another argument shares, not a tensor PyTorch owns, not
    outside a `donating` block. The outputs are right either way."""
    torch = _torch_on_gpu_or_skip()
    from wrapper_mlir._compile import _compile_text, donating

    try:
        model = _compile_text(ADD, target="cuda", release_arguments=True)
    except wrapper_mlir.WrapperError as error:
        if NO_GPU in str(error) and not os.environ.get("WRAPPER_REQUIRE_CUDA"):
            pytest.skip(f"no GPU: {error}")
        raise
    x, y = torch.randn(4096, device="cuda"), torch.randn(4096, device="cuda")
    (a,), (b,) = model(x, y), model(y, x)  # ours: blocks owned through DLPack
    expected = (x + y) * 2

    def released(call):
        before = wrapper_mlir.cuda_stats()["released_early"]
        out = call()
        torch.cuda.synchronize()
        return wrapper_mlir.cuda_stats()["released_early"] - before, out

    count, (out,) = released(lambda: model(a, b))  # nothing donated
    assert count == 0 and torch.allclose(out, expected)
    with donating([x, y], [x, y]):  # PyTorch's own tensors: skipped
        count, (out,) = released(lambda: model(x, y))
    assert count == 0
    with donating([a, b], [a, b, a]):  # a is shared with another argument
        count, (out,) = released(lambda: model(a, b))
    assert count == 1 and torch.allclose(out, expected)
    in_use = wrapper_mlir.cuda_stats()["bytes_in_use"]
    del b  # freed already: its deleter frees nothing
    assert wrapper_mlir.cuda_stats()["bytes_in_use"] == in_use
    del a
    assert wrapper_mlir.cuda_stats()["bytes_in_use"] == in_use - 4096 * 4
