"""The host side of a torch.compile training step on the GPU: our backend
and Inductor stepping copies of one model in one process, interleaved
blocks of steps, medians with the range; for ours, where the step's host
time goes (the compiled libraries' calls, which queue every launch and
cuBLAS product, and the Python that passes tensors in and takes the
outputs) and the runtime's counters per step (kernel launches, cuBLAS
products, allocations of its caching allocator). A GPU step of a small
model is bound by the host: these say how much of it is ours.

    .venv/bin/python bench/train_host.py --model gpt2_decoder
    .venv/bin/python bench/train_host.py --model resnet18 --steps 30 --rounds 5
    .venv/bin/python bench/train_host.py --model resnet18 --profile

With --profile, each backend's steps are then traced by torch.profiler
(5 steps): the CUDA driver and runtime API calls a step makes (count and
host microseconds, by name) and the GPU's kernel time, so the host time of
the two backends can be compared call by call.
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
    parser.add_argument("--model", default="gpt2_decoder", help="resnet18 or gpt2_decoder")
    parser.add_argument("--steps", type=int, default=20, help="timed steps per block")
    parser.add_argument("--rounds", type=int, default=3, help="blocks per backend")
    parser.add_argument("--profile", action="store_true",
                        help="then trace 5 steps of each: CUDA API calls and kernel time")
    args = parser.parse_args()

    import torch

    import models
    import wrapper_mlir
    from wrapper_mlir import _compile

    if args.model not in models.TRAIN:
        parser.error(f"unknown model {args.model!r}; one of {', '.join(models.TRAIN)}")
    if not torch.cuda.is_available():
        parser.error("needs a CUDA device")
    warnings.filterwarnings("ignore")
    wrapper_mlir.register_backend()
    torch.manual_seed(0)
    model, inputs, targets, loss_fn = models.TRAIN[args.model]("cuda")
    model = model.cuda().train()
    copies = {"wrapper": model, "inductor": copy.deepcopy(model)}
    steppers = {}
    for backend, owner in copies.items():
        compiled = torch.compile(owner, backend=backend)
        optimizer = torch.optim.SGD(owner.parameters(), lr=1e-3, momentum=0.9)

        def step(compiled=compiled, optimizer=optimizer):
            loss = loss_fn(compiled(*inputs), *targets)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)

        steppers[backend] = step
        for _ in range(5):  # compiles, then warms the caches
            step()
    torch.cuda.synchronize()

    # Host time of our calls, by part.
    spent = {}

    def timed(name, function):
        def wrapper(*a, **k):
            start = time.perf_counter()
            result = function(*a, **k)
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - start
            return result
        return wrapper

    model_class = _compile.CompiledModel
    model_class._run_device_arrays = timed("library calls", model_class._run_device_arrays)
    model_class._device_tensors = timed("inputs", model_class._device_tensors)
    model_class._adopt_device_outputs = staticmethod(
        timed("outputs", model_class.__dict__["_adopt_device_outputs"].__func__))

    times = {backend: [] for backend in steppers}
    before = wrapper_mlir.cuda_stats()
    for _ in range(args.rounds):
        for backend, step in steppers.items():
            for _ in range(args.steps):
                torch.cuda.synchronize()
                start = time.perf_counter()
                step()
                torch.cuda.synchronize()
                times[backend].append((time.perf_counter() - start) * 1e3)
    after = wrapper_mlir.cuda_stats()
    ours = args.rounds * args.steps
    for backend, samples in times.items():
        print(f"{args.model} {backend:9s} step {statistics.median(samples):6.2f} ms "
              f"[{min(samples):.2f}, {max(samples):.2f}]")
    ratio = statistics.median(times["inductor"]) / statistics.median(times["wrapper"])
    print(f"wrapper {ratio:.2f}x Inductor")
    print("wrapper host ms per step: " + ", ".join(
        f"{name} {seconds * 1e3 / ours:.2f}" for name, seconds in spent.items()))
    print("wrapper runtime per step: " + ", ".join(
        f"{name} {(after[name] - before[name]) / ours:.0f}"
        for name in ("launches", "gemms", "allocations", "copies_to_device",
                     "copies_to_host")))
    if args.profile:
        for backend, step in steppers.items():
            _profile(backend, step)


def _profile(backend, step, steps=5):
    """Prints the CUDA API calls (host side) and the kernel time of `steps`
    steps of `step`, per step."""
    import torch
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as trace:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    calls, kernels = {}, 0.0
    for event in trace.events():
        if event.device_type == DeviceType.CUDA:
            kernels += event.device_time_total
        elif event.name.startswith(("cu", "cuda")) and not event.name.startswith("cudaDevice"):
            count, micros = calls.get(event.name, (0, 0.0))
            calls[event.name] = (count + 1, micros + event.cpu_time_total)
    print(f"{backend}: GPU kernels {kernels / steps / 1e3:.2f} ms per step; CUDA API per step:")
    for name, (count, micros) in sorted(calls.items(), key=lambda item: -item[1][1])[:8]:
        print(f"  {name:32s} {count / steps:6.0f} calls {micros / steps / 1e3:6.2f} ms "
              f"({micros / count:.1f} us each)")


if __name__ == "__main__":
    main()
