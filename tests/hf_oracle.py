"""Build transformers models from catalog entries (meta device or tiny CPU) for the oracles.

Only the tests import torch and transformers; the package never does.
"""

from __future__ import annotations

import warnings

import torch
import transformers
from transformers import AutoConfig

from ledgerbuild.families import family_of
from ledgerbuild.families_vision import vlm_family

_MODEL_TYPE = {"kimi_k2": "deepseek_v3"}
# the tiny dimensions the CPU referees share (GQA 4:2, head_dim 16); each family adds its own
TINY_DIMS = dict(
    hidden_size=64,
    num_attention_heads=4,
    num_key_value_heads=2,
    head_dim=16,
    intermediate_size=96,
    vocab_size=101,
)
# a tiny Llama the FLOP, numerics and LoRA referees run on CPU
TINY_LLAMA = dict(model_type="llama", architectures=["LlamaForCausalLM"], num_hidden_layers=2, **TINY_DIMS)
_DROP = {"architectures", "model_type"}
# Emu3Model builds an Emu3ImageVocabularyMapping from the tokenizer's vocabulary (token ids
# only, no parameters); a one-entry stand-in lets it construct
_EXTRA = {"emu3": {"vocabulary_map": {"<|extra_200|>": 0}}}


def hf_config(config: dict):
    cfg = {k: v for k, v in config.items() if k not in _DROP} | _EXTRA.get(config["model_type"], {})
    model_type = _MODEL_TYPE.get(config["model_type"], config["model_type"])
    if cfg.get("q_lora_rank") is None:
        cfg.pop("q_lora_rank", None)
        cfg["q_lora_rank"] = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return AutoConfig.for_model(model_type, **cfg)


def causal_lm(config: dict, device: str = "meta", attn: str | None = None):
    """The *ForCausalLM of a text config, the *ForConditionalGeneration of a VLM's."""
    vlm = vlm_family(config)
    cls = getattr(transformers, vlm.hf_class if vlm else family_of(config)[1].hf_class)
    hf = hf_config(config)
    if attn:
        hf._attn_implementation = attn
        hf._experts_implementation = "eager"  # per-expert F.linear, which FlopCounterMode counts
    with torch.device(device):
        return cls(hf)


def count_params(model) -> int:
    return sum(p.numel() for p in model.parameters())


VISION_PREFIXES = ("model.visual.", "model.vision_tower.", "model.vision_model.")
CONNECTOR_PREFIXES = ("model.multi_modal_projector.", "model.visual.merger.", "model.mm_projector.")


def count_vlm_parts(model) -> tuple[int, int]:
    """(vision encoder, connector) parameters of a transformers VLM, by module path."""
    vision = connector = 0
    for name, p in model.named_parameters():
        if name.startswith(CONNECTOR_PREFIXES):
            connector += p.numel()
        elif name.startswith(VISION_PREFIXES):
            vision += p.numel()
    return vision, connector
