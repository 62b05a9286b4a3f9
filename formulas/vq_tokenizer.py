"""Discrete image tokens: a VQ-VAE turns an image into codebook ids the language model reads.

Emu3 (BAAI, arXiv:2409.18869 §2.1) has no vision encoder in front of its language model: a
VQ-VAE ("vision tokenizer", SBER-MoVQGAN-style) encodes an image to a latent grid 8x smaller
per side (2^(levels - 1), one stride-2 convolution between levels), quantises every latent to
one of 32,768 codes, and the prompt carries those codes as ordinary tokens, one per latent and
one end-of-line token per row: h/8 x (w/8 + 1) (transformers Emu3Processor,
`_get_num_multimodal_tokens`). Images are resized first as Qwen2-VL's smart_resize does, with
factor 8 and 512^2..1024^2 pixels (transformers Emu3ImageProcessor), so formulas/vision.py's
resize quantities apply.

Parameters follow transformers' Emu3VQVAE to the integer: an encoder (conv_in; per level
num_res_blocks ResNet blocks of two 3x3 convolutions with GroupNorms, attention blocks at the
levels listed in attn_resolutions, a downsampling convolution; a middle block of two ResNet
blocks around one attention block; norm_out and conv_out; temporal convolutions and temporal
ResNet blocks over the latent channels), a decoder (the mirror, with num_res_blocks + 1 blocks
per level and spatially-conditioned norms: GroupNorm plus two 1x1 convolutions from the
quantised latent), the codebook, and the two (3, 1, 1) convolutions around the quantiser.
Shortcuts: at most four levels (more are refused when the config is read); the VQ-VAE's own
FLOPs are not charged to prefill (its encoder runs once per image, convolutions not counted).
"""

from sympy import Min

from ledgerbuild.ledger import model_input, quantity

from .vision import images_per_request, input_h, input_w
from .vision import p as factor

T = "multimodal"
P = "params"
EMU3 = "Emu3 (arXiv:2409.18869) §2.1; transformers modeling_emu3.py (Emu3VQVAE)"
PROCESSOR = "transformers processing_emu3.py (Emu3Processor._get_num_multimodal_tokens)"
V = "HF config.json vq_config (normalised: ledgerbuild/families_vision.py)"
LEVELS = 4


def field(name, unit, description, **kw):
    return model_input(name, unit, description, source=V, default=0, **kw)


ch = field("vq_base_channels", "channels", "Channels of the first level (base_channels)")
res = field("vq_num_res_blocks", "blocks", "ResNet blocks per encoder level (decoder: one more)")
z_lat = field("vq_latent_channels", "channels", "Latent channels between encoder and decoder")
double = field("vq_double_latent", "0/1", "1 if the encoder outputs twice the latent channels", hi=1)
e = field("vq_embed_dim", "channels", "Width of one codebook vector")
codes = field("vq_codebook_size", "codes", "Codebook entries (image token ids)")
c_in = field("vq_in_channels", "channels", "Image channels the encoder reads")
c_out = field("vq_out_channels", "channels", "Image channels the decoder writes")
h_att = field("vq_attn_hidden_size", "channels", "Width of the attention blocks (hidden_size)")
t_blocks = field("vq_temporal_blocks", "blocks", "Temporal down/upsampling convolutions, log2 of the factor")
mult = [
    field(f"vq_channel_multiplier_{i}", "x", f"Channel multiplier of level {i} (0: no level)")
    for i in range(LEVELS)
]
attn = [
    field(f"vq_attn_level_{i}", "0/1", f"1 if level {i} has attention blocks", hi=1) for i in range(LEVELS)
]


def conv(a, b, kernel):
    """A convolution with bias: a x b x kernel weights + b."""
    return b * (a * kernel + 1)


def group_norm(c):
    return 2 * c


def spatial_norm(c):
    """Emu3VQVAESpatialNorm: a GroupNorm (2c) and two 1x1 convolutions from the e-wide latent
    (2 c (e + 1)): 2 c (e + 2)."""
    return 2 * c * (e + 2)


def resnet(a, b, norm):
    """Emu3VQVAEResnetBlock: norm, 3x3 conv, norm, 3x3 conv, a 1x1 shortcut when a != b."""
    shortcut = Min(1, (a - b) ** 2) * conv(a, b, 1)  # 1 when the widths differ, else 0
    return norm(a) + norm(b) + conv(a, b, 9) + conv(b, b, 9) + shortcut


def temporal_resnet(c):
    """Emu3VQVAETemporalResnetBlock: BatchNorm3d and a 3x3x3 convolution, twice."""
    return 2 * (group_norm(c) + conv(c, c, 27))


WHEN = {"topic": T, "when": "vision_vq", "integer": True}
attention = quantity(
    "params_vq_attention_block",
    4 * (h_att**2 + h_att),
    P,
    "One VQ-VAE attention block: q, k, v and out projections with biases",
    source=EMU3 + " (Emu3VQVAEAttentionBlock)",
    **WHEN,
)
width = [
    quantity(
        f"vq_level_{i}_channels", ch * mult[i], "channels", f"Channels of level {i}", source=EMU3, **WHEN
    )
    for i in range(LEVELS)
]
present = [Min(1, m) for m in mult]  # 1 for a level the config lists
top = quantity(
    "vq_top_channels",
    sum(width[i] * (present[i] - (present[i + 1] if i + 1 < LEVELS else 0)) for i in range(LEVELS)),
    "channels",
    "Channels of the deepest level (the middle blocks' width)",
    source=EMU3,
    **WHEN,
)
z_enc = quantity(
    "vq_encoder_out_channels",
    z_lat * (1 + double),
    "channels",
    "Channels the encoder outputs (twice the latent with double_latent)",
    source=EMU3 + " (Emu3VQVAEEncoder)",
    **WHEN,
)


