"""Models beyond the zoo (bench/sweep.py runs many more), chosen for what
they exercise: a grouped convolution (timm resnest14d), rotary position
embeddings and SwiGLU (timm eva02), token-mixing MLPs (timm mixer),
attention biases gathered from a table (timm levit), torchvision's
nn.MultiheadAttention ViT (its projections are aten.matmul of a transposed
input: an expand + bmm of the weight), DeBERTa-v2's relative attention
and Funnel's pooling attention (Hugging Face). Each compiled with no
fallback, against eager within 1e-3 of the output's largest magnitude."""

import os
import warnings

import pytest

if os.environ.get("WRAPPER_REQUIRE_TORCH"):
    import torch  # scripts/test.sh: a missing torch is a failure, not a skip
else:
    torch = pytest.importorskip("torch")

import wrapper_mlir  # noqa: E402

from zoo import tensors  # noqa: E402


def timm_model(name, size):
    def make():
        timm = pytest.importorskip("timm")
        return timm.create_model(name, pretrained=False), (torch.randn(2, 3, size, size),)
    return make


def torchvision_vit():
    torchvision = pytest.importorskip("torchvision")
    model = torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2,
                                                 num_heads=4, hidden_dim=64, mlp_dim=128)
    torch.nn.init.normal_(model.heads.head.weight)  # zero at construction
    return model, (torch.randn(2, 3, 32, 32),)


def hugging_face(model, config, **settings):
    def make():
        transformers = pytest.importorskip("transformers")
        instance = getattr(transformers, model)(getattr(transformers, config)(
            vocab_size=100, **settings))
        return instance, (torch.randint(0, 100, (2, 16)),)
    return make


MODELS = {
    "resnest14d": timm_model("resnest14d", 64),
    "eva02_tiny": timm_model("eva02_tiny_patch14_224", 224),
    "mixer_s16": timm_model("mixer_s16_224", 224),
    "levit_128s": timm_model("levit_128s", 224),
    "torchvision_vit": torchvision_vit,
    "deberta_v2": hugging_face("DebertaV2Model", "DebertaV2Config", hidden_size=64,
                               num_hidden_layers=2, num_attention_heads=4, intermediate_size=128),
    "funnel": hugging_face("FunnelModel", "FunnelConfig", d_model=64, n_head=4, d_head=16,
                           d_inner=128, block_sizes=[1, 1]),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_wider_model(name):
    torch.manual_seed(0)
    model, inputs = MODELS[name]()
    model = model.eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the libraries' own deprecation warnings
        compiled = wrapper_mlir.compile(model, list(inputs), fallback=False)
    assert not compiled.fallbacks
    with torch.no_grad():
        got, expected = tensors(compiled(*inputs)), tensors(model(*inputs))
    assert len(got) == len(expected)
    for index, (g, e) in enumerate(zip(got, expected)):
        assert g.shape == e.shape, f"{name} output #{index}: {g.shape}, expected {e.shape}"
        scale = float(e.double().abs().max()) or 1.0
        error = float((g.double() - e.double()).abs().max())
        assert error <= 1e-3 * scale, f"{name} output #{index}: error {error:.3g}, scale {scale:.3g}"
