"""Convolution layers of ResNet-50 and MobileNet-V3 (large) at 224x224:
each one compiled alone (wrapper_mlir.compile of a Conv2d module) against
PyTorch's torch.nn.functional.conv2d, which runs oneDNN (mkldnn) on the
CPU, in the same process, interleaved call by call.

    .venv/bin/python bench/conv.py [--batch 1] [--calls 20] [--threads N]
                                   [--only resnet50|mobilenet_v3]

Prints one JSON line per layer (median ms of ours and of oneDNN with the
spread, GFLOP/s, ratio = oneDNN ms / ours, > 1 is faster than oneDNN) and
a table with the geomean per network. Run with the project's Python
(.venv; WRAPPER_BUILD_DIR and PYTHONPATH=python as for the tests);
`bench/run.sh conv` does that.
"""

import argparse
import json
import math
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# (name, in channels, out channels, input size, kernel, stride, groups)
RESNET50 = [
    ("conv1", 3, 64, 224, 7, 2, 1),
    ("l1.1x1a", 64, 64, 56, 1, 1, 1),
    ("l1.3x3", 64, 64, 56, 3, 1, 1),
    ("l1.1x1b", 64, 256, 56, 1, 1, 1),
    ("l1.1x1c", 256, 64, 56, 1, 1, 1),
    ("l2.1x1a", 256, 128, 56, 1, 1, 1),
    ("l2.3x3s2", 128, 128, 56, 3, 2, 1),
    ("l2.3x3", 128, 128, 28, 3, 1, 1),
    ("l2.1x1b", 128, 512, 28, 1, 1, 1),
    ("l2.down", 256, 512, 56, 1, 2, 1),
    ("l3.3x3", 256, 256, 14, 3, 1, 1),
    ("l3.1x1a", 1024, 256, 14, 1, 1, 1),
    ("l3.1x1b", 256, 1024, 14, 1, 1, 1),
    ("l4.3x3", 512, 512, 7, 3, 1, 1),
    ("l4.1x1a", 2048, 512, 7, 1, 1, 1),
    ("l4.1x1b", 512, 2048, 7, 1, 1, 1),
]
MOBILENET_V3 = [
    ("stem", 3, 16, 224, 3, 2, 1),
    ("dw3x3.16", 16, 16, 112, 3, 1, 16),
    ("pw.16-64", 16, 64, 112, 1, 1, 1),
    ("dw3x3s2.64", 64, 64, 112, 3, 2, 64),
    ("pw.64-24", 64, 24, 56, 1, 1, 1),
    ("dw5x5s2.72", 72, 72, 56, 5, 2, 72),
    ("pw.72-40", 72, 40, 28, 1, 1, 1),
    ("dw3x3.240", 240, 240, 14, 3, 1, 240),
    ("pw.240-80", 240, 80, 14, 1, 1, 1),
    ("dw5x5.672", 672, 672, 7, 5, 1, 672),
    ("pw.960-160", 960, 160, 7, 1, 1, 1),
]


def measure(layer, batch, calls):
    import torch
    import wrapper_mlir

    name, cin, cout, size, kernel, stride, groups = layer
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(cin, cout, kernel, stride, kernel // 2, groups=groups,
                           bias=False).eval()
    x = torch.randn(batch, cin, size, size)
    compiled = wrapper_mlir.compile(conv, (x,))
    ours, ref = [], []
    with torch.no_grad():
        expected = conv(x)
        got = compiled(x)
        got = got[0] if isinstance(got, (tuple, list)) else got
        error = float((got - expected).abs().max() / (expected.abs().max() + 1e-12))
        for _ in range(3):
            compiled(x)
            conv(x)
        for _ in range(calls):
            start = time.perf_counter()
            compiled(x)
            ours.append(time.perf_counter() - start)
            start = time.perf_counter()
            conv(x)
            ref.append(time.perf_counter() - start)
    out = (size + 2 * (kernel // 2) - kernel) // stride + 1
    flops = 2.0 * batch * cout * out * out * (cin // groups) * kernel * kernel
    ms, ref_ms = statistics.median(ours) * 1e3, statistics.median(ref) * 1e3
    return {"layer": name, "shape": f"{batch}x{cin}x{size}x{size} k{kernel} s{stride} "
                                     f"g{groups} -> {cout}",
            "ms": round(ms, 4), "ms_range": [round(min(ours) * 1e3, 4), round(max(ours) * 1e3, 4)],
            "onednn_ms": round(ref_ms, 4),
            "onednn_ms_range": [round(min(ref) * 1e3, 4), round(max(ref) * 1e3, 4)],
            "gflops": round(flops / (ms * 1e6), 2), "ratio": round(ref_ms / ms, 3),
            "max_rel_error": error}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--threads", type=int, default=None,
                        help="torch.set_num_threads (our kernels run on the same threads)")
    parser.add_argument("--only", choices=["resnet50", "mobilenet_v3"], default=None)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    threads = torch.get_num_threads()
    nets = [("resnet50", RESNET50), ("mobilenet_v3", MOBILENET_V3)]
    ratios = {}
    for net, layers in nets:
        if args.only and args.only != net:
            continue
        for layer in layers:
            result = {"net": net, "batch": args.batch, "threads": threads,
                      **measure(layer, args.batch, args.calls)}
            print(json.dumps(result), flush=True)
            ratios.setdefault(net, []).append(result["ratio"])
    print()
    print(f"{'network':16} {'layers':>6} {'geomean vs oneDNN':>18} {'min':>6} {'max':>6}")
    for net, values in ratios.items():
        geomean = math.exp(sum(math.log(v) for v in values) / len(values))
        print(f"{net:16} {len(values):6d} {geomean:17.2f}x {min(values):5.2f}x {max(values):5.2f}x")


if __name__ == "__main__":
    sys.exit(main())