def block(part, i, which, a, b, norm):
    return quantity(
        f"params_vq_{part}_level_{i}_{which}_block",
        resnet(a, b, norm),
        P,
        f"One ResNet block of VQ {part} level {i} ({which}: "
        + ("from the level below" if which == "first" else "within the level")
        + ")",
        source=EMU3 + " (Emu3VQVAEResnetBlock)",
        **WHEN,
    )


def encoder_level(i):
    before = ch if i == 0 else width[i - 1]
    first = block("encoder", i, "first", before, width[i], group_norm)
    same = block("encoder", i, "next", width[i], width[i], group_norm)
    attention_blocks = attn[i] * res * (attention + group_norm(width[i]))
    downsample = (present[i + 1] if i + 1 < LEVELS else 0) * conv(width[i], width[i], 9)
    return present[i] * (first + (res - 1) * same + attention_blocks) + downsample


def decoder_level(i):
    after = quantity(
        f"vq_decoder_level_{i}_input_channels",
        top if i == LEVELS - 1 else width[i + 1] + top * (1 - present[i + 1]),
        "channels",
        f"Channels entering decoder level {i}: the level above's, or the middle block's",
        source=EMU3 + " (Emu3VQVAEUpBlock)",
        **WHEN,
    )
    first = block("decoder", i, "first", after, width[i], spatial_norm)
    same = block("decoder", i, "next", width[i], width[i], spatial_norm)
    attention_blocks = attn[i] * (res + 1) * (attention + spatial_norm(width[i]))
    upsample = 0 if i == 0 else conv(width[i], width[i], 9)
    return present[i] * (first + res * same + attention_blocks + upsample)


def middle(norm):
    return 2 * resnet(top, top, norm) + attention + norm(top)


encoder_levels = [
    quantity(
        f"params_vq_encoder_level_{i}",
        encoder_level(i),
        P,
        f"VQ encoder level {i}: its ResNet blocks, attention blocks and downsampling convolution",
        source=EMU3 + " (Emu3VQVAEDownBlock)",
        **WHEN,
    )
    for i in range(LEVELS)
]
decoder_levels = [
    quantity(
        f"params_vq_decoder_level_{i}",
        decoder_level(i),
        P,
        f"VQ decoder level {i}: its ResNet blocks, attention blocks and upsampling convolution",
        source=EMU3 + " (Emu3VQVAEUpBlock)",
        **WHEN,
    )
    for i in range(LEVELS)
]
middles = [
    quantity(
        f"params_vq_{part}_middle",
        middle(norm),
        P,
        f"VQ {part} middle block: two ResNet blocks around an attention block",
        source=EMU3 + " (Emu3VQVAEMiddleBlock)",
        **WHEN,
    )
    for part, norm in (("encoder", group_norm), ("decoder", spatial_norm))
]
temporal = [
    quantity(
        f"params_vq_{part}_temporal",
        t_blocks * conv(c, c, kernel) + res * temporal_resnet(c),
        P,
        f"VQ {part} temporal stack: log2(factor) {shape} convolutions and num_res_blocks "
        "temporal ResNet blocks over the latent channels",
        source=EMU3 + f" (Emu3VQVAETemporal{kind}sample, Emu3VQVAETemporalResnetBlock)",
        **WHEN,
    )
    for part, c, kernel, shape, kind in (
        ("encoder", z_enc, 36, "(4, 3, 3)", "Down"),
        ("decoder", z_lat, 27, "(3, 3, 3)", "Up"),
    )
]
params_vq_encoder = quantity(
    "params_vq_encoder",
    conv(c_in, ch, 9)
    + sum(encoder_levels)
    + middles[0]
    + group_norm(top)
    + conv(top, z_enc, 9)
    + temporal[0],
    P,
    "VQ encoder: conv_in, the levels' ResNet and attention blocks and downsampling, the middle "
    "block, norm_out, conv_out, temporal (4, 3, 3) convolutions and temporal ResNet blocks",
    source=EMU3 + " (Emu3VQVAEEncoder)",
    **WHEN,
)
params_vq_decoder = quantity(
    "params_vq_decoder",
    temporal[1]
    + conv(z_lat, top, 9)
    + middles[1]
    + sum(decoder_levels)
    + spatial_norm(ch * mult[0])
    + conv(ch * mult[0], c_out, 9),
    P,
    "VQ decoder: temporal ResNet blocks and (3, 3, 3) upsampling convolutions, conv_in, the "
    "middle block, the levels' blocks with spatially-conditioned norms, norm_out, conv_out",
    source=EMU3 + " (Emu3VQVAEDecoder)",
    **WHEN,
)
params_vq_tokenizer = quantity(
    "params_vq_tokenizer",
    params_vq_encoder + params_vq_decoder + codes * e + conv(z_lat, e, 3) + conv(e, z_lat, 3),
    P,
    "The vision tokenizer: encoder, decoder, the codebook and the (3, 1, 1) convolutions "
    "before and after the quantiser",
    source=EMU3 + " (Emu3VQVAE)",
    **WHEN,
)
image_tokens = quantity(
    "image_tokens",
    input_h / factor * (input_w / factor + 1),
    "tokens",
    "Tokens an image becomes: one code per latent of the h/8 x w/8 grid and one end-of-line token per row",
    source=PROCESSOR + "; " + EMU3,
    **WHEN,
)
quantity(
    "vision_prompt_tokens_per_request",
    images_per_request * image_tokens,
    "tokens",
    "Prompt tokens the images add to a request",
    source=PROCESSOR,
    **WHEN,
)
