"""Inputs: model fields, named as in HF config.json where HF has a name; the few traits HF keeps in
code rather than config (QKV bias, q/k norms, sinks, norms per layer, expert biases) are
normalised per family by `ledgerbuild.families`. Also MLA, DSA and RoPE fields.

Declared in this order (the workbook's Inputs sheet follows it); inputs/__init__.py imports
the parts in order.
"""

from ledgerbuild.ledger import model_input

from ..sources import DEEPSEEK_V3_MTP, HF

# --- model fields (HF config.json) -------------------------------------------------------
hidden_size = model_input("hidden_size", "elements", "Width of the residual stream d", lo=1, tex=r"d")
num_hidden_layers = model_input(
    "num_hidden_layers", "layers", "Transformer blocks", lo=1, tex=r"n_{\mathrm{layers}}"
)
num_attention_heads = model_input("num_attention_heads", "heads", "Query heads n_h", lo=1, tex=r"n_h")
num_key_value_heads = model_input(
    "num_key_value_heads", "heads", "Key/value heads n_kv (MHA: = n_h, MQA: 1)", lo=1, tex=r"n_{kv}"
)
head_dim = model_input("head_dim", "elements", "Width of one attention head d_h", lo=1, tex=r"d_h")
intermediate_size = model_input(
    "intermediate_size", "elements", "Width of a dense MLP layer d_ff", lo=1, tex=r"d_{\mathrm{ff}}"
)
vocab_size = model_input("vocab_size", "tokens", "Vocabulary size V", lo=1, tex=r"V")
tie_word_embeddings = model_input(
    "tie_word_embeddings", "0/1", "1 if lm_head shares the embedding matrix", hi=1
)
# traits HF keeps in its modeling code (see ledgerbuild/families.py)
qkv_bias = model_input("qkv_bias", "0/1", "1 if Q, K, V projections carry a bias", source=HF, hi=1, default=0)
o_bias = model_input("o_bias", "0/1", "1 if the output projection carries a bias", source=HF, hi=1, default=0)
qk_norm = model_input(
    "qk_norm", "0/1", "1 if q and k get an RMSNorm of width d_h", source=HF, hi=1, default=0
)
qk_norm_all_heads = model_input(
    "qk_norm_all_heads",
    "0/1",
    "1 if the q/k norms span all heads (widths n_h d_h and n_kv d_h; MiniMax-M2), not one head",
    source=HF + " (MiniMaxM2Attention)",
    hi=1,
    default=0,
)
attention_sinks = model_input(
    "attention_sinks", "0/1", "1 if each head has a learned sink", source=HF, hi=1, default=0
)
norms_per_layer = model_input(
    "norms_per_layer",
    "norms",
    "RMSNorm vectors of width d per block (2; Gemma: 4)",
    source=HF,
    lo=1,
    default=2,
)
# per-layer attention patterns
num_sliding_layers = model_input(
    "num_sliding_layers", "layers", "Layers with sliding-window attention", default=0
)
sliding_window = model_input("sliding_window", "tokens", "Sliding window width", default=0)
num_chunked_layers = model_input(
    "num_chunked_layers", "layers", "Layers with chunked attention (Llama 4)", default=0
)
attention_chunk_size = model_input("attention_chunk_size", "tokens", "Attention chunk width", default=0)
# mixture of experts
n_routed_experts = model_input("n_routed_experts", "experts", "Routed experts per MoE layer", default=0)
num_experts_per_tok = model_input(
    "num_experts_per_tok", "experts", "Routed experts chosen per token (top-k)", default=0
)
n_shared_experts = model_input(
    "n_shared_experts", "experts", "Always-on shared experts per MoE layer", default=0
)
moe_intermediate_size = model_input("moe_intermediate_size", "elements", "Width of one expert MLP", default=0)
shared_expert_intermediate_size = model_input(
    "shared_expert_intermediate_size",
    "elements",
    "Width of one shared expert (moe_intermediate_size unless the config gives its own)",
    default=0,
)
first_k_dense_replace = model_input(
    "first_k_dense_replace", "layers", "Layers with a dense MLP instead of MoE", default=0
)
num_nextn_predict_layers = model_input(
    "num_nextn_predict_layers",
    "modules",
    "Multi-token-prediction modules shipped with the model",
    source="HF config.json; " + DEEPSEEK_V3_MTP,
    default=0,
    tex=r"n_{\mathrm{MTP}}",
)
router_bias = model_input("router_bias", "0/1", "1 if the router carries a bias", source=HF, hi=1, default=0)
expert_bias = model_input(
    "expert_bias", "0/1", "1 if expert projections carry biases", source=HF, hi=1, default=0
)
# multi-head latent attention
q_lora_rank = model_input("q_lora_rank", "elements", "MLA query latent width (0: none)", default=0)
kv_lora_rank = model_input("kv_lora_rank", "elements", "MLA KV latent width d_c", default=0)
qk_nope_head_dim = model_input("qk_nope_head_dim", "elements", "MLA per-head key width, no RoPE", default=0)
qk_rope_head_dim = model_input(
    "qk_rope_head_dim", "elements", "MLA decoupled RoPE key width (shared by all heads)", default=0
)
v_head_dim = model_input("v_head_dim", "elements", "MLA per-head value width", default=0)
# DeepSeek Sparse Attention (DSA): the lightning indexer and its top-k (formulas/sparse_attention.py)
DSA = "HF config.json (DeepSeek-V3.2 / GLM-5 DSA indexer)"
index_topk = model_input(
    "index_topk",
    "tokens",
    "DSA: tokens each query attends to, chosen by the indexer (0: dense)",
    source=DSA,
    default=0,
)
index_n_heads = model_input(
    "index_n_heads", "heads", "DSA: lightning-indexer heads H^I", source=DSA, default=0
)
index_head_dim = model_input(
    "index_head_dim", "elements", "DSA: width of one indexer query/key head d^I", source=DSA, default=0
)
num_indexer_layers = model_input(
    "num_indexer_layers",
    "layers",
    "DSA: layers running their own indexer (GLM's 'shared' layers reuse the previous one's top-k)",
    source=DSA + "; transformers GlmMoeDsaConfig.indexer_types",
    default=0,
)

