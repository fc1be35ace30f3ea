"""A compiled model under load: called from 8 threads at once it gives the
outputs of one thread bit for bit; called many times, resident memory stays
flat (and the measurement is shown to catch a leak of one buffer per
call); bad inputs at the boundary get messages, and the next call works.
The long forms (more calls, more threads, real models) are scripts/soak.sh's."""

import ctypes
import os
import threading

import numpy as np
import pytest

import wrapper_mlir

# A dynamic-batch MLP with a softmax and a row maximum: products through
# the GEMM template, fused row kernels, temporaries of ~100 KB per call at
# batch 64.
MLP = """
func.func @main(%x: tensor<?x64xf32>, %w1: tensor<192x64xf32>, %b1: tensor<192xf32>,
                %w2: tensor<32x192xf32>, %b2: tensor<32xf32>) -> (tensor<?x32xf32>, tensor<?xf32>) {
  %h = tensor_program.linear %x, %w1 bias %b1 : (tensor<?x64xf32>, tensor<192x64xf32>, tensor<192xf32>) -> tensor<?x192xf32>
  %g = tensor_program.gelu %h : tensor<?x192xf32>
  %o = tensor_program.linear %g, %w2 bias %b2 : (tensor<?x192xf32>, tensor<32x192xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  %s = tensor_program.softmax %o dim 1 : tensor<?x32xf32>
  %m = tensor_program.reduce_max %s dims [1] : tensor<?x32xf32> -> tensor<?xf32>
  return %o, %m : tensor<?x32xf32>, tensor<?xf32>
}
"""


def _weights(rng):
    return [rng.standard_normal(s, dtype=np.float32) * 0.1
            for s in ((192, 64), (192,), (32, 192), (32,))]


@pytest.fixture(scope="module")
def mlp():
    return wrapper_mlir.compile(MLP)


def _resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _hammer(calls, threads):
    """Runs calls[i] for every i, spread over `threads` threads started
    together; the results (or exceptions) by index."""
    results = [None] * len(calls)
    barrier = threading.Barrier(threads)

    def worker(first):
        barrier.wait()
        for i in range(first, len(calls), threads):
            try:
                results[i] = calls[i]()
            except Exception as error:  # reported by index below
                results[i] = error

    pool = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return results


@pytest.mark.parametrize("parallel", [True, False])
def test_eight_threads_match_one_bit_for_bit(parallel):
    model = wrapper_mlir.compile(MLP, parallel=parallel)
    rng = np.random.default_rng(0)
    weights = _weights(rng)
    inputs = [rng.standard_normal((int(b), 64), dtype=np.float32)
              for b in rng.integers(1, 97, size=96)]
    expected = [model(x, *weights) for x in inputs]
    got = _hammer([lambda x=x: model(x, *weights) for x in inputs], threads=8)
    for i, (g, e) in enumerate(zip(got, expected)):
        assert not isinstance(g, Exception), f"call {i}: {g}"
        for j, (a, b) in enumerate(zip(g, e)):
            assert a.shape == b.shape and np.array_equal(a, b), f"call {i} output {j} differs"


def test_errors_stay_with_their_thread(mlp):
    """Threads with bad inputs get their own message while the others'
    calls succeed (error messages are per thread)."""
    rng = np.random.default_rng(1)
    weights = _weights(rng)
    good = rng.standard_normal((8, 64), dtype=np.float32)
    bad = rng.standard_normal((8, 63), dtype=np.float32)
    expected = mlp(good, *weights)
    calls = [(lambda: mlp(bad, *weights)) if i % 2 else (lambda: mlp(good, *weights))
             for i in range(64)]
    for i, result in enumerate(_hammer(calls, threads=8)):
        if i % 2:
            assert isinstance(result, wrapper_mlir.WrapperError), i
            assert "input arg0 dimension 1 is 63, expected 64" in str(result), str(result)
        else:
            assert not isinstance(result, Exception), f"call {i}: {result}"
            assert all(np.array_equal(a, b) for a, b in zip(result, expected))


