"""The importer's op table, op by op, against eager PyTorch: small modules
that each exercise a family of core ATen ops (with their common overloads,
edge values and dynamic sizes), compiled with no fallback and run at two
batch sizes; the imported programs also through the NumPy interpreter (an
independent implementation of the dialect), so that an import error and a
compilation error are told apart."""

import os

import numpy as np
import pytest

if os.environ.get("WRAPPER_REQUIRE_TORCH"):
    import torch
else:
    torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import wrapper_mlir  # noqa: E402
from wrapper_mlir.interpreter import interpret  # noqa: E402


class Unary(nn.Module):
    def forward(self, x):
        y = x.clamp(-0.9, 0.9)
        return (torch.sin(x), torch.cos(x), torch.tan(y), torch.asin(y), torch.acos(y),
                torch.atan(x), torch.sinh(x), torch.cosh(x), torch.asinh(x),
                torch.acosh(x.abs() + 1), torch.atanh(y), torch.log1p(x.abs()),
                torch.expm1(x), torch.log2(x.abs() + 1), torch.log10(x.abs() + 1),
                torch.exp2(x), torch.floor(x * 3), torch.ceil(x * 3), torch.round(x * 4),
                torch.trunc(x * 3), torch.sign(x), torch.reciprocal(x + 3), torch.square(x),
                torch.rsqrt(x.abs() + 1), F.silu(x), F.gelu(x), F.gelu(x, approximate="tanh"),
                F.hardswish(x), F.hardsigmoid(x), F.elu(x), F.leaky_relu(x, 0.1),
                F.softplus(x), F.mish(x), torch.erf(x), F.relu6(x * 4), torch.isnan(x),
                torch.nan_to_num(torch.log(x)))


class Binary(nn.Module):
    def forward(self, x, y, i, j):
        j = j.masked_fill(j == 0, 3)
        return (x + y * 2, x - 3, 2 - x, x * y, x / (y.abs() + 1), torch.maximum(x, y),
                torch.minimum(x, y), x ** 2, (x.abs() + 1) ** y, torch.pow(2.0, x),
                torch.fmod(x * 5, 1.5), torch.remainder(x * 5, 1.5), torch.atan2(x, y),
                i // j, torch.div(i, j, rounding_mode="trunc"), i % j, torch.fmod(i, j),
                torch.div(x, y.abs() + 1, rounding_mode="floor"), i * 3 + j, i / j,
                x > y, x <= 0.5, i == j, i != 2, torch.logical_and(x > 0, y > 0),
                torch.logical_or(x > 0, i > 0), torch.logical_xor(x > 0, y > 0),
                torch.logical_not(x > 0), i & j, i | j, i ^ j, ~i,
                torch.where(x > 0, x, y), torch.where(x > 0, x, 0.5),
                x.masked_fill(y > 0.5, -1.0), torch.clamp(x, min=-0.5),
                torch.clamp(x, max=y), x + i, (i + 0.5) * 2)


class Reductions(nn.Module):
    def forward(self, x, i):
        values, indices = x.max(dim=1)
        low, where = x.min(dim=-1, keepdim=True)
        return (x.sum(), x.sum(dim=(1, 2)), x.mean(dim=-1, keepdim=True), x.amax(dim=(0, 2)),
                x.amin(1), x.prod(dim=2), values, indices, low, where, x.argmax(), x.argmax(1),
                x.argmin(dim=2, keepdim=True), torch.var(x, dim=2), torch.std(x, dim=1),
                torch.var_mean(x, dim=-1, correction=0)[0], (x > 0).any(dim=1),
                (x > -3).all(), i.sum(dim=1), torch.cumsum(x, dim=2), torch.cumsum(i, 1),
                torch.logsumexp(x, dim=1), x.norm(dim=-1), F.normalize(x, dim=-1))


