"""Vision-language inputs: the vision tower's model fields (0 on text-only models) and what a
request carries (image size, images, video seconds and frames).

Part of the multimodal topic (formulas/vision.py imports it first, so the declaration order is
the one vision.py had); the fields are normalised per family by ledgerbuild/families_vision.py.
"""

from sympy import Rational

from ledgerbuild.ledger import model_input, scenario_input

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
