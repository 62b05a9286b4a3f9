"""Forward-pass tensor shapes, embedding to logits (seeds/001 "dimension changes").

Data, not quantities: each row is (step, tensor, dims, variant), dims over the model's
fields with T new tokens per sequence (prefill: T = L_p; decode: T = 1) and B sequences.
Renderers substitute the model's sizes. Shortcut: one representative layer.
"""

import sympy as sp

from .inputs import head_dim as dh
from .inputs import hidden_size as d
from .inputs import intermediate_size as dff
from .inputs import (
    kv_lora_rank,
    moe_intermediate_size,
    n_routed_experts,
    qk_nope_head_dim,
    qk_rope_head_dim,
    v_head_dim,
)
from .inputs import num_attention_heads as nh
from .inputs import num_key_value_heads as nkv
from .inputs import vocab_size as V

B, T = sp.Symbol("B"), sp.Symbol("T")
CACHED = sp.Symbol("S")  # tokens in the cache after this step

SHAPES = [
    ("input ids", "ids", [B, T], None),
    ("embedding lookup", "x", [B, T, d], None),
    ("RMSNorm", "h", [B, T, d], None),
    ("Q projection", "q", [B, nh, T, dh], "gqa"),
    ("K, V projections", "k, v", [B, nkv, T, dh], "gqa"),
    ("KV cache (per layer)", "K, V", [B, nkv, CACHED, dh], "gqa"),
    ("scores q K^T", "s", [B, nh, T, CACHED], "gqa"),
    ("softmax(s) V", "o", [B, nh, T, dh], "gqa"),
    ("Q path (W_DQ, W_UQ)", "q", [B, nh, T, qk_nope_head_dim + qk_rope_head_dim], "mla"),
    ("latent + RoPE key (cached)", "c_kv, k_rope", [B, CACHED, kv_lora_rank + qk_rope_head_dim], "mla"),
    ("scores (absorbed)", "s", [B, nh, T, CACHED], "mla"),
    ("attention output", "o", [B, nh, T, v_head_dim], "mla"),
    ("output projection + residual", "x", [B, T, d], None),
    ("MLP gate, up", "g, u", [B, T, dff], "dense"),
    ("router logits", "r", [B, T, n_routed_experts], "moe"),
    ("expert gate, up (per chosen expert)", "g, u", [B, T, moe_intermediate_size], "moe"),
    ("MLP down + residual", "x", [B, T, d], None),
    ("final RMSNorm, last position", "h", [B, 1, d], None),
    ("lm_head", "logits", [B, 1, V], None),
]
