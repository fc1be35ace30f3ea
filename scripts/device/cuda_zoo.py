"""On the GPU machine (scripts/device/setup.sh first): each zoo model compiled with target="cuda"
(wrapper_mlir.compile, dynamic batch), against eager on the GPU; time per
call of both (synchronize, perf_counter; median of 20) at batch 8.
    python3 scripts/device/cuda_zoo.py [cuda|cpu] [--bf16] [MODEL...]
--bf16 converts the models and their floating-point inputs to bfloat16."""
import sys, time, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, "python/tests")
import torch, wrapper_mlir
from zoo import ZOO, build, tensors

args = sys.argv[1:]
bf16 = "--bf16" in args
args = [a for a in args if a != "--bf16"]
target = args[0] if args else "cuda"
device = "cuda" if target == "cuda" else "cpu"
names = args[1:] or [n for n, _, _ in ZOO]


def convert(model, inputs):
    """The model and an input maker, in bf16 when asked."""
    if not bf16:
        return model, inputs
    low = lambda t: t.to(torch.bfloat16) if t.is_floating_point() else t
    return model.to(torch.bfloat16), lambda batch: [low(t) for t in inputs(batch)]

def timed(fn, xs, reps=20):
    out = []
    for _ in range(reps):
        if device == "cuda": torch.cuda.synchronize()
        t = time.perf_counter(); fn(*xs)
        if device == "cuda": torch.cuda.synchronize()
        out.append(time.perf_counter() - t)
    return sorted(out)[len(out) // 2] * 1e3
for name in names:
    model, inputs = convert(*build(name))
    model = model.to(device)
    start = time.time()
    try:
        compiled = wrapper_mlir.compile(model, [t.to(device) for t in inputs(2)], target=target,
                                        dynamic_batch=True, fallback=False)
    except Exception as e:
        print(f"{name:20s} FAILED {type(e).__name__}: {str(e)[:300]}", flush=True); continue
    seconds = time.time() - start
    errs = []
    for batch in (2, 8):
        xs = [t.to(device) for t in inputs(batch)]
        with torch.no_grad():
            ref = tensors(model(*xs))
        got = tensors(compiled(*xs))
        errs.append(max(((g.float() - r.float()).abs().max() / r.float().abs().max().clamp(min=1e-6)).item() for g, r in zip(got, ref)))
    xs = [t.to(device) for t in inputs(8)]
    with torch.no_grad():
        eager = timed(model, xs)
        ours = timed(compiled, xs)
    print(f"{name:20s} compile {seconds:5.1f}s  rel err {max(errs):.1e}  batch 8: ours {ours:7.2f} ms  eager {eager:7.2f} ms  ({eager/ours:4.2f}x)", flush=True)