def _growth(step, calls, warmup=200):
    for _ in range(warmup):
        step()
    # Free heap pages that earlier work left resident go back to the system
    # first: a leak would otherwise reuse them without growing the resident
    # set (after other tests in the same process, it did).
    ctypes.CDLL(None).malloc_trim(0)
    before = _resident_bytes()
    for _ in range(calls):
        step()
    return _resident_bytes() - before


def test_resident_memory_stays_flat(mlp):
    rng = np.random.default_rng(2)
    weights = _weights(rng)
    x = rng.standard_normal((64, 64), dtype=np.float32)

    def call():
        outputs = mlp(x, *weights)
        del outputs

    growth = _growth(call, calls=20000)
    assert growth < 16 << 20, f"resident memory grew by {growth / 2**20:.1f} MiB in 20000 calls"


def _minor_faults():
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def test_buffers_are_not_faulted_in_again_on_every_call(mlp):
    """At batch 4096 the MLP's temporaries and outputs are megabytes, which
    glibc maps and unmaps on every call unless they are kept: the runtime's
    block cache hands the same blocks out again, so after a warm-up a call
    page-faults (almost) nothing; without the cache it faulted ~1500 pages
    per call."""
    lib = mlp._lib
    u64 = ctypes.c_uint64
    lib.wrapper_alloc_cache_stats.argtypes = [ctypes.POINTER(u64)] * 3
    rng = np.random.default_rng(4)
    weights = _weights(rng)
    x = rng.standard_normal((4096, 64), dtype=np.float32)
    for _ in range(5):
        mlp(x, *weights)
    kept, hits, misses = u64(), u64(), u64()
    lib.wrapper_alloc_cache_stats(ctypes.byref(kept), ctypes.byref(hits), ctypes.byref(misses))
    hits_before, misses_before = hits.value, misses.value
    faults = _minor_faults()
    for _ in range(20):
        outputs = mlp(x, *weights)
        del outputs
    per_call = (_minor_faults() - faults) / 20
    lib.wrapper_alloc_cache_stats(ctypes.byref(kept), ctypes.byref(hits), ctypes.byref(misses))
    assert per_call < 64, f"{per_call:.0f} page faults per call (a 3 MB buffer is 768 pages)"
    assert hits.value - hits_before >= 20 * 3, "the calls' buffers did not come from the cache"
    assert misses.value == misses_before, "a call after the warm-up allocated a new block"
    assert 0 < kept.value <= 1 << 30


def test_the_measurement_catches_one_leaked_buffer_per_call(mlp):
    """The check above with a call that leaks one 64 KB buffer (a model
    temporary's size) per call: the growth is seen."""
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
    rng = np.random.default_rng(3)
    weights = _weights(rng)
    x = rng.standard_normal((64, 64), dtype=np.float32)

    def leaky_call():
        mlp(x, *weights)
        libc.memset(libc.malloc(64 << 10), 1, 64 << 10)

    growth = _growth(leaky_call, calls=3000, warmup=10)
    assert growth >= 3000 * (64 << 10) * 0.9, f"a leak of 187 MiB showed as {growth / 2**20:.1f} MiB"


