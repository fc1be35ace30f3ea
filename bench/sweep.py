"""A wider sweep than the zoo: many torchvision, timm and Hugging Face
models (random weights, small inputs), each compiled with
wrapper_mlir.compile in a process of its own; per model one JSON line with
the compile seconds, the ops that fell back to PyTorch, the largest error
against eager (relative to the output's largest magnitude) and the time
per call against eager (median of 5 calls each, not interleaved: a first
look, not a benchmark; bench/models.py measures properly), then a summary
of the failures, fallbacks and models slower than eager.

    .venv/bin/python bench/sweep.py                 # every model
    .venv/bin/python bench/sweep.py 'timm_*' hf_roberta
    .venv/bin/python bench/sweep.py --torch-compile 'hf_*'
    .venv/bin/python bench/sweep.py --list

With --torch-compile, through torch.compile(backend="wrapper") instead:
the graphs Dynamo hands the backend, and which of them ran eagerly
(wrapper_mlir.stats()'s graph and op fallbacks count as fallbacks).
With --device cuda the models and inputs are moved to the GPU (the CUDA
target: compile() and torch.compile pick it from the inputs) and each call
is timed between synchronizations.

timm models need `pip install timm` in the environment (scripts/setup-python.sh
installs it); families whose package is missing are skipped with a line
saying so.
"""

import argparse
import fnmatch
import json
import os
import subprocess
import sys
import time

TIMEOUT = 900


def _torchvision(name, size):
    def make():
        import torch
        import torchvision

        return getattr(torchvision.models, name)(), (torch.randn(2, 3, size, size),)
    return make


def _torchvision_task(module, name, *shapes, listed=False):
    """A torchvision model of a task (segmentation, video, optical_flow,
    detection) with random weights and no downloaded backbone; inputs of
    `shapes` (a detection model takes a list of images)."""
    def make():
        import importlib

        import torch

        models = importlib.import_module(f"torchvision.models.{module}")
        settings = {"weights": None}
        if module in ("segmentation", "detection"):
            settings["weights_backbone"] = None
        model = getattr(models, name)(**settings)
        inputs = tuple(torch.randn(*shape) for shape in shapes)
        return model, ((list(inputs),) if listed else inputs)
    return make


def _timm(name, size):
    def make():
        import timm
        import torch

        return timm.create_model(name, pretrained=False), (torch.randn(2, 3, size, size),)
    return make


def _hf(model, config, image=0, **settings):
    def make():
        import torch
        import transformers

        instance = getattr(transformers, model)(getattr(transformers, config)(**settings))
        if image:
            return instance, (torch.randn(2, 3, image, image),)
        return instance, (torch.randint(0, 100, (2, 16)),)
    return make


MODELS = {}
for name, size in [("resnet50", 64), ("densenet121", 64), ("googlenet", 64), ("inception_v3", 299),
                   ("mnasnet0_5", 64), ("mobilenet_v2", 64), ("mobilenet_v3_large", 64),
                   ("regnet_y_400mf", 64), ("regnet_x_400mf", 64), ("resnext50_32x4d", 64),
                   ("wide_resnet50_2", 64), ("vgg11", 64), ("alexnet", 96),
                   ("shufflenet_v2_x1_0", 64), ("efficientnet_v2_s", 64), ("convnext_small", 64),
                   ("swin_v2_t", 64), ("vit_b_16", 224), ("maxvit_t", 224)]:
    MODELS["tv_" + name] = _torchvision(name, size)
# Session 50: torchvision's other tasks.
for module, name, shapes, listed in [
        ("segmentation", "fcn_resnet50", [(1, 3, 64, 64)], False),
        ("segmentation", "deeplabv3_mobilenet_v3_large", [(1, 3, 64, 64)], False),
        ("segmentation", "lraspp_mobilenet_v3_large", [(1, 3, 64, 64)], False),
        ("video", "r3d_18", [(1, 3, 8, 64, 64)], False),
        ("video", "mc3_18", [(1, 3, 8, 64, 64)], False),
        ("video", "r2plus1d_18", [(1, 3, 8, 64, 64)], False),
        ("video", "s3d", [(1, 3, 16, 224, 224)], False),
        ("video", "swin3d_t", [(1, 3, 8, 64, 64)], False),
        ("optical_flow", "raft_small", [(1, 3, 128, 128), (1, 3, 128, 128)], False),
        ("detection", "ssdlite320_mobilenet_v3_large", [(3, 320, 320)], True),
        ("detection", "fasterrcnn_mobilenet_v3_large_320_fpn", [(3, 320, 320)], True)]:
    MODELS["tv_" + name] = _torchvision_task(module, name, *shapes, listed=listed)
