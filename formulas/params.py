"""Parameters: per matrix, per layer, per model; MoE total and active.

Follows the lecture §3 (seeds/000) term by term and the HF modeling code for the small
terms (biases, norms, sinks, routers), so that the count equals the transformers model to
the integer. Shortcut: RoPE has no parameters; MoE layers are the last
(num_hidden_layers - first_k_dense_replace) blocks.
"""

from sympy import Eq, Piecewise

from ledgerbuild.ledger import quantity

from .audio import params_audio
from .inputs import (
    expert_bias,
    first_k_dense_replace,
    head_dim,
    intermediate_size,
    kv_lora_rank,
    moe_intermediate_size,
    n_routed_experts,
    n_shared_experts,
    norms_per_layer,
    num_experts_per_tok,
    num_indexer_layers,
    q_lora_rank,
    router_bias,
    shared_expert_intermediate_size,
    tie_word_embeddings,
    v_head_dim,
)
from .inputs import hidden_size as d
from .inputs import num_attention_heads as nh
from .inputs import num_hidden_layers as L
from .inputs import num_key_value_heads as nkv
from .inputs import vocab_size as V
from .linear_attention import (
    GDN,
    matmul_linear_attn_layer,
    num_linear_attention_layers,
    params_linear_attn_layer,
    shared_expert_gate,
)
from .params_attention import (  # noqa: F401  (re-exported: flops, training and layer_steps read them here)
    S31,
    P,
    T,
    attn_v_head_dim,
    params_attn_layer,
    params_kv_proj,
    params_q_proj,
    qk_head_dim,
)
from .sources import HF, LECTURE
from .sparse_attention import HF_DSA, matmul_indexer_layer, params_indexer
from .vision import embedding_extra_rows, num_cross_attention_layers, params_connector, params_vision
from .vq_tokenizer import params_vq_tokenizer

# --- MLP ---------------------------------------------------------------------------------
params_dense_mlp_layer = quantity(
    "params_dense_mlp_layer",
    3 * d * intermediate_size,
    P,
    "Gated MLP (gate, up, down) per dense layer",
    source=S31,
    topic=T,
)
params_expert = quantity(
    "params_expert",
    3 * d * moe_intermediate_size + expert_bias * (2 * moe_intermediate_size + d),
    P,
    "One expert MLP (+ biases)",
    source=LECTURE + " §3.3",
    topic=T,
    when="moe",
)
params_router = quantity(
    "params_router",
    d * n_routed_experts + router_bias * n_routed_experts + shared_expert_gate * d,
    P,
    "Router per MoE layer (+ the shared expert's gate)",
    source=HF,
    topic=T,
    when="moe",
)
params_shared_experts = quantity(
    "params_shared_experts",
    3 * d * shared_expert_intermediate_size * n_shared_experts,
    P,
    "Shared experts per MoE layer",
    source=LECTURE + " §3.3",
    topic=T,
    when="moe",
)
num_moe_layers = quantity(
    "num_moe_layers",
    L - first_k_dense_replace,
    "layers",
    "Layers whose MLP is a mixture of experts",
    source=LECTURE + " §3.3",
    topic=T,
    when="moe",
    integer=True,
)
quantity(
    "num_moe_layers",
    0,
    "layers",
    "Dense model: no mixture-of-experts layers",
    source=LECTURE + " §3.3",
    topic=T,
    when="dense",
    integer=True,
)
params_mlp = quantity(
    "params_mlp", L * params_dense_mlp_layer, P, "All MLP parameters", source=S31, topic=T, when="dense"
)
quantity(
    "params_mlp",
    first_k_dense_replace * params_dense_mlp_layer
    + num_moe_layers * (n_routed_experts * params_expert + params_router + params_shared_experts),
    P,
    "All MLP parameters: dense-first layers + MoE layers",
    source=LECTURE + " §3.3",
    topic=T,
    when="moe",
)

