#!/usr/bin/env python3
"""The NumPy oracle of the extern kernel tests.

For each function of the program given (or those named), makes seeded
inputs, runs the function with wrapper-run, and compares every output with
an implementation of the kernel written here in NumPy (loops where that is
clearest), independent of the runtime's C kernels. Prints `<case>: ok` or
`<case>: MISMATCH ...` and exits 1 on any mismatch.

    reference.py PROGRAM WORKDIR [CASE...] [--wrapper-run=PATH]
"""

import subprocess
import sys
from pathlib import Path

import numpy as np


def fp8_decode(bits):
    """float8_e4m3fn bits (uint8) to float32."""
    bits = np.asarray(bits, dtype=np.uint8).astype(np.int64)
    sign = np.where(bits >> 7, -1.0, 1.0)
    exponent = (bits >> 3) & 0xF
    mantissa = bits & 0x7
    value = np.where(exponent == 0, mantissa / 8.0 * 2.0 ** -6,
                     (1 + mantissa / 8.0) * 2.0 ** (exponent - 7.0))
    value = np.where((exponent == 15) & (mantissa == 7), np.nan, value)
    return (sign * value).astype(np.float32)


def fp8_encode(values):
    """float32 to the nearest float8_e4m3fn bits (ties to even, saturating)."""
    table = fp8_decode(np.arange(0x7F, dtype=np.uint8)).astype(np.float64)
    out = []
    for v in np.asarray(values, dtype=np.float64).ravel():
        sign = 0x80 if np.signbit(v) else 0
        m = min(abs(v), 448.0)
        distance = np.abs(table - m)
        best = np.flatnonzero(distance == distance.min())
        code = best[0] if len(best) == 1 or best[0] % 2 == 0 else best[1]
        out.append(sign | int(code))
    return np.array(out, dtype=np.uint8).reshape(np.shape(values))


def conv2d(x, w, b=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1),
           groups=1):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.zeros((n, c, h + 2 * padding[0], wd + 2 * padding[1]), np.float64)
    xp[:, :, padding[0]:padding[0] + h, padding[1]:padding[1] + wd] = x
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    per_group = o // groups
    for oc in range(o):
        g = oc // per_group
        for y in range(oh):
            for xx in range(ow):
                patch = xp[:, g * cg:(g + 1) * cg,
                           y * stride[0]:y * stride[0] + dilation[0] * (kh - 1) + 1:dilation[0],
                           xx * stride[1]:xx * stride[1] + dilation[1] * (kw - 1) + 1:dilation[1]]
                out[:, oc, y, xx] = np.tensordot(patch, w[oc], axes=3)
    if b is not None:
        out += b[None, :, None, None]
    return out


def topk(x, k, dim=-1, largest=True):
    order = np.argsort(-x if largest else x, axis=dim, kind="stable")
    idx = np.take(order, np.arange(k), axis=dim)
    return np.take_along_axis(x, idx, axis=dim), idx.astype(np.int64)


def scatter_add(x, dim, index, src):
    out = x.astype(np.float64).copy()
    for pos in np.ndindex(*index.shape):
        target = list(pos)
        target[dim] = index[pos]
        out[tuple(target)] += src[pos]
    return out


rng = np.random.default_rng(20261122)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def fp8(*shape):
    return fp8_encode(rng.uniform(-4, 4, shape))


