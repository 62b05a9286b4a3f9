"""KV cache: bytes per token (MHA/MQA/GQA and MLA), per request, per GPU; decode intensity.

Lecture §5 (seeds/000): 2 x layers x KV heads x d_h x bytes for the GQA family (MHA: n_kv =
n_h; MQA: n_kv = 1); MLA caches the latent (kv_lora_rank) plus the shared RoPE key
(qk_rope_head_dim). Windowed layers keep at most their window. Tensor parallel (§6.1): KV
heads are split over GPUs and replicated when there are fewer heads than GPUs; an MLA latent
is held whole on every GPU (kv_shard_fraction, formulas/memory.py). KV formats carry their
block scales (kv_bits_per_element, formulas/numerics.py).
"""

from ledgerbuild.ledger import quantity

from .flops import attn_flops_per_visible_token, prefill_tokens, visible_tokens
from .inputs import (
    context_tokens,
    head_dim,
    kv_lora_rank,
    num_attention_heads,
    num_hidden_layers,
    num_key_value_heads,
    output_tokens,
    qk_nope_head_dim,
    qk_rope_head_dim,
    v_head_dim,
)
from .linear_attention import GDN, linear_attention_state_elements_per_layer, num_linear_attention_layers
from .numerics import kv_dtype_bytes
from .sources import DEEPSEEK_V2, LECTURE
from .sparse_attention import DSA, REF, index_selected_tokens, indexer_kv_bytes_per_token
from .vision import MLLAMA, QWEN2_VL, image_tokens, num_cross_attention_layers, vision_inputs_per_request
from .vision import T as VISION_TOPIC

T = "kv_cache"
B = "bytes"
S51 = LECTURE + " §5.1"
S53 = LECTURE + " §5.3"

kv_elems_per_token_layer = quantity(
    "kv_elems_per_token_layer",
    2 * num_key_value_heads * head_dim,
    "elements",
    "K and V elements cached per token per layer",
    source=S51,
    topic=T,
    integer=True,
    when="gqa",
)
quantity(
    "kv_elems_per_token_layer",
    kv_lora_rank + qk_rope_head_dim,
    "elements",
    "Latent plus shared RoPE key cached per token per layer",
    source=S53 + "; §5.4",
    topic=T,
    integer=True,
    when="mla",
)
kv_bytes_per_token_layer = quantity(
    "kv_bytes_per_token_layer",
    kv_elems_per_token_layer * kv_dtype_bytes,
    B,
    "KV bytes one token adds to one layer",
    source=S51,
    topic=T,
)
kv_bytes_per_token = quantity(
    "kv_bytes_per_token",
    num_hidden_layers * kv_bytes_per_token_layer + indexer_kv_bytes_per_token,
    B,
    "KV bytes per token over all layers, the DSA indexer's keys included",
    source=S51 + "; " + REF,
    topic=T,
    when="dsa",
)
quantity(
    "kv_bytes_per_token",
    (num_hidden_layers - num_cross_attention_layers) * kv_bytes_per_token_layer,
    B,
    "KV bytes per token over the self-attention layers (no window caps)",
    source=S51 + "; " + MLLAMA,
    topic=T,
    when="vision_cross",
)
quantity(
    "kv_bytes_per_token",
    (num_hidden_layers - num_linear_attention_layers) * kv_bytes_per_token_layer,
    B,
    "KV bytes per token over the full-attention layers (no window caps)",
    source=S51 + "; " + GDN,
    topic=T,
    when="hybrid",
)
quantity(
    "kv_bytes_per_token",
    num_hidden_layers * kv_bytes_per_token_layer,
    B,
    "KV bytes per token over all layers (no window caps)",
    source=S51,
    topic=T,
)


def kv_bytes_at(tokens):
    """KV bytes of one sequence of `tokens`, windowed layers capped at their window."""
    return kv_bytes_per_token_layer * visible_tokens(tokens)


def dsa_kv_bytes_at(tokens):
    """KV bytes of one sequence of `tokens` in a DSA model: the MLA latents and the indexer keys."""
    return kv_bytes_at(tokens) + indexer_kv_bytes_per_token * tokens


