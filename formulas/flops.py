"""FLOPs: per decode token at a context, per prefill, the ratio to "2N", the crossover.

Lecture §4 (seeds/000): a matmul of (m x k)(k x n) is 2mkn FLOPs, so a token costs
2 x (parameters in matmuls) plus attention 2 n_h (d_qk + d_v) per visible token per layer
(= 4 n_h d_h S for GQA). Prefill sums the visible tokens over positions 1..L_p, and computes
logits for the last position only. Shortcuts: softmax, norms and activations are not
counted (they are not matmuls); sliding layers see min(S, window) tokens when the engine caps
them (engine table sliding_window_kv; TensorRT-LLM v0.17 engines keep the full context),
chunked layers see the tokens of their own chunk.
"""

from sympy import Max, Min, Piecewise, floor

from ledgerbuild.ledger import quantity

from .audio import QWEN2_AUDIO, audio_flops_per_request, audio_tokens
from .inputs import attention_chunk_size as C
from .inputs import (
    context_tokens,
    num_attention_heads,
    num_chunked_layers,
    num_hidden_layers,
    num_indexer_layers,
    num_sliding_layers,
    prompt_tokens,
)
from .inputs import sliding_window as W
from .inputs import sliding_window_kv as K
from .linear_attention import GDN, num_linear_attention_layers
from .params import attn_v_head_dim, params_lm_head_matmul, params_matmul, params_total, qk_head_dim
from .sources import LECTURE, PREREQ, SHAPES
from .sparse_attention import (
    DSA,
    HF_DSA,
    index_selected_tokens,
    index_topk,
    indexer_flops_decode,
    indexer_flops_per_scored_token,
    selected_prefill,
)
from .sparse_attention import T as SPARSE_TOPIC
from .vision import (
    MLLAMA,
    QWEN2_VL,
    num_cross_attention_layers,
    vision_flops_per_request,
    vision_prompt_tokens_per_request,
)

T = "flops"
F = "FLOP"
S42 = LECTURE + " §4.2"
S43 = LECTURE + " §4.3"

quantity(
    "prefill_tokens",
    prompt_tokens + audio_tokens,
    "tokens",
    "Tokens a prefill processes: the prompt and its audio's tokens",
    source=S43 + "; " + QWEN2_AUDIO,
    topic=T,
    integer=True,
    when="audio",
)
prefill_tokens = quantity(
    "prefill_tokens",
    prompt_tokens + vision_prompt_tokens_per_request,
    "tokens",
    "Tokens a prefill processes: the prompt and the tokens of its images and video",
    source=S43 + "; " + QWEN2_VL,
    topic=T,
    integer=True,
    when="images",
)
quantity(
    "prefill_tokens",
    prompt_tokens,
    "tokens",
    "Tokens a prefill processes: the prompt",
    source=S43,
    topic=T,
    integer=True,
)
num_full_layers = quantity(
    "num_full_layers",
    num_hidden_layers - num_sliding_layers - num_chunked_layers - num_cross_attention_layers,
    "layers",
    "Layers attending to the whole context (cross-attention layers attend to images only)",
    source=S42 + "; " + MLLAMA,
    topic=T,
    integer=True,
    when="vision_cross",
)
quantity(
    "num_full_layers",
    num_hidden_layers - num_sliding_layers - num_chunked_layers - num_linear_attention_layers,
    "layers",
    "Layers attending to the whole context (linear-attention layers keep a fixed state)",
    source=S42 + "; " + GDN,
    topic=T,
    integer=True,
    when="hybrid",
)
quantity(
    "num_full_layers",
    num_hidden_layers - num_sliding_layers - num_chunked_layers,
    "layers",
    "Layers attending to the whole context",
    source=S42,
    topic=T,
    integer=True,
)
attn_flops_per_visible_token = quantity(
    "attn_flops_per_visible_token",
    2 * num_attention_heads * (qk_head_dim + attn_v_head_dim),
    "FLOP/token",
    "Attention FLOPs per layer per visible token: QK^T plus the weighted sum of V",
    source=S42,
    topic=T,
    integer=True,
)


def visible_tokens(s):
    """Tokens the last of `s` positions attends to, summed over layers."""
    return (
        num_full_layers * s
        + num_sliding_layers * (K * Min(s, W) + (1 - K) * s)
        + num_chunked_layers * Min(s, C)
    )


def triangle(n):
    return n * (n + 1) / 2


def visible_sliding_prefill(n):
    """Visible tokens of one sliding layer summed over positions 1..n."""
    m = Min(n, W)
    return K * (triangle(m) + (n - m) * W) + (1 - K) * triangle(n)


def visible_chunked_prefill(n):
    """Visible tokens of one chunked layer summed over positions 1..n."""
    whole_chunks = floor(n / Max(C, 1))  # Max: C is 0 on models without chunked layers
    return whole_chunks * triangle(C) + triangle(n - C * whole_chunks)


