"""What an image (or a second of audio) costs a server: its KV against the encoder's output,
its time and its price.

The usual intuition says the encoder is the expensive part and an image has a fixed budget.
The ledger shows why neither holds: an image's tokens then pass through every language layer
(2 N_lm FLOPs each, and KV in every self-attention layer: 2 L n_kv d_h bytes per token
against the d_model the encoder hands over), and a dynamic-resolution encoder's tokens grow
with the pixels. A cross-attention model (Llama 3.2 Vision) keeps its image KV in its few
cross-attention layers only.

Shortcuts: an image's time is its encoder pass under the time model (weights read once,
compute at mfu x peak); its price is the GPU time of its encoder FLOPs and its prompt
tokens' matmul FLOPs at mfu x peak (a busy, compute-bound prefill), at the GPU's price.
"""

from ledgerbuild.ledger import quantity

from .audio import QWEN2_AUDIO, audio_flops_per_window, audio_tokens_per_second, params_audio
from .flops import flops_prefill
from .inputs import activation_dtype_bytes, hidden_size, mfu, seconds_per_hour
from .kv_cache import image_kv_bytes, kv_bytes_per_token
from .latency import compute_time, memory_time, step_time
from .memory import gpu_count
from .numerics import peak_flops_per_s, weight_dtype_bytes
from .params import params_lm_head_matmul, params_matmul
from .serving import gpu_price
from .sources import LECTURE
from .vision import (
    MLLAMA,
    QWEN2_VL,
    T,
    image_prompt_tokens,
    image_tokens,
    params_connector,
    params_vision,
    vision_flops_per_image,
    vision_flops_per_request,
)

S51 = LECTURE + " §5.1"


def encoder_time(flops, weight_bytes_per_gpu):
    """One encoder pass under the time model: its FLOPs over the GPUs, its weights read once
    (the tower's per-layer kernel overhead is not counted)."""
    return step_time(compute_time(flops), memory_time(weight_bytes_per_gpu), 0, 0, 0)


encoder_output_bytes = quantity(
    "encoder_output_bytes",
    image_tokens * hidden_size * activation_dtype_bytes,
    "bytes",
    "What the connector hands the language model per image: image tokens x d_model activations",
    source=QWEN2_VL,
    topic=T,
    when="vision",
)
quantity(
    "image_kv_over_encoder_output",
    image_kv_bytes / encoder_output_bytes,
    "ratio",
    "Image KV over the encoder's output (self-attention: 2 L n_kv d_h KV bytes / d_model activation bytes)",
    source=S51,
    topic=T,
    when="vision",
)
image_kv_in_context = quantity(
    "image_kv_bytes_in_context",
    image_tokens * kv_bytes_per_token,
    "bytes",
    "KV the image would hold as prompt tokens in every self-attention layer",
    source=S51 + "; " + MLLAMA,
    topic=T,
    when="vision_cross",
)
quantity(
    "cross_attention_kv_saving_bytes",
    image_kv_in_context - image_kv_bytes,
    "bytes",
    "KV per image that cross-attention saves against image tokens in the prompt",
    source=MLLAMA,
    topic=T,
    when="vision_cross",
)
vision_weight_bytes_per_gpu = quantity(
    "vision_weight_bytes_per_gpu",
    (params_vision + params_connector) * weight_dtype_bytes / gpu_count,
    "bytes",
    "Encoder and connector weights each GPU reads per encoder pass",
    source=LECTURE + " §6.1",
    topic=T,
    when="vision",
)
quantity(
    "vision_encoder_s",
    encoder_time(vision_flops_per_image, vision_weight_bytes_per_gpu),
    "s",
    "Encoder time for one image under the time model in force",
    source=LECTURE + " §6.2",
    topic=T,
    when="vision",
)
quantity(
    "vision_share_of_prefill",
    vision_flops_per_request / flops_prefill,
    "fraction",
    "Share of a request's prefill FLOPs spent in the vision encoder",
    source=QWEN2_VL,
    topic=T,
    when="vision",
)
image_flops = quantity(
    "image_flops",
    vision_flops_per_image + 2 * (params_matmul - params_lm_head_matmul) * image_prompt_tokens,
    "FLOP",
    "FLOPs of one image: its encoder pass and its prompt tokens through the language model's "
    "matmuls (attention not counted)",
    source=LECTURE + " §4.3",
    topic=T,
    when="vision",
)
quantity(
    "usd_per_image",
    image_flops / (mfu * peak_flops_per_s) * gpu_price / seconds_per_hour,
    "USD",
    "Price of one image: GPU time of image_flops at mfu x peak, at the GPU's price",
    source=LECTURE + " §6.3",
    topic=T,
    when="vision",
)

quantity(
    "audio_kv_bytes_per_second",
    audio_tokens_per_second * kv_bytes_per_token,
    "bytes/s",
    "KV a second of audio holds as prompt tokens (every self-attention layer)",
    source=S51 + "; " + QWEN2_AUDIO,
    topic=T,
    when="audio",
)
quantity(
    "audio_encoder_s",
    encoder_time(audio_flops_per_window, (params_audio + params_connector) * weight_dtype_bytes / gpu_count),
    "s",
    "Encoder time for one 30-s window under the time model in force",
    source=LECTURE + " §6.2; " + QWEN2_AUDIO,
    topic=T,
    when="audio",
)
