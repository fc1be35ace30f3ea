"""The public model zoo (wrapper_mlir.zoo; the tests, bench/models.py and
`python -m wrapper_mlir.explore` use it): torchvision
models and Hugging Face transformers built from small configs with random
weights (nothing is downloaded), in eval mode.

Each entry of ZOO is (name, factory, inputs(batch) -> tuple of tensors).
"""

import torch


def _vision(name):
    def make():
        import torchvision

        return getattr(torchvision.models, name)()

    return make


def _image(size):
    return lambda batch: (torch.randn(batch, 3, size, size),)


def _tokens(batch, length=16, vocab=100):
    return (torch.randint(0, vocab, (batch, length)),)


def _bert():
    import transformers as T

    return T.BertModel(T.BertConfig(vocab_size=100, hidden_size=64, num_hidden_layers=2,
                                    num_attention_heads=4, intermediate_size=128))


def _gpt2():
    import transformers as T

    return T.GPT2LMHeadModel(T.GPT2Config(vocab_size=100, n_embd=64, n_layer=2, n_head=4,
                                          use_cache=False, bos_token_id=0, eos_token_id=0))


def _llama():
    import transformers as T

    return T.LlamaForCausalLM(T.LlamaConfig(vocab_size=100, hidden_size=64, num_hidden_layers=2,
                                            num_attention_heads=4, num_key_value_heads=2,
                                            intermediate_size=128, use_cache=False))


def _t5():
    import transformers as T

    return T.T5EncoderModel(T.T5Config(vocab_size=100, d_model=64, d_kv=16, d_ff=128,
                                       num_layers=2, num_heads=4))


def _vit():
    import transformers as T

    return T.ViTModel(T.ViTConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                  intermediate_size=128, image_size=32, patch_size=8))


ZOO = [
    ("resnet18", _vision("resnet18"), _image(64)),
    ("mobilenet_v3_small", _vision("mobilenet_v3_small"), _image(64)),
    ("efficientnet_b0", _vision("efficientnet_b0"), _image(64)),
    ("convnext_tiny", _vision("convnext_tiny"), _image(64)),
    ("squeezenet1_1", _vision("squeezenet1_1"), _image(64)),
    ("shufflenet_v2_x0_5", _vision("shufflenet_v2_x0_5"), _image(64)),
    ("swin_t", _vision("swin_t"), _image(64)),
    ("bert", _bert, _tokens),
    ("gpt2", _gpt2, _tokens),
    ("llama", _llama, _tokens),
    ("t5_encoder", _t5, _tokens),
    ("vit", _vit, _image(32)),
]


def build(name):
    """The zoo model `name`, seeded, in eval mode, and its inputs factory."""
    factory, inputs = next((f, i) for n, f, i in ZOO if n == name)
    torch.manual_seed(0)
    return factory().eval(), inputs


def tensors(output):
    """The tensors of a model's output (tuples, lists, Hugging Face
    ModelOutputs), in order."""
    if isinstance(output, torch.Tensor):
        return [output]
    if hasattr(output, "to_tuple"):
        output = output.to_tuple()
    if isinstance(output, dict):
        output = list(output.values())
    if isinstance(output, (list, tuple)):
        return [t for item in output for t in tensors(item)]
    return []


# Compiler configurations the differential runs compare with eager PyTorch
# (TorchModel.recompile options): each memory planner with fusion on and
# off, then the other switches one at a time.
ALL_CONFIGS = [
    {"fuse": fuse, "plan_memory": plan}
    for fuse in (True, False) for plan in ("none", "reuse", "pool")
] + [
    {"gemm": False},
    {"tile_elements": 0},
    {"tile_elements": 64},
    {"parallel": False},
]
# What the tests run: every planner, fusion off, and the loop lowering of
# products with small tiles.
SHORT_CONFIGS = [
    {"plan_memory": "none"},
    {"plan_memory": "pool"},
    {"fuse": False},
    {"gemm": False, "tile_elements": 64},
]


def describe(config):
    return " ".join(f"{k}={v}" for k, v in config.items()) or "default"


def max_relative_error(got, expected):
    """The largest error of any output over that output's largest magnitude
    (the tolerance of the zoo tests is 1e-3); inf for a shape or count that
    differs."""
    got, expected = tensors(got), tensors(expected)
    if len(got) != len(expected):
        return float("inf")
    worst = 0.0
    for g, e in zip(got, expected):
        if g.shape != e.shape:
            return float("inf")
        if not e.numel():
            continue
        scale = max(float(e.abs().max()), 1e-6)
        error = float((g.double() - e.double()).abs().max())
        if error != error:  # NaN
            return float("inf")
        worst = max(worst, error / scale)
    return worst


def differential(name, configs, batches=(2, 3), report=print):
    """Compiles zoo model `name` once (dynamic batch, no fallback), then
    recompiles the imported program with each configuration, runs every
    build on the same inputs for each batch and compares it with eager.
    Returns [(config, batch, max relative error or the error message)]."""
    import wrapper_mlir

    model, make_inputs = build(name)
    inputs = {batch: make_inputs(batch) for batch in batches}
    with torch.no_grad():
        expected = {batch: model(*x) for batch, x in inputs.items()}
    # Exported with a batch of 2: an example batch of 1 would specialize it.
    base = wrapper_mlir.compile(model, make_inputs(2), dynamic_batch=True, fallback=False)
    results = []
    for config in [{}] + list(configs):
        try:
            compiled = base.recompile(**config) if config else base
        except wrapper_mlir.WrapperError as error:
            for batch in batches:
                results.append((config, batch, f"compile: {error}"))
            report(f"{name:20s} {describe(config):40s} compile failed: {error}")
            continue
        for batch in batches:
            try:
                with torch.no_grad():
                    error = max_relative_error(compiled(*inputs[batch]), expected[batch])
            except wrapper_mlir.WrapperError as failure:
                error = f"run: {failure}"
            results.append((config, batch, error))
            shown = error if isinstance(error, str) else f"{error:.2e}"
            report(f"{name:20s} {describe(config):40s} batch {batch}: {shown}")
    return results