for name, size in [("resnet18", 64), ("resnet50d", 64), ("efficientnet_b0", 64),
                   ("mobilenetv3_large_100", 64), ("vit_tiny_patch16_224", 224),
                   ("deit_tiny_patch16_224", 224), ("mixer_s16_224", 224), ("convnext_atto", 64),
                   ("regnety_002", 64), ("densenet121", 64), ("dla34", 64), ("ghostnet_100", 64),
                   ("rexnet_100", 64), ("cspresnet50", 64), ("dpn68", 64), ("hrnet_w18_small", 64),
                   ("levit_128s", 224), ("poolformer_s12", 64), ("convmixer_768_32", 64),
                   ("mobilevit_xxs", 256), ("efficientformer_l1", 224), ("tf_efficientnet_b0", 64),
                   ("resnest14d", 64), ("res2net50_14w_8s", 64), ("sebotnet33ts_256", 256),
                   ("coat_lite_tiny", 224), ("pit_ti_224", 224), ("twins_svt_small", 224),
                   ("xcit_nano_12_p16_224", 224), ("edgenext_xx_small", 256), ("fastvit_t8", 256),
                   ("repvgg_a0", 64), ("nfnet_l0", 64), ("eva02_tiny_patch14_224", 224),
                   ("beit_base_patch16_224", 224), ("swin_tiny_patch4_window7_224", 224),
                   ("cait_xxs24_224", 224), ("crossvit_tiny_240", 240), ("volo_d1_224", 224),
                   ("gernet_s", 64), ("hardcorenas_a", 64), ("lcnet_050", 64), ("tinynet_a", 64),
                   ("vovnet39a", 64), ("selecsls42b", 64), ("inception_v4", 299),
                   ("xception41", 64), ("nasnetalarge", 331), ("pnasnet5large", 331)]:
    MODELS["timm_" + name] = _timm(name, size)
_TEXT = dict(vocab_size=100)
for key, model, config, settings in [
        ("distilbert", "DistilBertModel", "DistilBertConfig",
         dict(dim=64, n_layers=2, n_heads=4, hidden_dim=128)),
        ("roberta", "RobertaModel", "RobertaConfig",
         dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)),
        ("albert", "AlbertModel", "AlbertConfig",
         dict(embedding_size=32, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
              intermediate_size=128)),
        ("electra", "ElectraModel", "ElectraConfig",
         dict(embedding_size=32, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
              intermediate_size=128)),
        ("mobilebert", "MobileBertModel", "MobileBertConfig",
         dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
              embedding_size=32, intra_bottleneck_size=32, true_hidden_size=32)),
        ("gpt_neo", "GPTNeoModel", "GPTNeoConfig",
         dict(hidden_size=64, num_layers=2, num_heads=4, attention_types=[[["global", "local"], 1]],
              use_cache=False)),
        ("opt", "OPTModel", "OPTConfig",
         dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, ffn_dim=128,
              word_embed_proj_dim=64, use_cache=False)),
        ("bloom", "BloomModel", "BloomConfig", dict(hidden_size=64, n_layer=2, n_head=4, use_cache=False)),
        ("mistral", "MistralModel", "MistralConfig",
         dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
              intermediate_size=128, use_cache=False)),
        ("qwen2", "Qwen2Model", "Qwen2Config",
         dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
              intermediate_size=128, use_cache=False)),
        ("phi", "PhiModel", "PhiConfig",
         dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
              use_cache=False)),
        ("gemma", "GemmaModel", "GemmaConfig",
         dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=1,
              intermediate_size=128, head_dim=16, use_cache=False)),
        ("falcon", "FalconModel", "FalconConfig",
         dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, use_cache=False)),
        ("gptj", "GPTJModel", "GPTJConfig",
         dict(n_embd=64, n_layer=2, n_head=4, rotary_dim=8, use_cache=False)),
        ("bart", "BartModel", "BartConfig",
         dict(d_model=64, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4,
              decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, use_cache=False)),
        ("deberta_v2", "DebertaV2Model", "DebertaV2Config",
         dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)),
        ("xlnet", "XLNetModel", "XLNetConfig", dict(d_model=64, n_layer=2, n_head=4, d_inner=128)),
        ("funnel", "FunnelModel", "FunnelConfig",
         dict(d_model=64, n_head=4, d_head=16, d_inner=128, block_sizes=[1, 1])),
        ("convbert", "ConvBertModel", "ConvBertConfig",
         dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
              embedding_size=64))]:
    MODELS["hf_" + key] = _hf(model, config, **_TEXT, **settings)