def test_injected_allocation_failures_free_everything(mlp):
    """Fault injection (wrapper_fail_allocation_after): the k-th runtime
    allocation of a call fails (compiled code's buffers, inside parallel
    loops too, and the outputs), for k = 0, 1, ... until a call makes fewer
    allocations than k. Each failure is a WrapperError saying so, leaves no
    block allocated (the call scope frees what compiled code held; an
    output created before the failing one is freed), and the next call
    succeeds with the same outputs."""
    import gc

    lib = mlp._lib
    lib.wrapper_fail_allocation_after.argtypes = [ctypes.c_int64]
    lib.wrapper_allocated_bytes.restype = ctypes.c_uint64
    lib.wrapper_live_blocks.restype = ctypes.c_int64
    rng = np.random.default_rng(6)
    weights = _weights(rng)
    x = rng.standard_normal((5, 64), dtype=np.float32)
    expected = [a.copy() for a in mlp(x, *weights)]
    gc.collect()
    baseline = lib.wrapper_allocated_bytes()
    blocks = lib.wrapper_live_blocks()
    injected = 0
    try:
        for k in range(64):
            lib.wrapper_fail_allocation_after(k)
            try:
                outputs = mlp(x, *weights)
            except wrapper_mlir.WrapperError as error:
                lib.wrapper_fail_allocation_after(-1)
                assert "injected by wrapper_fail_allocation_after" in str(error), str(error)
                assert lib.wrapper_allocated_bytes() == baseline, f"allocation {k}: a leak"
                assert lib.wrapper_live_blocks() == blocks, f"allocation {k}: a block leaked"
                injected += 1
                outputs = mlp(x, *weights)
                assert all(np.array_equal(a, b) for a, b in zip(outputs, expected))
                del outputs
                gc.collect()
                assert lib.wrapper_allocated_bytes() == baseline
                continue
            lib.wrapper_fail_allocation_after(-1)
            assert all(np.array_equal(a, b) for a, b in zip(outputs, expected))
            break
    finally:
        lib.wrapper_fail_allocation_after(-1)
    # The compiled code's buffers and the two outputs: the last failure
    # needs the first output freed.
    assert injected > 2, f"{injected} allocations failed in turn"


def test_outputs_are_handed_over_not_copied(mlp):
    """A result in a block of its own becomes the output without a copy
    (wrapper_array_adopt_block): holding the outputs holds compiled code's
    blocks, not arrays of wrapper_alloc; a result that is an input (or a
    view into one) is still copied. Dropping the outputs gives the blocks
    back."""
    import gc

    lib = mlp._lib
    lib.wrapper_allocated_bytes.restype = ctypes.c_uint64
    lib.wrapper_live_blocks.restype = ctypes.c_int64
    rng = np.random.default_rng(7)
    weights = _weights(rng)
    x = rng.standard_normal((64, 64), dtype=np.float32)
    gc.collect()
    baseline, blocks = lib.wrapper_allocated_bytes(), lib.wrapper_live_blocks()
    outputs = mlp(x, *weights)
    assert lib.wrapper_allocated_bytes() == baseline
    assert lib.wrapper_live_blocks() == blocks + 2
    for _ in range(50):  # the adopted set shrinks back as outputs go
        outputs = mlp(x, *weights)
    del outputs
    gc.collect()
    assert lib.wrapper_live_blocks() == blocks

    echo = wrapper_mlir.compile("""
func.func @main(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x4xf32>) {
  %y = tensor_program.add %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = tensor_program.permute %y [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return %x, %y, %t : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x4xf32>
}
""")
    x = rng.standard_normal((4, 8), dtype=np.float32)
    gc.collect()
    baseline = lib.wrapper_allocated_bytes()
    same, doubled, transposed = echo(x)
    np.testing.assert_array_equal(same, x)
    np.testing.assert_array_equal(doubled, x + x)
    np.testing.assert_array_equal(transposed, (x + x).T)
    # The input echoed is copied (4 * 8 floats); the sum is handed over.
    assert lib.wrapper_allocated_bytes() - baseline >= 4 * 8 * 4
    x[0, 0] = 1e6  # the copy is the caller's own
    assert same[0, 0] != 1e6


@pytest.mark.parametrize("case,message", [
    ("dtype", "input #0: unsupported dtype complex64"),
    ("wrong_dtype", "input arg0 has dtype float64, expected float32"),
    ("rank", "input arg0 has rank 3, expected 2"),
    ("shape", "input arg1 dimension 0 is 191, expected 192"),
    ("count", "the model takes 5 inputs, got 4"),
])
def test_bad_inputs_get_messages_and_the_next_call_works(mlp, case, message):
    rng = np.random.default_rng(4)
    weights = _weights(rng)
    x = rng.standard_normal((5, 64), dtype=np.float32)
    args = [x, *weights]
    if case == "dtype":
        args[0] = x.astype(np.complex64)
    elif case == "wrong_dtype":
        args[0] = x.astype(np.float64)
    elif case == "rank":
        args[0] = x.reshape(5, 8, 8)
    elif case == "shape":
        args[1] = weights[0][:191]
    else:
        args = args[:4]
    with pytest.raises(wrapper_mlir.WrapperError) as error:
        mlp(*args)
    assert message in str(error.value)
    out, _ = mlp(x, *weights)
    assert out.shape == (5, 32)


