"""On the GPU machine (its PyTorch): which ATen ops of the zoo and of some
other models would fall back, on the CPU and on CUDA, export and dynamo."""
import sys, time, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, "python/tests")
import torch, wrapper_mlir
from zoo import ZOO, build

extra = []
try:
    import torchvision
    for n in ("resnet50", "mobilenet_v2", "densenet121", "regnet_y_400mf", "vit_b_16"):
        extra.append((n, (lambda n=n: getattr(torchvision.models, n)()), lambda b, n=n: (torch.randn(b, 3, *((224, 224) if n == "vit_b_16" else (64, 64))),)))
except Exception as e:
    print("torchvision:", e)
try:
    import timm
    for n in ("vit_tiny_patch16_224", "convnext_atto", "mixer_s16_224", "efficientformer_l1"):
        extra.append((n, (lambda n=n: timm.create_model(n, pretrained=False)), lambda b: (torch.randn(b, 3, 224, 224),)))
except Exception as e:
    print("timm:", e)
DEVICES = ("cpu", "cuda") if torch.cuda.is_available() else ("cpu",)
models = [(n, None, None) for n, _, _ in ZOO] + extra
for name, factory, inputs in models:
    if factory is None:
        model, inputs = build(name)
    else:
        torch.manual_seed(0); model = factory().eval()
    for device in DEVICES:
        m = model.to(device)
        xs = [t.to(device) for t in inputs(2)]
        for mode in ("export", "dynamo"):
            start = time.time()
            try:
                report = wrapper_mlir.explain(m, xs, mode=mode)
                falls = sorted({f"{f[1]}: {f[3][:80]}" for f in report.fallbacks})
                errors = [g.error for g in report.graphs if g.error]
                status = "ok" if not falls and not errors else f"FALLBACK {falls} {errors[:1]}"
            except Exception as e:
                status = f"ERROR {type(e).__name__}: {str(e)[:200]}"
            print(f"{name:22s} {device:4s} {mode:6s} {time.time()-start:5.1f}s {status}", flush=True)
            torch._dynamo.reset()
