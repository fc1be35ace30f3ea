"""Whole models: cold compile time and time per call, Wrapper against
Inductor and eager PyTorch, on the public zoo (wrapper_mlir.zoo).

    .venv/bin/python bench/models.py [--models a,b] [--batch 2 | --batch 1,8] [--threads 1,2]
                                     [--calls 10] [--no-inductor] [--backends wrapper,inductor] [--dtype bf16]
    .venv/bin/python bench/models.py --train [--models resnet18,gpt2_decoder] [--calls 10]
    ... [--device cuda]     (models, inputs and the compiled graphs on the GPU)
    ... --device cuda --cuda-graphs   (ours with options={"cuda_graphs": True},
                                       Inductor with mode="reduce-overhead";
                                       with --train, the AOT step's
                                       cuda_graph mode and Inductor's)

Per model and backend, a fresh process times the first call of
torch.compile(model, backend=...) (cold: Inductor gets a fresh cache
directory and its FX graph and AOTAutograd caches off, so nothing compiled
before is reused; Python and torch already imported), then the steady-state time per call of
the compiled model and of eager, interleaved (so that both see the same
machine state), medians with the spread. Prints one JSON line per model and
backend, then a table of ratios: Inductor's compile time over ours, each
one's speed against eager, and ours against Inductor's (each against eager
in its own process), with the geomean over the rows; "by time" is
Inductor's time per call over ours, the two processes' machine states
aside (on noisy machines eager itself differs by up to 1.5x between the
two processes: the rows then disagree, and neither is the whole truth). --batch and --threads
take lists: every model runs at each batch size and thread count
(torch.set_num_threads in the measuring process; the compiled models run
on PyTorch's threads). When iree-turbine is installed in the environment
(`pip install iree-turbine`), its CPU backend (`turbine_cpu`, the MLIR-based
peer) is measured too. --dtype bf16 converts each model's weights and
floating-point inputs to bfloat16 (inference; errors against eager bf16).

With --train, a training step instead (forward, backward and an eager
SGD-with-momentum update; models in train mode): resnet18 at batch 8 on
64x64 images and a GPT-2-style decoder (4 layers, 128 tokens, batch 4,
dropout off); the first step's time is the compile time, and the peak
resident memory one step adds (VmHWM after resetting it through
/proc/self/clear_refs, less the resident memory before the step; on
CUDA the device memory PyTorch's allocator and the Wrapper runtime's
allocator hand out at the peak, less what they held before) is
measured for the compiled model and for eager in the same process. A
third row, "wrapper-aot", times wrapper_mlir.compile_training: the whole
step (forward, backward and the same optimizer) in one compiled library
(column "aot step"; on CUDA its state stays in device memory).
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _synchronize(device):
    import torch

    if device == "cuda":
        torch.cuda.synchronize()


def _to(value, device):
    import torch

    if isinstance(value, torch.Tensor):
        return value.to(device)
    return value


def _turbine_available():
    import importlib.util

    try:
        return importlib.util.find_spec("iree.turbine") is not None
    except ModuleNotFoundError:
        return False


def measure(name, backend, batch, calls, device="cpu", threads=None, cuda_graphs=False,
            dtype="f32"):
    """One model, one backend, in this process."""
    import warnings

    import torch

    if threads:
        torch.set_num_threads(threads)

    sys.path.insert(0, str(ROOT / "python" / "tests"))
    from zoo import build, tensors

    if backend == "wrapper":
        import wrapper_mlir

        wrapper_mlir.register_backend()
    elif backend == "turbine_cpu":
        import iree.turbine.dynamo.backends.cpu  # noqa: F401 (registers the backend)
    warnings.filterwarnings("ignore")
    model, inputs = build(name)
    model = model.to(device)
    x = tuple(_to(v, device) for v in inputs(batch))
    if dtype == "bf16":
        model = model.to(torch.bfloat16)
        x = tuple(v.to(torch.bfloat16) if v.is_floating_point() else v for v in x)
    if backend == "eager":
        compiled = model
    elif cuda_graphs and backend == "wrapper":
        compiled = torch.compile(model, backend=backend, options={"cuda_graphs": True})
    elif cuda_graphs and backend == "inductor":
        compiled = torch.compile(model, backend=backend, mode="reduce-overhead")
    else:
        compiled = torch.compile(model, backend=backend)
    with torch.no_grad():
        start = time.perf_counter()
        out = compiled(*x)
        _synchronize(device)
        compile_seconds = time.perf_counter() - start
        expected = model(*x)
        error = max(float((g.double() - e.double()).abs().max() / (e.abs().max() + 1e-12))
                    for g, e in zip(tensors(out), tensors(expected)))
        ours, eager = [], []
        for _ in range(calls):
            t = time.perf_counter()
            compiled(*x)
            _synchronize(device)
            ours.append(time.perf_counter() - t)
            t = time.perf_counter()
            model(*x)
            _synchronize(device)
            eager.append(time.perf_counter() - t)
    return {"model": name, "backend": backend, "batch": batch, "device": device,
            "dtype": dtype, "threads": torch.get_num_threads(), "cuda_graphs": cuda_graphs,
            "compile_s": round(compile_seconds, 3), "max_rel_error": error,
            "call_ms": round(statistics.median(ours) * 1e3, 3),
            "call_ms_range": [round(min(ours) * 1e3, 3), round(max(ours) * 1e3, 3)],
            "eager_ms": round(statistics.median(eager) * 1e3, 3),
            "eager_ms_range": [round(min(eager) * 1e3, 3), round(max(eager) * 1e3, 3)]}


def _train_resnet18(device):
    import torch
    import torchvision

    model = torchvision.models.resnet18(num_classes=10)
    images = torch.randn(8, 3, 64, 64, device=device)
    labels = torch.randint(0, 10, (8,), device=device)
    return model, (images,), (labels,), torch.nn.functional.cross_entropy


def _train_gpt2_decoder(device):
    import torch
    import transformers as T

    config = T.GPT2Config(vocab_size=1000, n_embd=128, n_layer=4, n_head=4, n_positions=128,
                          use_cache=False, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                          bos_token_id=0, eos_token_id=0)
    tokens = torch.randint(0, 1000, (4, 128), device=device)
    return T.GPT2LMHeadModel(config), (tokens,), (tokens,), lambda out, t: (
        torch.nn.functional.cross_entropy(out.logits[:, :-1].reshape(-1, 1000),
                                          t[:, 1:].reshape(-1)))


TRAIN = {"resnet18": _train_resnet18, "gpt2_decoder": _train_gpt2_decoder}


def step_peak_mib(step, device="cpu", ours=False, bounds=None):
    """The memory `step` adds at its peak, MiB: on the CPU the resident
    memory (Linux); on CUDA the device memory PyTorch's caching allocator
    hands out plus, with `ours`, what the Wrapper CUDA runtime's caching
    allocator hands out at the same time (_combined_cuda_peak: an upper
    bound, whose lower bound goes to `bounds["low"]` when given)."""
    if device == "cuda":
        import torch

        if ours:
            upper, lower = _combined_cuda_peak(step)
            if bounds is not None:
                bounds["low"] = lower / 2**20
            return upper / 2**20
        torch.cuda.reset_peak_memory_stats()
        before = torch.cuda.memory_allocated()
        step()
        torch.cuda.synchronize()
        return (torch.cuda.max_memory_allocated() - before) / 2**20

    def status(field):
        with open("/proc/self/status") as f:
            line = next(l for l in f if l.startswith(field + ":"))
        return int(line.split()[1]) / 1024.0

    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # resets VmHWM to the current resident size
    before = status("VmRSS")
    step()
    return status("VmHWM") - before


def _combined_cuda_peak(step):
    """The most bytes PyTorch's allocator and the Wrapper runtime's hold
    together while `step` runs, less what they held before. The two are
    separate allocators, so each compiled graph call is a boundary: during
    a call PyTorch allocates nothing (what it holds then plus the runtime's
    peak in the call), and between calls the runtime only frees (PyTorch's
    peak over the interval plus what the runtime held at the end of the
    call before: an upper bound, since the runtime may have freed some of
    it before PyTorch's peak; with what it holds at the end of the
    interval instead, a lower bound). Steps without compiled graph calls
    (the AOT step, one library call) get the two peaks added, an upper
    bound. Returns (upper, lower) bytes."""
    import torch

    import wrapper_mlir
    from wrapper_mlir import _torch

    def ours_in_use():
        return wrapper_mlir.cuda_stats()["bytes_in_use"]

    torch.cuda.synchronize()
    state = {"held": ours_in_use(), "peak": 0, "low": 0, "calls": 0}
    before = torch.cuda.memory_allocated() + state["held"]
    torch.cuda.reset_peak_memory_stats()
    wrapper_mlir.reset_cuda_peak()
    original = _torch._CompiledGraph.__call__

    def boundary():
        torch_peak = torch.cuda.max_memory_allocated()
        state["peak"] = max(state["peak"], torch_peak + state["held"])
        state["low"] = max(state["low"], torch_peak + ours_in_use())

    def call(self, *args, **kwargs):
        boundary()
        torch_held = torch.cuda.memory_allocated()
        wrapper_mlir.reset_cuda_peak()
        try:
            return original(self, *args, **kwargs)
        finally:
            state["calls"] += 1
            inside = torch_held + wrapper_mlir.cuda_stats()["peak_bytes_in_use"]
            state["peak"] = max(state["peak"], inside)
            state["low"] = max(state["low"], inside)
            state["held"] = ours_in_use()
            torch.cuda.reset_peak_memory_stats()

    _torch._CompiledGraph.__call__ = call
    try:
        step()
        torch.cuda.synchronize()
    finally:
        _torch._CompiledGraph.__call__ = original
    if state["calls"] == 0:
        # The two peaks added; at least either one over what the other
        # held at the start.
        torch_peak = torch.cuda.max_memory_allocated()
        ours_peak = wrapper_mlir.cuda_stats()["peak_bytes_in_use"]
        torch_start = before - state["held"]
        return (torch_peak + ours_peak - before,
                max(torch_peak - torch_start, ours_peak - state["held"]))
    boundary()
    return state["peak"] - before, state["low"] - before


def _peak_text(row):
    """A row's peak MiB for the table: the bound, and the lower bound
    after it when they differ (our GPU rows: see _combined_cuda_peak)."""
    peak, low = row.get("peak_mib"), row.get("peak_low_mib")
    if peak is None:
        return "-"
    if low is None or round(low) == round(peak):
        return f"{peak:.0f}"
    return f"{peak:.0f} (>={low:.0f})"


def measure_train(name, backend, calls, device="cpu", cuda_graphs=False):
    import copy
    import warnings

    import torch

    if backend.startswith("wrapper"):
        import wrapper_mlir

        wrapper_mlir.register_backend()
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    model, inputs, targets, loss_fn = TRAIN[name](device)
    model = model.to(device).train()
    eager = copy.deepcopy(model)
    optimizers = {id(m): torch.optim.SGD(m.parameters(), lr=1e-3, momentum=0.9)
                  for m in (model, eager)}
    if backend == "wrapper-aot":
        # The whole step (with the optimizer) in one compiled library.
        start = time.perf_counter()
        aot = wrapper_mlir.compile_training(model, loss_fn, optimizers[id(model)],
                                            [*inputs, *targets], cuda_graph=cuda_graphs)
        compiled = None
    elif cuda_graphs and backend == "inductor":
        compiled = torch.compile(model, mode="reduce-overhead")
    else:
        compiled = torch.compile(model, backend=backend)

    def step(call, owner):
        if call is None:
            return aot(*inputs, *targets)
        loss = loss_fn(call(*inputs), *targets)
        loss.backward()
        optimizers[id(owner)].step()
        optimizers[id(owner)].zero_grad(set_to_none=True)
        return loss.item()  # synchronizes

    if compiled is not None:
        start = time.perf_counter()
    first = step(compiled, model)
    compile_seconds = time.perf_counter() - start
    expected = step(eager, eager)
    bounds = {}
    peak = step_peak_mib(lambda: step(compiled, model), device, backend.startswith("wrapper"),
                         bounds)
    eager_peak = step_peak_mib(lambda: step(eager, eager), device)
    ours, theirs = [], []
    for _ in range(calls):
        t = time.perf_counter()
        step(compiled, model)
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        step(eager, eager)
        theirs.append(time.perf_counter() - t)
    result = {"model": name, "backend": backend, "mode": "train", "device": device, "cuda_graphs": cuda_graphs,
              "compile_s": round(compile_seconds, 3),
              "first_loss": first, "eager_first_loss": expected,
              "call_ms": round(statistics.median(ours) * 1e3, 3),
              "call_ms_range": [round(min(ours) * 1e3, 3), round(max(ours) * 1e3, 3)],
              "eager_ms": round(statistics.median(theirs) * 1e3, 3),
              "eager_ms_range": [round(min(theirs) * 1e3, 3), round(max(theirs) * 1e3, 3)],
              "peak_mib": round(peak, 1), "eager_peak_mib": round(eager_peak, 1)}
    if "low" in bounds:
        result["peak_low_mib"] = round(bounds["low"], 1)
    if backend == "wrapper":
        result["stats"] = {k: v for k, v in wrapper_mlir.stats().items()
                           if k != "compile_seconds"}
    return result


def main():
    sys.path.insert(0, str(ROOT / "python" / "tests"))
    from zoo import ZOO

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=None)
    parser.add_argument("--train", action="store_true",
                        help="time training steps (models: " + ", ".join(TRAIN) + ")")
    parser.add_argument("--batch", default="2", help="batch sizes, comma-separated")
    parser.add_argument("--threads", default=None,
                        help="thread counts, comma-separated (default: PyTorch's)")
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--no-inductor", action="store_true")
    parser.add_argument("--backends", default=None,
                        help="only these rows, comma-separated (wrapper, wrapper-aot, inductor, "
                             "turbine_cpu)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--dtype", default="f32", choices=["f32", "bf16"],
                        help="the models' weights and floating-point inputs (inference)")
    parser.add_argument("--cuda-graphs", action="store_true",
                        help="CUDA graphs: ours with the cuda_graphs option, Inductor "
                             "with mode='reduce-overhead'")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--backend", default="wrapper", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.models is None:
        args.models = ",".join(TRAIN) if args.train else ",".join(n for n, _, _ in ZOO)
    unknown = [m for m in args.models.split(",")
               if m not in (TRAIN if args.train else [n for n, _, _ in ZOO])]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}"
                     + (" for --train" if args.train else ""))
    if args.one:
        if args.train:
            print(json.dumps(measure_train(args.one, args.backend, args.calls, args.device,
                                           args.cuda_graphs)))
        else:
            print(json.dumps(measure(args.one, args.backend, int(args.batch), args.calls,
                                     args.device, int(args.threads) if args.threads else None,
                                     args.cuda_graphs, args.dtype)))
        return
    backends = (["wrapper"] + (["wrapper-aot"] if args.train else [])
                + ([] if args.no_inductor else ["inductor"])
                + (["turbine_cpu"] if not args.train and args.device == "cpu"
                   and _turbine_available() else []))
    if args.backends:
        unknown = sorted(set(args.backends.split(",")) - set(backends))
        if unknown:
            parser.error(f"--backends: {', '.join(unknown)} not among {', '.join(backends)}")
        backends = [b for b in backends if b in args.backends.split(",")]
    try:
        batches = [int(b) for b in args.batch.split(",")]
        thread_counts = [int(t) for t in args.threads.split(",")] if args.threads else [None]
    except ValueError:
        parser.error("--batch and --threads take comma-separated integers")
    if args.cuda_graphs and args.device != "cuda":
        parser.error("--cuda-graphs is for --device cuda")
    if args.train and args.dtype != "f32":
        parser.error("--dtype is for inference; --train runs in f32")
    if args.train and (len(batches) > 1 or batches != [2]):
        parser.error("--train uses each model's own batch; leave --batch out")
    rows = {}
    env = dict(os.environ)
    env.setdefault("WRAPPER_BUILD_DIR", str(ROOT / "build"))
    env["PYTHONPATH"] = str(ROOT / "python") + os.pathsep + env.get("PYTHONPATH", "")
    configs = [(name, batch, threads) for name in args.models.split(",")
               for batch in batches for threads in thread_counts]
    for config in configs:
        name, batch, threads = config
        for backend in backends:
            # Cold for Inductor too: a fresh cache directory per run, and
            # neither its FX graph nor its AOTAutograd cache.
            cache = tempfile.mkdtemp(prefix="bench_inductor_")
            env.update(TORCHINDUCTOR_CACHE_DIR=cache, TORCHINDUCTOR_FX_GRAPH_CACHE="0",
                       TORCHINDUCTOR_AUTOGRAD_CACHE="0", TRITON_CACHE_DIR=cache)
            result = subprocess.run(
                [sys.executable, __file__, "--one", name, "--backend", backend,
                 "--batch", str(batch), "--calls", str(args.calls),
                 "--device", args.device, "--dtype", args.dtype]
                + (["--threads", str(threads)] if threads else [])
                + (["--cuda-graphs"] if args.cuda_graphs else [])
                + (["--train"] if args.train else []),
                capture_output=True, text=True, env=env)
            line = next((l for l in result.stdout.splitlines() if l.startswith("{")), None)
            if result.returncode != 0 or line is None:
                record = {"model": name, "backend": backend, "batch": batch,
                          "error": (result.stderr or result.stdout).strip().splitlines()[-1:]}
            else:
                record = json.loads(line)
            subprocess.run(["rm", "-rf", cache])
            rows[(config, backend)] = record
            print(json.dumps(record), flush=True)
    print()
    turbine = "turbine_cpu" in backends
    print(f"{'model':20} {'batch':>5} {'thr':>3} {'compile wrapper':>16} {'inductor':>10} "
          f"{'ratio':>7}   {'x eager: wrapper':>17} {'inductor':>9}"
          + (f" {'turbine':>8}" if turbine else "")
          + (f" {'x inductor':>11}" if not args.train else "")
          + f" {'by time':>8}"
          + (f" {'aot step':>9} {'peak MiB: wrapper':>18} {'inductor':>9} {'eager':>6}"
             if args.train else ""))
    speed = lambda r: (r["eager_ms"] / r["call_ms"]) if "call_ms" in r else None
    fmt = lambda v, f: (f % v) if v is not None else "-"
    versus, by_time = [], []
    for config in configs:
        name, batch, threads = config
        w = rows.get((config, "wrapper"), {})
        i = rows.get((config, "inductor"), {})
        a = rows.get((config, "wrapper-aot"), {})
        t = rows.get((config, "turbine_cpu"), {})
        ratio = (i["compile_s"] / w["compile_s"]) if "compile_s" in w and "compile_s" in i else None
        over = speed(w) / speed(i) if speed(w) and speed(i) else None
        if over:
            versus.append(over)
        # Inductor's time over ours, the two processes' machine states
        # aside (eager itself can differ by 1.5x between them).
        timed = i["call_ms"] / w["call_ms"] if "call_ms" in w and "call_ms" in i else None
        if timed:
            by_time.append(timed)
        print(f"{name:20} {batch:5d} {fmt(w.get('threads'), '%d'):>3} "
              f"{fmt(w.get('compile_s'), '%.1f s'):>16} "
              f"{fmt(i.get('compile_s'), '%.1f s'):>10} {fmt(ratio, '%.1fx'):>7}   "
              f"{fmt(speed(w), '%.2fx'):>17} {fmt(speed(i), '%.2fx'):>9}"
              + (f" {fmt(speed(t), '%.2fx'):>8}" if turbine else "")
              + (f" {fmt(over, '%.2fx'):>11}" if not args.train else "")
              + f" {fmt(timed, '%.2fx'):>8}"
              + (f" {fmt(speed(a), '%.2fx'):>9}"
                 f" {_peak_text(w):>18} {fmt(i.get('peak_mib'), '%.0f'):>9} "
                 f"{fmt(w.get('eager_peak_mib'), '%.0f'):>6}" if args.train else ""))
    geomean = lambda values: math.exp(sum(math.log(v) for v in values) / len(values))
    if versus:
        print(f"geomean over {len(versus)} rows: wrapper {geomean(versus):.2f}x Inductor per call"
              + (f" ({geomean(by_time):.2f}x by time alone)" if by_time else ""))
    elif by_time:
        print(f"geomean over {len(by_time)} rows: wrapper {geomean(by_time):.2f}x Inductor "
              f"per call by time")


if __name__ == "__main__":
    main()
