"""Long context: what grows linearly and what quadratically with the tokens a request holds.

KV per request grows linearly (kv_cache.py: sliding-window and chunked layers cap theirs),
so concurrency falls as 1/context; attention FLOPs grow quadratically (flops.py), so TTFT
does. Two figures this module adds: the attention-score matrix an unfused kernel
materialises, n_h s^2 elements per layer (FlashAttention never writes it), and the context at
which a decode step's KV reads overtake its weight reads.
Shortcut: the crossover treats every layer as full attention and every weight as read.
"""

from ledgerbuild.ledger import quantity

from .inputs import attention_scores_dtype_bytes, batch_size, num_attention_heads, prompt_tokens
from .kv_cache import kv_bytes_per_token
from .numerics import weight_bytes
from .sources import FLASH_ATTENTION, SHAPES

T = "long_context"

quantity(
    "attention_scores_bytes_per_layer",
    num_attention_heads * prompt_tokens**2 * attention_scores_dtype_bytes,
    "bytes",
    "Attention-score matrix of one layer at prompt_tokens, materialised by an unfused kernel "
    "(n_h x s^2 elements; a fused kernel keeps it on chip)",
    source=FLASH_ATTENTION + " §2.2 (standard attention writes S and P to HBM)",
    topic=T,
)
quantity(
    "kv_crossover_context_tokens",
    weight_bytes / (batch_size * kv_bytes_per_token),
    "tokens",
    "Context at which a decode step's KV reads (batch_size sequences) equal its weight reads; "
    "beyond it decode is KV-bound",
    source=SHAPES + " (decode reads weights once and every sequence's KV)",
    topic=T,
)