for key, model, config, image, settings in [
        ("swin", "SwinModel", "SwinConfig", 32,
         dict(image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=4)),
        ("convnext", "ConvNextModel", "ConvNextConfig", 32,
         dict(image_size=32, hidden_sizes=[16, 32], depths=[1, 1], num_stages=2)),
        ("deit", "DeiTModel", "DeiTConfig", 32,
         dict(image_size=32, patch_size=8, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
              intermediate_size=128)),
        ("beit", "BeitModel", "BeitConfig", 32,
         dict(image_size=32, patch_size=8, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
              intermediate_size=128)),
        ("clip_vision", "CLIPVisionModel", "CLIPVisionConfig", 32,
         dict(image_size=32, patch_size=8, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
              intermediate_size=128)),
        ("resnet", "ResNetModel", "ResNetConfig", 32,
         dict(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1])),
        ("segformer", "SegformerModel", "SegformerConfig", 32,
         dict(num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32],
              num_attention_heads=[1, 2], mlp_ratios=[2, 2])),
        ("mobilevit", "MobileViTModel", "MobileViTConfig", 64,
         dict(image_size=64, hidden_sizes=[32, 48, 64], neck_hidden_sizes=[8, 8, 16, 16, 24, 24, 32])),
        ("dinov2", "Dinov2Model", "Dinov2Config", 32,
         dict(image_size=32, patch_size=8, hidden_size=64, num_hidden_layers=2, num_attention_heads=4))]:
    MODELS["hf_" + key] = _hf(model, config, image=image, **settings)

# Session 49's additions: families the first set did not cover.
for name, size in [("regnetz_b16", 64), ("coatnet_0_rw_224", 224), ("maxvit_rmlp_pico_rw_256", 256),
                   ("mvitv2_tiny", 224), ("efficientvit_b0", 224), ("ghostnetv2_100", 64),
                   ("hgnetv2_b0", 64), ("inception_next_tiny", 64), ("repvit_m0_9", 64),
                   ("tiny_vit_5m_224", 224), ("gcvit_xxtiny", 224), ("davit_tiny", 224),
                   ("focalnet_tiny_srf", 224), ("convnextv2_atto", 64), ("resmlp_12_224", 224),
                   ("gmlp_ti16_224", 224), ("botnet26t_256", 256), ("halonet26t", 256),
                   ("lambda_resnet26t", 256), ("ese_vovnet19b_dw", 64), ("tresnet_m", 224),
                   ("nest_tiny", 224), ("sequencer2d_s", 224), ("mobileone_s0", 64),
                   ("hiera_tiny_224", 224), ("efficientformerv2_s0", 224), ("mobilevitv2_050", 256),
                   ("rdnet_tiny", 64), ("starnet_s1", 64), ("fastvit_sa12", 256),
                   ("vit_relpos_small_patch16_224", 224), ("deit3_small_patch16_224", 224),
                   ("cs3darknet_s", 64), ("darknet17", 64), ("dm_nfnet_f0", 64), ("resnetv2_50", 64),
                   ("bat_resnext26ts", 256), ("eca_resnet33ts", 64), ("skresnet18", 64),
                   ("mixnet_s", 64), ("fbnetv3_b", 64), ("semnasnet_050", 64),
                   ("mobilenetv4_conv_small", 64), ("mambaout_femto", 64),
                   ("vit_base_patch16_siglip_224", 224), ("pvt_v2_b0", 224), ("visformer_tiny", 224),
                   ("convit_tiny", 224), ("swinv2_cr_tiny_224", 224), ("nextvit_small", 224),
                   ("levit_conv_128s", 224), ("eva02_small_patch14_224", 224), ("flexivit_small", 240)]:
    MODELS["timm_" + name] = _timm(name, size)

