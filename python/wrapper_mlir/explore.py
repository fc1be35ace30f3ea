"""python -m wrapper_mlir.explore: fusion strategies and memory planners
compared on models, in one command (docs/Fusion.md).

    python -m wrapper_mlir.explore resnet18 bert --fuse greedy,cost,horizontal
    python -m wrapper_mlir.explore zoo --fuse none,greedy,cost --plan reuse,pool \\
        --csv out.csv --json out.json --plot out.png
    python -m wrapper_mlir.explore program.mlir --fuse cost --batch 8

Models are zoo names (wrapper_mlir.zoo; `zoo` for all of them) or
tensor_program files. For each model and each choice of the grid (`--fuse`
strategies x `--plan` memory planners) it prints: kernels formed, the bytes
the kernel calls read and write, estimated from the compiled host graph
(each call once, at its static shapes; a dynamic dimension counts as
`--batch`) and measured (the runtime's profiling counters over the calls a
run executes, at their run-time sizes: wrapper-compile --profile), the
static peak memory (the bytes of the buffers the memory planner leaves the
graph to allocate), compile ms, run ms (median of `--runs` calls after
half a second of warm-up calls, with the spread; the profiling adds two
clock reads per kernel call) and the largest error against the reference
(eager PyTorch for zoo models, the NumPy reference interpreter for files).
Each cell runs in a process of its own, so that caches and threads do not
mix; `--repeat K` measures each cell in K processes, interleaved, and
takes the median of their medians. `--kernels N` lists each cell's N
slowest kernels. `--csv`/`--json` write the table; `--plot` draws run
time against peak memory per choice, a PNG (matplotlib, which
scripts/setup-python.sh installs).
"""

import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ._compile import WrapperError

FIELDS = ["model", "fuse", "plan", "kernels", "bytes_estimated", "bytes_measured",
          "peak_bytes", "compile_ms", "run_ms", "run_ms_min", "run_ms_max", "max_error",
          "error"]

_MEMREF = re.compile(r"memref<([^>]*)>")
_BITS = {"f32": 32, "f64": 64, "f16": 16, "bf16": 16, "i64": 64, "i32": 32, "i16": 16,
         "i8": 8, "i1": 8, "ui8": 8}


def _memref_bytes(text, dynamic):
    """Bytes of `memref<4x?x8xf32...>`'s elements (`?` = `dynamic`)."""
    parts = text.split(",")[0].split("x")
    element = parts[-1].strip()
    count = 1
    for size in parts[:-1]:
        count *= dynamic if size.strip() == "?" else int(size)
    return count * _BITS.get(element, 32) // 8


def kernel_calls(ir):
    """The kernels a compiled host graph calls, in the order of their first
    call (the ids the profiling counters give them), each with its kind and
    source ops: [(name, kind, [op, ...])]."""
    info = {}
    for match in re.finditer(r'wrapper\.kernel @(\S+) = \S+ metadata \{kind = "(\w+)", '
                             r'source_ops = \[([^\]]*)\]', ir):
        info[match.group(1)] = (match.group(2), re.findall(r'"(\w+)"', match.group(3)))
    order = []
    for match in re.finditer(r"^\s*wrapper\.call @([\w.$-]+)", ir, re.M):
        if match.group(1) not in order:
            order.append(match.group(1))
    return [(name, *info.get(name, ("?", []))) for name in order]


def frontend_stats(ir, dynamic):
    """(kernels, bytes moved, planned bytes) of a compiled host graph
    (wrapper-compile --emit-mlir=frontend): wrapper.kernel definitions, the
    bytes of the buffers each wrapper.call passes (read or written once per
    call), and the bytes of the buffers the memory planner left the graph
    to allocate (every wrapper.alloc once: reused buffers count once, a
    pool is one alloc; the static peak when all of them are live)."""
    kernels = len(re.findall(r"^\s*wrapper\.kernel @", ir, re.M))
    moved = planned = 0
    for line in ir.splitlines():
        line = line.strip()
        if " : " not in line:
            continue
        types = line.rsplit(" : ", 1)[1]
        if line.startswith("wrapper.call @"):
            moved += sum(_memref_bytes(m, dynamic) for m in _MEMREF.findall(types))
        elif re.match(r"%\S+ = wrapper\.alloc\b", line):
            planned += sum(_memref_bytes(m, dynamic) for m in _MEMREF.findall(types)[-1:])
    return kernels, moved, planned