def test_strided_nan_and_empty_inputs(mlp):
    """Non-contiguous arrays are copied to C order; NaN and inf flow
    through as IEEE arithmetic says; a batch of 0 rows gives empty outputs."""
    rng = np.random.default_rng(5)
    weights = _weights(rng)
    x = rng.standard_normal((10, 128), dtype=np.float32)
    strided = x[:, ::2]
    out, top = mlp(strided, *weights)
    ref, ref_top = mlp(np.ascontiguousarray(strided), *weights)
    assert np.array_equal(out, ref) and np.array_equal(top, ref_top)
    poisoned = np.ascontiguousarray(strided)
    poisoned[3, 5] = np.nan
    poisoned[4, 0] = np.inf
    out, top = mlp(poisoned, *weights)
    assert np.isnan(out[3]).all() and np.isnan(top[3])
    assert np.array_equal(out[:3], ref[:3]) and np.array_equal(out[5:], ref[5:])
    empty_out, empty_top = mlp(np.zeros((0, 64), np.float32), *weights)
    assert empty_out.shape == (0, 32) and empty_top.shape == (0,)


def test_torch_compile_from_eight_threads():
    """The torch.compile backend's compiled module, warmed up, called from
    8 threads with torch tensors: each result equals one thread's."""
    torch = pytest.importorskip("torch")
    wrapper_mlir.register_backend()
    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(),
                                 torch.nn.LayerNorm(64), torch.nn.Linear(64, 16)).eval()
    compiled = torch.compile(module, backend="wrapper")
    inputs = [torch.randn(6, 32) for _ in range(48)]

    def call(x):
        with torch.no_grad():  # grad mode is per thread
            return compiled(x)

    expected = [call(x) for x in inputs]
    got = _hammer([lambda x=x: call(x) for x in inputs], threads=8)
    for i, (g, e) in enumerate(zip(got, expected)):
        assert not isinstance(g, Exception), f"call {i}: {g}"
        assert torch.equal(g, e), f"call {i} differs"


def test_models_in_a_torch_process_share_torchs_openmp_threads():
    """With PyTorch in the process, a CPU model runs its parallel loops on
    PyTorch's OpenMP runtime (libgomp, through the runtime's adapter of the
    __kmpc_* entry points) instead of a second pool: the same outputs as a
    serial build, also between torch ops that leave libgomp's workers
    spinning."""
    torch = pytest.importorskip("torch")
    from wrapper_mlir import _compile

    model = wrapper_mlir.compile(MLP)  # torch is imported: the adapter
    if os.environ.get("WRAPPER_OPENMP") == "libomp":
        pytest.skip("WRAPPER_OPENMP=libomp keeps LLVM's runtime")
    assert _compile._kmpc_adapter_state is True
    forks = _compile._kmpc_over_gomp.wrapper_kmpc_over_gomp_forks
    rng = np.random.default_rng(7)
    x = rng.standard_normal((64, 64), dtype=np.float32)
    weights = _weights(rng)
    before = forks()
    got = model(x, *weights)
    assert forks() > before
    serial = wrapper_mlir.compile(MLP, parallel=False)(x, *weights)
    for g, e in zip(got, serial):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6)
    t = torch.randn(256, 256)
    for _ in range(20):
        (t @ t).relu().sum()
        again = model(x, *weights)
        np.testing.assert_array_equal(again[0], got[0])
        np.testing.assert_array_equal(again[1], got[1])