# Session 50's additions: more timm families.
for name, size in [("caformer_s18", 224), ("convformer_s18", 224), ("coatnext_nano_rw_224", 224),
                   ("csatv2", 224), ("efficientvim_m1", 224), ("fasternet_t0", 64),
                   ("gmixer_12_224", 224), ("hgnet_tiny", 64), ("hieradet_small", 224),
                   ("iformer_t", 224), ("lcnetv2_small", 64), ("lowformer_b0", 224),
                   ("maxxvit_rmlp_nano_rw_256", 256), ("maxxvitv2_nano_rw_256", 256),
                   ("poolformerv2_s12", 64), ("regnetx_002", 64), ("repghostnet_050", 64),
                   ("rexnetr_100", 64), ("shvit_s1", 224), ("swiftformer_xs", 224),
                   ("tnt_s_patch16_224", 224), ("vitamin_small_224", 224), ("densenetblur121d", 64),
                   ("resnetrs50", 64), ("gcresnet33ts", 64), ("sedarknet21", 64), ("darknetaa53", 64),
                   ("cspnext_s", 64), ("nf_regnet_b0", 64), ("mnasnet_050", 64), ("fbnetc_100", 64),
                   ("spnasnet_100", 64), ("lambda_resnet26rpt_256", 256), ("sehalonet33ts", 256),
                   ("resnetblur18", 64), ("seresnext26d_32x4d", 64), ("ecaresnetlight", 64),
                   ("resnext26ts", 64), ("mobilenet_edgetpu_100", 64), ("efficientnetv2_rw_t", 64),
                   ("sam2_hiera_tiny", 224), ("inception_v3", 128)]:
    MODELS["timm_" + name] = _timm(name, size)

_SMALL = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
_ENC_DEC = dict(d_model=64, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4,
                decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, use_cache=False)