def _load(model, batch, entry=None):
    """(tensor_program text, weights, NumPy inputs, reference outputs) of a
    zoo name or a tensor_program file."""
    import numpy as np

    path = Path(model)
    if path.suffix == ".mlir" or path.is_file():
        from . import interpreter
        from ._package import signature

        text = path.read_text()
        rng = np.random.default_rng(0)
        inputs = []
        for argument in signature(text, entry)["inputs"]:
            shape = [batch if size is None else size for size in argument["shape"]]
            dtype = np.dtype(argument["dtype"]) if argument["dtype"] != "bfloat16" else None
            if dtype is None:
                raise WrapperError(f"{model}: bf16 inputs are not supported here")
            if dtype.kind == "f":
                inputs.append(rng.standard_normal(shape).astype(dtype))
            elif dtype.kind == "b":
                inputs.append(rng.integers(0, 2, shape).astype(dtype))
            else:
                inputs.append(rng.integers(0, 4, shape).astype(dtype))
        return text, None, inputs, [np.asarray(o) for o in
                                    interpreter.interpret(text, inputs, entry=entry)]
    import torch

    from . import zoo
    from ._torch import import_torch

    names = [name for name, _, _ in zoo.ZOO]
    if model not in names:
        raise WrapperError(f"'{model}' is neither a tensor_program file nor a zoo model "
                           f"(the zoo: {', '.join(names)})")
    module, make_inputs = zoo.build(model)
    example = make_inputs(batch)
    imported, _ = import_torch(module, example, None, False, False, "explore")
    with torch.no_grad():
        reference = [t.numpy() for t in zoo.tensors(module(*example))]
    return imported.text, imported.weights, [t.numpy() for t in example], reference


_WARMUP_SECONDS = 0.5