# case: (inputs, reference(*inputs) -> outputs)
CASES = {
    "mm": (lambda: [f32(5, 7), f32(7, 3)], lambda a, b: [a @ b]),
    "bmm": (lambda: [f32(2, 5, 7), f32(2, 7, 3)], lambda a, b: [a @ b]),
    "addmm_default": (lambda: [f32(3), f32(5, 7), f32(7, 3)],
                      lambda c, a, b: [c + a @ b]),
    "addmm_scaled": (lambda: [f32(5, 3), f32(5, 7), f32(7, 3)],
                     lambda c, a, b: [0.5 * c + 2 * (a @ b)]),
    "conv2d_plain": (lambda: [f32(1, 3, 8, 8), f32(4, 3, 3, 3)],
                     lambda x, w: [conv2d(x, w)]),
    "conv2d_full": (lambda: [f32(2, 4, 9, 9), f32(6, 2, 3, 3), f32(6)],
                    lambda x, w, b: [conv2d(x, w, b, (2, 1), (1, 2), (2, 1),
                                            2)]),
    "conv2d_column_stride": (lambda: [f32(1, 3, 9, 9), f32(5, 3, 3, 3)],
                             lambda x, w: [conv2d(x, w, None, (1, 3), (0, 2), (1, 2))]),
    "topk_largest": (lambda: [f32(4, 9)], lambda x: list(topk(x, 3))),
    "topk_smallest": (lambda: [f32(4, 9)],
                      lambda x: list(topk(x, 2, 0, largest=False))),
    "sort_default": (lambda: [f32(4, 9)], lambda x: list(topk(x, 9, -1, False))),
    "sort_descending": (lambda: [f32(4, 9)], lambda x: list(topk(x, 4, 0))),
    "argmax_all": (lambda: [f32(4, 9)],
                   lambda x: [np.array(np.argmax(x), np.int64)]),
    "argmax_dim": (lambda: [f32(4, 9)],
                   lambda x: [np.argmax(x, axis=1)[:, None].astype(np.int64)]),
    "cumsum_default": (lambda: [f32(4, 9)], lambda x: [np.cumsum(x, axis=1)]),
    "cumsum_dtype": (lambda: [f32(4, 9)],
                     lambda x: [np.cumsum(x.astype(np.float64), axis=0)]),
    "cumsum_int": (lambda: [rng.integers(-100, 100, (4, 9)).astype(np.int32)],
                   lambda x: [np.cumsum(x.astype(np.int64), axis=1)]),
    "index_select": (lambda: [f32(6, 5), np.array([5, 0, 2, 2], np.int64)],
                     lambda x, i: [x[i]]),
    "gather": (lambda: [f32(4, 5), rng.integers(0, 5, (4, 3)).astype(np.int64)],
               lambda x, i: [np.take_along_axis(x, i, axis=1)]),
    "scatter_add": (lambda: [f32(4, 5), rng.integers(0, 4, (3, 5)).astype(np.int64),
                             f32(3, 5)],
                    lambda x, i, s: [scatter_add(x, 0, i, s)]),
    "embedding": (lambda: [f32(10, 4), rng.integers(0, 10, (2, 3)).astype(np.int64)],
                  lambda w, i: [w[i]]),
    "scaled_mm_plain": (
        lambda: [fp8(4, 8), fp8(8, 6), np.array(0.5, np.float32),
                 np.array(0.25, np.float32)],
        lambda a, b, sa, sb: [fp8_encode(
            (fp8_decode(a).astype(np.float64) @ fp8_decode(b)) * sa * sb)]),
    "scaled_mm_full": (
        lambda: [fp8(4, 8), fp8(8, 6), np.array(0.5, np.float32),
                 np.array(2.0, np.float32), f32(6), np.array(0.75, np.float32)],
        lambda a, b, sa, sb, bias, sr: [
            ((fp8_decode(a).astype(np.float64) @ fp8_decode(b)) * sa * sb + bias)
            * sr]),
    "relu": (lambda: [f32(4, 9)], lambda x: [np.maximum(x, 0)]),
    "add_alpha": (lambda: [f32(4, 9), f32(9)], lambda x, y: [x + 2.5 * y]),
    "mul": (lambda: [f32(4, 9), f32(4, 1)], lambda x, y: [x * y]),
    "unbind": (lambda: [f32(3, 4)], lambda x: [x[0], x[1], x[2]]),
    # variants.mlir: out= and in-place forms, implemented and synthesized.
    "variants": (
        lambda: [f32(6, 5), np.array([3, 0, 5, 3], np.int64), f32(4, 3),
                 f32(4, 7), f32(7, 3), f32(1, 2, 5, 5), f32(3, 2, 3, 3)],
        lambda x, i, c, a, b, img, w: [
            np.cumsum(np.maximum(x[i], 0), axis=1),
            0.5 * c + a @ b,
            conv2d(img, w),
            *topk(np.cumsum(np.maximum(x[i], 0), axis=1), 5),
            conv2d(img, w)]),
    "mixed": (lambda: [f32(5, 7), f32(7, 3)],
              lambda x, w: [np.exp(np.maximum(x, 0) @ w)]),
}

# Cases whose outputs are fp8 bits: compared after decoding, within one
# fp8 rounding step.
FP8_OUTPUTS = {"scaled_mm_plain"}


def compare(case, index, got, want):
    if case in FP8_OUTPUTS:
        g, w = fp8_decode(got), fp8_decode(want)
        ok = got.shape == want.shape and np.allclose(g, w, rtol=0.07, atol=1e-3)
        return ok, np.max(np.abs(g - w)) if got.shape == want.shape else None
    if got.shape != want.shape:
        return False, f"shape {got.shape}, expected {want.shape}"
    if np.issubdtype(want.dtype, np.integer):
        return bool(np.array_equal(got, want)), int(np.max(np.abs(got - want), initial=0))
    err = np.max(np.abs(got.astype(np.float64) - want), initial=0)
    return bool(np.allclose(got, want, rtol=1e-5, atol=1e-5)), err


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--wrapper-run=")]
    tool = next((a.split("=", 1)[1] for a in sys.argv[1:]
                 if a.startswith("--wrapper-run=")), "wrapper-run")
    program, work = args[0], Path(args[1])
    # By default, every case that the program defines a function for.
    text = Path(program).read_text()
    cases = args[2:] or [c for c in CASES if f"@{c}(" in text]
    failed = 0
    for case in cases:
        make, reference = CASES[case]
        inputs = make()
        cmd = [tool, program, f"--entry={case}", "--print=false",
               f"--save={work}/{case}_out_"]
        for i, x in enumerate(inputs):
            path = work / f"{case}_in_{i}.npy"
            np.save(path, x)
            cmd.append(f"--input={path}")
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            print(f"{case}: FAILED to run: {run.stderr.strip()}")
            failed += 1
            continue
        wants = reference(*inputs)
        problems = []
        for i, want in enumerate(wants):
            got = np.load(work / f"{case}_out_{i}.npy")
            ok, err = compare(case, i, got, np.asarray(want))
            if not ok:
                problems.append(f"output #{i}: {err}")
        if problems:
            print(f"{case}: MISMATCH " + "; ".join(problems))
            failed += 1
        else:
            print(f"{case}: ok")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
