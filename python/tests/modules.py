"""The torch modules of the Python tests and of bench/compare_inductor.py.

Each entry of MODULES is (name, factory, inputs(batch) -> tuple, dynamic):
the factory builds the module (seeded), `inputs` makes example inputs for a
batch size, and `dynamic` says whether the module runs with any batch (the
tests then compile it with dynamic_batch=True and run it at other sizes).
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Mlp(nn.Module):
    def __init__(self, d=64, hidden=256, out=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, hidden), nn.ReLU(), nn.Linear(hidden, out))

    def forward(self, x):
        return self.net(x)


class GeluMlp(nn.Module):
    """GELU (tanh), SiLU, dropout (eval), a residual."""

    def __init__(self, d=48):
        super().__init__()
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        h = F.gelu(self.fc1(x), approximate="tanh")
        h = self.drop(F.silu(h))
        return x + self.fc2(h)


class SwiGlu(nn.Module):
    """A llama-style block: rms_norm, gated SiLU MLP, no biases."""

    def __init__(self, d=64, hidden=172):
        super().__init__()
        self.norm = nn.RMSNorm(d, eps=1e-6)
        self.w1 = nn.Linear(d, hidden, bias=False)
        self.w3 = nn.Linear(d, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d, bias=False)

    def forward(self, x):
        h = self.norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Attention(nn.Module):
    """Multi-head self-attention written out: qkv projection, split, heads
    by view/transpose, scaled scores, softmax, weighted sum, out projection."""

    def __init__(self, d=64, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.qkv(x).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(c // self.heads))
        y = torch.softmax(scores, dim=-1) @ v
        y = y.transpose(1, 2).contiguous().view(b, t, c)
        return self.proj(y)


class CausalSdpa(nn.Module):
    """Causal attention through F.scaled_dot_product_attention."""

    def __init__(self, d=32, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)

    def forward(self, x):
        b, t, c = x.shape
        qkv = self.qkv(x).reshape(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return y.transpose(1, 2).reshape(b, t, c)


class GroupedQueryAttention(nn.Module):
    """Causal self-attention with 4 query heads sharing 2 key/value heads
    (scaled_dot_product_attention's enable_gqa), as Llama-style models,
    and a classifier head."""

    def __init__(self, d=32, classes=10):
        super().__init__()
        self.query, self.key_value = nn.Linear(d, d), nn.Linear(d, d, bias=False)
        self.out = nn.Linear(d, classes)

    def forward(self, x):
        b, t, c = x.shape
        q = self.query(x).view(b, t, 4, c // 4).transpose(1, 2)
        k, v = self.key_value(x).view(b, t, 2, c // 2).transpose(1, 2).split(c // 4, -1)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        return self.out(y.transpose(1, 2).reshape(b, t, c).mean(1))


class EncoderLayer(nn.Module):
    """A pre-norm transformer encoder layer."""

    def __init__(self, d=64, heads=4):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = Attention(d, heads)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d), nn.Dropout(0.1))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class Norms(nn.Module):
    """layer_norm with and without affine parameters, functional rms_norm."""

    def __init__(self, d=40):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.ln_plain = nn.LayerNorm(d, elementwise_affine=False)
        self.scale = nn.Parameter(torch.rand(d) + 0.5)

    def forward(self, x):
        return self.ln(x), self.ln_plain(x * 2.0), F.rms_norm(x, (x.shape[-1],), self.scale, 1e-5)


class ManualRmsNorm(nn.Module):
    """rms_norm spelled out (pow, mean, rsqrt), as llama code writes it."""

    def __init__(self, d=96):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(d) + 0.5)

    def forward(self, x):
        variance = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(variance + 1e-6))


class Softmaxes(nn.Module):
    def forward(self, x):
        return F.softmax(x, dim=-1), F.log_softmax(x, dim=1), x.softmax(0)


class SmallCnn(nn.Module):
    """conv2d (an extern) + relu, a strided conv, flatten, a classifier."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        return F.log_softmax(self.fc(torch.flatten(x, 1)), dim=1)


class EmbeddingBag(nn.Module):
    """embedding (an extern) of int64 tokens, mean pooling, a classifier."""

    def __init__(self, vocab=50, d=24):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.fc = nn.Linear(d, 5)

    def forward(self, tokens):
        return self.fc(self.emb(tokens).mean(dim=1))


class Reductions(nn.Module):
    def forward(self, x):
        return (x.sum(dim=1), x.mean(dim=(0, 2), keepdim=True), torch.amax(x, dim=-1),
                x.sum(), torch.amin(x, 1, keepdim=True))


class Views(nn.Module):
    """view/reshape/permute/transpose/expand/contiguous/slice/cat/unsqueeze/getitem."""

    def forward(self, x, y):
        a = x.view(x.shape[0], 4, 6).permute(0, 2, 1).contiguous()
        b = a.reshape(-1, 4)[:, 1:3]
        c = torch.cat([x[:, :8], y.transpose(0, 1)[:, 2:10]], dim=1)
        d = y.unsqueeze(0).expand(3, -1, -1)
        e = x[:, None, 2::3]
        return b * 2.0, c, d, e.squeeze(1), torch.chunk(x, 3, dim=1)[1]


class Contractions(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(12))

    def forward(self, a, b, c):
        mm = torch.addmm(self.bias, a, b, beta=0.5, alpha=2.0)
        batched = torch.bmm(c, c.transpose(1, 2))
        broadcast = torch.matmul(c, b[:6, :])
        return mm, torch.baddbmm(batched, c, c.transpose(1, 2)), broadcast


class Elementwise(nn.Module):
    """Arithmetic with scalars, comparisons, where, masked_fill, activations."""

    def forward(self, x, y):
        z = (x * 3 - y / 2 + 1.5) ** 2
        z = torch.where(x > y, z, -z)
        z = z.masked_fill(y < -1.0, 0.25)
        z = torch.maximum(torch.tanh(z), torch.sigmoid(y)) - torch.minimum(x, y.abs())
        w = 1.0 - torch.exp(-x.abs()) + torch.sqrt(y.abs() + 1)
        return z, w, (x >= 0).to(torch.float32) + x.relu()


class Casts(nn.Module):
    """int64 inputs, casts, integer arithmetic promoted to float."""

    def forward(self, x, i):
        return x * i.float() + (i * 2).to(torch.float32), (i + 3) * 2, x.double().sum(1)


class TwoLayerDynamic(nn.Module):
    """A dynamic-batch MLP with a view through x.size(0)."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6 * 8, 64)
        self.fc2 = nn.Linear(64, 16)

    def forward(self, x):
        h = torch.tanh(self.fc1(x.view(x.size(0), -1)))
        return F.softmax(self.fc2(h), dim=-1)


def _randn(*shape):
    return torch.randn(*shape)


MODULES = [
    ("mlp", Mlp, lambda b: (_randn(b, 64),), True),
    ("gelu_mlp", GeluMlp, lambda b: (_randn(b, 5, 48),), True),
    ("swiglu", SwiGlu, lambda b: (_randn(b, 7, 64),), True),
    ("attention", Attention, lambda b: (_randn(b, 10, 64),), True),
    ("causal_sdpa", CausalSdpa, lambda b: (_randn(b, 12, 32),), True),
    ("grouped_query_attention", GroupedQueryAttention, lambda b: (_randn(b, 6, 32),), True),
    ("encoder_layer", EncoderLayer, lambda b: (_randn(b, 16, 64),), True),
    ("norms", Norms, lambda b: (_randn(b, 3, 40),), True),
    ("manual_rms_norm", ManualRmsNorm, lambda b: (_randn(b, 96),), True),
    ("softmaxes", Softmaxes, lambda b: (_randn(b, 33) * 4,), False),
    ("small_cnn", SmallCnn, lambda b: (_randn(b, 3, 8, 8),), True),
    ("embedding_bag", EmbeddingBag, lambda b: (torch.randint(0, 50, (b, 9)),), True),
    ("reductions", Reductions, lambda b: (_randn(b, 5, 6),), False),
    ("views", Views, lambda b: (_randn(b, 24), _randn(12, b)), False),
    ("contractions", Contractions, lambda b: (_randn(b, 7), _randn(7, 12), _randn(3, 6, 6)), False),
    ("elementwise", Elementwise, lambda b: (_randn(b, 9), _randn(b, 9)), True),
    ("casts", Casts, lambda b: (_randn(b, 4), torch.randint(-5, 5, (b, 4))), True),
    ("two_layer_dynamic", TwoLayerDynamic, lambda b: (_randn(b, 6, 8),), True),
]


def build(name):
    """The module `name`, seeded and in eval mode."""
    for entry_name, factory, _, _ in MODULES:
        if entry_name == name:
            torch.manual_seed(0)
            return factory().eval()
    raise KeyError(name)
