"""The public model zoo of the tests and of bench/models.py: torchvision
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
