"""Data-parallel training steps on several ranks: the GPT-2-style decoder
of bench/models.py --train (4 layers, 128 tokens, batch 4 per rank; with
--size small GPT-2 small's 12 x 768 blocks, batch 8 per rank; from its
input embeddings, see gpt2_blocks) under
eager DDP, Inductor (torch.compile of the DDP model) and ours
(wrapper_mlir.compile_training with the process group: the gradients
all-reduced in buckets inside the compiled step), each also without the
gradient reduction (the compute-only step, for how much of the
communication is hidden). Interleaved steps, medians, ranges; rank 0
prints a table, then one JSON line.

    .venv/bin/python bench/distributed.py --nproc 2 --backend nccl   # GPUs
    .venv/bin/python bench/distributed.py --nproc 2 --backend nccl --size small
    .venv/bin/python bench/distributed.py --nproc 2                  # gloo, CPU
"""

import argparse
import copy
import json
import os
import socket
import statistics
import subprocess
import sys
import time


# Decoder sizes: layers, width, heads, batch per rank (128 tokens each).
# "tiny" is bench/models.py's training decoder: every variant is bound by
# host work there (well under 1 ms of kernels per step); "small" is GPT-2
# small's blocks (12 x 768, 85M parameters), where the GPU's work and the
# 340 MB of gradients per step dominate, so overlap can show.
SIZES = {"tiny": (4, 128, 4, 4), "small": (12, 768, 12, 8)}


def gpt2_blocks(device, size="tiny"):
    """The GPT-2-style decoder of bench/models.py (SIZES: "tiny" is 4
    layers, 128 wide, 4 heads; 128 tokens, 1000-token head) from its input
    embeddings: the token and position embeddings are left out: their
    backward (a scatter-add with repeated indices) did not compile for CUDA
    before session 47 (now atomic adds), and runs stay comparable."""
    import torch
    import transformers as T

    layers, width, heads, batch = SIZES[size]
    config = T.GPT2Config(vocab_size=1000, n_embd=width, n_layer=layers, n_head=heads,
                          n_positions=128, use_cache=False, resid_pdrop=0.0, embd_pdrop=0.0,
                          attn_pdrop=0.0, bos_token_id=0, eos_token_id=0)
    gpt2 = T.GPT2LMHeadModel(config)

    class Decoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.h, self.ln_f, self.lm_head = gpt2.transformer.h, gpt2.transformer.ln_f, gpt2.lm_head

        def forward(self, x):
            for block in self.h:
                x = block(x)
                x = x[0] if isinstance(x, tuple) else x
            return self.lm_head(self.ln_f(x))

    embeddings = torch.randn(batch, 128, width, device=device)
    tokens = torch.randint(0, 1000, (batch, 128), device=device)
    return Decoder(), (embeddings,), (tokens,), lambda out, t: (
        torch.nn.functional.cross_entropy(out[:, :-1].reshape(-1, 1000), t[:, 1:].reshape(-1)))


