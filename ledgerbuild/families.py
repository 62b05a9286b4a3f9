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

from .errors import LedgerError


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


_MIXTRAL_MOE = {"n_routed_experts": "num_local_experts", "num_experts_per_tok":
                "num_experts_per_tok", "moe_intermediate_size": "intermediate_size"}
_DEEPSEEK_MOE = {"n_routed_experts": "n_routed_experts", "num_experts_per_tok":
                 "num_experts_per_tok", "n_shared_experts": "n_shared_experts",
                 "moe_intermediate_size": "moe_intermediate_size",
                 "first_k_dense_replace": "first_k_dense_replace"}

FAMILIES: dict[str, Family] = {
    "llama": Family("LlamaForCausalLM", {"qkv_bias": "attention_bias", "o_bias": "attention_bias"}),
    "mistral": Family("MistralForCausalLM", pattern="sliding_all"),
    "phi3": Family("Phi3ForCausalLM", pattern="sliding_all"),
    "qwen2": Family("Qwen2ForCausalLM", {"qkv_bias": 1}),
    "qwen3": Family("Qwen3ForCausalLM", {"qkv_bias": "attention_bias",
                                         "o_bias": "attention_bias", "qk_norm": 1}),
    "gemma2": Family("Gemma2ForCausalLM", {"norms_per_layer": 4}, pattern="alternate"),
    "gemma3_text": Family("Gemma3ForCausalLM", {"norms_per_layer": 4, "qk_norm": 1},
                          pattern="gemma3"),
    "mixtral": Family("MixtralForCausalLM", moe=_MIXTRAL_MOE, pattern="sliding_all"),
    "qwen3_moe": Family("Qwen3MoeForCausalLM",
                        {"qkv_bias": "attention_bias", "o_bias": "attention_bias", "qk_norm": 1},
                        moe={"n_routed_experts": "num_experts",
                             "num_experts_per_tok": "num_experts_per_tok",
                             "moe_intermediate_size": "moe_intermediate_size"}),
    "deepseek_v2": Family("DeepseekV2ForCausalLM", moe=_DEEPSEEK_MOE, mla=True),
    "deepseek_v3": Family("DeepseekV3ForCausalLM", moe=_DEEPSEEK_MOE, mla=True),
    "gpt_oss": Family("GptOssForCausalLM", {"qkv_bias": 1, "o_bias": 1, "attention_sinks": 1,
                                            "router_bias": 1, "expert_bias": 1},
                      moe=_MIXTRAL_MOE, pattern="alternate"),
    "llama4_text": Family("Llama4ForCausalLM", moe={**_MIXTRAL_MOE, "n_shared_experts": 1},
                          pattern="llama4", moe_every="interleave_moe_layer_step",
                          dense_width="intermediate_size_mlp"),
}
_ALIASES = {"kimi_k2": "deepseek_v3", "llama4": "llama4_text", "gemma3": "gemma3_text"}
_BY_CLASS = {f.hf_class: t for t, f in FAMILIES.items()}

REQUIRED = ["hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size",
            "intermediate_size"]
MLA_REQUIRED = ["kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"]


def family_of(config: dict) -> tuple[str, Family]:
    raw = config.get("model_type")
    mt = _ALIASES.get(raw, raw) if isinstance(raw, str) else raw
    if mt not in FAMILIES:
        for cls in config.get("architectures") or []:
            mt = _BY_CLASS.get(cls, mt)
    if mt not in FAMILIES:
        known = ", ".join(sorted(FAMILIES))
        missing = [k for k in REQUIRED if config.get(k) is None]
        fields = (f"; it also lacks {', '.join(missing)}" if missing else
                  "; its decoder fields are present, but the family's layout (biases, norms, "
                  "MLP and attention variants) is unknown")
        raise LedgerError(f"model_type {config.get('model_type')!r} "
                          f"(architectures {config.get('architectures')}) is not a known "
                          f"architecture{fields}; known model_type values: {known}")
    return mt, FAMILIES[mt]


def _value(config: dict, spec):
    return config.get(spec) if isinstance(spec, str) else spec


def _layer_counts(config: dict, family: Family, n_layers: int) -> dict:
    """Counts of full / sliding / chunked layers."""
    types = config.get("layer_types")
    if isinstance(types, list) and types:
        return {"sliding": sum(t == "sliding_attention" for t in types),
                "chunked": sum(t == "chunked_attention" for t in types)}
    window = config.get("sliding_window")
    rule = family.pattern
    if rule == "sliding_all":
        return {"sliding": n_layers if window else 0, "chunked": 0}
    if rule == "alternate":  # even layers slide (Gemma 2, gpt-oss)
        return {"sliding": (n_layers + 1) // 2, "chunked": 0}
    if rule == "gemma3":  # every sliding_window_pattern-th layer is global
        every = int(config.get("sliding_window_pattern", 6))
        return {"sliding": n_layers - n_layers // every, "chunked": 0}
    if rule == "llama4":  # every 4th layer global, the rest chunked (no_rope_layers)
        return {"sliding": 0, "chunked": n_layers - n_layers // 4
                if config.get("attention_chunk_size") else 0}
    return {"sliding": 0, "chunked": 0}


def missing_fields(config: dict, family: Family) -> list[str]:
    need = REQUIRED + list(family.moe.values()) + (MLA_REQUIRED if family.mla else [])
    need = [k for k in need if isinstance(k, str)]
    return [k for k in dict.fromkeys(need) if config.get(k) is None]


def ledger_fields(config: dict, layer_counts: dict | None = None) -> dict:
    """The ledger's model inputs for an HF config (raises LedgerError naming missing fields)."""
    _, family = family_of(config)
    missing = missing_fields(config, family)
    if missing:
        raise LedgerError(f"{family.hf_class} config is missing {', '.join(missing)}")
    c = config
    n_layers = int(c["num_hidden_layers"])
    fields = {k: c[k] for k in REQUIRED}
    fields["num_key_value_heads"] = c.get("num_key_value_heads") or c["num_attention_heads"]
    fields["head_dim"] = c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]
    fields["tie_word_embeddings"] = int(bool(c.get("tie_word_embeddings", False)))
    fields["num_nextn_predict_layers"] = int(c.get("num_nextn_predict_layers") or 0)
    for name, spec in family.traits.items():
        fields[name] = int(_value(c, spec) or 0)
    for name, spec in family.moe.items():
        fields[name] = int(_value(c, spec) or 0)
    if family.mla:
        fields.update({k: int(c[k]) for k in MLA_REQUIRED})
        fields["q_lora_rank"] = int(c.get("q_lora_rank") or 0)
    every = int(c.get(family.moe_every) or 1) if family.moe_every else 1
    if every > 1:  # Llama 4 Maverick: layers every-1, 2*every-1, ... are MoE, the rest dense
        fields["first_k_dense_replace"] = n_layers - n_layers // every
        fields["intermediate_size"] = int(c[family.dense_width])
    counts = layer_counts or _layer_counts(c, family, n_layers)
    fields["num_sliding_layers"] = counts.get("sliding", 0)
    fields["sliding_window"] = int(c.get("sliding_window") or 0) if fields[
        "num_sliding_layers"] else 0
    fields["num_chunked_layers"] = counts.get("chunked", 0)
    fields["attention_chunk_size"] = int(c.get("attention_chunk_size") or 0) if fields[
        "num_chunked_layers"] else 0
    return fields
