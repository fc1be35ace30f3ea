"""Collectives in compiled graphs: two ranks on loopback (gloo on the CPU;
NCCL with WRAPPER_TEST_NCCL=1 on a machine with two GPUs), each a process
running distributed_worker.py, compared against eager PyTorch on the same
rank: functional collectives under torch.compile, and a data-parallel
compiled training step against eager DDP, with and without bucketing."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
if not torch.distributed.is_available():
    pytest.skip("torch.distributed is not available", allow_module_level=True)

WORKER = Path(__file__).with_name("distributed_worker.py")
WORLD = 2


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(scenario, backend="gloo", world=WORLD):
    port = _free_port()
    processes = []
    for rank in range(world):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(port), BACKEND=backend, OMP_NUM_THREADS="1")
        processes.append(subprocess.Popen([sys.executable, str(WORKER), scenario], env=env,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True))
    results = []
    for rank, process in enumerate(processes):
        try:
            out, err = process.communicate(timeout=600)
        except subprocess.TimeoutExpired:
            for p in processes:
                p.kill()
            raise
        assert process.returncode == 0, f"rank {rank} failed:\n{err[-4000:]}"
        lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
        assert lines, f"rank {rank} printed no result:\n{out[-2000:]}\n{err[-2000:]}"
        results.append(json.loads(lines[-1][len("RESULT "):]))
    return results


BACKENDS = ["gloo", pytest.param("nccl", marks=pytest.mark.skipif(
    not os.environ.get("WRAPPER_TEST_NCCL"), reason="NCCL runs need WRAPPER_TEST_NCCL=1 "
    "and two GPUs"))]


@pytest.mark.parametrize("backend", BACKENDS)
def test_functional_collectives_compile_and_match_eager(backend):
    for result in _run("functional", backend):
        assert max(result["errors"]) < 1e-5, result
        assert result["compiled"]["inference"] == 1, result
        assert not result["graph_fallbacks"] and not result["op_fallbacks"], result


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("bucket_bytes,mode", [(25 * 1024 * 1024, "concat"),
                                               (1024, "coalesced"), (0, "concat")])
def test_data_parallel_training_step_matches_ddp(backend, bucket_bytes, mode):
    results = _run(f"training:{bucket_bytes}:{mode}", backend)
    for result in results:
        assert max(result["errors"].values()) < 1e-4, result
        for got, expected in zip(result["losses"], result["expected_losses"]):
            assert abs(got - expected) <= 1e-4 * max(1.0, abs(expected)), result
        assert result["ranks_agree"], result
        # Six parameters, each gradient all-reduced; four steps.
        assert result["source_collectives"] == 6, result
        started = result["collectives_started"]
        assert started == result["collectives_waited"], result
        if bucket_bytes == 0:
            assert started == 4 * 6, result        # one per gradient
        elif mode == "concat":
            assert started == 4, result            # one bucket holds them all
        else:
            assert 4 < started < 4 * 6, result     # 1 KiB buckets: several
    # The ranks took different batches but hold the same parameters.
    assert results[0]["losses"] != results[1]["losses"]


_ALL_REDUCE = '''
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = tensor_program.relu %x : tensor<8xf32>
  %r = tensor_program.extern "_c10d_functional::all_reduce"(%y) args {group_name = "0", reduce_op = "sum"} : (tensor<8xf32>) -> tensor<8xf32>
  %w = tensor_program.extern "_c10d_functional::wait_tensor"(%r) : (tensor<8xf32>) -> tensor<8xf32>
  return %w : tensor<8xf32>
}
'''


def test_collective_without_a_process_group_is_an_error_naming_it():
    import numpy as np

    import wrapper_mlir

    assert not torch.distributed.is_initialized()
    model = wrapper_mlir.compile(_ALL_REDUCE)
    with pytest.raises(wrapper_mlir.WrapperError,
                       match="all_reduce on process group '0' failed in torch.distributed: "
                             ".*torch.distributed is not initialized"):
        model(np.ones(8, np.float32))


def test_data_parallel_refusals():
    import wrapper_mlir

    model = torch.nn.Linear(4, 2)
    batch = [torch.randn(3, 4), torch.randint(0, 2, (3,))]
    loss = torch.nn.functional.cross_entropy
    with pytest.raises(wrapper_mlir.WrapperError, match="needs torch.distributed initialized"):
        wrapper_mlir.compile_training(model, loss, {"type": "sgd", "lr": 0.1}, batch,
                                      process_group=True)
    with pytest.raises(wrapper_mlir.WrapperError, match="bucket_mode must be 'concat' or "
                                                        "'coalesced', got 'ring'"):
        wrapper_mlir.compile_training(model, loss, {"type": "sgd", "lr": 0.1}, batch,
                                      bucket_mode="ring")
    with pytest.raises(wrapper_mlir.WrapperError, match="bucket_bytes must be an integer"):
        wrapper_mlir.compile_training(model, loss, {"type": "sgd", "lr": 0.1}, batch,
                                      bucket_bytes=-1)


def test_unsupported_reduction_is_refused_by_the_importer():
    from wrapper_mlir.importer.ops_distributed import _reduction
    from wrapper_mlir.importer.values import UnsupportedError

    assert _reduction("SUM") == "sum"
    with pytest.raises(UnsupportedError, match="reduction 'premul_sum'"):
        _reduction("premul_sum")