quantity(
    "flops_attention_decode",
    attn_flops_per_visible_token * visible_tokens(index_selected_tokens) + indexer_flops_decode,
    F,
    "Attention FLOPs of one decode token at context_tokens: the index_topk selected entries per layer, "
    "plus the indexer scoring the whole context",
    source=S42 + "; " + DSA,
    topic=T,
    when="dsa",
)
flops_attention_decode = quantity(
    "flops_attention_decode",
    attn_flops_per_visible_token * visible_tokens(context_tokens),
    F,
    "Attention FLOPs of one decode token at context_tokens",
    source=S42,
    topic=T,
)
flops_per_token = quantity(
    "flops_per_token",
    2 * params_matmul + flops_attention_decode,
    F,
    "FLOPs of one decode token at context_tokens",
    source=S42,
    topic=T,
)
flops_prefill_linear = quantity(
    "flops_prefill_linear",
    2 * (params_matmul - params_lm_head_matmul) * prefill_tokens + 2 * params_lm_head_matmul,
    F,
    "Prefill matmul FLOPs, logits for the last position only",
    source=S43,
    topic=T,
    integer=True,
)
sliding_visible = quantity(
    "prefill_visible_tokens_sliding_layer",
    visible_sliding_prefill(prefill_tokens),
    "tokens",
    "Visible tokens of one sliding-window layer over the prompt's positions",
    source=S43,
    topic=T,
)
chunked_visible = quantity(
    "prefill_visible_tokens_chunked_layer",
    visible_chunked_prefill(prefill_tokens),
    "tokens",
    "Visible tokens of one chunked-attention layer over the prompt's positions",
    source=S43,
    topic=T,
)
selected_visible = quantity(
    "prefill_selected_tokens_layer",
    selected_prefill(prefill_tokens),
    "tokens",
    "Entries one DSA layer's attention reads over the prompt's positions: sum of min(position, index_topk)",
    source=DSA + " eq. (2)",
    topic=SPARSE_TOPIC,
    when="dsa",
)
indexer_flops_prefill = quantity(
    "indexer_flops_prefill",
    num_indexer_layers * indexer_flops_per_scored_token * triangle(prefill_tokens),
    F,
    "Indexer FLOPs of a prefill: each position scores every preceding token (causal) in every indexer layer",
    source=DSA + "; " + HF_DSA,
    topic=SPARSE_TOPIC,
    when="dsa",
)
quantity(
    "flops_prefill_attention",
    attn_flops_per_visible_token * num_full_layers * selected_visible + indexer_flops_prefill,
    F,
    "Prefill attention FLOPs with DSA: index_topk entries per position and layer, plus the indexer",
    source=S43 + "; " + DSA,
    topic=T,
    when="dsa",
)
flops_prefill_attention = quantity(
    "flops_prefill_attention",
    attn_flops_per_visible_token
    * (
        num_full_layers * triangle(prefill_tokens)
        + num_sliding_layers * sliding_visible
        + num_chunked_layers * chunked_visible
    ),
    F,
    "Prefill attention FLOPs (causal; grows with L_p^2)",
    source=S43,
    topic=T,
)
quantity(
    "flops_prefill",
    flops_prefill_linear + flops_prefill_attention + audio_flops_per_request,
    F,
    "FLOPs to prefill prefill_tokens, with the audio encoder's",
    source=S43 + "; " + QWEN2_AUDIO,
    topic=T,
    when="audio",
)
flops_prefill = quantity(
    "flops_prefill",
    flops_prefill_linear + flops_prefill_attention + vision_flops_per_request,
    F,
    "FLOPs to prefill prefill_tokens, with the vision encoder's",
    source=S43 + "; " + QWEN2_VL,
    topic=T,
    when="vision",
)
quantity(
    "flops_prefill",
    flops_prefill_linear + flops_prefill_attention,
    F,
    "FLOPs to prefill prefill_tokens",
    source=S43,
    topic=T,
)
quantity(
    "prefill_attention_share",
    flops_prefill_attention / flops_prefill,
    "fraction",
    "Share of prefill FLOPs spent in attention",
    source=S43 + "; exercise 2",
    topic=T,
)
quantity(
    "prefill_over_2n",
    flops_prefill / flops_prefill_linear,
    "ratio",
    "Prefill FLOPs over '2N' of the matmul weights (attention's growing share; the lecture's 3.5x at 128K)",
    source=S43 + " (128K prompt: 3.5 x '2N')",
    topic=T,
)
quantity(
    "flops_per_token_over_2n",
    flops_per_token / (2 * params_total),
    "ratio",
    "Decode FLOPs per token relative to 2 x total parameters",
    source=LECTURE + " §4.4",
    topic=T,
)
_dsa_per_token = attn_flops_per_visible_token * num_full_layers  # attention per selected entry
_indexer_per_token = indexer_flops_per_scored_token * num_indexer_layers
_below_topk = quantity(
    "context_attention_equals_rest_below_topk",
    2 * params_matmul / (_dsa_per_token + _indexer_per_token),
    "tokens",
    "Context at which attention equals the rest while every entry is selected (context <= "
    "index_topk): the layers' attention and indexer FLOPs per context token",
    source=S42 + "; " + DSA,
    topic=T,
    when="dsa",
)
quantity(
    "context_attention_equals_rest",
    Piecewise(
        (_below_topk, _below_topk <= index_topk),
        ((2 * params_matmul - _dsa_per_token * index_topk) / _indexer_per_token, True),
    ),
    "tokens",
    "Context at which attention FLOPs (index_topk entries a layer, the indexer over the whole "
    "context) equal all the rest",
    source=S42 + "; " + DSA,
    topic=T,
    when="dsa",
)
quantity(
    "context_attention_equals_rest",
    2 * params_matmul / (attn_flops_per_visible_token * num_hidden_layers),
    "tokens",
    "Context at which attention FLOPs equal all the rest (no window caps)",
    source=S42 + "; §10 (Llama-3-8B ~29K)",
    topic=T,
)

# rule of thumb of seeds/001 and the worked request of seeds/002 (peak: formulas/numerics.py)
flops_prefill_2n = quantity(
    "flops_prefill_2n",
    2 * params_total * prompt_tokens,
    F,
    "Rule of thumb: prefill FLOPs = 2 x N x L_p",
    source=SHAPES + " (mental-math rule 1); " + PREREQ,
    topic=T,
)
