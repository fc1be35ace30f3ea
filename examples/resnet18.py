"""The main job's model: torchvision's resnet18 (random weights) through
torch.compile(backend="wrapper"), checked against eager PyTorch and timed
against it.

    .venv/bin/python examples/resnet18.py [--batch N] [--size S] [--calls N]
"""

import argparse
import statistics
import time
import warnings

import torch
import torchvision

import wrapper_mlir

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--batch", type=int, default=4)
parser.add_argument("--size", type=int, default=224, help="image height and width")
parser.add_argument("--calls", type=int, default=10, help="timed calls of each")
args = parser.parse_args()

torch.manual_seed(0)
model = torchvision.models.resnet18().eval()
x = torch.randn(args.batch, 3, args.size, args.size)
wrapper_mlir.register_backend()
compiled = torch.compile(model, backend="wrapper", options={"fallback": False})

with torch.no_grad(), warnings.catch_warnings():
    warnings.simplefilter("error", UserWarning)  # an eager fallback is an error here
    start = time.perf_counter()
    result = compiled(x)
    compile_seconds = time.perf_counter() - start
    expected = model(x)
    error = float((result - expected).abs().max() / expected.abs().max())
    print(f"resnet18, batch {args.batch}, {args.size}x{args.size}: first call (compile) "
          f"{compile_seconds:.1f} s")
    print(f"agreement with eager: max |difference| / max |eager| = {error:.2e} "
          f"({'ok' if error < 1e-3 else 'MISMATCH'})")
    # Interleaved, so that both see the same machine state; medians.
    ours, eager = [], []
    for _ in range(args.calls):
        t = time.perf_counter()
        compiled(x)
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        model(x)
        eager.append(time.perf_counter() - t)
    o, e = statistics.median(ours), statistics.median(eager)
    print(f"time per call (median of {args.calls}, interleaved): wrapper {o * 1e3:.1f} ms "
          f"[{min(ours) * 1e3:.1f}-{max(ours) * 1e3:.1f}], eager {e * 1e3:.1f} ms "
          f"[{min(eager) * 1e3:.1f}-{max(eager) * 1e3:.1f}]: {e / o:.2f}x eager's speed")
if error >= 1e-3:
    raise SystemExit(1)