# --- embedding, head, norms, totals ------------------------------------------------------
params_embedding = quantity(
    "params_embedding", V * d, P, "Token embedding table", source=S31, topic=T, integer=True
)
params_lm_head = quantity(
    "params_lm_head",
    (1 - tie_word_embeddings) * V * d,
    P,
    "lm_head (0 when tied: the embedding is counted once)",
    source=S31,
    topic=T,
    integer=True,
)
params_norms = quantity(
    "params_norms",
    L * norms_per_layer * d + d,
    P,
    "RMSNorm scales: per block and the final norm",
    source=HF,
    topic=T,
)
LANGUAGE = params_embedding + params_lm_head + L * params_attn_layer + params_mlp + params_norms
HYBRID = (
    params_embedding
    + params_lm_head
    + (L - num_linear_attention_layers) * params_attn_layer
    + num_linear_attention_layers * params_linear_attn_layer
    + params_mlp
    + params_norms
)
params_language = quantity(
    "params_language",
    HYBRID,
    P,
    "Language-model parameters (embedding, full- and linear-attention blocks, final norm, lm_head)",
    source=S31 + "; " + GDN,
    topic=T,
    integer=True,
    when="hybrid_multimodal",  # Qwen3.5: a hybrid language model under a vision tower
)
quantity(
    "params_language",
    LANGUAGE,
    P,
    "Language-model parameters (embedding, blocks, final norm, lm_head)",
    source=S31,
    topic=T,
    integer=True,
    when="multimodal",
)
params_language_extras = quantity(
    "params_language_extras",
    num_cross_attention_layers * (2 * head_dim + 2) + embedding_extra_rows * d,
    P,
    "Cross-attention layers' q/k norms and two gates each; extra embedding rows",
    source=HF + " (MllamaCrossAttentionDecoderLayer, MllamaTextModel)",
    topic=T,
    integer=True,
    when="vision_cross",
)
params_total = quantity(
    "params_total",
    params_language + params_language_extras + params_vision + params_connector,
    P,
    "Total parameters: language model, its cross-attention extras, vision encoder, connector",
    source=S31 + "; " + HF,
    topic=T,
    integer=True,
    when="vision_cross",
)
quantity(
    "params_total",
    params_language + params_audio + params_connector,
    P,
    "Total parameters: language model, audio encoder, connector",
    source=S31 + "; " + HF,
    topic=T,
    integer=True,
    when="audio",
)
quantity(
    "params_total",
    params_language + params_vision + params_connector,
    P,
    "Total parameters: language model, vision encoder, connector",
    source=S31 + "; " + HF,
    topic=T,
    integer=True,
    when="vision",
)
quantity(
    "params_total",
    params_language + params_vq_tokenizer,
    P,
    "Total parameters: language model and its vision tokenizer (VQ-VAE)",
    source=S31 + "; " + HF + " (Emu3ForConditionalGeneration)",
    topic=T,
    integer=True,
    when="vision_vq",
)
quantity(
    "params_total",
    LANGUAGE + params_indexer,
    P,
    "Total parameters: MLA blocks, their lightning indexers (DSA)",
    source=S31 + "; " + HF_DSA,
    topic=T,
    integer=True,
    when="dsa",
)
quantity(
    "params_total",
    HYBRID,
    P,
    "Total parameters: full-attention and linear-attention layers",
    source=S31 + "; " + GDN,
    topic=T,
    integer=True,
    when="hybrid",
)
quantity("params_total", LANGUAGE, P, "Total parameters", source=S31, topic=T, integer=True)
params_inactive_experts = quantity(
    "params_inactive_experts",
    0,
    P,
    "Routed-expert parameters a token does not use",
    source=S31,
    topic=T,
    when="dense",
)
quantity(
    "params_inactive_experts",
    num_moe_layers * (n_routed_experts - num_experts_per_tok) * params_expert,
    P,
    "Routed-expert parameters a token does not use",
    source=LECTURE + " §3.3",
    topic=T,
    when="moe",
)
params_active = quantity(
    "params_active",
    params_total - params_inactive_experts,
    P,
    "Parameters one token uses (with the input embedding)",
    source=LECTURE + " §3.3",
    topic=T,
    integer=True,
)
quantity(
    "params_active_no_embedding",
    params_active - params_embedding,
    P,
    "Active parameters without the input embedding (DeepSeek's convention)",
    source=LECTURE + " §3.3; DeepSeek-V3 README_WEIGHTS (36.6B)",
    topic=T,
    integer=True,
)
params_non_embedding = quantity(
    "params_non_embedding",
    params_total - params_embedding - params_lm_head,
    P,
    "Parameters without the input embedding and the lm_head (Qwen model cards' non-embedding figure)",
    source=S31 + "; Qwen3 model cards (Qwen3-8B 6.95B, Qwen3-32B 31.2B non-embedding)",
    topic=T,
    integer=True,
)
quantity(
    "params_active_non_embedding",
    params_active - params_embedding - params_lm_head,
    P,
    "Active parameters without the input embedding and the lm_head (GLM-4.5 report's 32B activated)",
    source=LECTURE + " §3.3; GLM-4.5 report arXiv:2508.06471 Table 1",
    topic=T,
    integer=True,
)

