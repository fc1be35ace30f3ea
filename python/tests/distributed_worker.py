"""One rank of the distributed tests (test_distributed.py starts several):
runs a scenario on a torch.distributed process group and prints one JSON
line with what it measured against eager PyTorch on the same rank.

    python distributed_worker.py SCENARIO   (RANK, WORLD_SIZE, MASTER_ADDR,
                                             MASTER_PORT, BACKEND in the env)
"""

import copy
import faulthandler
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol

import wrapper_mlir


def _device():
    if os.environ.get("BACKEND", "gloo") == "nccl":
        index = int(os.environ["RANK"]) % torch.cuda.device_count()
        torch.cuda.set_device(index)
        return torch.device("cuda", index)
    return torch.device("cpu")


def _max_error(a, b):
    a, b = a.detach().double().cpu(), b.detach().double().cpu()
    return float(((a - b).abs() / (b.abs() + 1e-6)).max()) if a.numel() else 0.0


def functional(device):
    """The functional collectives inside a torch.compile'd function."""
    rank, world = dist.get_rank(), dist.get_world_size()
    group = dist.group.WORLD

    def f(x, y):
        a = funcol.all_reduce(torch.relu(x) * 2.0, "sum", group)
        g = funcol.all_gather_tensor(x + 1.0, 0, group)
        s = funcol.reduce_scatter_tensor(y * 3.0, "sum", 0, group)
        m = funcol.all_reduce(x, "max", group)
        v = funcol.all_reduce(y[: x.shape[0]], "avg", group)
        return a + 1.0, g.sum(dim=1), s - 1.0, m, v

    torch.manual_seed(rank)
    x = torch.randn(8, 16, device=device)
    y = torch.randn(8 * world, 16, device=device)
    expected = f(x, y)
    compiled = torch.compile(f, backend="wrapper", fullgraph=True)
    got = compiled(x, y)
    stats = wrapper_mlir.stats()
    return {"errors": [_max_error(g, e) for g, e in zip(got, expected)],
            "compiled": stats["compiled"], "graph_fallbacks": stats["graph_fallbacks"],
            "op_fallbacks": stats["op_fallbacks"]}


def training(device, bucket_bytes, bucket_mode):
    """compile_training with the process group against eager DDP: both
    start from the same weights and take the same per-rank batches."""
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(12, 32), torch.nn.GELU(),
                                torch.nn.Linear(32, 32), torch.nn.Tanh(),
                                torch.nn.Linear(32, 4)).to(device)
    reference = copy.deepcopy(model)
    ddp = torch.nn.parallel.DistributedDataParallel(reference)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
    loss_fn = torch.nn.functional.cross_entropy

    batches = []
    generator = torch.Generator().manual_seed(100 + rank)
    for _ in range(4):
        batches.append((torch.randn(6, 12, generator=generator).to(device),
                        torch.randint(0, 4, (6,), generator=generator).to(device)))
    step = wrapper_mlir.compile_training(
        model, loss_fn, {"type": "sgd", "lr": 0.05, "momentum": 0.9}, batches[0],
        process_group=True, bucket_bytes=bucket_bytes, bucket_mode=bucket_mode)
    losses, expected_losses = [], []
    for x, t in batches:
        losses.append(step(x, t))
        optimizer.zero_grad()
        loss = loss_fn(ddp(x), t)
        loss.backward()
        optimizer.step()
        expected_losses.append(float(loss))
    step.copy_to(model)
    errors = {name: _max_error(p, q) for (name, p), q in
              zip(model.named_parameters(), ddp.module.parameters())}
    # The ranks hold the same parameters (the gradients were averaged).
    flat = torch.cat([p.detach().flatten() for p in model.parameters()])
    gathered = [torch.empty_like(flat) for _ in range(world)]
    dist.all_gather(gathered, flat)
    from wrapper_mlir._collectives import counts

    started, waited = counts(step._lib)
    return {"errors": errors, "losses": losses, "expected_losses": expected_losses,
            "ranks_agree": all(torch.equal(gathered[0], g) for g in gathered),
            "collectives_started": started, "collectives_waited": waited,
            "source_collectives": step._source.count("_c10d_functional::all_reduce")}


def main():
    # A hung collective prints every thread's stack and exits instead of
    # holding the test until its timeout.
    faulthandler.dump_traceback_later(int(os.environ.get("WRAPPER_WORKER_TIMEOUT", "500")),
                                      exit=True)
    scenario = sys.argv[1]
    backend = os.environ.get("BACKEND", "gloo")
    dist.init_process_group(backend)
    device = _device()
    try:
        if scenario == "functional":
            result = functional(device)
        elif scenario.startswith("training"):
            _, bucket_bytes, mode = scenario.split(":")
            result = training(device, int(bucket_bytes), mode)
        else:
            raise SystemExit(f"unknown scenario {scenario}")
        result["rank"] = dist.get_rank()
        print("RESULT " + json.dumps(result), flush=True)
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
