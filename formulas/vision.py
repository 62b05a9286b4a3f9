"""Vision-language models: the encoder's parameters, what an image becomes, what it costs.

A VLM is a vision encoder (a ViT: patch embedding, L_v pre-norm blocks of attention and a
two-layer MLP), a connector that turns patch features into the language model's embeddings,
and the language model. Four connector designs, one variant each (`vision_connector_code`):
- mlp (LLaVA-1.5): a two-layer MLP per patch; one token per patch, the CLS token dropped
  (vision_feature_select_strategy "default");
- merge (Qwen2-VL): 2 x 2 neighbouring patches concatenated and projected: a quarter of the
  patches; the image is first resized to multiples of 28 pixels within the processor's
  min/max pixels (smart_resize, transformers image_processing_qwen2_vl.py, rounding half to
  even as Python's round does);
- pool (Gemma 3): the SigLIP features average-pooled to mm_tokens_per_image (256), then a
  projection;
- cross (Llama 3.2 Vision): no image tokens in the prompt (one <|image|> token each); the
  encoder's output (max_num_tiles tiles of 560 px, each (560/14)^2 + CLS = 1601 positions,
  padded to 4 tiles as transformers does) is attended to by the cross-attention layers.
Fixed-size encoders (LLaVA 336 px, Gemma 3 896 px, Llama 3.2 560 px tiles) see the same
number of patches whatever the image size; Qwen2-VL's grows with the pixels.

Shortcuts: encoder FLOPs count matmuls (2 x weights x rows) and the attention's
4 L_v n_p^2 d_v; the connector is charged 2 x its parameters per image token (its biases and
norm as if weights: < 0.1%); norms, activations and Gemma's pooling are not counted. A video
is a sequence of frame groups of temporal_patch_size frames, each encoded like one image at
image_height x image_width (Qwen2-VL attends within a frame group). Parameter counts follow
the transformers classes named in ledgerbuild/families_vision.py to the integer.
"""

from sympy import Eq, Max, Piecewise, ceiling, floor, sqrt

from ledgerbuild.ledger import quantity

from .inputs import hidden_size as d
from .vision_inputs import (  # noqa: F401  (re-exported: params and the other topics read them here)
    GEMMA3,
    HALF,
    HF_VLM,
    LLAVA,
    MLLAMA,
    QWEN2_VL,
    VIT,
    H,
    L_v,
    P,
    S,
    T,
    W,
    aspect_ratios,
    attn_bias,
    channels,
    cls,
    d_ffv,
    d_v,
    embedding_extra_rows,
    extra_norms,
    gated_layers,
    images_per_request,
    learned_pos,
    m,
    max_pixels,
    min_pixels,
    n_hv,
    num_cross_attention_layers,
    p,
    patch_bias,
    pooled_tokens,
    t_p,
    tiled,
    tiles,
    video_fps,
    video_seconds,
    vision_output_size,
)


def when(tag):
    return {"topic": T, "when": tag}


# --- parameters ---------------------------------------------------------------------------
vision_positions_per_tile = quantity(
    "vision_positions_per_tile",
    learned_pos * ((S / p) ** 2 + cls),
    "positions",
    "Rows of the learned position table (patches of a side-S image, + CLS; 0 with RoPE)",
    source=VIT,
    integer=True,
    **when("vision"),
)
params_vision_layer = quantity(
    "params_vision_layer",
    4 * d_v**2 + 4 * attn_bias * d_v + 2 * d_v * d_ffv + d_ffv + d_v + 4 * d_v,
    P,
    "One vision block: Q, K, V, O (+ biases), fc1 and fc2 with biases, two LayerNorms",
    source=VIT + "; " + HF_VLM,
    integer=True,
    **when("vision"),
)
params_vision = quantity(
    "params_vision",
    channels * t_p * p**2 * d_v
    + patch_bias * d_v
    + (vision_positions_per_tile + cls) * d_v
    + extra_norms * 2 * d_v
    + L_v * params_vision_layer
    + 2 * gated_layers
    + tiled * ((aspect_ratios + 1) * tiles * (vision_positions_per_tile + 2) * d_v + 3),
    P,
    "Vision encoder: patch embedding, positions and CLS, blocks, outer norms, gates, "
    "tile embeddings (Llama 3.2: per layout, per tile: positions + pre/post tile rows)",
    source=VIT + "; " + HF_VLM,
    integer=True,
    **when("vision"),
)
CONNECTOR = "Connector parameters"
params_connector = quantity(
    "params_connector",
    d_v * d + d + d * d + d,
    P,
    CONNECTOR + ": two-layer MLP with biases (d_v -> d -> d)",
    source=LLAVA,
    integer=True,
    **when("vision_mlp"),
)
quantity(
    "params_connector",
    2 * d_v + (m**2 * d_v) ** 2 + m**2 * d_v + m**2 * d_v * d + d,
    P,
    CONNECTOR + ": LayerNorm, then an MLP over m^2 merged patches (m^2 d_v -> m^2 d_v -> d)",
    source=QWEN2_VL,
    integer=True,
    **when("vision_merge"),
)
quantity(
    "params_connector",
    d_v * d + d_v,
    P,
    CONNECTOR + ": RMSNorm of d_v and a projection to d (pooling has none)",
    source=GEMMA3,
    integer=True,
    **when("vision_pool"),
)
quantity(
    "params_connector",
    vision_output_size * d + d,
    P,
    CONNECTOR + ": one projection of the concatenated layer outputs (with bias)",
    source=MLLAMA,
    integer=True,
    **when("vision_cross"),
)


