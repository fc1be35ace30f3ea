#!/usr/bin/env python3
"""Compile time and run time of the `wrapper` torch.compile backend against
Inductor (`torch.compile` default) and eager PyTorch, on the modules of the
Python tests (python/tests/modules.py), printed as ratios.

    bench/compare_inductor.py [--batch 32] [--reps 20] [--device cpu|cuda|all]
                              [--modules mlp,attention,...] [--threads N]

For each module and device: `compile_s` is the first call of the compiled
module (tracing, compiling, loading, one run), `run_ms` the median of
`--reps` timed calls after two warm-up calls (CUDA timed with
synchronization). Ratios: `speedup_vs_inductor` = Inductor run time /
wrapper run time (above 1: wrapper is faster), `speedup_vs_eager` likewise,
`compile_vs_inductor` = Inductor compile time / wrapper compile time (both
cold: Inductor's caches are off unless TORCHINDUCTOR_FX_GRAPH_CACHE is set). On
CUDA the wrapper backend has no GPU target yet (issue 6): its columns read
n/a. Prints one line per module and device, then the geometric means.

Run it with the environment of scripts/setup-python.sh and the build tree:
    WRAPPER_BUILD_DIR=build .venv/bin/python bench/compare_inductor.py
"""

import argparse
import math
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

# Inductor compiles cold, as this backend does (it has no cache): its FX
# graph and autograd caches would make a repeated run compile in 0.1 s.
os.environ.setdefault("TORCHINDUCTOR_FX_GRAPH_CACHE", "0")
os.environ.setdefault("TORCHINDUCTOR_AUTOGRAD_CACHE", "0")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "python" / "tests"))

import torch  # noqa: E402

import wrapper_mlir  # noqa: E402
from modules import MODULES, build  # noqa: E402


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def timed_calls(fn, inputs, reps, device):
    with torch.no_grad():
        for _ in range(2):
            fn(*inputs)
        sync(device)
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            fn(*inputs)
            sync(device)
            times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def first_call(fn, inputs, device):
    torch._dynamo.reset()
    with torch.no_grad():
        start = time.perf_counter()
        fn(*inputs)
        sync(device)
    return time.perf_counter() - start


def measure(name, batch, reps, device):
    module = build(name).to(device)
    entry = next(m for m in MODULES if m[0] == name)
    torch.manual_seed(0)
    inputs = [x.to(device) for x in entry[2](batch)]
    row = {"module": name, "device": device, "batch": batch}
    row["eager_ms"] = timed_calls(module, inputs, reps, device)

    inductor = torch.compile(module)
    row["inductor_compile_s"] = first_call(inductor, inputs, device)
    row["inductor_ms"] = timed_calls(inductor, inputs, reps, device)

    if device == "cpu":
        backend = torch.compile(module, backend="wrapper")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            row["wrapper_compile_s"] = first_call(backend, inputs, device)
        fallbacks = [str(w.message) for w in caught if "eagerly" in str(w.message)]
        row["wrapper_ms"] = timed_calls(backend, inputs, reps, device)
        row["note"] = "FELL BACK TO EAGER: " + fallbacks[0][:80] if fallbacks else ""
        # Same numbers both ways.
        with torch.no_grad():
            expected, got = module(*inputs), backend(*inputs)
        expected = expected if isinstance(expected, tuple) else (expected,)
        got = got if isinstance(got, tuple) else (got,)
        row["max_abs_diff"] = max(float((g - e).abs().max()) for g, e in zip(got, expected))
    else:
        row["wrapper_compile_s"] = row["wrapper_ms"] = None
        row["note"] = "wrapper: no CUDA target yet"
        row["max_abs_diff"] = None
    return row


def ratio(numerator, denominator):
    if numerator is None or denominator is None or denominator == 0:
        return None
    return numerator / denominator


def fmt(value, spec):
    return "n/a" if value is None else format(value, spec)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--device", choices=["cpu", "cuda", "all"], default="all")
    parser.add_argument("--modules", default="", help="comma-separated names (default: all)")
    parser.add_argument("--threads", type=int, default=0,
                        help="torch and OpenMP threads (default: all cores)")
    args = parser.parse_args()

    wrapper_mlir.register_backend()
    if args.threads:
        torch.set_num_threads(args.threads)
        os.environ["OMP_NUM_THREADS"] = str(args.threads)
    names = [m[0] for m in MODULES]
    if args.modules:
        wanted = args.modules.split(",")
        unknown = [n for n in wanted if n not in names]
        if unknown:
            parser.error(f"unknown modules {unknown}; known: {', '.join(names)}")
        names = wanted
    devices = ["cpu", "cuda"] if args.device == "all" else [args.device]
    if "cuda" in devices and not torch.cuda.is_available():
        if args.device == "cuda":
            parser.error("CUDA is not available")
        devices.remove("cuda")

    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, batch {args.batch}, "
          f"median of {args.reps} runs")
    header = (f"{'module':<18} {'dev':<4} {'eager ms':>9} {'inductor ms':>11} {'wrapper ms':>10} "
              f"{'vs inductor':>11} {'vs eager':>8} {'ind. compile s':>14} {'wr. compile s':>13} "
              f"{'compile ratio':>13}  note")
    print(header)
    geomeans = {}
    for device in devices:
        for name in names:
            row = measure(name, args.batch, args.reps, device)
            vs_inductor = ratio(row["inductor_ms"], row["wrapper_ms"])
            vs_eager = ratio(row["eager_ms"], row["wrapper_ms"])
            compile_ratio = ratio(row["inductor_compile_s"], row["wrapper_compile_s"])
            for key, value in (("vs inductor", vs_inductor), ("vs eager", vs_eager),
                               ("compile ratio", compile_ratio)):
                if value:
                    geomeans.setdefault((device, key), []).append(value)
            print(f"{name:<18} {device:<4} {row['eager_ms']:>9.3f} {row['inductor_ms']:>11.3f} "
                  f"{fmt(row['wrapper_ms'], '>10.3f')} {fmt(vs_inductor, '>11.2f')} "
                  f"{fmt(vs_eager, '>8.2f')} {row['inductor_compile_s']:>14.2f} "
                  f"{fmt(row['wrapper_compile_s'], '>13.2f')} {fmt(compile_ratio, '>13.2f')}  "
                  f"{row['note']}", flush=True)
            if row["max_abs_diff"] is not None and row["max_abs_diff"] > 1e-3:
                print(f"  WARNING: wrapper and eager differ by {row['max_abs_diff']:.3g}")
    for (device, key), values in sorted(geomeans.items()):
        mean = math.exp(sum(math.log(v) for v in values) / len(values))
        print(f"geomean {device} {key}: {mean:.2f} over {len(values)} modules")


if __name__ == "__main__":
    main()