# --- parameters in matrix multiplications per token --------------------------------------
quantity(
    "matmul_attn_layer",
    2 * d * nh * head_dim + 2 * d * nkv * head_dim + nh * head_dim * d,
    P,
    "Attention weights in matmuls per layer, W_q with its output gate (no biases, norms)",
    source=LECTURE + " §4.4; " + GDN,
    topic=T,
    when="attn_gate",
)
matmul_attn_layer = quantity(
    "matmul_attn_layer",
    d * nh * head_dim + 2 * d * nkv * head_dim + nh * head_dim * d,
    P,
    "Attention weights in matmuls per layer (no biases, norms)",
    source=LECTURE + " §4.4",
    topic=T,
    when="gqa",
)
quantity(
    "matmul_attn_layer",
    params_q_proj
    - Piecewise((0, Eq(q_lora_rank, 0)), (q_lora_rank, True))
    + params_kv_proj
    - kv_lora_rank
    + nh * v_head_dim * d,
    P,
    "Attention weights in matmuls per layer (latent norms excluded)",
    source=LECTURE + " §4.4",
    topic=T,
    when="mla",
)
matmul_mlp = quantity(
    "matmul_mlp",
    L * params_dense_mlp_layer,
    P,
    "MLP weights in matmuls per token",
    source=LECTURE + " §4.4",
    topic=T,
    when="dense",
)
quantity(
    "matmul_mlp",
    first_k_dense_replace * params_dense_mlp_layer
    + num_moe_layers
    * (
        3
        * d
        * (num_experts_per_tok * moe_intermediate_size + n_shared_experts * shared_expert_intermediate_size)
        + d * n_routed_experts
    ),
    P,
    "MLP weights in matmuls per token: chosen + shared experts and the router",
    source=LECTURE + " §4.4",
    topic=T,
    when="moe",
)
params_lm_head_matmul = quantity(
    "params_lm_head_matmul",
    V * d,
    P,
    "lm_head weights in the logits matmul (tied or not)",
    source=LECTURE + " §4.4",
    topic=T,
    integer=True,
)
quantity(
    "params_matmul",
    (L - num_linear_attention_layers) * matmul_attn_layer
    + num_linear_attention_layers * matmul_linear_attn_layer
    + matmul_mlp
    + params_lm_head_matmul,
    P,
    "Active parameters in matrix multiplications per token, full and linear attention layers",
    source=LECTURE + " §4.4; " + GDN,
    topic=T,
    integer=True,
    when="hybrid",
)
quantity(
    "params_matmul",
    L * matmul_attn_layer + num_indexer_layers * matmul_indexer_layer + matmul_mlp + params_lm_head_matmul,
    P,
    "Active parameters in matrix multiplications per token, the lightning indexers' included",
    source=LECTURE + " §4.4; " + HF_DSA,
    topic=T,
    integer=True,
    when="dsa",
)
params_matmul = quantity(
    "params_matmul",
    L * matmul_attn_layer + matmul_mlp + params_lm_head_matmul,
    P,
    "Active parameters in matrix multiplications per token (the embedding is a lookup)",
    source=LECTURE + " §4.4",
    topic=T,
    integer=True,
)