class Indexing(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Embedding(20, 6)

    def forward(self, x, ids):
        index = torch.tensor([2, 0, -1, 1])
        rows = torch.arange(x.shape[0])
        return (self.table(ids), x.index_select(1, index % 5), x[:, index],
                x[rows, index[:1]], x[:, 1:4, index[1:3]], x[..., -1], x[:, -2:],
                torch.gather(x, 2, ids[:, :4].unsqueeze(1).expand(-1, 5, -1) % 7),
                torch.arange(3, 11, 2), torch.arange(x.shape[0] * 2, dtype=torch.float32),
                torch.full((2, 3), 1.5), torch.zeros_like(x), torch.ones(x.shape[0], 2),
                torch.flip(x, [1, 2]), x.new_full((3,), 7.0), torch.tril(x), torch.triu(x, 1),
                F.one_hot(ids % 4, 4))


class Layout(nn.Module):
    def forward(self, x, y):
        a, b, c = torch.split(x, [1, 2, 2], dim=1)
        parts = torch.chunk(x, 2, dim=2)
        return (a, b * 2, c, parts[0], parts[1], torch.unbind(y, dim=1)[2],
                torch.stack([x, x * 2], dim=1), torch.cat([x, x[:, :2]], dim=1),
                x.repeat(1, 2, 1), x.permute(2, 0, 1), x.transpose(1, 2).reshape(x.shape[0], -1),
                x.flatten(1), x.unsqueeze(-1).expand(-1, -1, -1, 3), x.select(1, -1),
                F.pad(x, (1, 2, 0, 1)), F.pad(x, (-1, 1)), F.pad(x, (2, 2), value=-1.0),
                x.view(x.shape[0], 5, 7).contiguous(), torch.roll(x, 1, dims=2),
                x.new_zeros(2), y.t(), x.squeeze(0) if x.shape[0] == 1 else x * 1,
                torch.narrow(x, 2, 1, 3), x.unflatten(2, (7, 1)).squeeze(-1),
                x.unfold(2, 3, 2) * 2, x.unfold(-1, 4, 1).sum(-1), x.unfold(1, 2, 3))


class Convolutions(nn.Module):
    def __init__(self):
        super().__init__()
        self.plain = nn.Conv2d(4, 6, 3, stride=2, padding=1)
        self.grouped = nn.Conv2d(4, 8, 3, padding=2, dilation=2, groups=2, bias=False)
        self.depthwise = nn.Conv2d(4, 4, 5, padding=2, groups=4)
        self.one = nn.Conv1d(4, 3, 3, padding=1)
        self.three = nn.Conv3d(4, 2, (1, 3, 3), padding=(0, 1, 1))
        self.up = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1)
        self.up_grouped = nn.ConvTranspose2d(4, 4, 2, stride=2, groups=2)
        self.bn = nn.BatchNorm2d(6)
        self.gn = nn.GroupNorm(2, 4)
        self.inorm = nn.InstanceNorm2d(4, affine=True)
        self.bn.running_mean.uniform_(-1, 1)
        self.bn.running_var.uniform_(0.5, 2)

    def forward(self, x):
        flat = x.flatten(2)
        return (self.plain(x), self.grouped(x), self.depthwise(x), self.one(flat[..., :20]),
                self.three(x.unsqueeze(2)), self.up(x), self.up_grouped(x),
                self.bn(self.plain(x)), self.gn(x), self.inorm(x),
                F.max_pool2d(x, 3, 2, 1), F.max_pool2d(x, 2, ceil_mode=True),
                F.max_pool2d(x, 3, 1, dilation=2), F.avg_pool2d(x, 3, 2, 1),
                F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
                F.avg_pool2d(x, 2, ceil_mode=True), F.adaptive_avg_pool2d(x, (3, 2)),
                F.adaptive_avg_pool2d(x, 1), F.adaptive_max_pool2d(x, (2, 3)),
                F.max_pool1d(flat, 4), F.avg_pool1d(flat, 3), F.interpolate(x, scale_factor=2), F.interpolate(x, size=(4, 11)),
                F.interpolate(x, size=(5, 6), mode="nearest-exact"),
                F.interpolate(x, size=(5, 9), mode="bilinear", align_corners=False),
                F.pixel_shuffle(x, 2))