for key, model, config, settings in [
        ("gpt_bigcode", "GPTBigCodeModel", "GPTBigCodeConfig",
         dict(n_embd=64, n_layer=2, n_head=4, use_cache=False)),
        ("codegen", "CodeGenModel", "CodeGenConfig",
         dict(n_embd=64, n_layer=2, n_head=4, rotary_dim=8, use_cache=False)),
        ("mpt", "MptModel", "MptConfig", dict(d_model=64, n_layers=2, n_heads=4, use_cache=False)),
        ("stablelm", "StableLmModel", "StableLmConfig", dict(_SMALL, num_key_value_heads=2, use_cache=False)),
        ("persimmon", "PersimmonModel", "PersimmonConfig", dict(_SMALL, use_cache=False)),
        ("mamba", "MambaModel", "MambaConfig",
         dict(hidden_size=64, num_hidden_layers=2, state_size=8, use_cache=False)),
        ("rwkv", "RwkvModel", "RwkvConfig",
         dict(hidden_size=64, num_hidden_layers=2, attention_hidden_size=64, intermediate_size=128,
              context_length=32, use_cache=False)),
        ("big_bird", "BigBirdModel", "BigBirdConfig", dict(_SMALL, attention_type="original_full")),
        ("layoutlm", "LayoutLMModel", "LayoutLMConfig", _SMALL),
        ("canine", "CanineModel", "CanineConfig", dict(_SMALL, num_hash_buckets=64, downsampling_rate=4)),
        ("squeezebert", "SqueezeBertModel", "SqueezeBertConfig",
         dict(_SMALL, embedding_size=64, q_groups=2, k_groups=2, v_groups=2, post_attention_groups=2,
              intermediate_groups=2, output_groups=2)),
        ("xglm", "XGLMModel", "XGLMConfig",
         dict(d_model=64, num_layers=2, attention_heads=4, ffn_dim=128, use_cache=False)),
        ("mbart", "MBartModel", "MBartConfig", _ENC_DEC),
        ("mpnet", "MPNetModel", "MPNetConfig", _SMALL),
        ("xlm_roberta", "XLMRobertaModel", "XLMRobertaConfig", _SMALL),
        ("ernie", "ErnieModel", "ErnieConfig", _SMALL),
        ("nystromformer", "NystromformerModel", "NystromformerConfig",
         dict(_SMALL, num_landmarks=4, segment_means_seq_len=16)),
        ("roformer", "RoFormerModel", "RoFormerConfig", dict(_SMALL, embedding_size=64)),
        ("fnet", "FNetModel", "FNetConfig",
         dict(hidden_size=64, num_hidden_layers=2, intermediate_size=128,
              use_tpu_fourier_optimizations=False)),
        ("gemma2", "Gemma2Model", "Gemma2Config",
         dict(_SMALL, num_key_value_heads=2, head_dim=16, use_cache=False)),
        ("phi3", "Phi3Model", "Phi3Config", dict(_SMALL, num_key_value_heads=2, use_cache=False, pad_token_id=0)),
        ("qwen3", "Qwen3Model", "Qwen3Config", dict(_SMALL, num_key_value_heads=2, head_dim=16, use_cache=False)),
        ("olmo", "OlmoModel", "OlmoConfig", dict(_SMALL, use_cache=False, pad_token_id=0)),
        ("granite", "GraniteModel", "GraniteConfig", dict(_SMALL, use_cache=False)),
        ("cohere", "CohereModel", "CohereConfig", dict(_SMALL, use_cache=False, pad_token_id=0)),
        ("starcoder2", "Starcoder2Model", "Starcoder2Config",
         dict(_SMALL, num_key_value_heads=2, use_cache=False)),
        ("electra_pretraining", "ElectraForPreTraining", "ElectraConfig", dict(_SMALL, embedding_size=32)),
        ("bert_mlm", "BertForMaskedLM", "BertConfig", _SMALL),
        ("gpt2_lm", "GPT2LMHeadModel", "GPT2Config", dict(n_embd=64, n_layer=2, n_head=4, use_cache=False)),
        ("deberta", "DebertaModel", "DebertaConfig", _SMALL),
        ("splinter", "SplinterModel", "SplinterConfig", _SMALL),
        ("luke", "LukeModel", "LukeConfig", dict(_SMALL, entity_vocab_size=10, entity_emb_size=32)),
        ("qwen2_moe", "Qwen2MoeModel", "Qwen2MoeConfig",
         dict(_SMALL, num_key_value_heads=2, moe_intermediate_size=32, shared_expert_intermediate_size=64,
              num_experts=4, num_experts_per_tok=2, use_cache=False)),
        ("mixtral", "MixtralModel", "MixtralConfig",
         dict(_SMALL, num_key_value_heads=2, num_local_experts=4, num_experts_per_tok=2, use_cache=False))]:
    MODELS["hf_" + key] = _hf(model, config, **_TEXT, **settings)
