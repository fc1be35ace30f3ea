"""Where a compiled training step spends its time: torch.profiler (CUPTI
on CUDA) around a few steps of bench/models.py's training models, compiled
as the AOT step (wrapper_mlir.compile_training) or through torch.compile,
against eager in the same run. Prints, per variant, the wall time per step,
the device time per step (the sum of the kernels and copies the profiler
saw, ours included: the runtime launches through the driver API, which
CUPTI traces) and the busiest kernels and host-side calls.

    .venv/bin/python bench/profile_step.py --model gpt2_decoder --device cuda
    .venv/bin/python bench/profile_step.py --model resnet18 --variant aot,eager --top 25
    .venv/bin/python bench/profile_step.py --model resnet18 --variant aot-graph,inductor-graph
"""

import argparse
import copy
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def build_variant(name, model_name, device):
    import torch

    import models
    import wrapper_mlir

    torch.manual_seed(0)
    model, inputs, targets, loss_fn = models.TRAIN[model_name](device)
    model = model.to(device).train()
    sgd = {"type": "sgd", "lr": 1e-3, "momentum": 0.9}
    if name in ("aot", "aot-graph"):
        step = wrapper_mlir.compile_training(model, loss_fn, sgd, [*inputs, *targets],
                                             cuda_graph=name == "aot-graph")
        return lambda: step(*inputs, *targets)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    call = model
    if name == "inductor":
        call = torch.compile(model)
    elif name == "inductor-graph":
        call = torch.compile(model, mode="reduce-overhead")
    elif name == "wrapper":
        wrapper_mlir.register_backend()
        call = torch.compile(model, backend="wrapper")
    elif name != "eager":
        raise SystemExit(f"unknown variant '{name}' "
                         "(aot, aot-graph, wrapper, inductor, inductor-graph, eager)")

    def run():
        loss = loss_fn(call(*inputs), *targets)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss
    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="gpt2_decoder", help="resnet18 or gpt2_decoder")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--variant", default="aot,eager,inductor",
                        help="comma-separated: aot, aot-graph (its CUDA graph mode), wrapper "
                             "(torch.compile), inductor, inductor-graph (reduce-overhead), "
                             "eager")
    parser.add_argument("--steps", type=int, default=10, help="timed and profiled steps")
    parser.add_argument("--top", type=int, default=15, help="rows of each table")
    args = parser.parse_args()

    import torch
    from torch.profiler import ProfilerActivity, profile

    warnings.filterwarnings("ignore")
    cuda = args.device.startswith("cuda")

    def sync():
        if cuda:
            torch.cuda.synchronize()

    for name in args.variant.split(","):
        start = time.perf_counter()
        run = build_variant(name, args.model, args.device)
        for _ in range(3):
            run()
        sync()
        setup = time.perf_counter() - start
        walls = []
        for _ in range(args.steps):
            t = time.perf_counter()
            run()
            sync()
            walls.append(time.perf_counter() - t)
        activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
        with profile(activities=activities) as prof:
            for _ in range(args.steps):
                run()
            sync()
        events = prof.key_averages()
        device_us = sum(e.self_device_time_total for e in events
                        if e.device_type == torch.autograd.DeviceType.CUDA)
        print(f"== {args.model} {name} on {args.device}: {statistics.median(walls) * 1e3:.2f} ms "
              f"a step (range {min(walls) * 1e3:.2f}-{max(walls) * 1e3:.2f}), device busy "
              f"{device_us / args.steps / 1e3:.2f} ms a step, compile+warm-up {setup:.1f} s")
        if cuda:
            print("-- device: kernels and copies by time")
            print(events.table(sort_by="self_device_time_total", row_limit=args.top,
                               max_name_column_width=70))
        print("-- host: calls by self time")
        print(events.table(sort_by="self_cpu_time_total", row_limit=args.top,
                           max_name_column_width=70))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
