"""Whole models: cold compile time and time per call, Wrapper against
Inductor and eager PyTorch, on the public zoo (python/tests/zoo.py).

    .venv/bin/python bench/models.py [--models a,b] [--batch 2] [--calls 10] [--no-inductor]

Per model and backend, a fresh process times the first call of
torch.compile(model, backend=...) (cold: Inductor gets a fresh cache
directory and its FX graph and AOTAutograd caches off, so nothing compiled
before is reused; Python and torch already imported), then the steady-state time per call of
the compiled model and of eager, interleaved (so that both see the same
machine state), medians with the spread. Prints one JSON line per model and
backend, then a table of ratios: Inductor's compile time over ours, and
each one's speed against eager.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(name, backend, batch, calls):
    """One model, one backend, in this process."""
    import warnings

    import torch

    sys.path.insert(0, str(ROOT / "python" / "tests"))
    from zoo import build, tensors

    if backend == "wrapper":
        import wrapper_mlir

        wrapper_mlir.register_backend()
    warnings.filterwarnings("ignore")
    model, inputs = build(name)
    x = inputs(batch)
    compiled = torch.compile(model, backend=backend) if backend != "eager" else model
    with torch.no_grad():
        start = time.perf_counter()
        out = compiled(*x)
        compile_seconds = time.perf_counter() - start
        expected = model(*x)
        error = max(float((g.double() - e.double()).abs().max() / (e.abs().max() + 1e-12))
                    for g, e in zip(tensors(out), tensors(expected)))
        ours, eager = [], []
        for _ in range(calls):
            t = time.perf_counter()
            compiled(*x)
            ours.append(time.perf_counter() - t)
            t = time.perf_counter()
            model(*x)
            eager.append(time.perf_counter() - t)
    return {"model": name, "backend": backend, "batch": batch,
            "compile_s": round(compile_seconds, 3), "max_rel_error": error,
            "call_ms": round(statistics.median(ours) * 1e3, 3),
            "call_ms_range": [round(min(ours) * 1e3, 3), round(max(ours) * 1e3, 3)],
            "eager_ms": round(statistics.median(eager) * 1e3, 3),
            "eager_ms_range": [round(min(eager) * 1e3, 3), round(max(eager) * 1e3, 3)]}


def main():
    sys.path.insert(0, str(ROOT / "python" / "tests"))
    from zoo import ZOO

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(n for n, _, _ in ZOO))
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--no-inductor", action="store_true")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--backend", default="wrapper", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.backend, args.batch, args.calls)))
        return
    backends = ["wrapper"] + ([] if args.no_inductor else ["inductor"])
    rows = {}
    env = dict(os.environ)
    env.setdefault("WRAPPER_BUILD_DIR", str(ROOT / "build"))
    env["PYTHONPATH"] = str(ROOT / "python") + os.pathsep + env.get("PYTHONPATH", "")
    for name in args.models.split(","):
        for backend in backends:
            # Cold for Inductor too: a fresh cache directory per run, and
            # neither its FX graph nor its AOTAutograd cache.
            cache = tempfile.mkdtemp(prefix="bench_inductor_")
            env.update(TORCHINDUCTOR_CACHE_DIR=cache, TORCHINDUCTOR_FX_GRAPH_CACHE="0",
                       TORCHINDUCTOR_AUTOGRAD_CACHE="0", TRITON_CACHE_DIR=cache)
            result = subprocess.run(
                [sys.executable, __file__, "--one", name, "--backend", backend,
                 "--batch", str(args.batch), "--calls", str(args.calls)],
                capture_output=True, text=True, env=env)
            line = next((l for l in result.stdout.splitlines() if l.startswith("{")), None)
            if result.returncode != 0 or line is None:
                record = {"model": name, "backend": backend,
                          "error": (result.stderr or result.stdout).strip().splitlines()[-1:]}
            else:
                record = json.loads(line)
            subprocess.run(["rm", "-rf", cache])
            rows[(name, backend)] = record
            print(json.dumps(record), flush=True)
    print()
    print(f"{'model':20} {'compile wrapper':>16} {'inductor':>10} {'ratio':>7}   "
          f"{'x eager: wrapper':>17} {'inductor':>9}")
    for name in args.models.split(","):
        w = rows.get((name, "wrapper"), {})
        i = rows.get((name, "inductor"), {})
        ratio = (i["compile_s"] / w["compile_s"]) if "compile_s" in w and "compile_s" in i else None
        speed = lambda r: (r["eager_ms"] / r["call_ms"]) if "call_ms" in r else None
        fmt = lambda v, f: (f % v) if v is not None else "-"
        print(f"{name:20} {fmt(w.get('compile_s'), '%.1f s'):>16} "
              f"{fmt(i.get('compile_s'), '%.1f s'):>10} {fmt(ratio, '%.1fx'):>7}   "
              f"{fmt(speed(w), '%.2fx'):>17} {fmt(speed(i), '%.2fx'):>9}")


if __name__ == "__main__":
    main()
