#!/usr/bin/env python3
"""What swappable packages cost: an MLP packaged twice, with its weights
frozen (packed into the GEMM template's panels at compile time) and
swappable (inputs, packed at each call), called at several batch sizes in
one process, interleaved round by round, against eager PyTorch. Prints the
median time per call (with the spread over the rounds) and the ratios, and
the time of one swap_weights of every parameter.

    bench/swappable.py [--rounds 7] [--calls 30] [--hidden 1024]

Run it with the project's Python (.venv; WRAPPER_BUILD_DIR and
PYTHONPATH=python as for the tests). docs/Packages.md quotes it.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=30, help="calls per round and batch")
    parser.add_argument("--hidden", type=int, default=1024)
    parser.add_argument("--batches", default="1,32,256")
    args = parser.parse_args()

    import torch

    import wrapper_mlir

    torch.manual_seed(0)
    d = args.hidden
    mlp = torch.nn.Sequential(torch.nn.Linear(d, 4 * d), torch.nn.GELU(),
                              torch.nn.Linear(4 * d, d)).eval()
    example = torch.randn(4, d)
    with tempfile.TemporaryDirectory() as work:
        frozen = wrapper_mlir.load(wrapper_mlir.package(mlp, [example], f"{work}/frozen.wpkg",
                                                        dynamic_batch=True))
        swappable = wrapper_mlir.load(wrapper_mlir.package(
            mlp, [example], f"{work}/swappable.wpkg", dynamic_batch=True, swappable=True))
    batches = [int(b) for b in args.batches.split(",")]
    inputs = {b: torch.randn(b, d) for b in batches}
    runs = {"eager": mlp, "frozen": frozen, "swappable": swappable}
    times = {(name, b): [] for name in runs for b in batches}
    with torch.no_grad():
        for b in batches:
            for name, run in runs.items():
                run(inputs[b])  # warm up
        for _ in range(args.rounds):
            for b in batches:
                for name, run in runs.items():
                    start = time.perf_counter()
                    for _ in range(args.calls):
                        run(inputs[b])
                    times[(name, b)].append((time.perf_counter() - start) / args.calls * 1e3)
        state = {k: v.clone() for k, v in mlp.state_dict().items()}
        swaps = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            swappable.swap_weights(state)
            swaps.append((time.perf_counter() - start) * 1e3)
    print(f"MLP {d}-{4 * d}-{d}, {torch.get_num_threads()} threads, median of {args.rounds} "
          f"rounds of {args.calls} calls (spread: min-max of the rounds)")
    for b in batches:
        med = {name: statistics.median(times[(name, b)]) for name in runs}
        spread = {name: f"{min(times[(name, b)]):.3f}-{max(times[(name, b)]):.3f}"
                  for name in runs}
        print(f"batch {b:4d}: eager {med['eager']:.3f} ms ({spread['eager']}), frozen "
              f"{med['frozen']:.3f} ms ({spread['frozen']}), swappable {med['swappable']:.3f} ms "
              f"({spread['swappable']}); swappable/frozen {med['swappable'] / med['frozen']:.2f}x, "
              f"frozen/eager {med['frozen'] / med['eager']:.2f}x")
    size = sum(v.numel() * v.element_size() for v in state.values()) / 2**20
    print(f"swap_weights of all {len(state)} parameters ({size:.1f} MiB): "
          f"{statistics.median(swaps):.2f} ms (median; {min(swaps):.2f}-{max(swaps):.2f})")


if __name__ == "__main__":
    main()