for key, model, config, image, settings in [
        ("convnextv2", "ConvNextV2Model", "ConvNextV2Config", 32,
         dict(image_size=32, hidden_sizes=[16, 32], depths=[1, 1], num_stages=2)),
        ("regnet", "RegNetModel", "RegNetConfig", 32,
         dict(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], groups_width=8)),
        ("poolformer", "PoolFormerModel", "PoolFormerConfig", 32,
         dict(hidden_sizes=[16, 32, 48, 64], depths=[1, 1, 1, 1])),
        ("levit", "LevitModel", "LevitConfig", 64,
         dict(image_size=64, hidden_sizes=[32, 48, 64], num_attention_heads=[2, 3, 4], depths=[1, 1, 1],
              key_dim=[8, 8, 8])),
        ("swinv2", "Swinv2Model", "Swinv2Config", 32,
         dict(image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=4)),
        ("bit", "BitModel", "BitConfig", 32,
         dict(embedding_size=16, hidden_sizes=[16, 32, 48, 64], depths=[1, 1, 1, 1], num_groups=8)),
        ("mobilenet_v2", "MobileNetV2Model", "MobileNetV2Config", 32,
         dict(image_size=32, depth_multiplier=0.35)),
        ("mobilevitv2", "MobileViTV2Model", "MobileViTV2Config", 64, dict(image_size=64, width_multiplier=0.5)),
        ("data2vec_vision", "Data2VecVisionModel", "Data2VecVisionConfig", 32,
         dict(_SMALL, image_size=32, patch_size=8)),
        ("siglip_vision", "SiglipVisionModel", "SiglipVisionConfig", 32,
         dict(_SMALL, image_size=32, patch_size=8)),
        ("vit_mae", "ViTMAEModel", "ViTMAEConfig", 32, dict(_SMALL, image_size=32, patch_size=8, mask_ratio=0.0)),
        ("yolos", "YolosModel", "YolosConfig", 32,
         dict(_SMALL, image_size=[32, 32], patch_size=8, num_detection_tokens=4)),
        ("dpt", "DPTModel", "DPTConfig", 32,
         dict(_SMALL, image_size=32, patch_size=8, num_hidden_layers=4, backbone_out_indices=[0, 1, 2, 3])),
        ("glpn", "GLPNModel", "GLPNConfig", 32,
         dict(num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32],
              num_attention_heads=[1, 2], mlp_ratios=[2, 2])),
        ("vit", "ViTModel", "ViTConfig", 32, dict(_SMALL, image_size=32, patch_size=8)),
        ("focalnet", "FocalNetModel", "FocalNetConfig", 32,
         dict(image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], focal_levels=[2, 2],
              focal_windows=[3, 3])),
        ("pvt", "PvtModel", "PvtConfig", 32,
         dict(image_size=32, hidden_sizes=[16, 32, 48, 64], num_attention_heads=[1, 2, 4, 8],
              depths=[1, 1, 1, 1])),
        ("pvt_v2", "PvtV2Model", "PvtV2Config", 32,
         dict(image_size=32, hidden_sizes=[16, 32, 48, 64], num_attention_heads=[1, 2, 4, 8],
              depths=[1, 1, 1, 1]))]:
    MODELS["hf_" + key] = _hf(model, config, image=image, **settings)


def _hf_with(model, config, inputs, **settings):
    """A Hugging Face model whose inputs are not one token or image batch:
    `inputs(torch)` makes them (None for an optional one skipped)."""
    def make():
        import torch
        import transformers

        instance = getattr(transformers, model)(getattr(transformers, config)(**settings))
        return instance, inputs(torch)
    return make


# Session 56's additions: speech (wav2vec2, HuBERT, Whisper), encoder-decoder
# text (T5, Marian, Pegasus), decoders returning their key/value cache,
# task heads, and torchvision/timm models of families already covered at
# other depths. Whisper, wav2vec2, HuBERT and Segformer ran their norms in
# PyTorch through torch.compile until the unread statistics fix.
_TOKENS = (lambda t: (t.randint(0, 100, (2, 16)),))
_SEQ2SEQ = (lambda t: (t.randint(1, 100, (2, 16)), None, t.randint(1, 100, (2, 8))))
_AUDIO = (lambda t: (t.randn(2, 4000),))
_SPEECH = dict(_SMALL, conv_dim=(32, 32, 32), conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3),
               num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4)
_PAIR = dict(d_model=64, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4,
             decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, use_cache=False,
             vocab_size=100, pad_token_id=0)
