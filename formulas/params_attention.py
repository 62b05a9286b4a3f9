"""Parameters of one attention layer: the head widths, Q, K, V and output projections, the
extras (biases, q/k norms, sinks), per variant (GQA, MLA).

Part of the parameters topic (formulas/params.py imports it first, so the declaration order
is the one params.py had); follows the lecture §3.1 term by term and the HF modeling code.
"""

from sympy import Eq, Piecewise

from ledgerbuild.ledger import quantity

from .inputs import (
    attention_sinks,
    head_dim,
    kv_lora_rank,
    o_bias,
    q_lora_rank,
    qk_nope_head_dim,
    qk_norm,
    qk_rope_head_dim,
    qkv_bias,
    v_head_dim,
)
from .inputs import hidden_size as d
from .inputs import num_attention_heads as nh
from .inputs import num_key_value_heads as nkv
from .linear_attention import (
    GDN,
)
from .sources import DEEPSEEK_V2, HF, LECTURE

T = "parameters"
S31 = LECTURE + " §3.1"
P = "params"

# --- attention, one layer ----------------------------------------------------------------
qk_head_dim = quantity(
    "qk_head_dim", head_dim, "elements", "Width of a query/key head", source=S31, topic=T, when="gqa"
)
quantity(
    "qk_head_dim",
    qk_nope_head_dim + qk_rope_head_dim,
    "elements",
    "Width of a query/key head (no-RoPE part + RoPE part)",
    source=DEEPSEEK_V2,
    topic=T,
    when="mla",
)
attn_v_head_dim = quantity(
    "attn_v_head_dim", head_dim, "elements", "Width of a value head", source=S31, topic=T, when="gqa"
)
quantity(
    "attn_v_head_dim",
    v_head_dim,
    "elements",
    "Width of a value head",
    source=DEEPSEEK_V2,
    topic=T,
    when="mla",
)

quantity(
    "params_q_proj",
    2 * d * nh * head_dim + qkv_bias * nh * head_dim,
    P,
    "W_q (+ bias) per layer, producing the query and a per-head output gate",
    source=GDN,
    topic=T,
    when="attn_gate",
)
params_q_proj = quantity(
    "params_q_proj",
    d * nh * head_dim + qkv_bias * nh * head_dim,
    P,
    "W_q (+ bias) per layer",
    source=S31,
    topic=T,
    when="gqa",
)
quantity(
    "params_q_proj",
    Piecewise(
        (d * nh * qk_head_dim, Eq(q_lora_rank, 0)),
        (d * q_lora_rank + q_lora_rank + q_lora_rank * nh * qk_head_dim, True),
    ),
    P,
    "Query path per layer: W_q, or W_DQ + latent norm + W_UQ when q_lora_rank > 0",
    source=DEEPSEEK_V2,
    topic=T,
    when="mla",
)
params_kv_proj = quantity(
    "params_kv_proj",
    2 * (d * nkv * head_dim + qkv_bias * nkv * head_dim),
    P,
    "W_k and W_v (+ biases) per layer",
    source=S31,
    topic=T,
    when="gqa",
)
quantity(
    "params_kv_proj",
    d * (kv_lora_rank + qk_rope_head_dim)
    + kv_lora_rank
    + kv_lora_rank * nh * (qk_nope_head_dim + v_head_dim),
    P,
    "W_DKV with the RoPE key, latent norm, and W_UK/W_UV per layer",
    source=DEEPSEEK_V2,
    topic=T,
    when="mla",
)
params_o_proj = quantity(
    "params_o_proj", nh * attn_v_head_dim * d + o_bias * d, P, "W_o (+ bias) per layer", source=S31, topic=T
)
quantity(
    "params_attn_extras",
    qk_norm * (nh + nkv) * head_dim + attention_sinks * nh,
    P,
    "q/k norm vectors over all heads (widths n_h d_h and n_kv d_h) and attention sinks per layer",
    source=HF + " (MiniMaxM2Attention q_norm, k_norm)",
    topic=T,
    when="qk_norm_all_heads",
)
params_attn_extras = quantity(
    "params_attn_extras",
    qk_norm * 2 * head_dim + attention_sinks * nh,
    P,
    "q/k norm vectors and attention sinks per layer",
    source=HF,
    topic=T,
    when="gqa",
)
quantity(
    "params_attn_extras",
    0,
    P,
    "None for MLA (its norms are in the projections)",
    source=DEEPSEEK_V2,
    topic=T,
    when="mla",
)
params_attn_layer = quantity(
    "params_attn_layer",
    params_q_proj + params_kv_proj + params_o_proj + params_attn_extras,
    P,
    "Attention parameters per layer",
    source=S31,
    topic=T,
)
