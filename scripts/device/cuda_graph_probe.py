"""On the GPU machine (scripts/device/setup.sh first): where the time of a
CUDA-graph call goes, ours (options={"cuda_graphs": True}) against Inductor's
mode="reduce-overhead", per zoo model at one batch size:
    python3 scripts/device/cuda_graph_probe.py resnet18,gpt2 [BATCH] [--table] [--no-tf32]
Prints, per backend, ms per call in blocks of 50 calls (median, range of 7
interleaved rounds) and the host-only time of one call on an idle GPU; the
same for our captured graph launched alone (wrapper_cuda_graph_launch: the
GPU time of the replay, without the Python path around it); the kernels'
device time per call under torch.profiler; and a cProfile of our calls.
--table adds each backend's kernels by device time; --no-tf32 runs
convolutions in f32 (torch.backends.cudnn.allow_tf32 off) in both."""
import copy, statistics, sys, time, ctypes
import torch
import wrapper_mlir
from wrapper_mlir import _cuda_graphs
from wrapper_mlir._compile import _cuda_runtime
from wrapper_mlir.zoo import build

seen = []
orig = _cuda_graphs.CudaGraphs.__call__
def spy(self, tensors, device):
    if self not in seen:
        seen.append(self)
    return orig(self, tensors, device)
_cuda_graphs.CudaGraphs.__call__ = spy

def block(call, n):
    torch.cuda.synchronize(); t = time.perf_counter()
    for _ in range(n): call()
    torch.cuda.synchronize(); return (time.perf_counter() - t) / n * 1e3

def host(call, n):
    out = []
    for _ in range(n):
        torch.cuda.synchronize(); t = time.perf_counter(); call(); out.append(time.perf_counter() - t)
    torch.cuda.synchronize(); return statistics.median(out) * 1e6

def kernels(call, n):
    from torch.profiler import profile, ProfilerActivity
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(n): call()
        torch.cuda.synchronize()
    total = 0.0; count = 0
    for e in prof.key_averages():
        total += e.self_device_time_total; count += e.count
    return total / n / 1e3, count / n

if "--no-tf32" in sys.argv:
    # Convolutions in full f32 for both backends (PyTorch's default is TF32).
    torch.backends.cudnn.allow_tf32 = False
positional = [a for a in sys.argv[1:] if not a.startswith("--")]
for name in positional[0].split(","):
    batch = int(positional[1]) if len(positional) > 1 else 1
    model, make = build(name)
    model = model.cuda().eval()
    inputs = [v.cuda() for v in make(batch)]
    seen.clear()
    ours = torch.compile(copy.deepcopy(model), backend="wrapper", options={"cuda_graphs": True})
    ind = torch.compile(copy.deepcopy(model), mode="reduce-overhead")
    calls = {}
    for tag, m in (("ours", ours), ("ind", ind)):
        def c(m=m):
            with torch.no_grad():
                return m(*inputs)
        for _ in range(5): c()
        calls[tag] = c
    graphs = seen[0]
    (key, g), = [(k, v) for k, v in graphs._graphs.items()]
    rt = _cuda_runtime()
    def raw():
        rt.wrapper_cuda_graph_launch(g.handle)
    calls["ours_launch_only"] = raw
    rows = {k: [] for k in calls}
    for _ in range(7):
        for k, c in calls.items():
            rows[k].append(block(c, 50))
    for k, v in rows.items():
        print(f"{name} b{batch} {k:18s} block ms/call median {statistics.median(v):.4f} "
              f"[{min(v):.4f}, {max(v):.4f}]  host-only us {host(calls[k], 100):.1f}")
    for k in ("ours", "ind", "ours_launch_only"):
        ms, cnt = kernels(calls[k], 20)
        print(f"{name} b{batch} {k:18s} device-kernel ms/call {ms:.4f}  events/call {cnt:.1f}")
    if "--table" in sys.argv:
        # Each backend's kernels by device time (20 calls).
        from torch.profiler import profile, ProfilerActivity
        for k in ("ours", "ind"):
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(20): calls[k]()
                torch.cuda.synchronize()
            print(f"== {name} b{batch} {k}: kernels, 20 calls")
            print(prof.key_averages().table(sort_by="self_cuda_time_total", row_limit=40,
                                            max_name_column_width=90))
    # Where our host time goes.
    import cProfile, pstats, io
    pr = cProfile.Profile(); pr.enable()
    for _ in range(200): calls["ours"]()
    torch.cuda.synchronize(); pr.disable()
    s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(18)
    print(s.getvalue()[:5000])