def _worker(args):
    import torch
    import torch.distributed as dist

    import wrapper_mlir

    dist.init_process_group(args.backend)
    rank, world = dist.get_rank(), dist.get_world_size()
    device = "cpu"
    if args.backend == "nccl":
        torch.cuda.set_device(rank % torch.cuda.device_count())
        device = f"cuda:{torch.cuda.current_device()}"
    torch.manual_seed(0)
    model, inputs, targets, loss_fn = gpt2_blocks(device, args.size)
    model = model.to(device).train()
    torch.manual_seed(1 + rank)  # each rank its own batch
    inputs = tuple(torch.randn_like(t) for t in inputs)
    targets = tuple(torch.randint_like(t, 0, 1000) for t in targets)
    sgd = {"type": "sgd", "lr": 1e-3, "momentum": 0.9}

    def eager_step(module, optimizer):
        def run():
            loss = loss_fn(module(*inputs), *targets)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            return float(loss)
        return run

    variants = {}
    ddp = torch.nn.parallel.DistributedDataParallel(copy.deepcopy(model))
    variants["eager"] = eager_step(ddp, torch.optim.SGD(ddp.parameters(), lr=1e-3, momentum=0.9))
    plain = copy.deepcopy(model)
    variants["eager_compute"] = eager_step(plain, torch.optim.SGD(plain.parameters(), lr=1e-3,
                                                                  momentum=0.9))
    inductor_ddp = torch.nn.parallel.DistributedDataParallel(copy.deepcopy(model))
    compiled = torch.compile(inductor_ddp)
    variants["inductor"] = eager_step(compiled, torch.optim.SGD(inductor_ddp.parameters(),
                                                                lr=1e-3, momentum=0.9))
    compile_seconds = {}
    for name, group in (("ours", True), ("ours_compute", None)):
        start = time.perf_counter()
        buckets = {} if group is None else {"bucket_mode": args.bucket_mode,
                                            "bucket_bytes": int(args.bucket_mib * 2**20)}
        step = wrapper_mlir.compile_training(copy.deepcopy(model), loss_fn, sgd,
                                             [*inputs, *targets], process_group=group,
                                             **buckets)
        compile_seconds[name] = round(time.perf_counter() - start, 1)
        variants[name] = (lambda s: lambda: s(*inputs, *targets))(step)

    def synchronize():
        if device != "cpu":
            torch.cuda.synchronize()

    times = {name: [] for name in variants}
    for name, run in variants.items():  # warm-up (Inductor compiles here)
        for _ in range(3):
            run()
    dist.barrier()
    for _ in range(args.steps):
        for name, run in variants.items():
            # The ranks start each step together: a rank that finished the
            # previous step late would otherwise be timed in the other's
            # first collective.
            synchronize()
            dist.barrier()
            synchronize()
            t = time.perf_counter()
            run()
            synchronize()
            times[name].append(time.perf_counter() - t)
    medians = {name: statistics.median(t) * 1e3 for name, t in times.items()}
    ranges = {name: [round(min(t) * 1e3, 2), round(max(t) * 1e3, 2)] for name, t in times.items()}
    gathered = [None] * world
    dist.all_gather_object(gathered, medians)
    if rank == 0:
        # The slowest rank's median sets the step.
        step_ms = {name: max(m[name] for m in gathered) for name in medians}
        result = {"model": "gpt2_decoder_blocks", "size": args.size, "world": world, "backend": args.backend,
                  "bucket_mode": args.bucket_mode, "bucket_mib": args.bucket_mib,
                  "device": torch.cuda.get_device_name() if device != "cpu" else "cpu",
                  "step_ms": {k: round(v, 2) for k, v in step_ms.items()},
                  "rank0_range_ms": ranges, "compile_s": compile_seconds,
                  "ours_vs_inductor": round(step_ms["inductor"] / step_ms["ours"], 3),
                  "ours_vs_eager": round(step_ms["eager"] / step_ms["ours"], 3),
                  "ours_over_compute": round(step_ms["ours"] / step_ms["ours_compute"], 3),
                  "eager_over_compute": round(step_ms["eager"] / step_ms["eager_compute"], 3)}
        print(f"{'variant':>14} {'ms/step':>9}")
        for name, value in step_ms.items():
            print(f"{name:>14} {value:9.2f}")
        print(f"ours vs Inductor {result['ours_vs_inductor']}x, vs eager "
              f"{result['ours_vs_eager']}x; step / compute-only step: ours "
              f"{result['ours_over_compute']}, eager {result['eager_over_compute']}")
        print("RESULT " + json.dumps(result), flush=True)
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nproc", type=int, default=2, help="ranks (default 2)")
    parser.add_argument("--backend", default="gloo", choices=["gloo", "nccl"])
    parser.add_argument("--steps", type=int, default=20, help="timed steps per variant")
    parser.add_argument("--size", default="tiny", choices=sorted(SIZES),
                        help="decoder size (SIZES; default tiny)")
    parser.add_argument("--bucket-mode", default="concat", choices=["concat", "coalesced"],
                        help="how our step's gradient buckets run (compile_training's "
                             "bucket_mode; default concat)")
    parser.add_argument("--bucket-mib", type=float, default=25.0,
                        help="our step's bucket size in MiB (default 25, DDP's)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return _worker(args)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    processes = []
    for rank in range(args.nproc):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(args.nproc),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        if args.backend == "gloo":
            env.setdefault("OMP_NUM_THREADS", "1")
        processes.append(subprocess.Popen(
            [sys.executable, __file__, "--worker", "--backend", args.backend,
             "--steps", str(args.steps), "--size", args.size,
             "--bucket-mode", args.bucket_mode, "--bucket-mib", str(args.bucket_mib)],
            env=env))
    codes = [p.wait() for p in processes]
    if any(codes):
        raise SystemExit(f"a rank failed: exit codes {codes}")


if __name__ == "__main__":
    main()
