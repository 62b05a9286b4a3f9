"""Sparse attention against dense: what DSA saves at a context, and where it starts to pay.

The mechanism (indexer weights, cache, scoring FLOPs, the top-k rule) is in
sparse_attention.py; flops.py and kv_cache.py read it in their DSA forms (attention FLOPs and
the KV a decode step reads use min(context, index_topk) entries per layer; the KV held adds
the indexer keys). This module sets those beside the dense attention the same model would
run without its indexer (DeepSeek-V3.1-Terminus is V3.2 without DSA, report §2), and solves
for the crossover context: below index_topk the indexer is pure overhead; beyond it, with A
the attention FLOPs per entry over the L layers and I those of the indexer per scored token,
sparse decode costs A k + I S against A S, so it pays from S* = A k / (A - I). The same
rule on bytes: latents read L c k + i S against L c S (c the latent bytes per token and
layer, i the indexer key bytes per token). Shortcuts: every layer is full attention; A > I
(and L c > i), as in every DSA model; A is the ledger's attention per entry,
2 n_h (d_qk + d_v) (flops.py), not absorbed MLA's larger per-entry work in the latent space
(kv_cache.py mla_absorbed_attention_flops_layer), which would put the FLOP crossover lower.
"""

from ledgerbuild.ledger import quantity

from .flops import (
    attn_flops_per_visible_token,
    flops_attention_decode,
    flops_prefill_attention,
    num_full_layers,
    prefill_tokens,
    triangle,
    visible_tokens,
)
from .inputs import context_tokens, index_topk, num_indexer_layers
from .kv_cache import kv_bytes_at, kv_bytes_per_token_layer, kv_bytes_read_decode
from .sparse_attention import DSA, REF, T, indexer_flops_per_scored_token, indexer_kv_bytes_per_token

F = "FLOP"
DENSE = DSA + " (dense MLA, as in DeepSeek-V3.1-Terminus)"

dense_decode = quantity(
    "dense_attention_flops_decode",
    attn_flops_per_visible_token * visible_tokens(context_tokens),
    F,
    "Attention FLOPs of one decode token at context_tokens, every cached entry read and no indexer",
    source=DENSE,
    topic=T,
    when="dsa",
)
quantity(
    "sparse_attention_flops_ratio_decode",
    flops_attention_decode / dense_decode,
    "ratio",
    "Decode attention FLOPs with DSA (indexer included) over dense attention at context_tokens",
    source=DSA,
    topic=T,
    when="dsa",
)
dense_prefill = quantity(
    "dense_attention_flops_prefill",
    attn_flops_per_visible_token * num_full_layers * triangle(prefill_tokens),
    F,
    "Prefill attention FLOPs were every position to attend to all its predecessors (causal, no indexer)",
    source=DENSE,
    topic=T,
    when="dsa",
)
quantity(
    "sparse_attention_flops_ratio_prefill",
    flops_prefill_attention / dense_prefill,
    "ratio",
    "Prefill attention FLOPs with DSA (indexer included) over dense attention at prefill_tokens",
    source=DSA,
    topic=T,
    when="dsa",
)
dense_read = quantity(
    "dense_kv_bytes_read_decode",
    kv_bytes_at(context_tokens),
    "bytes",
    "KV bytes a decode step of one sequence would read with dense attention (every latent, no indexer keys)",
    source=DENSE,
    topic=T,
    when="dsa",
)
quantity(
    "sparse_kv_read_ratio_decode",
    kv_bytes_read_decode / dense_read,
    "ratio",
    "KV bytes a DSA decode step reads (selected latents, all indexer keys) over dense attention's",
    source=DSA + "; " + REF,
    topic=T,
    when="dsa",
)
attention_per_entry = attn_flops_per_visible_token * num_full_layers
indexer_per_token = num_indexer_layers * indexer_flops_per_scored_token
quantity(
    "sparse_crossover_context_flops",
    attention_per_entry * index_topk / (attention_per_entry - indexer_per_token),
    "tokens",
    "Context beyond which DSA decode attention costs fewer FLOPs than dense: A k / (A - I)",
    source=DSA + " (O(L k) core attention, O(L^2) indexer)",
    topic=T,
    when="dsa",
)
latent_per_token = kv_bytes_per_token_layer * num_full_layers
quantity(
    "sparse_crossover_context_bytes",
    latent_per_token * index_topk / (latent_per_token - indexer_kv_bytes_per_token),
    "tokens",
    "Context beyond which a DSA decode step reads fewer KV bytes than dense: L c k / (L c - i)",
    source=DSA + "; " + REF,
    topic=T,
    when="dsa",
)
