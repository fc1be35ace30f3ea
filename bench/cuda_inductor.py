"""torch.compile (Inductor) on bench/run.sh cuda's workloads, timed as
wrapper-run --target=cuda --benchmark times ours: calls back to back on
device-resident inputs, one wait at the end, the mean per call.

    python3 bench/cuda_inductor.py REPS workload:size:dtype ...

prints one line per workload: "workload size dtype ms" (ms "n/a" with the
reason on stderr when PyTorch has no CUDA device).
"""
import sys
import time

import torch
import torch.nn.functional as F


def add_chain(a, b, c):
    return ((a + b) * c) + b


def softmax(x):
    return torch.softmax(x, dim=1)


def layer_norm(x, w, b):
    return F.layer_norm(x, (x.shape[-1],), w, b, 1e-5)


def rms_norm(x, w):
    return F.rms_norm(x, (x.shape[-1],), w, 1e-6)


def gelu(x):
    return F.gelu(x)


def linear(x, w, b):
    return torch.relu(x @ w + b)


def mlp_block(x, w1, w2, g, b):
    n = F.layer_norm(x, (x.shape[-1],), g, b, 1e-5)
    return x + F.gelu(n @ w1) @ w2


# workload -> (function, number of full-size inputs, number of row vectors)
WORKLOADS = {
    "add_chain": (add_chain, 3, 0),
    "softmax": (softmax, 1, 0),
    "layer_norm": (layer_norm, 1, 2),
    "rms_norm": (rms_norm, 1, 1),
    "gelu": (gelu, 1, 0),
    "linear": (linear, 2, 1),
    "mlp_block": (mlp_block, 3, 2),
}


def measure(name, size, dtype, reps):
    fn, full, vectors = WORKLOADS[name]
    dt = {"f32": torch.float32, "bf16": torch.bfloat16}[dtype]
    gen = torch.Generator(device="cuda").manual_seed(0)
    args = [torch.rand(size, size, device="cuda", dtype=dt, generator=gen) * 2 - 1
            for _ in range(full)]
    args += [torch.rand(size, device="cuda", dtype=dt, generator=gen) * 2 - 1
             for _ in range(vectors)]
    compiled = torch.compile(fn)
    with torch.no_grad():
        for _ in range(3):
            compiled(*args)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(reps):
            compiled(*args)
        torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3 / reps


def main():
    reps = int(sys.argv[1])
    # f32 products in full f32, as ours (--wrapper-cuda-pipeline allow-tf32=false).
    torch.backends.cuda.matmul.allow_tf32 = False
    if not torch.cuda.is_available():
        print("cuda_inductor: PyTorch sees no CUDA device", file=sys.stderr)
        for spec in sys.argv[2:]:
            print(spec.replace(":", " "), "n/a")
        return
    for spec in sys.argv[2:]:
        name, size, dtype = spec.split(":")
        ms = measure(name, int(size), dtype, reps)
        print(name, size, dtype, f"{ms:.4f}", flush=True)
        torch._dynamo.reset()
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
