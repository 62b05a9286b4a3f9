"""Per-layer sub-steps: FLOPs and HBM bytes of one layer, prefill vs decode (seeds/001).

seeds/001 "per-layer compute / memory per sub-step": one layer's QKV projection, attention
(QK^T and the weighted sum of V), output projection and MLP, for prefill (N = prompt_tokens
new tokens) and decode (N = batch_size new tokens at context_tokens). Weight bytes are read
once per step; KV bytes are written (prefill, projections) or read (decode, attention).
Shortcuts: a full-attention layer; the MLP is the per-layer average (MoE: the active experts
for decode, all experts for prefill); activations are fused (no HBM traffic), as in seeds/001.
Attention FLOPs are causal (the lecture §4.3); seeds/001's table counts the full S x S square.
A DSA layer (formulas/sparse_attention.py) attends to min(position, index_topk) entries and
runs its lightning indexer beside: the indexer's projections, its scoring over the whole
context and its key reads count in the attention step (the layer is taken to have an indexer).
"""

from ledgerbuild.ledger import quantity

from .flops import attn_flops_per_visible_token, triangle
from .inputs import (
    batch_size,
    context_tokens,
    hidden_size,
    num_attention_heads,
    num_hidden_layers,
    prompt_tokens,
)
from .kv_cache import kv_bytes_per_token_layer
from .numerics import weight_dtype_bytes
from .params import attn_v_head_dim, matmul_attn_layer, matmul_mlp, params_mlp
from .sources import SHAPES
from .sparse_attention import (
    DSA,
    index_selected_tokens,
    indexer_flops_per_scored_token,
    indexer_kv_bytes_per_token_layer,
    matmul_indexer_layer,
    selected_prefill,
)

T = "layer_steps"
SRC = SHAPES + " (per-layer sub-steps)"

matmul_o_layer = quantity(
    "matmul_o_layer",
    num_attention_heads * attn_v_head_dim * hidden_size,
    "params",
    "Output projection weights per layer",
    source=SRC,
    topic=T,
)
matmul_qkv_layer = quantity(
    "matmul_qkv_layer",
    matmul_attn_layer - matmul_o_layer,
    "params",
    "Q, K, V projection weights per layer (MLA: with the latent paths)",
    source=SRC,
    topic=T,
)

STEPS = {  # step: (prefill FLOPs, decode FLOPs, prefill bytes, decode bytes)
    "qkv": (
        2 * prompt_tokens * matmul_qkv_layer,
        2 * batch_size * matmul_qkv_layer,
        matmul_qkv_layer * weight_dtype_bytes + prompt_tokens * kv_bytes_per_token_layer,
        matmul_qkv_layer * weight_dtype_bytes + batch_size * kv_bytes_per_token_layer,
    ),
    "attention": (
        attn_flops_per_visible_token * triangle(prompt_tokens),
        batch_size * attn_flops_per_visible_token * context_tokens,
        prompt_tokens * kv_bytes_per_token_layer,
        batch_size * context_tokens * kv_bytes_per_token_layer,
    ),
    "o_proj": (
        2 * prompt_tokens * matmul_o_layer,
        2 * batch_size * matmul_o_layer,
        matmul_o_layer * weight_dtype_bytes,
        matmul_o_layer * weight_dtype_bytes,
    ),
    "mlp": (
        2 * prompt_tokens * matmul_mlp / num_hidden_layers,
        2 * batch_size * matmul_mlp / num_hidden_layers,
        params_mlp / num_hidden_layers * weight_dtype_bytes,
        matmul_mlp / num_hidden_layers * weight_dtype_bytes,
    ),
}
INDEXER_WEIGHTS = matmul_indexer_layer * weight_dtype_bytes
DSA_ATTENTION = (  # the attention step of a DSA layer: selected entries, the indexer beside
    attn_flops_per_visible_token * selected_prefill(prompt_tokens)
    + indexer_flops_per_scored_token * triangle(prompt_tokens)
    + 2 * prompt_tokens * matmul_indexer_layer,
    batch_size
    * (
        attn_flops_per_visible_token * index_selected_tokens
        + indexer_flops_per_scored_token * context_tokens
        + 2 * matmul_indexer_layer
    ),
    prompt_tokens * (kv_bytes_per_token_layer + indexer_kv_bytes_per_token_layer) + INDEXER_WEIGHTS,
    batch_size
    * (index_selected_tokens * kv_bytes_per_token_layer + context_tokens * indexer_kv_bytes_per_token_layer)
    + INDEXER_WEIGHTS,
)
WHAT = {
    "qkv": "QKV projection",
    "attention": "attention (QK^T, softmax, x V)",
    "o_proj": "output projection",
    "mlp": "MLP (gate, up, down)",
}

for phase, (fi, bi) in (("prefill", (0, 2)), ("decode", (1, 3))):
    flops = bytes_ = 0
    for step, exprs in STEPS.items():
        if step == "attention":
            for i, unit in ((fi, "FLOP"), (bi, "bytes")):
                kind = "flops" if unit == "FLOP" else "bytes"
                quantity(
                    f"layer_attention_{kind}_{phase}",
                    DSA_ATTENTION[i],
                    unit,
                    f"attention with DSA (index_topk entries, the indexer's projections, scores and keys): "
                    f"{'FLOPs' if unit == 'FLOP' else 'HBM bytes'} in one layer, {phase}",
                    source=SRC + "; " + DSA,
                    topic=T,
                    when="dsa",
                )
        f = quantity(
            f"layer_{step}_flops_{phase}",
            exprs[fi],
            "FLOP",
            f"{WHAT[step]}: FLOPs in one layer, {phase}",
            source=SRC,
            topic=T,
        )
        b = quantity(
            f"layer_{step}_bytes_{phase}",
            exprs[bi],
            "bytes",
            f"{WHAT[step]}: HBM bytes in one layer, {phase}",
            source=SRC,
            topic=T,
        )
        flops, bytes_ = flops + f, bytes_ + b
    f_total = quantity(
        f"layer_flops_{phase}", flops, "FLOP", f"One layer's FLOPs, {phase}", source=SRC, topic=T
    )
    b_total = quantity(
        f"layer_bytes_{phase}", bytes_, "bytes", f"One layer's HBM bytes, {phase}", source=SRC, topic=T
    )
    quantity(
        f"layer_intensity_{phase}",
        f_total / b_total,
        "FLOP/byte",
        f"One layer's arithmetic intensity, {phase}",
        source=SRC,
        topic=T,
    )
