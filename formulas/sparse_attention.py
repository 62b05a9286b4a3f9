"""DeepSeek Sparse Attention (DSA): the lightning indexer and top-k token selection.

DeepSeek-V3.2 (and GLM-5, which reuses it) adds to each MLA layer a *lightning indexer*: a
few heads (index_n_heads = H^I, width index_head_dim = d^I) score every preceding token,
I_{t,s} = sum_j w_{t,j} ReLU(q_{t,j} . k_s) (report eq. 1), and the layer's attention then
reads only the index_topk = k best-scoring cached entries (eq. 2). The indexer itself still
scores the whole context (O(L^2), but with H^I d^I small and in FP8); core attention costs
O(L k). Its weights, as transformers builds them: wq_b (q_lora_rank -> H^I d^I, from MLA's
query latent), wk (d -> d^I, one key head shared by the indexer heads), k_norm (a LayerNorm:
weight and bias) and weights_proj (d -> H^I, the per-head weights w). Each indexer layer
caches one key of d^I elements per token, in its own format (DeepSeek's reference: FP8 with
an FP32 scale per 128 elements, indexer_kv_dtype). GLM-5's "shared" layers reuse the previous
indexer layer's top-k and have no indexer of their own (num_indexer_layers). The MTP module's
block carries an indexer as well (params_mtp, formulas/speculative.py).

This module states the mechanism (imported before params.py and flops.py, which read it for
DSA models); what it costs beside dense attention at a context, and the crossover context,
follow in sparse_attention_costs.py. Shortcuts: the Hadamard rotation, the top-k selection
itself, ReLU and the score scaling are not counted (no matmul FLOPs); the indexer's scoring
is counted as q.k per head plus the weighted head sum, 2 H^I (d^I + 1) FLOPs per scored
token, as transformers computes it.
"""

from sympy import Min

from ledgerbuild.ledger import quantity

from .inputs import (
    bits_per_byte,
    bits_per_element,
    context_tokens,
    index_head_dim,
    index_n_heads,
    index_topk,
    indexer_kv_format,
    num_indexer_layers,
    q_lora_rank,
)
from .inputs import hidden_size as d

T = "sparse_attention"
DSA = "DeepSeek-V3.2 technical report (arXiv:2512.02556) §2.1 (DSA)"
HF_DSA = "HF transformers 5.23.0 models/deepseek_v32/modular_deepseek_v32.py (DeepseekV32Indexer)"
REF = (
    "deepseek-ai/DeepSeek-V3.2-Exp@6d8cb70 inference/model.py (class Indexer: k_cache float8_e4m3fn, "
    "k_scale_cache float32 per 128)"
)


def selected_tokens(s):
    """Cached entries one query's attention reads at context s: the top-k, or all when fewer."""
    return Min(s, index_topk)


def selected_prefill(n):
    """Entries attended summed over the positions 1..n of a prefill: sum of min(i, k)."""
    m = Min(n, index_topk)
    return m * (m + 1) / 2 + (n - m) * index_topk


matmul_indexer_layer = quantity(
    "matmul_indexer_layer",
    q_lora_rank * index_n_heads * index_head_dim + d * index_head_dim + d * index_n_heads,
    "params",
    "Indexer weights in matmuls per layer: wq_b (query latent -> H^I d^I), wk (d -> d^I), "
    "weights_proj (d -> H^I)",
    source=HF_DSA + "; " + DSA,
    topic=T,
    integer=True,
    when="dsa",
)
params_indexer_layer = quantity(
    "params_indexer_layer",
    matmul_indexer_layer + 2 * index_head_dim,
    "params",
    "Lightning-indexer parameters per indexer layer: its matmuls and the key LayerNorm (weight, bias)",
    source=HF_DSA,
    topic=T,
    integer=True,
    when="dsa",
)
params_indexer = quantity(
    "params_indexer",
    num_indexer_layers * params_indexer_layer,
    "params",
    "Lightning-indexer parameters of the model (layers with their own indexer)",
    source=HF_DSA,
    topic=T,
    integer=True,
    when="dsa",
)
indexer_kv_bytes_per_token_layer = quantity(
    "indexer_kv_bytes_per_token_layer",
    index_head_dim * bits_per_element(*indexer_kv_format) / bits_per_byte,
    "bytes",
    "Indexer key bytes one token adds to one indexer layer (d^I elements in indexer_kv_dtype, "
    "scales included)",
    source=REF,
    topic=T,
    when="dsa",
)
indexer_kv_bytes_per_token = quantity(
    "indexer_kv_bytes_per_token",
    num_indexer_layers * indexer_kv_bytes_per_token_layer,
    "bytes",
    "Indexer key bytes per token over the indexer layers (cached beside the MLA latent)",
    source=REF + "; " + HF_DSA + " (update_indexer)",
    topic=T,
    when="dsa",
)
indexer_flops_per_scored_token = quantity(
    "indexer_flops_per_scored_token",
    2 * index_n_heads * index_head_dim + 2 * index_n_heads,
    "FLOP/token",
    "Indexer FLOPs per layer per scored token: q.k for each indexer head, then the w-weighted head sum",
    source=DSA + " eq. (1); " + HF_DSA,
    topic=T,
    integer=True,
    when="dsa",
)
index_selected_tokens = quantity(
    "index_selected_tokens",
    selected_tokens(context_tokens),
    "tokens",
    "Cached entries a layer's attention reads at context_tokens: min(context, index_topk)",
    source=DSA + " eq. (2)",
    topic=T,
    when="dsa",
)
indexer_flops_decode = quantity(
    "indexer_flops_decode",
    num_indexer_layers * indexer_flops_per_scored_token * context_tokens,
    "FLOP",
    "Indexer FLOPs of one decode token: every cached token scored in every indexer layer",
    source=DSA + " (the indexer stays O(L^2))",
    topic=T,
    when="dsa",
)