# architecture variants (which form applies): ledgerbuild/variants.py

# RoPE (config.json rope_theta and rope_scaling; see ledgerbuild.families.rope_fields)
ROPE = "HF config.json rope_theta / rope_scaling"
rope_theta = model_input(
    "rope_theta", "1", "RoPE base", integer=False, lo=1e-9, source=ROPE, tex=r"\theta_{\mathrm{base}}"
)
rope_dim = model_input(
    "rope_dim",
    "elements",
    "Rotary width d_r (head_dim, or its partial-RoPE share; MLA: qk_rope_head_dim)",
    lo=2,
    source=ROPE,
    tex=r"d_r",
)
rope_type_code = model_input(
    "rope_type_code",
    "code",
    "The config's rope type: 0 default, 1 linear, 2 dynamic, 3 yarn, 4 llama3",
    lo=0,
    hi=4,
    source=ROPE,
)
rope_scaling_factor = model_input(
    "rope_scaling_factor",
    "ratio",
    "The config's rope scaling factor (1: none)",
    integer=False,
    lo=1e-9,
    source=ROPE,
)
rope_original_max_position = model_input(
    "rope_original_max_position", "tokens", "Trained context (original_max_position_embeddings)", source=ROPE
)
rope_low_freq_factor = model_input(
    "rope_low_freq_factor", "ratio", "llama3: low_freq_factor", integer=False, lo=1e-9, source=ROPE
)
rope_high_freq_factor = model_input(
    "rope_high_freq_factor", "ratio", "llama3: high_freq_factor", integer=False, lo=1e-9, source=ROPE
)
rope_beta_fast = model_input(
    "rope_beta_fast", "rotations", "YaRN: beta_fast", integer=False, lo=1e-9, source=ROPE
)
rope_beta_slow = model_input(
    "rope_beta_slow", "rotations", "YaRN: beta_slow", integer=False, lo=1e-9, source=ROPE
)
rope_mscale = model_input("rope_mscale", "1", "YaRN (DeepSeek): mscale (0: none)", integer=False, source=ROPE)
rope_mscale_all_dim = model_input(
    "rope_mscale_all_dim", "1", "YaRN (DeepSeek): mscale_all_dim (0: none)", integer=False, source=ROPE
)
rope_truncate = model_input(
    "rope_truncate", "0/1", "YaRN: truncate the correction range to whole dimensions", hi=1, source=ROPE
)