for key, model, config, inputs, settings in [
        ("modernbert", "ModernBertModel", "ModernBertConfig", _TOKENS,
         dict(_SMALL, **_TEXT, pad_token_id=0)),
        ("gemma3", "Gemma3ForCausalLM", "Gemma3TextConfig", _TOKENS,
         dict(_SMALL, **_TEXT, num_key_value_heads=2, head_dim=16, use_cache=False)),
        ("llama_cache", "LlamaForCausalLM", "LlamaConfig", _TOKENS,
         dict(_SMALL, **_TEXT, num_key_value_heads=2)),
        ("mistral_cache", "MistralForCausalLM", "MistralConfig", _TOKENS,
         dict(_SMALL, **_TEXT, num_key_value_heads=2)),
        ("gpt_neox", "GPTNeoXModel", "GPTNeoXConfig", _TOKENS, dict(_SMALL, **_TEXT, use_cache=False)),
        ("bert_cls", "BertForSequenceClassification", "BertConfig", _TOKENS, dict(_SMALL, **_TEXT)),
        ("t5", "T5Model", "T5Config", _SEQ2SEQ,
         dict(**_TEXT, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4, use_cache=False)),
        ("marian", "MarianModel", "MarianConfig", _SEQ2SEQ, dict(_PAIR, decoder_start_token_id=0)),
        ("pegasus", "PegasusModel", "PegasusConfig", _SEQ2SEQ, _PAIR),
        ("whisper", "WhisperModel", "WhisperConfig",
         lambda t: (t.randn(2, 16, 64), None, t.randint(0, 100, (2, 8))),
         dict(_PAIR, num_mel_bins=16, max_source_positions=32, max_target_positions=32,
              bos_token_id=0, eos_token_id=0, decoder_start_token_id=0)),
        ("wav2vec2", "Wav2Vec2Model", "Wav2Vec2Config", _AUDIO, _SPEECH),
        ("hubert", "HubertModel", "HubertConfig", _AUDIO, _SPEECH),
        ("clip", "CLIPModel", "CLIPConfig",
         lambda t: (t.randint(0, 100, (2, 16)), t.randn(2, 3, 32, 32)),
         dict(text_config=dict(_SMALL, **_TEXT), vision_config=dict(_SMALL, image_size=32, patch_size=8),
              projection_dim=32)),
        ("segformer_seg", "SegformerForSemanticSegmentation", "SegformerConfig",
         lambda t: (t.randn(2, 3, 64, 64),),
         dict(num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32],
              num_attention_heads=[1, 2], mlp_ratios=[2, 2], decoder_hidden_size=32))]:
    MODELS["hf_" + key] = _hf_with(model, config, inputs, **settings)
for name, size in [("efficientnet_b3", 64), ("regnet_y_1_6gf", 64), ("vit_b_32", 224),
                   ("swin_s", 64), ("resnet101", 64), ("squeezenet1_0", 64), ("densenet169", 64)]:
    MODELS["tv_" + name] = _torchvision(name, size)
for name, size in [("test_vit", 160), ("test_efficientnet", 160), ("test_convnext", 160),
                   ("test_byobnet", 160), ("mobilenetv4_hybrid_medium", 224), ("fastvit_mci0", 256),
                   ("vit_little_patch16_reg1_gap_256", 256), ("ghostnetv3_100", 64)]:
    MODELS["timm_" + name] = _timm(name, size)

def _tensors(value):
    """The tensors of a model output (tuples, lists, dicts, ModelOutputs)."""
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if hasattr(value, "to_tuple"):
        value = value.to_tuple()
    if isinstance(value, dict):
        value = list(value.values())
    found = []
    for item in value if isinstance(value, (tuple, list)) else ():
        found += _tensors(item)
    return found


