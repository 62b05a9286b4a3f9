"""Architecture variants: which form of a quantity applies to a model, a test on its fields.

Scope: each tag is a rule on the model's fields (HF config.json names, normalised by
families.py); a quantity form declared `when=TAG` applies to the models whose fields pass the
tag's test. Kept free of sympy so that the numeric path (numeric.py) picks forms without it.
"""

from __future__ import annotations

from collections.abc import Callable


def _connector(f: dict) -> int:
    return f.get("vision_connector_code", 0)


VARIANTS: dict[str, Callable[[dict], bool]] = {
    # attention and MLP (lecture §3, §5; DeepSeek-V2 MLA)
    "mla": lambda f: f.get("kv_lora_rank", 0) > 0,
    "gqa": lambda f: f.get("kv_lora_rank", 0) == 0,
    "moe": lambda f: f.get("n_routed_experts", 0) > 0,
    "dense": lambda f: f.get("n_routed_experts", 0) == 0,
    # hybrid linear attention (Qwen3-Next) and W_q with an output gate
    "hybrid": lambda f: f.get("num_linear_attention_layers", 0) > 0,
    "attn_gate": lambda f: f.get("attn_output_gate", 0) == 1 and f.get("kv_lora_rank", 0) == 0,
    # multi-token-prediction modules (DeepSeek-V3 §2.2) and q/k RMSNorm (Qwen3, Gemma 3)
    "mtp": lambda f: f.get("num_nextn_predict_layers", 0) > 0,
    "qk_norm": lambda f: f.get("qk_norm", 0) == 1,
    # q/k norms over all heads' width (MiniMax-M2) rather than one head's
    "qk_norm_all_heads": lambda f: f.get("qk_norm_all_heads", 0) == 1 and f.get("kv_lora_rank", 0) == 0,
    # DeepSeek Sparse Attention: a lightning indexer picks index_topk tokens (formulas/sparse_attention.py)
    "dsa": lambda f: f.get("index_topk", 0) > 0,
    # multimodal: the connector (formulas/vision.py, formulas/audio.py)
    "text": lambda f: _connector(f) == 0,
    "multimodal": lambda f: _connector(f) > 0,
    "vision": lambda f: 0 < _connector(f) < 5,
    "vision_mlp": lambda f: _connector(f) == 1,
    "vision_merge": lambda f: _connector(f) == 2,
    "vision_pool": lambda f: _connector(f) == 3,
    "vision_cross": lambda f: _connector(f) == 4,
    "audio": lambda f: _connector(f) == 5,
    "vision_vq": lambda f: _connector(f) == 6,  # discrete image tokens (Emu3's VQ-VAE)
    "images": lambda f: 0 < _connector(f) < 5 or _connector(f) == 6,  # images join the prompt
    "vision_dynamic": lambda f: (
        (0 < _connector(f) < 5 or _connector(f) == 6)
        and f.get("vision_image_size", 0) == 0
        and f.get("vision_max_patches", 0) == 0
    ),
    # a hybrid language model under an encoder (Qwen3.5); a learned position table resampled to
    # the grid (Qwen3.5, MoonViT); NaViT resizing (Kimi-K2.5)
    "hybrid_multimodal": lambda f: f.get("num_linear_attention_layers", 0) > 0 and _connector(f) > 0,
    "vision_table": lambda f: f.get("vision_position_rows", 0) > 0,
    "vision_navit": lambda f: 0 < _connector(f) < 5 and f.get("vision_max_patches", 0) > 0,
    "vision_fixed": lambda f: 0 < _connector(f) < 5 and f.get("vision_image_size", 0) > 0,
}


def tags_for(fields: dict) -> frozenset[str]:
    """The variant tags that hold for a model's fields."""
    return frozenset(tag for tag, test in VARIANTS.items() if test(fields))
