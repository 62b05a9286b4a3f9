"""From an HF config.json to the ledger's model fields, per architecture family.

Scope: HF keeps some architecture traits in modeling code rather than in config.json (Qwen2's
QKV bias, Gemma's four norms per block, gpt-oss's sinks and expert biases, q/k norms). This
table states them once per `model_type`, with the transformers class they were read from, and
renames the per-family MoE fields (num_local_experts, num_experts, ...) to the ledger's.
Shortcut: layer patterns come from `layer_types` when the config lists it, else from the
family's documented rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .config_values import count, flag, number, shown
from .errors import LedgerError
from .families_vision import split_vlm


@dataclass(frozen=True)
class Family:
    hf_class: str
    traits: dict = field(default_factory=dict)  # ledger field -> value or config key
    moe: dict = field(default_factory=dict)  # ledger field -> config key (or constant)
    mla: bool = False
    pattern: str = "full"  # rule for per-layer attention when layer_types is absent
    # MoE on every n-th layer only (config key of n) and the width of the dense layers between
    moe_every: str | None = None
    dense_width: str | None = None
    linear: bool = False  # hybrid linear attention (Qwen3-Next's Gated DeltaNet layers)
    # partial RoPE: (config key of a rotary width or None, default partial_rotary_factor);
    # empty: the whole head rotates
    rotary: tuple = ()
    # config key of the MTP module count, and required fields the family's config may omit
    # (ledger field -> the config key that stands in for it)
    mtp: str = "num_nextn_predict_layers"
    stand_ins: dict = field(default_factory=dict)
    dsa: bool = False  # DeepSeek Sparse Attention: a lightning indexer per layer (or shared, GLM)


_MIXTRAL_MOE = {
    "n_routed_experts": "num_local_experts",
    "num_experts_per_tok": "num_experts_per_tok",
    "moe_intermediate_size": "intermediate_size",
}
_DEEPSEEK_MOE = {
    "n_routed_experts": "n_routed_experts",
    "num_experts_per_tok": "num_experts_per_tok",
    "n_shared_experts": "n_shared_experts",
    "moe_intermediate_size": "moe_intermediate_size",
    "first_k_dense_replace": "first_k_dense_replace",
}

FAMILIES: dict[str, Family] = {
    "llama": Family("LlamaForCausalLM", {"qkv_bias": "attention_bias", "o_bias": "attention_bias"}),
    "mistral": Family("MistralForCausalLM", pattern="sliding_all"),
    "phi3": Family("Phi3ForCausalLM", pattern="sliding_all"),
    "qwen2": Family("Qwen2ForCausalLM", {"qkv_bias": 1}),
    "qwen3": Family(
        "Qwen3ForCausalLM", {"qkv_bias": "attention_bias", "o_bias": "attention_bias", "qk_norm": 1}
    ),
    "gemma2": Family("Gemma2ForCausalLM", {"norms_per_layer": 4}, pattern="alternate"),
    "gemma3_text": Family("Gemma3ForCausalLM", {"norms_per_layer": 4, "qk_norm": 1}, pattern="gemma3"),
    "mixtral": Family("MixtralForCausalLM", moe=_MIXTRAL_MOE, pattern="sliding_all"),
    "qwen3_moe": Family(
        "Qwen3MoeForCausalLM",
        {"qkv_bias": "attention_bias", "o_bias": "attention_bias", "qk_norm": 1},
        moe={
            "n_routed_experts": "num_experts",
            "num_experts_per_tok": "num_experts_per_tok",
            "moe_intermediate_size": "moe_intermediate_size",
        },
    ),
    "deepseek_v2": Family("DeepseekV2ForCausalLM", moe=_DEEPSEEK_MOE, mla=True),
    "deepseek_v3": Family("DeepseekV3ForCausalLM", moe=_DEEPSEEK_MOE, mla=True),
    "gpt_oss": Family(
        "GptOssForCausalLM",
        {"qkv_bias": 1, "o_bias": 1, "attention_sinks": 1, "router_bias": 1, "expert_bias": 1},
        moe=_MIXTRAL_MOE,
        pattern="alternate",
    ),
    "mllama_text_model": Family("MllamaForCausalLM"),  # Llama 3.2 Vision's language part
    # Emu3's language part (Emu3TextModel: Llama's layout, biases from attention_bias)
    "emu3_text_model": Family("Emu3ForCausalLM", {"qkv_bias": "attention_bias", "o_bias": "attention_bias"}),
    "qwen3_next": Family(
        "Qwen3NextForCausalLM",
        {"qk_norm": 1, "attn_output_gate": 1, "shared_expert_gate": 1},
        moe={
            "n_routed_experts": "num_experts",
            "num_experts_per_tok": "num_experts_per_tok",
            "moe_intermediate_size": "moe_intermediate_size",
            "shared_expert_intermediate_size": "shared_expert_intermediate_size",
            "n_shared_experts": 1,
        },
        pattern="qwen3_next",
        linear=True,
    ),
    # DeepSeek-V3.2 and GLM-5: DeepSeek-V3's MLA + MoE with a lightning indexer (DSA);
    # transformers 5.23.0 DeepseekV32ForCausalLM, GlmMoeDsaForCausalLM
    "deepseek_v32": Family("DeepseekV32ForCausalLM", moe=_DEEPSEEK_MOE, mla=True, dsa=True),
    "glm_moe_dsa": Family("GlmMoeDsaForCausalLM", moe=_DEEPSEEK_MOE, mla=True, dsa=True),
    "llama4_text": Family(
        "Llama4ForCausalLM",
        moe={**_MIXTRAL_MOE, "n_shared_experts": 1},
        pattern="llama4",
        moe_every="interleave_moe_layer_step",
        dense_width="intermediate_size_mlp",
    ),
    # GLM-4.5/4.6/4.7: GQA with q/k/v biases and per-head q/k norms, DeepSeek-style MoE after
    # first_k_dense_replace dense layers (sigmoid routing; e_score_correction_bias is a buffer,
    # not a parameter), half the head rotating (Glm4MoeConfig defaults partial_rotary_factor 0.5)
    "glm4_moe": Family(
        "Glm4MoeForCausalLM",
        {"qkv_bias": "attention_bias", "qk_norm": "use_qk_norm"},
        moe=_DEEPSEEK_MOE,
        rotary=(None, 0.5),
    ),
    # MiniMax-M2/M2.1/M2.5: GQA, q/k RMSNorm over all heads' width (MiniMaxM2Attention builds
    # them whatever use_qk_norm says), every layer MoE without shared experts, rotary_dim of
    # head_dim rotating; the checkpoint's MTP modules (num_mtp_modules) are not built by
    # transformers and not counted here
    "minimax_m2": Family(
        "MiniMaxM2ForCausalLM",
        {"qk_norm": 1, "qk_norm_all_heads": 1},
        moe=_MIXTRAL_MOE,
        rotary=("rotary_dim", 1.0),
    ),
}
# Qwen3.5 (Qwen3_5MoeTextConfig, transformers 5.23.0): Qwen3-Next's layers (Gated DeltaNet and
# gated full attention, MoE with a gated shared expert) with layer_types in the config; no dense
# layer, so no intermediate_size (the shared expert's width stands in; no formula reads it when
# first_k_dense_replace = 0); mtp_num_hidden_layers MTP modules (vLLM qwen3_5_mtp.py: fc 2d -> d,
# three RMSNorms, one full-attention block: DeepSeek-V3's MTP shape).
FAMILIES["qwen3_5_moe_text"] = Family(
    "Qwen3_5MoeForCausalLM",
    FAMILIES["qwen3_next"].traits,
    moe=FAMILIES["qwen3_next"].moe,
    pattern="qwen3_next",
    linear=True,
    mtp="mtp_num_hidden_layers",
    stand_ins={"intermediate_size": "shared_expert_intermediate_size"},
)
_ALIASES = {"kimi_k2": "deepseek_v3", "llama4": "llama4_text", "gemma3": "gemma3_text"}
_BY_CLASS = {f.hf_class: t for t, f in FAMILIES.items()}

REQUIRED = ["hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size", "intermediate_size"]
MLA_REQUIRED = ["kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"]


def family_of(config: dict) -> tuple[str, Family]:
    raw = config.get("model_type")
    if raw is not None and not isinstance(raw, str):
        raise LedgerError(f"field model_type: must be a string, got {type(raw).__name__}")
    mt = _ALIASES.get(raw, raw) if isinstance(raw, str) else raw
    classes = config.get("architectures") or []
    if not isinstance(classes, list) or not all(isinstance(c, str) for c in classes):
        raise LedgerError("field architectures: must be a list of class names")
    if mt not in FAMILIES:
        for cls in classes:
            mt = _BY_CLASS.get(cls, mt)
    if mt not in FAMILIES:
        known = ", ".join(sorted(FAMILIES))
        missing = [k for k in REQUIRED if config.get(k) is None]
        fields = (
            f"; it also lacks {', '.join(missing)}"
            if missing
            else "; its decoder fields are present, but the family's layout (biases, norms, "
            "MLP and attention variants) is unknown"
        )
        raise LedgerError(
            f"model_type {str(raw)[:60]!r} (architectures {classes[:3]}) is not "
            f"a known architecture{fields}; known model_type values: {known}"
        )
    return mt, FAMILIES[mt]


ROPE_TYPES = {"default": 0, "linear": 1, "dynamic": 2, "yarn": 3, "llama3": 4}
# HF rope types read as plain RoPE: mrope (Qwen2-VL; transformers renames it "default") and
# longrope (not modelled, the stated shortcut); any other type is refused
ROPE_AS_DEFAULT = {"mrope": 0, "longrope": 0}


def _rope_type(scaling: dict) -> int:
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    code = {**ROPE_TYPES, **ROPE_AS_DEFAULT}.get(kind) if isinstance(kind, str) else None
    if code is None:
        known = ", ".join([*ROPE_TYPES, *ROPE_AS_DEFAULT])
        raise LedgerError(f"field rope_scaling.rope_type: {shown(kind)} is not a known type ({known})")
    return code


def rope_fields(config: dict, mla: bool) -> dict:
    """RoPE: base, rotary width, and the config's rope_scaling as numbers (type as a code;
    a type this ledger does not model, such as longrope, reads as plain RoPE)."""
    scaling = config.get("rope_scaling") or config.get("rope_parameters") or {}
    if not isinstance(scaling, dict):
        raise LedgerError("field rope_scaling: expected a mapping")
    rope = {
        "rope_theta": number(
            config, "rope_theta", default=number(scaling, "rope_theta", 10000.0, 1e-9), lo=1e-9
        ),
        "rope_dim": count(config, "qk_rope_head_dim", lo=2) if mla else 0,
        "rope_type_code": _rope_type(scaling),
        "rope_scaling_factor": number(scaling, "factor", 1.0, lo=1e-9),
        "rope_original_max_position": count(
            scaling,
            "original_max_position_embeddings",
            default=count(config, "max_position_embeddings", default=0),
        ),
        "rope_low_freq_factor": number(scaling, "low_freq_factor", 1.0, lo=1e-9),
        "rope_high_freq_factor": number(scaling, "high_freq_factor", 4.0, lo=1e-9),
        "rope_beta_fast": number(scaling, "beta_fast", 32.0, lo=1e-9),
        "rope_beta_slow": number(scaling, "beta_slow", 1.0, lo=1e-9),
        "rope_mscale": number(scaling, "mscale", 0.0),
        "rope_mscale_all_dim": number(scaling, "mscale_all_dim", 0.0),
        "rope_truncate": int(scaling.get("truncate", True) is not False),
    }
    return rope


def _trait(config: dict, spec) -> int:
    """A family trait: a constant, or a yes/no config key."""
    return spec if isinstance(spec, int) else flag(config, spec)


EXPERT_COUNTS = ("n_routed_experts", "num_experts_per_tok")  # a MoE family's: 0 is not a dense model


def _moe(config: dict, spec, name: str = "") -> int:
    if isinstance(spec, int):
        return spec
    if name in EXPERT_COUNTS:
        return count(config, spec, lo=1)
    return count(config, spec, default=0)


HYBRID_LAYER_TYPES = {"linear_attention", "full_attention"}  # the layers a hybrid family models


def _layer_counts(config: dict, family: Family, n_layers: int) -> dict:
    """Counts of full / sliding / chunked layers."""
    types = config.get("layer_types")
    if isinstance(types, list) and types:
        if len(types) != n_layers:
            raise LedgerError(f"field layer_types: {len(types)} entries for {n_layers} layers")
        odd = sorted({str(t)[:40] for t in types} - HYBRID_LAYER_TYPES) if family.linear else []
        if odd:
            raise LedgerError(
                f"field layer_types: {', '.join(odd)} not modelled (only linear_attention, full_attention)"
            )
        return {
            "sliding": sum(t == "sliding_attention" for t in types),
            "chunked": sum(t == "chunked_attention" for t in types),
            "linear": sum(t == "linear_attention" for t in types),
        }
    window = count(config, "sliding_window", default=0)
    rule = family.pattern
    if rule == "sliding_all":
        return {"sliding": n_layers if window else 0, "chunked": 0}
    if rule == "alternate":  # even layers slide (Gemma 2, gpt-oss)
        return {"sliding": (n_layers + 1) // 2, "chunked": 0}
    if rule == "gemma3":  # every sliding_window_pattern-th layer is global
        every = count(config, "sliding_window_pattern", default=6, lo=1)
        return {"sliding": n_layers - n_layers // every, "chunked": 0}
    if rule == "qwen3_next":  # every full_attention_interval-th layer full, the rest linear
        every = count(config, "full_attention_interval", default=4, lo=1)
        return {"sliding": 0, "chunked": 0, "linear": n_layers - n_layers // every}
    if rule == "llama4":  # every 4th layer global, the rest chunked (no_rope_layers)
        return {
            "sliding": 0,
            "chunked": n_layers - n_layers // 4 if count(config, "attention_chunk_size", default=0) else 0,
        }
    return {"sliding": 0, "chunked": 0}


def _rotary_width(config: dict, family: Family, head_dim: int) -> int:
    """Rotary width of a GQA head as transformers' rotary embedding reads it: the family's
    width key (MiniMax-M2's rotary_dim) if given, else int(head_dim * partial_rotary_factor)
    (top level or in rope_parameters: Qwen3-Next and Qwen3.5 0.25; the family's default,
    GLM-4.5's 0.5, else 1: the whole head rotates)."""
    width_key, default = family.rotary or (None, 1.0)  # no spec: the config's own factor, if any
    nested = config.get("rope_parameters")
    nested = nested if isinstance(nested, dict) else {}
    key = "partial_rotary_factor"
    if width_key and config.get(width_key) is not None:
        key, width = width_key, count(config, width_key, lo=2)
    else:
        share = number(config, key, default=number(nested, key, default, lo=1e-9), lo=1e-9)
        width = int(head_dim * share)
    if not 2 <= width <= head_dim:
        raise LedgerError(f"field {key}: rotary width {width} must be in 2..head_dim ({head_dim})")
    return width


LINEAR = ["linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim"]


def _linear_fields(config: dict, layers: int) -> dict:
    """Hybrid linear attention: head counts and widths, the convolution window."""
    fields = {k: count(config, k, lo=1) for k in LINEAR}
    fields["linear_conv_kernel_dim"] = count(config, "linear_conv_kernel_dim", default=4, lo=1)
    fields["num_linear_attention_layers"] = layers
    return fields


DSA = ["index_topk", "index_n_heads", "index_head_dim"]


def _indexer_layers(config: dict, layers: int) -> int:
    """Layers with their own indexer: indexer_types ("full" / "shared"), index_topk_pattern
    ("F" / "S"), or GLM's index_topk_freq / index_skip_topk_offset rule (transformers
    GlmMoeDsaConfig.__post_init__); every layer when the config states none of them."""
    types = config.get("indexer_types")
    pattern = config.get("index_topk_pattern")
    if types is None and isinstance(pattern, (str, list)):
        types = [{"F": "full", "S": "shared"}.get(ch, ch) if isinstance(ch, str) else ch for ch in pattern]
    if types is not None:
        if (
            not isinstance(types, list)
            or len(types) != layers
            or any(t not in ("full", "shared") for t in types)
        ):
            raise LedgerError(f"field indexer_types: expected {layers} entries of 'full' or 'shared'")
        return sum(t == "full" for t in types)
    freq = max(count(config, "index_topk_freq", default=1), 1)
    offset = count(config, "index_skip_topk_offset", default=2)
    return sum(max(i - offset + 1, 0) % freq == 0 for i in range(layers))


def _dsa_fields(config: dict, layers: int) -> dict:
    """DeepSeek Sparse Attention: the indexer's top-k, heads and width; its layers."""
    fields = {k: count(config, k, lo=1) for k in DSA}
    fields["num_indexer_layers"] = _indexer_layers(config, layers)
    return fields


def missing_fields(config: dict, family: Family) -> list[str]:
    config = _with_stand_ins(config, family)
    need = REQUIRED + list(family.moe.values()) + (MLA_REQUIRED if family.mla else [])
    need += DSA if family.dsa else []
    need = [k for k in need if isinstance(k, str)]
    return [k for k in dict.fromkeys(need) if config.get(k) is None]


def _with_stand_ins(config: dict, family: Family) -> dict:
    """The config with the family's stand-ins for the required fields it omits."""
    extra = {k: config[v] for k, v in family.stand_ins.items() if config.get(k) is None and v in config}
    return {**config, **extra} if extra else config


def ledger_fields(config: dict, layer_counts: dict | None = None, preprocessor: dict | None = None) -> dict:
    """The ledger's model inputs for an HF config (a VLM's: its language part plus its
    vision fields), every value type-checked (raises LedgerError naming the field)."""
    config, vision = split_vlm(config, preprocessor)
    return {**_text_fields(config, layer_counts), **vision}


def _text_fields(config: dict, layer_counts: dict | None) -> dict:
    _, family = family_of(config)
    missing = missing_fields(config, family)
    if missing:
        raise LedgerError(f"{family.hf_class} config is missing {', '.join(missing)}")
    c = _with_stand_ins(config, family)
    fields = {k: count(c, k, lo=1) for k in REQUIRED}
    n_layers, heads = fields["num_hidden_layers"], fields["num_attention_heads"]
    fields["num_key_value_heads"] = count(c, "num_key_value_heads", default=heads, lo=1)
    fields["head_dim"] = count(c, "head_dim", default=fields["hidden_size"] // heads, lo=1)
    fields["tie_word_embeddings"] = flag(c, "tie_word_embeddings")
    fields["num_nextn_predict_layers"] = count(c, family.mtp, default=0)
    for name, spec in family.traits.items():
        fields[name] = _trait(c, spec)
    for name, spec in family.moe.items():
        fields[name] = _moe(c, spec, name)
    if family.moe and (c.get("mlp_only_layers") or (c.get("decoder_sparse_step") or 1) != 1):
        raise LedgerError(
            "fields mlp_only_layers / decoder_sparse_step: dense layers among the MoE layers "
            "(other than first_k_dense_replace) are not modelled; expected [] and 1"
        )
    if fields.get("n_shared_experts") and not fields.get("shared_expert_intermediate_size"):
        fields["shared_expert_intermediate_size"] = fields["moe_intermediate_size"]
    if family.mla:
        fields.update({k: count(c, k, lo=1) for k in MLA_REQUIRED})
        fields["q_lora_rank"] = count(c, "q_lora_rank", default=0)
    every = count(c, family.moe_every, default=1, lo=1) if family.moe_every else 1
    if every > 1:  # Llama 4 Maverick: layers every-1, 2*every-1, ... are MoE, the rest dense
        fields["first_k_dense_replace"] = n_layers - n_layers // every
        fields["intermediate_size"] = count(c, family.dense_width or "", lo=1)
    fields.update(rope_fields(c, family.mla))
    if not family.mla:
        fields["rope_dim"] = _rotary_width(c, family, fields["head_dim"])
    counts = layer_counts or _layer_counts(c, family, n_layers)
    fields["num_sliding_layers"] = counts.get("sliding", 0)
    fields["sliding_window"] = count(c, "sliding_window", default=0) if fields["num_sliding_layers"] else 0
    fields["num_chunked_layers"] = counts.get("chunked", 0)
    if family.linear:
        fields.update(_linear_fields(c, counts.get("linear", 0)))
    if family.dsa:
        fields.update(_dsa_fields(c, n_layers))
    fields["attention_chunk_size"] = (
        count(c, "attention_chunk_size", default=0) if fields["num_chunked_layers"] else 0
    )
    return fields