class Products(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(7, 5)
        self.bilinear = nn.Linear(7, 5, bias=False)

    def forward(self, x, w, b3):
        return (self.linear(x), self.bilinear(x), x @ w, torch.matmul(x[0], w),
                torch.matmul(w.t(), x[0].t()), torch.mm(x[0], w), torch.bmm(b3, b3.transpose(1, 2)),
                torch.addmm(torch.ones(4), x[0], w, beta=0.5, alpha=2.0),
                torch.baddbmm(b3[:, :, :1], b3, b3.transpose(1, 2)),
                torch.einsum("bij,jk->bik", x, w), F.softmax(x, -1), F.log_softmax(x, 1),
                F.layer_norm(x, (7,)),
                F.scaled_dot_product_attention(b3, b3, b3, is_causal=True),
                torch.outer(x[0, 0], w[0]))


class Scatters(nn.Module):
    """scatter (src, value, add, reduce), index_put (adjacent, not
    adjacent, accumulate), max pooling with its indices."""

    def forward(self, x, i):
        index = i % 5
        y = x.clone()
        y[:, torch.tensor([0, 2])] = 1.5
        z = x.clone()
        z[torch.tensor([0, 1]), :, torch.tensor([1, 3])] += 2.0
        values, where = F.max_pool2d(x.unsqueeze(1), 2, 2, return_indices=True)
        return (torch.scatter(x, 1, index, x * 2), torch.scatter(x, 2, index[:, :, :3], 0.5), torch.scatter_add(x, 1, index, x),
                x.scatter_reduce(1, index, x, "amax"), y, z, values, where)


class Norms(nn.Module):
    """rms_norm kept whole (tensor_program.rms_norm): over one and two
    dimensions, with and without weight and eps, and the fused op with its
    reciprocal RMS; vector norms of each order."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(7))
        self.weight2 = nn.Parameter(torch.randn(5, 7))

    def forward(self, x):
        out, rstd = torch.ops.aten._fused_rms_norm(x, [7], self.weight, 1e-5)
        return (F.rms_norm(x, (7,), self.weight, 1e-6), F.rms_norm(x, (7,)),
                F.rms_norm(x, (5, 7), self.weight2, 1e-4), out, rstd,
                torch.linalg.vector_norm(x, dim=-1), x.norm(p=1, dim=1, keepdim=True),
                torch.linalg.vector_norm(x, float("inf"), dim=(1, 2)),
                torch.linalg.vector_norm(x, float("-inf")), torch.linalg.vector_norm(x, 0, 2),
                torch.linalg.vector_norm(x, 3.0, -1), F.normalize(x, dim=-1))


class Decomposed(nn.Module):
    """Ops outside the core ATen set that PyTorch's full decomposition
    table breaks up (importer.frontend._decompositions_of_missing_ops):
    compiled as their pieces, no fallback."""

    def forward(self, x, grid, v):
        sampled = [F.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=align)
                   for mode, padding, align in (("bilinear", "zeros", False),
                                                ("bilinear", "border", True),
                                                ("nearest", "reflection", False),
                                                ("bicubic", "zeros", True))]
        row = x[:, 0, 0]
        return (*sampled,
                F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=False),
                torch.cumprod(x, dim=3), torch.hypot(x, x * 2),
                torch.fmax(x, x.flip(3)), torch.fmin(x, x.flip(3)),
                torch.signbit(x), torch.signbit(x * 0), torch.copysign(x, -x),
                torch.copysign(x, -0.0),
                torch.round(x * 100, decimals=1),
                torch.addmv(v, x[0, 0], row[0]), torch.bucketize(x, torch.linspace(-1.5, 1.5, 5)),
                F.interpolate(x.unsqueeze(2), scale_factor=(2, 1, 2), mode="trilinear"),
                torch.tril_indices(4, 5, 1), torch.triu_indices(3, 6),
                # A primitive decompositions leave (Faster R-CNN's box coder).
                torch.ops.prims.convert_element_type(x * 3, torch.int32))


CASES = [
    # name, module, inputs(batch)
    ("unary", Unary, lambda b: (torch.randn(b, 6, 5),)),
    ("binary", Binary, lambda b: (torch.randn(b, 8), torch.randn(b, 8),
                                  torch.randint(-9, 9, (b, 8)), torch.randint(-4, 5, (b, 8)))),
    ("reductions", Reductions, lambda b: (torch.randn(b, 5, 6), torch.randint(-5, 5, (b, 4)))),
    ("indexing", Indexing, lambda b: (torch.randn(b, 5, 7), torch.randint(0, 20, (b, 6)))),
    ("layout", Layout, lambda b: (torch.randn(b, 5, 7), torch.randn(4, 3))),
    ("convolutions", Convolutions, lambda b: (torch.randn(b, 4, 7, 9),)),
    ("products", Products, lambda b: (torch.randn(b, 3, 7), torch.randn(7, 4),
                                      torch.randn(b, 6, 4))),
    ("norms", Norms, lambda b: (torch.randn(b, 5, 7),)),
    ("scatters", Scatters, lambda b: (torch.randn(b, 5, 6), torch.randint(-5, 5, (b, 5, 6)))),
    ("decomposed", Decomposed, lambda b: (torch.randn(b, 3, 6, 6), torch.rand(b, 4, 5, 2) * 2.4 - 1.2,
                                          torch.randn(6))),
]


def flat(value):
    if isinstance(value, torch.Tensor):
        return [value]
    return [t for v in value for t in flat(v)]


def compare(got, expected, what):
    got, expected = flat(got), flat(expected)
    assert len(got) == len(expected), what
    for index, (g, e) in enumerate(zip(got, expected)):
        g = torch.as_tensor(np.asarray(g)) if not isinstance(g, torch.Tensor) else g
        assert tuple(g.shape) == tuple(e.shape), f"{what} output #{index}: shape {tuple(g.shape)}, expected {tuple(e.shape)}"
        if e.dtype == torch.bool or not e.dtype.is_floating_point:
            assert torch.equal(g.to(e.dtype), e), f"{what} output #{index}: {g} != {e}"
            continue
        torch.testing.assert_close(g.to(e.dtype), e, rtol=2e-4, atol=2e-5, equal_nan=True,
                                   msg=lambda m: f"{what} output #{index}: {m}")


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_op_family(name):
    _, factory, make_inputs = next(c for c in CASES if c[0] == name)
    torch.manual_seed(0)
    module = factory().eval()
    inputs = make_inputs(2)
    model = wrapper_mlir.compile(module, inputs, dynamic_batch=True, fallback=False)
    with torch.no_grad():
        expected = module(*inputs)
    imported = model.imported
    reference = interpret(imported.text, [inputs[i].numpy() for i in imported.arguments],
                          weights=imported.weights)
    compare([torch.as_tensor(r) for r in reference], expected, f"{name}: NumPy interpreter")
    for batch in (2, 3):
        inputs = make_inputs(batch)
        with torch.no_grad():
            compare(model(*inputs), module(*inputs), f"{name}: compiled, batch {batch}")



class FusedAttention(nn.Module):
    """The fused attention kernels a GPU's scaled_dot_product_attention
    traces to (no CPU kernels: exported with their meta functions only)."""

    def __init__(self, kernel, causal):
        super().__init__()
        self.kernel, self.causal = kernel, causal

    def forward(self, q, k, v, bias):
        aten = torch.ops.aten
        if self.kernel == "efficient":
            return aten._scaled_dot_product_efficient_attention(
                q, k, v, bias, False, 0.0, self.causal)[0]
        if self.kernel == "flash":
            return aten._scaled_dot_product_flash_attention(
                q, k, v, 0.0, self.causal, False, scale=0.3)[0] + bias
        return aten._scaled_dot_product_cudnn_attention(
            q, k, v, bias, False, 0.0, self.causal, False)[0]


@pytest.mark.parametrize("kernel", ["efficient", "flash", "cudnn"])
@pytest.mark.parametrize("causal", [False, True])
def test_fused_attention_kernels_become_their_math(kernel, causal):
    torch.manual_seed(1)
    q, k, v = (torch.randn(2, 3, 5, 8) for _ in range(3))
    bias = torch.randn(2, 3, 5, 8 if kernel == "flash" else 5)
    model = wrapper_mlir.compile(FusedAttention(kernel, causal).eval(), [q, k, v, bias],
                                 fallback=False)
    if kernel == "flash":
        expected = F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=0.3) + bias
    else:
        mask = bias
        if causal:
            keep = torch.ones(5, 5, dtype=torch.bool).tril()
            mask = bias.masked_fill(keep.logical_not(), float("-inf"))
        expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    compare(model(q, k, v, bias), expected, f"{kernel} attention, causal={causal}")


class StridedScatters(nn.Module):
    """as_strided_scatter through contiguous views (AOTAutograd's
    functionalized in-place updates of views) and empty_permuted (whose
    contents no one reads before writing)."""

    def forward(self, x, y):
        aten = torch.ops.aten
        part = aten.as_strided_scatter.default(x, y, [2, 3], [3, 1], 4)
        whole = aten.as_strided_scatter.default(x, y.reshape(-1).repeat(2).reshape(3, 4), [3, 4],
                                                [4, 1], 0)
        filled = aten.empty_permuted.default([2, 3], [1, 0]).fill_(1.5) + y
        return part, whole, filled


def test_strided_scatters():
    x, y = torch.randn(12), torch.randn(2, 3)
    module = StridedScatters()
    model = wrapper_mlir.compile(module, [x, y], fallback=False)
    imported = model.imported
    reference = interpret(imported.text, [[x, y][i].numpy() for i in imported.arguments],
                          weights=imported.weights)
    compare([torch.as_tensor(r) for r in reference], module(x, y), "NumPy interpreter")
    compare(model(x, y), module(x, y), "compiled")
    with pytest.raises(wrapper_mlir.WrapperError, match="not one contiguous block"):
        class Strided(nn.Module):
            def forward(self, x, y):
                return torch.ops.aten.as_strided_scatter.default(x, y, [2, 3], [1, 2], 0)
        wrapper_mlir.compile(Strided(), [x, y], fallback=False)


def test_unfold_with_static_sizes_is_a_strided_view():
    """unfold (timm's halo attention): a strided view of the input when its
    sizes are static (the dynamic-batch form is in the layout family)."""
    class Unfold(nn.Module):
        def forward(self, x):
            return x.unfold(2, 3, 2) * 2, x.unfold(-1, 4, 1).sum(-1)

    x = torch.randn(2, 3, 9, 8)
    model = wrapper_mlir.compile(Unfold(), [x], fallback=False)
    assert model.imported.text.count("tensor_program.as_strided") == 2
    with torch.no_grad():
        compare(model(x), Unfold()(x), "unfold")


class TopK(nn.Module):
    def forward(self, x, y):
        a = torch.topk(x, 2, dim=-1)
        b = torch.topk(x, 3, dim=1, largest=False)
        c = torch.topk(y, 2, dim=-1)
        return a.values, a.indices, b.values, b.indices, c.values, c.indices


def test_small_topk_is_compiled():
    """topk with k <= 8 (a mixture-of-experts router's top 2) is decomposed
    into rounds of max and first position among the entries not taken:
    the same values and indices as PyTorch, with ties to the lower index,
    NaN as the largest and -inf entries never taken twice; a larger k runs
    in PyTorch."""
    y = torch.tensor([[float("-inf"), float("-inf"), 1.0], [2.0, float("nan"), 2.0],
                      [0.5, 0.5, 0.5], [1.0, 2.0, 3.0]])
    model = wrapper_mlir.compile(TopK(), [torch.randn(4, 8), y], fallback=False,
                                 dynamic_batch=True)
    for batch in (4, 5):
        x, rows = torch.randn(batch, 8), torch.cat([y, y[:1]])[:batch]
        for got, expected in zip(model(x, rows), TopK()(x, rows)):
            assert got.dtype == expected.dtype
            torch.testing.assert_close(got, expected, equal_nan=True, rtol=0, atol=0)

    class Large(nn.Module):
        def forward(self, x):
            return torch.topk(x, 9, dim=-1).values * 2

    with pytest.warns(UserWarning, match="aten.topk.default"):
        wrapper_mlir.compile(Large(), [torch.randn(2, 12)])


class Histograms(nn.Module):
    def forward(self, x, ids):
        return (torch.histc(x, bins=10, min=-2, max=2), torch.histc(x * 3),
                torch.histc(ids.float(), bins=8, min=0, max=7),
                torch.histc(torch.ones_like(x), bins=4))


def test_histc_is_compiled():
    """histc (a mixture-of-experts router's tokens per expert) as counts
    added at each element's bin: a given range, the data's range, expert ids
    at the bins' edges, and a single value (the range widened by one)."""
    torch.manual_seed(0)
    model = wrapper_mlir.compile(Histograms(), [torch.randn(6, 50), torch.randint(0, 8, (6, 2))],
                                 fallback=False, dynamic_batch=True)
    for batch in (6, 9):
        x, ids = torch.randn(batch, 50), torch.randint(0, 8, (batch, 2))
        for got, expected in zip(model(x, ids), Histograms()(x, ids)):
            torch.testing.assert_close(got, expected, rtol=0, atol=0)


def test_cudnn_grid_sampler_is_the_generic_sampler():
    """On a GPU, grid_sample (bilinear, zero padding, align_corners) traces to
    aten.cudnn_grid_sampler (no CPU kernel: the GPU machine runs RAFT through
    it); the decomposition table makes it the generic grid_sampler_2d, which
    PyTorch's table decomposes further."""
    from wrapper_mlir.importer import decomposition_table

    decompose = decomposition_table()[torch.ops.aten.cudnn_grid_sampler.default]
    torch.manual_seed(0)
    x, grid = torch.randn(2, 3, 6, 6), torch.rand(2, 4, 5, 2) * 2.4 - 1.2
    expected = F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True)
    torch.testing.assert_close(decompose(x, grid), expected)


class DeadStatistics(nn.Module):
    """Normalizations whose statistics outputs are unpacked and never read,
    before an attention (whose kernel the backend re-traces the graph to
    decompose: Segformer's and wav2vec2's batch and group norms fell back
    with getitem nodes that nothing read)."""

    def __init__(self):
        super().__init__()
        self.norm = nn.BatchNorm2d(16).eval()
        nn.init.uniform_(self.norm.running_var, 0.5, 2.0)
        nn.init.normal_(self.norm.running_mean)
        self.project = nn.Linear(16, 16)

    def forward(self, x):
        aten, norm = torch.ops.aten, self.norm
        out, mean, rstd = aten._native_batch_norm_legit_no_training(
            x, norm.weight, norm.bias, norm.running_mean, norm.running_var, 0.1, 1e-5)
        grouped, group_mean, group_rstd = aten.native_group_norm(
            out, None, None, x.shape[0], 16, x.shape[2] * x.shape[3], 2, 1e-5)
        tokens = self.project(grouped.relu().flatten(2).transpose(1, 2))
        heads = tokens.reshape(x.shape[0], -1, 2, 8).transpose(1, 2)  # [B, 2, T, 8]
        return F.scaled_dot_product_attention(heads, heads * 2, heads + 1)


def test_unread_statistics_do_not_fall_back():
    wrapper_mlir.register_backend()
    wrapper_mlir.reset_stats()
    torch.manual_seed(0)
    module, x = DeadStatistics(), torch.randn(2, 16, 3, 5)
    with torch.no_grad():
        got = torch.compile(module, backend="wrapper")(x)
        expected = module(x)
    assert not wrapper_mlir.stats()["op_fallbacks"], wrapper_mlir.stats()["op_fallbacks"]
    torch.testing.assert_close(got, expected, rtol=2e-4, atol=2e-5)


class Sorts(nn.Module):
    def forward(self, x, ids):
        ascending = torch.sort(x, dim=-1)
        descending = torch.sort(x, dim=1, descending=True, stable=True)
        return (*ascending, *descending, torch.argsort(ids, dim=-1, stable=True),
                torch.sort(ids, descending=True, stable=True)[1])


def test_short_sorts_are_compiled():
    """sort and argsort of rows up to 1024 elements (a mixture-of-experts
    router orders its tokens by expert) compiled as ranks: values and
    indices equal to eager's stable sort, with ties (integer expert ids),
    NaN (the largest), descending, and a dynamic batch; a longer row (or a
    dynamic one) stays sort (refused without fallback)."""
    torch.manual_seed(0)
    x = torch.randn(3, 7, 5)
    x[0, 2, 1] = x[0, 4, 1] = float("nan")
    x[1, 3, 2] = x[1, 5, 2]
    model = wrapper_mlir.compile(Sorts(), [x, torch.randint(0, 4, (3, 6))], fallback=False,
                                 dynamic_batch=True)
    for batch in (3, 5):
        x, ids = torch.randn(batch, 7, 5), torch.randint(0, 4, (batch, 6))
        x[0, 2, 1] = x[0, 4, 1] = float("nan")
        got = model(x, ids)
        expected = (*torch.sort(x, dim=-1, stable=True),
                    *torch.sort(x, dim=1, descending=True, stable=True),
                    torch.argsort(ids, dim=-1, stable=True),
                    torch.sort(ids, descending=True, stable=True)[1])
        for index, (g, e) in enumerate(zip(got, expected)):
            assert torch.equal(torch.as_tensor(g).nan_to_num(9.0), e.nan_to_num(9.0)), f"output #{index}"

    class Long(nn.Module):
        def forward(self, x):
            return torch.sort(x)[0]

    with pytest.raises(wrapper_mlir.WrapperError, match="sort"):
        wrapper_mlir.compile(Long(), [torch.randn(2, 2000)], fallback=False)
