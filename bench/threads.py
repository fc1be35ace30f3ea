#!/usr/bin/env python3
"""Calls from several threads at once: throughput of one compiled model
called by T threads (each K calls), with the runtime sharing the cores
among calls in flight (the default) and without (WRAPPER_SHARE_THREADS=0
behaviour: every call's parallel loops take all the cores), against the
same calls made one after another on one thread, all in one process and
interleaved round by round. Prints calls per second (median of the rounds,
with the spread) and the ratios.

    bench/threads.py [--threads 8] [--calls 50] [--rounds 7] [--batch 256]

Run it with the project's Python (.venv; WRAPPER_BUILD_DIR and
PYTHONPATH=python as for the tests). docs/Runtime.md says why.
"""

import argparse
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))

# Products on the GEMM template and fused row kernels: parallel loops in
# every kernel.
MLP = """
func.func @main(%x: tensor<?x256xf32>, %w1: tensor<512x256xf32>, %b1: tensor<512xf32>,
                %w2: tensor<256x512xf32>, %b2: tensor<256xf32>) -> tensor<?x256xf32> {
  %h = tensor_program.linear %x, %w1 bias %b1 : (tensor<?x256xf32>, tensor<512x256xf32>, tensor<512xf32>) -> tensor<?x512xf32>
  %g = tensor_program.gelu %h : tensor<?x512xf32>
  %o = tensor_program.linear %g, %w2 bias %b2 : (tensor<?x512xf32>, tensor<256x512xf32>, tensor<256xf32>) -> tensor<?x256xf32>
  %s = tensor_program.softmax %o dim 1 : tensor<?x256xf32>
  return %s : tensor<?x256xf32>
}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--calls", type=int, default=50, help="calls per thread")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--batch", type=int, default=256)
    args = parser.parse_args()

    import numpy as np

    import wrapper_mlir

    model = wrapper_mlir.compile(MLP)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.batch, 256), dtype=np.float32)
    weights = [rng.standard_normal(s, dtype=np.float32) * 0.05
               for s in ((512, 256), (512,), (256, 512), (256,))]
    expected = model(x, *weights)
    lib = model._lib
    total = args.threads * args.calls

    def serial():
        for _ in range(total):
            model(x, *weights)

    def concurrent():
        barrier = threading.Barrier(args.threads)
        wrong = []

        def work():
            barrier.wait()
            for _ in range(args.calls):
                if not np.array_equal(model(x, *weights), expected):
                    wrong.append(1)

        threads = [threading.Thread(target=work) for _ in range(args.threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not wrong, "a concurrent call differed from the first call"

    def shared():
        lib.wrapper_set_thread_sharing(1)
        concurrent()

    def unshared():
        lib.wrapper_set_thread_sharing(0)
        concurrent()

    runs = {"one thread, one call after another": serial,
            f"{args.threads} threads, cores shared": shared,
            f"{args.threads} threads, not shared": unshared}
    rates = {name: [] for name in runs}
    for name, run in runs.items():  # warm-up
        run()
    for _ in range(args.rounds):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            rates[name].append(total / (time.perf_counter() - start))
    lib.wrapper_set_thread_sharing(1)

    print(f"{total} calls of an MLP at batch {args.batch}, {os.cpu_count()} cores, "
          f"median of {args.rounds} interleaved rounds (min-max):")
    reference = statistics.median(rates["one thread, one call after another"])
    for name, values in rates.items():
        median = statistics.median(values)
        print(f"  {name:40s} {median:8.1f} calls/s ({min(values):.1f}-{max(values):.1f})"
              f"  {median / reference:5.2f}x")


if __name__ == "__main__":
    main()