def _median_ms(fn, args, calls=5, synchronize=lambda: None):
    times = []
    for _ in range(calls):
        synchronize()
        start = time.perf_counter()
        fn(*args)
        synchronize()
        times.append(time.perf_counter() - start)
    return sorted(times)[calls // 2] * 1e3


def _to(value, device):
    """Tensors (also inside the lists detection models take) on `device`."""
    if hasattr(value, "to") and hasattr(value, "is_floating_point"):
        return value.to(device)
    if isinstance(value, (list, tuple)):
        return type(value)(_to(v, device) for v in value)
    return value


def measure(name, dynamo=False, device="cpu"):
    """One model in this process: a dict for its JSON line."""
    import warnings

    import torch

    import wrapper_mlir

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    record = {"model": name, "via": "torch.compile" if dynamo else "compile"}
    if device != "cpu":
        record["device"] = device
    try:
        model, inputs = MODELS[name]()
    except ImportError as error:
        return {**record, "skipped": str(error)}
    model = model.eval().to(device)
    inputs = _to(inputs, device)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    with torch.no_grad():
        expected = _tensors(model(*inputs))
    start = time.time()
    try:
        if dynamo:
            wrapper_mlir.register_backend()
            wrapper_mlir.reset_stats()
            compiled = torch.compile(model, backend="wrapper")
            with torch.no_grad():
                compiled(*inputs)
        else:
            compiled = wrapper_mlir.compile(model, list(inputs))
    except Exception as error:  # the sweep reports every failure and goes on
        return {**record, "error": f"{type(error).__name__}: {str(error).strip()[:400]}"}
    record["compile_s"] = round(time.time() - start, 1)
    if dynamo:
        stats = wrapper_mlir.stats()
        record["graphs"] = sum(stats["compiled"].values())
        record["fallbacks"] = sorted(set(stats["graph_fallbacks"]) | set(stats["op_fallbacks"]))
    else:
        record["fallbacks"] = sorted({reason.split(" at ")[0]
                                      for _, reason in compiled.fallbacks})
    with torch.no_grad():
        got = _tensors(compiled(*inputs))
        error = 0.0
        for g, e in zip(got, expected):
            if e.numel() == 0 or g.shape != e.shape:  # detection models finding no boxes
                error = max(error, 0.0 if g.shape == e.shape else float("inf"))
            elif e.is_floating_point():
                scale = float(e.double().abs().max()) or 1.0
                error = max(error, float((g.double() - e.double()).abs().max()) / scale)
            else:
                error = max(error, float((g != e).sum()))
        record["max_rel_error"] = error
        _median_ms(compiled, inputs, 1, sync)
        _median_ms(model, inputs, 1, sync)
        record["ours_ms"] = round(_median_ms(compiled, inputs, synchronize=sync), 3)
        record["eager_ms"] = round(_median_ms(model, inputs, synchronize=sync), 3)
    record["x_eager"] = round(record["eager_ms"] / record["ours_ms"], 2)
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("patterns", nargs="*", help="model names or shell patterns (default: all)")
    parser.add_argument("--list", action="store_true", help="print the model names and stop")
    parser.add_argument("--torch-compile", action="store_true",
                        help="through torch.compile(backend='wrapper') instead of compile()")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                        help="where the models and inputs are (cuda: the CUDA target)")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.torch_compile, args.device)), flush=True)
        return
    names = [n for n in MODELS
             if not args.patterns or any(fnmatch.fnmatch(n, p) for p in args.patterns)]
    if args.list:
        print("\n".join(names))
        return
    if not names:
        parser.error("no model matches " + " ".join(args.patterns))
    records = []
    for name in names:
        try:
            result = subprocess.run([sys.executable, __file__, "--one", name,
                                     "--device", args.device]
                                    + (["--torch-compile"] if args.torch_compile else []),
                                    capture_output=True, text=True, timeout=TIMEOUT,
                                    env=dict(os.environ))
            line = next((l for l in result.stdout.splitlines() if l.startswith("{")), None)
            record = json.loads(line) if line else {
                "model": name, "error": f"exit {result.returncode}: "
                + " ".join((result.stderr or "").strip().splitlines()[-2:])[:400]}
        except subprocess.TimeoutExpired:
            record = {"model": name, "error": f"timed out after {TIMEOUT} s"}
        records.append(record)
        print(json.dumps(record), flush=True)
    failed = [r for r in records if "error" in r]
    fell_back = [r for r in records if r.get("fallbacks")]
    wrong = [r for r in records if r.get("max_rel_error", 0) > 1e-3]
    slow = [r for r in records if r.get("x_eager", 2) < 1.0]
    print(f"\n{len(records)} models: {len(failed)} failed, {len(fell_back)} with fallbacks, "
          f"{len(wrong)} above 1e-3 error, {len(slow)} slower than eager, "
          f"{sum('skipped' in r for r in records)} skipped")
    for title, rows, key in (("failed", failed, "error"), ("fallbacks", fell_back, "fallbacks"),
                             ("error", wrong, "max_rel_error"), ("slower", slow, "x_eager")):
        for r in rows:
            print(f"  {title}: {r['model']}: {r[key]}")


if __name__ == "__main__":
    main()