# --- what an image becomes ----------------------------------------------------------------
def round_half_even(x):
    """Python's round(): to the nearest integer, ties to the even one."""
    r = floor(x + HALF)
    return r - Piecewise((r - 2 * floor(r / 2), Eq(x + HALF, r)), (0, True))  # odd at a tie: down


factor = quantity(
    "vision_resize_factor",
    p * m,
    "pixels",
    "Sides are resized to multiples of p x m",
    source=QWEN2_VL,
    integer=True,
    **when("vision_dynamic"),
)
rounded_h = quantity(
    "vision_rounded_height",
    round_half_even(H / factor) * factor,
    "pixels",
    "H rounded to the factor",
    source=QWEN2_VL,
    integer=True,
    **when("vision_dynamic"),
)
rounded_w = quantity(
    "vision_rounded_width",
    round_half_even(W / factor) * factor,
    "pixels",
    "W rounded to the factor",
    source=QWEN2_VL,
    integer=True,
    **when("vision_dynamic"),
)


def resized(side, rounded):
    """smart_resize: shrink to max_pixels (floor) or grow to min_pixels (ceiling) keeping
    the aspect ratio, else the rounded side."""
    pixels = rounded_h * rounded_w
    down = Max(factor, floor(side * sqrt(max_pixels / (H * W)) / factor) * factor)
    up = ceiling(side * sqrt(min_pixels / (H * W)) / factor) * factor
    return Piecewise((down, pixels > max_pixels), (up, pixels < min_pixels), (rounded, True))


input_h = quantity(
    "vision_input_height",
    resized(H, rounded_h),
    "pixels",
    "Height the encoder sees",
    source=QWEN2_VL,
    integer=True,
    **when("vision_dynamic"),
)
quantity(
    "vision_input_height",
    S,
    "pixels",
    "Height the encoder sees (fixed)",
    source=VIT,
    integer=True,
    **when("vision_fixed"),
)
input_w = quantity(
    "vision_input_width",
    resized(W, rounded_w),
    "pixels",
    "Width the encoder sees",
    source=QWEN2_VL,
    integer=True,
    **when("vision_dynamic"),
)
quantity(
    "vision_input_width",
    S,
    "pixels",
    "Width the encoder sees (fixed)",
    source=VIT,
    integer=True,
    **when("vision_fixed"),
)
vision_patches = quantity(
    "vision_patches",
    tiles * (ceiling(input_h / p) * ceiling(input_w / p) + cls),
    "patches",
    "Encoder positions per image: tiles x (ceil(h/p) ceil(w/p) + CLS)",
    source=VIT + "; " + QWEN2_VL,
    integer=True,
    **when("vision"),
)
IMG = "Tokens an image becomes after the connector"
image_tokens = quantity(
    "image_tokens",
    vision_patches - tiles * cls,
    "tokens",
    IMG + " (one per patch, CLS dropped)",
    source=LLAVA,
    integer=True,
    **when("vision_mlp"),
)
quantity(
    "image_tokens",
    vision_patches / m**2,
    "tokens",
    IMG + " (m x m merge)",
    source=QWEN2_VL,
    integer=True,
    **when("vision_merge"),
)
quantity(
    "image_tokens",
    pooled_tokens,
    "tokens",
    IMG + " (pooled)",
    source=GEMMA3,
    integer=True,
    **when("vision_pool"),
)
quantity(
    "image_tokens",
    vision_patches,
    "tokens",
    IMG + " (held by the cross-attention layers)",
    source=MLLAMA,
    integer=True,
    **when("vision_cross"),
)
image_prompt_tokens = quantity(
    "image_prompt_tokens",
    1,
    "tokens",
    "Prompt tokens per image: one <|image|> token",
    source=MLLAMA,
    integer=True,
    **when("vision_cross"),
)
quantity(
    "image_prompt_tokens",
    image_tokens,
    "tokens",
    "Prompt tokens per image: its image tokens",
    source=QWEN2_VL,
    integer=True,
    **when("vision"),
)
video_frame_groups = quantity(
    "video_frame_groups",
    ceiling(video_seconds * video_fps / t_p),
    "groups",
    "Frame groups of a request's video (frames / temporal patch, rounded up)",
    source=QWEN2_VL,
    integer=True,
    **when("vision"),
)
vision_inputs_per_request = quantity(
    "vision_inputs_per_request",
    images_per_request + video_frame_groups,
    "encodes",
    "Encoder passes per request: images and video frame groups",
    source=QWEN2_VL,
    integer=True,
    **when("vision"),
)
vision_prompt_tokens_per_request = quantity(
    "vision_prompt_tokens_per_request",
    vision_inputs_per_request * image_prompt_tokens,
    "tokens",
    "Prompt tokens the images and video add to a request",
    source=QWEN2_VL,
    integer=True,
    **when("vision"),
)

# --- encoder FLOPs --------------------------------------------------------------------------
vision_flops_per_image = quantity(
    "vision_flops_per_image",
    2 * vision_patches * (L_v * (4 * d_v**2 + 2 * d_v * d_ffv) + channels * t_p * p**2 * d_v)
    + 4 * L_v * vision_patches**2 * d_v
    + 2 * params_connector * image_tokens,
    "FLOP",
    "Encoder FLOPs per image: 2 N_vit n_p (blocks and patch embedding) + attention "
    "4 L_v n_p^2 d_v + the connector",
    source=VIT + "; lecture §4 (2 FLOPs per weight per row)",
    **when("vision"),
)
vision_flops_per_request = quantity(
    "vision_flops_per_request",
    vision_inputs_per_request * vision_flops_per_image,
    "FLOP",
    "Encoder FLOPs of one request's images and video",
    source=VIT,
    **when("vision"),
)
