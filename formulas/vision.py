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

from sympy import Eq, Max, Piecewise, Rational, ceiling, floor, sqrt

from ledgerbuild.ledger import model_input, quantity, scenario_input

from .inputs import hidden_size as d

T = "multimodal"
HALF = Rational(1, 2)
P = "params"
HF_VLM = "HF transformers modeling code (Qwen2-VL, LLaVA, Mllama, Gemma 3 vision towers)"
VIT = "Dosovitskiy et al. 2021, An Image is Worth 16x16 Words (arXiv:2010.11929) §3.1"
QWEN2_VL = "Qwen2-VL (arXiv:2409.12191) §2.1; transformers image_processing_qwen2_vl.smart_resize"
LLAVA = "LLaVA-1.5 (arXiv:2310.03744) §3 (CLIP ViT-L/14-336: 576 tokens, MLP connector)"
GEMMA3 = "Gemma 3 technical report (arXiv:2503.19786) §2.1 (SigLIP 400M, 256 tokens per image)"
MLLAMA = "Llama 3.2 Vision (HF modeling_mllama.py: tiles, cross-attention layers)"
V = "HF config.json vision_config (normalised per family: ledgerbuild/families_vision.py)"

# --- model fields: the vision tower (0 on text-only models) ------------------------------
d_v = model_input("vision_hidden_size", "elements", "Width of the vision encoder d_v", source=V, default=0)
L_v = model_input("vision_num_layers", "layers", "Vision encoder blocks L_v", source=V, default=0)
n_hv = model_input(
    "vision_num_attention_heads", "heads", "Attention heads of the vision encoder", source=V, default=0
)
d_ffv = model_input("vision_intermediate_size", "elements", "Width of the vision MLP", source=V, default=0)
p = model_input("vision_patch_size", "pixels", "Patch side p", source=V, default=0, tex="p")
t_p = model_input(
    "vision_temporal_patch_size", "frames", "Frames per patch (Qwen2-VL: 2)", source=V, default=1
)
channels = model_input("vision_num_channels", "channels", "Input colour channels", source=V, default=3)
S = model_input(
    "vision_image_size", "pixels", "Side the encoder is fed (0: dynamic resolution)", source=V, default=0
)
m = model_input("vision_merge_size", "patches", "Patches merged per side (Qwen2-VL: 2)", source=V, default=1)
cls = model_input(
    "vision_class_token", "0/1", "1 if the encoder adds a CLS position", source=V, hi=1, default=0
)
learned_pos = model_input(
    "vision_learned_positions", "0/1", "1 if positions are a learned table", source=V, hi=1, default=0
)
attn_bias = model_input(
    "vision_attn_bias", "0/1", "1 if the vision Q, K, V, O carry biases", source=V, hi=1, default=0
)
patch_bias = model_input(
    "vision_patch_bias", "0/1", "1 if the patch embedding carries a bias", source=V, hi=1, default=0
)
extra_norms = model_input(
    "vision_extra_norms", "norms", "LayerNorms outside the blocks (pre/post)", source=V, default=0
)
gated_layers = model_input(
    "vision_gated_layers",
    "layers",
    "Blocks with two scalar gates (Llama 3.2 global layers)",
    source=V,
    default=0,
)
tiles = model_input("vision_tiles", "tiles", "Tiles an image is cut into (padded)", source=V, default=1)
tiled = model_input(
    "vision_tiled", "0/1", "1 if tiles carry learned tile embeddings", source=V, hi=1, default=0
)
aspect_ratios = model_input(
    "vision_aspect_ratios", "ratios", "Supported tile layouts (Llama 3.2: 8)", source=V, default=0
)
pooled_tokens = model_input(
    "vision_pooled_tokens", "tokens", "Tokens an image is pooled to (Gemma 3: 256)", source=V, default=0
)
min_pixels = model_input(
    "vision_min_pixels",
    "pixels",
    "Dynamic resolution: fewest pixels",
    source=V + "; preprocessor_config.json",
    default=0,
)
max_pixels = model_input(
    "vision_max_pixels",
    "pixels",
    "Dynamic resolution: most pixels",
    source=V + "; preprocessor_config.json",
    default=0,
)
vision_output_size = model_input(
    "vision_output_size", "elements", "Width the connector reads (Llama 3.2: 7680)", source=V, default=0
)
model_input(
    "vision_connector_code",
    "code",
    "Connector: 0 none (text-only), 1 MLP, 2 2x2 merge, 3 pool, 4 cross-attention, 5 audio, "
    "6 discrete tokens of a VQ-VAE (formulas/vq_tokenizer.py)",
    source=V,
    hi=6,
    default=0,
)
num_cross_attention_layers = model_input(
    "num_cross_attention_layers",
    "layers",
    "Cross-attention layers among num_hidden_layers (they cache no text KV)",
    source="HF config.json text_config.cross_attention_layers",
    default=0,
)
embedding_extra_rows = model_input(
    "embedding_extra_rows",
    "tokens",
    "Embedding rows beyond vocab_size (Llama 3.2 Vision: 8)",
    source=HF_VLM,
    default=0,
)

# variants by connector (vision_mlp, _merge, _pool, _cross; vision_dynamic, _fixed):
# ledgerbuild/variants.py

# --- scenario: what a request carries ----------------------------------------------------
H = scenario_input(
    "image_height",
    "pixels",
    "Height of each image",
    default=1024,
    lo=1,
    hi=10**5,
    integer=True,
    source=QWEN2_VL,
    tex="H",
)
W = scenario_input(
    "image_width",
    "pixels",
    "Width of each image",
    default=1024,
    lo=1,
    hi=10**5,
    integer=True,
    source=QWEN2_VL,
    tex="W",
)
images_per_request = scenario_input(
    "images_per_request",
    "images",
    "Images in each request (their tokens join the prompt)",
    default=0,
    lo=0,
    hi=10**4,
    integer=True,
    source=QWEN2_VL,
    tex=r"n_{\mathrm{img}}",
)
video_seconds = scenario_input(
    "video_seconds",
    "s",
    "Video per request (frames sampled at video_fps)",
    default=0,
    lo=0,
    hi=10**5,
    source=QWEN2_VL,
)
video_fps = scenario_input(
    "video_fps", "frames/s", "Frames sampled per second of video", default=2, lo=0, hi=240, source=QWEN2_VL
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