linear_state_bytes = quantity(
    "linear_attention_state_bytes",
    num_linear_attention_layers * linear_attention_state_elements_per_layer * kv_dtype_bytes,
    B,
    "Fixed state one sequence holds in the linear-attention layers, whatever its length",
    source=GDN,
    topic=T,
    when="hybrid",
)
image_kv_bytes = quantity(
    "image_kv_bytes",
    image_tokens * num_cross_attention_layers * kv_bytes_per_token_layer,
    B,
    "KV of one image, held once per request in the cross-attention layers only",
    source=MLLAMA,
    topic=VISION_TOPIC,
    when="vision_cross",
)
quantity(
    "image_kv_bytes",
    image_tokens * kv_bytes_per_token,
    B,
    "KV of one image's tokens in the prompt, every self-attention layer (no window caps)",
    source=S51 + "; " + QWEN2_VL,
    topic=VISION_TOPIC,
    when="vision",
)
kv_bytes_per_request = quantity(
    "kv_bytes_per_request",
    kv_bytes_at(prefill_tokens + output_tokens) + vision_inputs_per_request * image_kv_bytes,
    B,
    "KV bytes one request holds at its end, with its images' cross-attention KV",
    source=LECTURE + " §6.1; " + MLLAMA,
    topic=T,
    when="vision_cross",
)
quantity(
    "kv_bytes_per_request",
    dsa_kv_bytes_at(prefill_tokens + output_tokens),
    B,
    "KV bytes one request holds at its end, the indexer keys included",
    source=LECTURE + " §6.1; " + REF,
    topic=T,
    when="dsa",
)
quantity(
    "kv_bytes_per_request",
    kv_bytes_at(prefill_tokens + output_tokens) + linear_state_bytes,
    B,
    "KV bytes one request holds at its end, with its linear layers' fixed state",
    source=LECTURE + " §6.1; " + GDN,
    topic=T,
    when="hybrid",
)
quantity(
    "kv_bytes_per_request",
    kv_bytes_at(prefill_tokens + output_tokens),
    B,
    "KV bytes one request holds at its end",
    source=LECTURE + " §6.1",
    topic=T,
)
quantity(
    "kv_bytes_at_context",
    dsa_kv_bytes_at(context_tokens),
    B,
    "KV bytes of one sequence at context_tokens, the indexer keys included",
    source=S51 + "; " + REF,
    topic=T,
    when="dsa",
)
kv_bytes_at_context = quantity(
    "kv_bytes_at_context",
    kv_bytes_at(context_tokens),
    B,
    "KV bytes of one sequence at context_tokens",
    source=S51,
    topic=T,
)
quantity(
    "kv_bytes_prompt",
    dsa_kv_bytes_at(prefill_tokens),
    B,
    "KV bytes written by a prefill of prefill_tokens, the indexer keys included",
    source=S51 + "; " + REF,
    topic=T,
    when="dsa",
)
kv_bytes_prompt = quantity(
    "kv_bytes_prompt",
    kv_bytes_at(prefill_tokens),
    B,
    "KV bytes written by a prefill of prefill_tokens",
    source=S51,
    topic=T,
)
quantity(
    "kv_bytes_read_decode",
    kv_bytes_at(index_selected_tokens) + indexer_kv_bytes_per_token * context_tokens,
    B,
    "KV bytes one sequence's decode step reads: the index_topk selected entries per layer and every "
    "cached indexer key",
    source=DSA + " eq. (2); " + REF,
    topic=T,
    when="dsa",
)
kv_bytes_read_decode = quantity(
    "kv_bytes_read_decode",
    kv_bytes_at_context,
    B,
    "KV bytes one sequence's decode step reads: its whole cache at context_tokens",
    source=S51,
    topic=T,
)
quantity(
    "decode_attention_intensity",
    attn_flops_per_visible_token / kv_bytes_per_token_layer,
    "FLOP/byte",
    "Decode attention FLOPs per KV byte read (GQA: the group size at 2-byte KV)",
    source=LECTURE + " §5.2",
    topic=T,
    when="gqa",
)
quantity(
    "decode_attention_intensity",
    2 * num_attention_heads * (2 * kv_lora_rank + qk_rope_head_dim) / kv_bytes_per_token_layer,
    "FLOP/byte",
    "Decode attention FLOPs per KV byte read, MLA after absorption",
    source=S53,
    topic=T,
    when="mla",
)
quantity(
    "mla_decompress_flops_layer",
    2 * kv_lora_rank * num_attention_heads * (qk_nope_head_dim + v_head_dim) * context_tokens,
    "FLOP",
    "Naive MLA: decompressing context_tokens latents into K, V in one layer",
    source=S53 + " (137 GFLOP at 4,096)",
    topic=T,
    when="mla",
)
quantity(
    "mla_absorbed_attention_flops_layer",
    2 * num_attention_heads * (2 * kv_lora_rank + qk_rope_head_dim) * context_tokens,
    "FLOP",
    "Absorbed MLA: attention in the latent space in one layer, one decode token",
    source=S53 + " (~1.1 GFLOP at 4,096); " + DEEPSEEK_V2,
    topic=T,
    when="mla",
)
