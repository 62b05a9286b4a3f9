"""From a vision- or audio-language config.json to the ledger's encoder fields, per family.

Scope: a VLM config nests (or, for Qwen2-VL, flattens) the language model's config beside a
`vision_config`; an audio-language config (Qwen2-Audio) beside an `audio_config`.
`split_vlm` returns the language part (read by `families.ledger_fields` like any text model)
and the encoder fields of formulas/vision.py or formulas/audio.py. What HF keeps in modeling code
rather than config (CLS tokens, learned position tables, biases, outer norms, Llama 3.2's
8 extra embedding rows) is stated once per encoder, with the transformers class it was read
from. Shortcut: preprocessor settings (Qwen2-VL's min/max pixels) come from the catalog's
`preprocessor` block (preprocessor_config.json), else the processor class's defaults. The
towers of 2026 (Qwen3.5's ViT, Kimi-K2.5's MoonViT) have their readers in families_towers.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from .config_values import count, flag, number
from .errors import LedgerError
from .families_towers import TOWERS

MLP, MERGE, POOL, CROSS, AUDIO, VQ = 1, 2, 3, 4, 5, 6


@dataclass(frozen=True)
class Encoder:
    """Traits of a vision tower class (transformers modeling code)."""

    hf_class: str
    cls: int = 0  # a CLS position
    learned_positions: int = 1
    attn_bias: int = 1
    patch_bias: int = 0
    extra_norms: int = 0  # LayerNorms outside the blocks


ENCODERS = {
    "clip_vision_model": Encoder("CLIPVisionModel", cls=1, extra_norms=2),  # pre_layrnorm, post_layernorm
    "siglip_vision_model": Encoder("SiglipVisionModel", patch_bias=1, extra_norms=1),  # post_layernorm
    "qwen2_vl": Encoder("Qwen2VisionTransformerPretrainedModel", learned_positions=0),  # 2D RoPE
    "mllama_vision_model": Encoder("MllamaVisionModel", cls=1, attn_bias=0, extra_norms=2),
    # dynamic resolution over a learned position table resampled to each image's grid
    # (vision_position_rows rows): Qwen3.5's ViT (its merger's LayerNorm is the connector's),
    # and MoonViT (Kimi-K2.5: a final LayerNorm)
    "qwen3_5_moe_vision": Encoder("Qwen3_5MoeVisionModel", patch_bias=1),
    "kimi_k25_vision": Encoder("Kimi_K25VisionModel", patch_bias=1, extra_norms=1),
}


@dataclass(frozen=True)
class VisionFamily:
    hf_class: str
    connector: int
    encoder: str  # key of ENCODERS when vision_config has no model_type (or one not listed)
    flat_text: str | None = None  # Qwen2-VL: the language fields beside vision_config, this family
    reader: str | None = None  # its vision_config reader in families_towers.TOWERS, if its own


VLM_FAMILIES = {
    "llava": VisionFamily("LlavaForConditionalGeneration", MLP, "clip_vision_model"),
    "qwen2_vl": VisionFamily("Qwen2VLForConditionalGeneration", MERGE, "qwen2_vl", flat_text="qwen2"),
    "gemma3": VisionFamily("Gemma3ForConditionalGeneration", POOL, "siglip_vision_model"),
    "mllama": VisionFamily("MllamaForConditionalGeneration", CROSS, "mllama_vision_model"),
    "qwen2_audio": VisionFamily("Qwen2AudioForConditionalGeneration", AUDIO, "qwen2_audio_encoder"),
    "emu3": VisionFamily("Emu3ForConditionalGeneration", VQ, "emu3_vqgan"),
    "qwen3_5_moe": VisionFamily(
        "Qwen3_5MoeForConditionalGeneration", MERGE, "qwen3_5_moe_vision", reader="qwen3_5"
    ),
    "kimi_k25": VisionFamily("Kimi_K25ForConditionalGeneration", MERGE, "kimi_k25_vision", reader="moonvit"),
}
# Qwen2VLImageProcessor defaults (transformers image_processing_qwen2_vl.py)
QWEN2_VL_PIXELS = {"min_pixels": 56 * 56, "max_pixels": 28 * 28 * 1280}


def vlm_family(config: dict) -> VisionFamily | None:
    """The family of a config with a vision_config or audio_config, or None (a text model)."""
    kind = config.get("model_type")
    for key in ("vision_config", "audio_config", "vq_config"):  # null: HF's default tower, not none
        if key in config and not isinstance(config[key], dict) and kind in VLM_FAMILIES:
            raise LedgerError(
                f"field {key}: expected a mapping (the encoder's config), got {config[key]!r}"[:200]
            )
    encoder = config.get("vision_config", config.get("audio_config", config.get("vq_config")))
    if not isinstance(encoder, dict):
        return None
    return VLM_FAMILIES.get(kind) if isinstance(kind, str) else None


def split_vlm(config: dict, preprocessor: dict | None = None) -> tuple[dict, dict]:
    """(language config, vision fields) of a VLM config; (config, {}) for a text model."""
    family = vlm_family(config)
    if family is None:
        return config, {}
    if family.connector == AUDIO:
        return _audio(config)
    if family.connector == VQ:
        return _vq(config, preprocessor or {})
    vision = config["vision_config"]
    if family.flat_text:  # Qwen2-VL: the language fields sit beside vision_config
        text = config.get("text_config") or {k: v for k, v in config.items() if k != "vision_config"}
        text = {**text, "model_type": family.flat_text, "architectures": ["Qwen2ForCausalLM"]}
    else:
        text = config.get("text_config")
    if not isinstance(text, dict):
        raise LedgerError("field text_config: expected a mapping")
    kind = vision.get("model_type")
    encoder = ENCODERS.get(kind if isinstance(kind, str) else "", ENCODERS[family.encoder])
    fields = {
        "vision_connector_code": family.connector,
        "vision_class_token": encoder.cls,
        "vision_learned_positions": encoder.learned_positions,
        "vision_attn_bias": encoder.attn_bias,
        "vision_patch_bias": encoder.patch_bias,
        "vision_extra_norms": encoder.extra_norms,
        "vision_num_channels": count(
            vision, "num_channels", default=count(vision, "in_chans", default=3, lo=1), lo=1
        ),
        "vision_patch_size": count(vision, "patch_size", lo=1),
    }
    if family.reader:
        fields.update(TOWERS[family.reader](vision, preprocessor or {}))
    else:
        fields.update(_READERS[family.connector](vision, config, preprocessor or {}))
    return text, fields


def _merge(v: dict, config: dict, pre: dict) -> dict:
    width = count(v, "embed_dim", lo=1)
    return {
        "vision_hidden_size": width,
        "vision_num_layers": count(v, "depth", lo=1),
        "vision_num_attention_heads": count(v, "num_heads", lo=1),
        "vision_intermediate_size": int(width * number(v, "mlp_ratio", 4, lo=1)),
        "vision_temporal_patch_size": count(v, "temporal_patch_size", default=2, lo=1),
        "vision_merge_size": count(v, "spatial_merge_size", default=2, lo=1),
        "vision_image_size": 0,
        "vision_min_pixels": count(pre, "min_pixels", default=QWEN2_VL_PIXELS["min_pixels"], lo=1),
        "vision_max_pixels": count(pre, "max_pixels", default=QWEN2_VL_PIXELS["max_pixels"], lo=1),
    }


def _vit(v: dict) -> dict:
    return {
        "vision_hidden_size": count(v, "hidden_size", lo=1),
        "vision_num_layers": count(v, "num_hidden_layers", lo=1),
        "vision_num_attention_heads": count(
            v, "num_attention_heads" if "num_attention_heads" in v else "attention_heads", lo=1
        ),
        "vision_intermediate_size": count(v, "intermediate_size", lo=1),
        "vision_image_size": count(v, "image_size", lo=1),
    }


def _mlp(v: dict, config: dict, pre: dict) -> dict:
    return _vit(v)


def _pool(v: dict, config: dict, pre: dict) -> dict:
    return {**_vit(v), "vision_pooled_tokens": count(config, "mm_tokens_per_image", default=256, lo=1)}


def _cross(v: dict, config: dict, pre: dict) -> dict:
    fields = _vit(v)
    global_layers = count(v, "num_global_layers", default=8)
    layouts = v.get("supported_aspect_ratios") or []
    if not isinstance(layouts, list):
        raise LedgerError("field supported_aspect_ratios: expected a list of [rows, columns]")
    layers = (config.get("text_config") or {}).get("cross_attention_layers") or []
    if not isinstance(layers, list):
        raise LedgerError("field cross_attention_layers: expected a list of layer indices")
    fields.update(
        {
            "vision_num_layers": fields["vision_num_layers"] + global_layers,
            "vision_gated_layers": global_layers,
            "vision_tiles": count(v, "max_num_tiles", default=4, lo=1),
            "vision_tiled": 1,
            "vision_aspect_ratios": len(layouts),
            "vision_output_size": count(v, "vision_output_dim", lo=1),
            "num_cross_attention_layers": len(layers),
            "embedding_extra_rows": 8,  # MllamaTextModel: nn.Embedding(vocab_size + 8, ...)
        }
    )
    return fields


_READERS = {MLP: _mlp, MERGE: _merge, POOL: _pool, CROSS: _cross}


def _audio(config: dict) -> tuple[dict, dict]:
    """Qwen2-Audio: a Whisper encoder (two convolutions, learned positions, pre-norm blocks
    with biases on q, v and out but not k), average-pooled 2:1, projected to d.
    WhisperFeatureExtractor: 16 kHz, hop 160 (100 mel frames a second), 30 s windows."""
    audio, text = config["audio_config"], config.get("text_config")
    if not isinstance(text, dict):
        raise LedgerError("field text_config: expected a mapping")
    fields = {
        "vision_connector_code": AUDIO,
        "audio_hidden_size": count(audio, "d_model", lo=1),
        "audio_num_layers": count(audio, "encoder_layers", lo=1),
        "audio_intermediate_size": count(audio, "encoder_ffn_dim", lo=1),
        "audio_num_mel_bins": count(audio, "num_mel_bins", lo=1),
        "audio_max_source_positions": count(audio, "max_source_positions", default=1500, lo=1),
        "audio_chunk_seconds": 30,
        "audio_mel_frames_per_second": 100,
        "audio_conv_kernel": 3,  # Qwen2AudioEncoder conv1, conv2: kernel_size=3
        "audio_pool": 2,  # Qwen2AudioEncoder.avg_pooler: AvgPool1d(2, stride=2)
    }
    return text, fields


# Emu3ImageProcessor defaults (transformers image_processing_emu3.py)
EMU3_PIXELS = {"min_pixels": 512 * 512, "max_pixels": 1024 * 1024}
VQ_LEVELS = 4  # formulas/vq_tokenizer.py LEVELS


def _vq(config: dict, pre: dict) -> tuple[dict, dict]:
    """Emu3: a VQ-VAE (transformers Emu3VQVAE) turns images into codebook tokens; the
    language model is Emu3TextModel. Downsampling 2^(levels - 1) per side (one stride-2
    convolution between levels); log2 of the temporal factor temporal convolutions."""
    vq, text = config["vq_config"], config.get("text_config")
    if not isinstance(text, dict):
        raise LedgerError("field text_config: expected a mapping")
    mult = vq.get("channel_multiplier")
    if not isinstance(mult, list) or not 1 <= len(mult) <= VQ_LEVELS:
        raise LedgerError(f"field vq_config.channel_multiplier: expected a list of 1 to {VQ_LEVELS} integers")
    levels = {f"vq_channel_multiplier_{i}": count({"m": m}, "m", lo=1) for i, m in enumerate(mult)}
    attn = vq.get("attn_resolutions") or []
    if not isinstance(attn, list) or not all(isinstance(a, int) and 0 <= a < len(mult) for a in attn):
        raise LedgerError("field vq_config.attn_resolutions: expected level indices below the level count")
    factor = count(vq, "temporal_downsample_factor", default=4, lo=1)
    if factor & (factor - 1):
        raise LedgerError("field vq_config.temporal_downsample_factor: expected a power of 2")
    fields = {
        "vision_connector_code": VQ,
        "vision_patch_size": 2 ** (len(mult) - 1),
        "vision_image_size": 0,
        "vision_min_pixels": count(pre, "min_pixels", default=EMU3_PIXELS["min_pixels"], lo=1),
        "vision_max_pixels": count(pre, "max_pixels", default=EMU3_PIXELS["max_pixels"], lo=1),
        "vq_base_channels": count(vq, "base_channels", lo=1),
        "vq_num_res_blocks": count(vq, "num_res_blocks", lo=1),
        "vq_latent_channels": count(vq, "latent_channels", lo=1),
        "vq_double_latent": flag(vq, "double_latent"),
        "vq_embed_dim": count(vq, "embed_dim", lo=1),
        "vq_codebook_size": count(vq, "codebook_size", lo=1),
        "vq_in_channels": count(vq, "in_channels", default=3, lo=1),
        "vq_out_channels": count(vq, "out_channels", default=3, lo=1),
        "vq_attn_hidden_size": count(vq, "hidden_size", lo=1),
        "vq_temporal_blocks": factor.bit_length() - 1,
        **levels,
        **{f"vq_attn_level_{i}": 1 for i in attn},
    }
    return text, fields
