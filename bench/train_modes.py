"""One training model, every way of stepping it on one device, in one
process: the AOT step (wrapper_mlir.compile_training) compiled once and
timed plain and, on CUDA, in its CUDA graph mode; then Inductor
(torch.compile default and, on CUDA, mode="reduce-overhead"). Each against
eager in the same process (interleaved blocks of steps), medians with the
range, and the memory a step adds at its peak (on CUDA: PyTorch's
allocator plus, for ours, the Wrapper runtime's, in whole cached blocks;
on the CPU: resident memory; a CUDA graph's replays allocate nothing, its
pool is held from the capture on and not counted). Same models and SGD-with-momentum update as
bench/models.py --train; cheaper than it on the GPU machine because the
AOT step compiles once for both modes.

    .venv/bin/python bench/train_modes.py --model resnet18 --device cuda
    .venv/bin/python bench/train_modes.py --model gpt2_decoder --steps 20
"""

import argparse
import copy
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="resnet18", help="resnet18 or gpt2_decoder")
    parser.add_argument("--device", default="cuda", choices=["cpu", "cuda"])
    parser.add_argument("--steps", type=int, default=30, help="timed steps per block")
    args = parser.parse_args()

    import torch

    import models
    import wrapper_mlir

    if args.model not in models.TRAIN:
        parser.error(f"--model: one of {', '.join(models.TRAIN)}")
    warnings.filterwarnings("ignore")
    cuda = args.device == "cuda"
    torch.manual_seed(0)
    model, inputs, targets, loss_fn = models.TRAIN[args.model](args.device)
    model = model.to(args.device).train()
    reference = copy.deepcopy(model)

    def sync():
        if cuda:
            torch.cuda.synchronize()

    def sgd_step(call, module):
        """A step of `call` (module itself or compiled) with an eager SGD."""
        optimizer = torch.optim.SGD(module.parameters(), lr=1e-3, momentum=0.9)

        def step():
            loss = loss_fn(call(*inputs), *targets)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            return loss.item()
        return step

    eager_module = copy.deepcopy(reference)
    eager = sgd_step(eager_module, eager_module)

    def timed(step):
        for _ in range(3):
            step()
        sync()
        times = []
        for _ in range(args.steps):
            start = time.perf_counter()
            step()
            sync()
            times.append(time.perf_counter() - start)
        return times

    def report(name, step, ours, compile_seconds):
        step()
        peak = models.step_peak_mib(step, args.device, ours)
        theirs = timed(eager)
        mine = timed(step)
        theirs += timed(eager)
        ms = statistics.median(mine) * 1e3
        eager_ms = statistics.median(theirs) * 1e3
        print(f"{args.model:14} {name:26} {ms:8.2f} ms ({min(mine) * 1e3:.2f}-"
              f"{max(mine) * 1e3:.2f})  eager {eager_ms:7.2f} ms  x eager {eager_ms / ms:5.2f}  "
              f"peak +{peak:6.1f} MiB  compile {compile_seconds:5.1f} s", flush=True)
        return ms

    rows = {}
    start = time.perf_counter()
    aot = wrapper_mlir.compile_training(reference, loss_fn,
                                        {"type": "sgd", "lr": 1e-3, "momentum": 0.9},
                                        [*inputs, *targets])
    compile_seconds = time.perf_counter() - start
    rows["aot"] = report("AOT step", lambda: aot(*inputs, *targets), True, compile_seconds)
    if cuda:
        aot.cuda_graph = True
        rows["aot-graph"] = report("AOT step, CUDA graph", lambda: aot(*inputs, *targets),
                                   True, 0.0)
    for mode in ["default"] + (["reduce-overhead"] if cuda else []):
        torch._dynamo.reset()
        module = copy.deepcopy(reference)
        step = sgd_step(torch.compile(module, mode=mode), module)
        start = time.perf_counter()
        step()
        compile_seconds = time.perf_counter() - start
        rows[mode] = report(f"Inductor {mode}", step, False, compile_seconds)
    print(f"AOT step / Inductor: {rows['default'] / rows['aot']:.2f}x"
          + (f"; graph modes: {rows['reduce-overhead'] / rows['aot-graph']:.2f}x" if cuda else ""))


if __name__ == "__main__":
    main()