def _cell(model, fuse, plan, batch, runs, entry=None, top=0):
    """One model and choice, measured in this process: a dict of FIELDS."""
    import numpy as np

    from ._compile import _build_library, _compile_text, fuse_flags

    row = {"model": model, "fuse": fuse, "plan": plan}
    text, weights, inputs, reference = _load(model, batch, entry)
    with tempfile.TemporaryDirectory(prefix="wrapper_explore_") as workdir:
        library, _ = _build_library(workdir, text, entry, True, True, plan, "cpu", weights,
                                    fuse_flags(fuse) + ["--emit-mlir=frontend"])
        frontend = Path(library).read_text()
        row["kernels"], row["bytes_estimated"], row["peak_bytes"] = frontend_stats(
            frontend, batch)
    start = time.perf_counter()
    compiled = _compile_text(text, entry=entry, weights=weights, plan_memory=plan, fuse=fuse,
                             profile=True)
    row["compile_ms"] = round((time.perf_counter() - start) * 1e3, 1)
    # Warm-up: calls for at least _WARMUP_SECONDS, not one call. Right after
    # the compilation and the reference, threads of other pools (OpenBLAS's,
    # an OpenMP runtime's) still spin for a while and take the cores from
    # the kernels' parallel loops: small models measured then run up to 10x
    # slower.
    outputs = compiled(*inputs)
    warm_until = time.perf_counter() + _WARMUP_SECONDS
    while time.perf_counter() < warm_until:
        compiled(*inputs)
    counters = _ProfileCounters(compiled)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        compiled(*inputs)
        times.append((time.perf_counter() - start) * 1e3)
    row["bytes_measured"] = counters.bytes() // runs
    if top:
        per_kernel = []
        for index, (name, kind, ops) in enumerate(kernel_calls(frontend)):
            ms, moved = counters.kernel(index)
            per_kernel.append({"kernel": name, "kind": kind, "ops": ops,
                               "ms": round(ms / runs, 4), "bytes": moved // runs})
        per_kernel.sort(key=lambda k: -k["ms"])
        row["top_kernels"] = per_kernel[:top]
    row["run_ms"] = round(statistics.median(times), 3)
    row["run_ms_min"], row["run_ms_max"] = round(min(times), 3), round(max(times), 3)
    errors = []
    for got, want in zip(outputs, reference):
        got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
        scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
        errors.append(float(np.max(np.abs(got - want))) / scale if want.size else 0.0)
    if len(outputs) != len(reference):
        errors.append(float("inf"))
    row["max_error"] = max(errors, default=0.0)
    return row


class _ProfileCounters:
    """The runtime's kernel profiling counters, as a model compiled with
    --profile fills them (wrapper_profile_*: process-wide, one id per
    kernel), reset at construction."""

    def __init__(self, compiled):
        import ctypes

        # The model's library resolves the runtime's symbols through its
        # dependencies: the counters its calls fill.
        self._lib = compiled._lib
        self._lib.wrapper_profile_read_bytes.argtypes = [ctypes.c_int64]
        self._lib.wrapper_profile_read_bytes.restype = ctypes.c_uint64
        self._lib.wrapper_profile_read.argtypes = [
            ctypes.c_int64, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64)]
        self._lib.wrapper_profile_reset()

    def kernel(self, index):
        """(milliseconds, bytes) kernel `index` took and passed since the
        reset."""
        import ctypes

        ns, calls = ctypes.c_uint64(), ctypes.c_uint64()
        self._lib.wrapper_profile_read(index, ctypes.byref(ns), ctypes.byref(calls))
        return ns.value / 1e6, self._lib.wrapper_profile_read_bytes(index)

    def bytes(self):
        """Bytes the kernel calls passed since the reset, over all ids."""
        read = self._lib.wrapper_profile_read_bytes
        return sum(read(i) for i in range(_PROFILE_MAX_KERNELS))


_PROFILE_MAX_KERNELS = 4096  # WRAPPER_PROFILE_MAX_KERNELS


def _unknown_strategy(strategy):
    """None when the compiler knows fusion strategy `strategy`, else its
    message (which lists the registered strategies): asked once, before
    any cell runs, of wrapper-opt on an empty module."""
    from ._install import find_tool

    result = subprocess.run([find_tool("wrapper-opt"), "-",
                             f"--tensor-program-fuse=strategy={strategy}"],
                            input="module {}\n", capture_output=True, text=True)
    if result.returncode == 0:
        return None
    lines = [line for line in result.stderr.splitlines() if "error" in line]
    return (lines or [f"unknown fusion strategy '{strategy}'"])[0].split("error: ", 1)[-1]


def _run_cell(model, fuse, plan, args):
    """_cell in a process of its own; a failure becomes the row's error."""
    command = [sys.executable, "-m", "wrapper_mlir.explore", "--cell", model, fuse, plan,
               "--batch", str(args.batch), "--runs", str(args.runs), "--kernels",
               str(args.kernels)]
    if args.entry:
        command += ["--entry", args.entry]
    result = subprocess.run(command, capture_output=True, text=True)
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode == 0 and lines:
        return json.loads(lines[-1])
    message = (result.stderr.strip().splitlines() or ["failed"])[-1]
    return {"model": model, "fuse": fuse, "plan": plan, "error": message}


def _merge_repeats(cells):
    """One row of the same cell measured in several processes: the median
    of their run-time medians (a process can land in a slow state for its
    whole life: threads placed badly, buffers aliasing in the caches), the
    spread over all of them, each process's median in run_ms_processes;
    the first failure if any failed."""
    failed = [cell for cell in cells if cell.get("error")]
    if failed:
        return failed[0]
    row = dict(cells[0])
    if len(cells) > 1:
        row["run_ms_processes"] = [cell["run_ms"] for cell in cells]
        row["run_ms"] = round(statistics.median(row["run_ms_processes"]), 3)
        row["run_ms_min"] = min(cell["run_ms_min"] for cell in cells)
        row["run_ms_max"] = max(cell["run_ms_max"] for cell in cells)
        row["compile_ms"] = round(statistics.median(cell["compile_ms"] for cell in cells), 1)
        row["max_error"] = max(cell["max_error"] for cell in cells)
    return row


def _format(row):
    if row.get("error"):
        return f"{row['model']:<20} {row['fuse']:<11} {row['plan']:<6} error: {row['error']}"
    return (f"{row['model']:<20} {row['fuse']:<11} {row['plan']:<6} {row['kernels']:>7} "
            f"{row['bytes_estimated'] / 2**20:>9.2f} {row['bytes_measured'] / 2**20:>9.2f} "
            f"{row['peak_bytes'] / 2**20:>11.2f} "
            f"{row['compile_ms']:>10.0f} {row['run_ms']:>9.3f} "
            f"({row['run_ms_min']:.3f}-{row['run_ms_max']:.3f}) {row['max_error']:.2e}")


def _plot(rows, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"explore: --plot needs matplotlib (pip install matplotlib); {path} not written",
              file=sys.stderr)
        return False
    good = [r for r in rows if not r.get("error")]
    if not good:
        print(f"explore: no cell ran; {path} not written", file=sys.stderr)
        return False
    figure, axes = plt.subplots(figsize=(8, 6))
    several = len({r["model"] for r in good}) > 1
    for choice in sorted({(r["fuse"], r["plan"]) for r in good}):
        points = [r for r in good if (r["fuse"], r["plan"]) == choice]
        xs = [r["peak_bytes"] / 2**20 for r in points]
        ys = [r["run_ms"] for r in points]
        axes.scatter(xs, ys, label=f"fuse={choice[0]} plan={choice[1]}", alpha=0.8)
        if several:  # which model each point is
            for x, y, r in zip(xs, ys, points):
                axes.annotate(Path(r["model"]).name, (x, y), fontsize=6,
                              textcoords="offset points", xytext=(3, 3))
    peaks = [r["peak_bytes"] for r in good if r["peak_bytes"] > 0]
    if peaks and max(peaks) > 100 * min(peaks):
        axes.set_xscale("symlog", linthresh=min(peaks) / 2**20)
    axes.set_xlabel("static peak memory (MiB, planned buffers)")
    axes.set_ylabel("run time (ms, median)")
    axes.set_yscale("log")
    axes.set_title("run time against peak memory per choice")
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m wrapper_mlir.explore",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", help="zoo names, 'zoo', or .mlir files")
    parser.add_argument("--fuse", default="greedy,cost",
                        help="fusion strategies, comma-separated (default greedy,cost)")
    parser.add_argument("--plan", default="reuse",
                        help="memory planners: none, reuse, pool (default reuse)")
    parser.add_argument("--target", default="cpu", help="cpu (the only target for now)")
    parser.add_argument("--runs", type=int, default=10, help="timed calls per cell")
    parser.add_argument("--repeat", type=int, default=1, metavar="K",
                        help="measure each cell in K processes, the choices of a model "
                        "interleaved round by round; run ms is the median of their medians")
    parser.add_argument("--batch", type=int, default=2,
                        help="batch of the zoo's inputs; dynamic dimensions of files")
    parser.add_argument("--entry", help="the function of tensor_program files to run "
                        "(default: the only public one, or main)")
    parser.add_argument("--kernels", type=int, default=0, metavar="N",
                        help="also print each cell's N slowest kernels (time and bytes per "
                        "run from the profiling counters, kind, source ops)")
    parser.add_argument("--csv")
    parser.add_argument("--json")
    parser.add_argument("--plot")
    parser.add_argument("--cell", nargs=3, metavar=("MODEL", "FUSE", "PLAN"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.runs < 1 or args.batch < 1 or args.repeat < 1:
        parser.error("--runs, --batch and --repeat must be at least 1")
    if args.kernels < 0:
        parser.error("--kernels must be 0 or more")
    if args.cell:
        print(json.dumps(_cell(*args.cell, args.batch, args.runs, args.entry, args.kernels)))
        return 0
    if not args.models:
        parser.error("no models given (zoo names, 'zoo', or tensor_program files)")
    if args.target != "cpu":
        parser.error(f"--target {args.target}: explore measures CPU models only for now")
    plans = [p for p in args.plan.split(",") if p]
    if not plans:
        parser.error("--plan: no memory planner given")
    for plan in plans:
        if plan not in ("none", "reuse", "pool"):
            parser.error(f"--plan: unknown planner '{plan}' (none, reuse, pool)")
    strategies = [s for s in args.fuse.split(",") if s]
    if not strategies:
        parser.error("--fuse: no fusion strategy given")
    for strategy in dict.fromkeys(strategies):
        problem = _unknown_strategy(strategy)
        if problem:
            parser.error(f"--fuse: {problem}")
    models = []
    for model in args.models:
        if model == "zoo":
            from . import zoo

            models += [name for name, _, _ in zoo.ZOO]
        else:
            models.append(model)
    print(f"{'model':<20} {'fuse':<11} {'plan':<6} {'kernels':>7} {'est. MiB':>9} "
          f"{'meas. MiB':>9} "
          f"{'planned MiB':>11} {'compile ms':>10} {'run ms':>9} (spread) max error", flush=True)
    rows = []
    for model in models:
        # --repeat: the model's cells run round after round (interleaved),
        # each in a fresh process, and merge.
        choices = [(fuse, plan) for fuse in strategies for plan in plans]
        rounds = [[_run_cell(model, fuse, plan, args) for fuse, plan in choices]
                  for _ in range(args.repeat)]
        for index in range(len(choices)):
            row = _merge_repeats([cells[index] for cells in rounds])
            rows.append(row)
            print(_format(row), flush=True)
            for k in row.get("top_kernels", []):
                rate = k["bytes"] / k["ms"] / 1e6 if k["ms"] else 0.0
                print(f"    {k['ms']:>8.3f} ms {k['bytes'] / 2**20:>8.2f} MiB "
                      f"{rate:>7.1f} GB/s  {k['kernel']} {k['kind']}: "
                      f"{' '.join(k['ops'])}", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as out:
            writer = csv.DictWriter(out, FIELDS)
            writer.writeheader()
            for row in rows:
                writer.writerow({k: row.get(k, "") for k in FIELDS})
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    plotted = _plot(rows, args.plot) if args.plot else True
    return 1 if any(r.get("error") for r in rows) or not plotted else 0


if __name__ == "__main__":
    sys.exit(main())
