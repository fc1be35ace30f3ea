#!/usr/bin/env python3
"""Memory of a process calling one compiled zoo model many times: the model
(wrapper_mlir.zoo) is compiled with wrapper_mlir.compile, warmed up, then
called CALLS times on inputs of one shape; the growth of the resident set
(and, with --device cuda, of the device memory the CUDA runtime and PyTorch
hold) after the warm-up must stay under BOUND MiB.

    scripts/memory-growth.py [--model squeezenet1_1] [--calls 100000]
                             [--batch 1] [--bound-mib 16] [--device cuda]

Run it with the project's Python (.venv; WRAPPER_BUILD_DIR and
PYTHONPATH=python as for the tests). Prints the memory before and after and
the growth, and exits 1 when a growth is above the bound.
python/tests/test_reliability.py checks the measurement itself (it sees a
leak of one 64 KB buffer per call). On CUDA the model runs on CUDA tensors
(target="cuda", no host copies); gpt2, bert and the other transformers
compile for it with no fallback.
"""

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
sys.path.insert(0, os.path.join(ROOT, "python"))


def resident_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="squeezenet1_1")
    parser.add_argument("--calls", type=int, default=100000)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--bound-mib", type=float, default=16.0)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    args = parser.parse_args()

    import torch

    import wrapper_mlir
    from zoo import ZOO, build

    names = [name for name, _, _ in ZOO]
    if args.model not in names:
        parser.error(f"unknown model '{args.model}'; the zoo has {', '.join(names)}")
    model, make_inputs = build(args.model)
    cuda = args.device == "cuda"
    if cuda:
        model = model.cuda()
        make_inputs_on_host = make_inputs

        def make_inputs(batch):
            return [t.cuda() for t in make_inputs_on_host(batch)]

    compiled = wrapper_mlir.compile(model, make_inputs(2), dynamic_batch=True, fallback=False)
    inputs = [make_inputs(args.batch) for _ in range(8)]

    def device_mib():
        if not cuda:
            return {}
        torch.cuda.synchronize()
        stats = wrapper_mlir.cuda_stats()
        return {"runtime in use": stats["bytes_in_use"] / 2**20,
                "runtime reserved": stats["bytes_reserved"] / 2**20,
                "torch allocated": torch.cuda.memory_allocated() / 2**20}

    with torch.no_grad():
        for i in range(args.warmup):
            compiled(*inputs[i % len(inputs)])
        before, device_before = resident_mib(), device_mib()
        start = time.time()
        # The memory at each quarter: a leak grows steadily, a one-off
        # allocation shows as a step.
        quarters = {args.calls * q // 4 for q in (1, 2, 3)}
        for i in range(args.calls):
            outputs = compiled(*inputs[i % len(inputs)])
            del outputs
            if i + 1 in quarters:
                device = ", ".join(f"{name} {value:.2f}" for name, value in device_mib().items())
                print(f"  after {i + 1} calls: resident {resident_mib():.1f} MiB"
                      + (f"; device MiB: {device}" if device else ""), flush=True)
        seconds = time.time() - start
    after, device_after = resident_mib(), device_mib()
    growth = after - before
    print(f"{args.model} ({args.device}): {args.calls} calls (batch {args.batch}) in {seconds:.0f} s, "
          f"resident {before:.1f} MiB -> {after:.1f} MiB, growth {growth:+.1f} MiB "
          f"(bound {args.bound_mib:g} MiB)")
    worst = growth
    for name, value in device_before.items():
        change = device_after[name] - value
        worst = max(worst, change)
        print(f"  device, {name}: {value:.1f} MiB -> {device_after[name]:.1f} MiB ({change:+.1f} MiB)")
    return 0 if worst <= args.bound_mib else 1


if __name__ == "__main__":
    sys.exit(main())
