"""vision_config readers of the dynamic-resolution towers with learned position tables.

Scope: Qwen3.5's ViT (Qwen3_5MoeVisionConfig: depth, hidden_size, intermediate_size,
num_position_embeddings, a Conv3d patch embedding over temporal_patch_size frames) and
Kimi-K2.5's MoonViT. The published Kimi-K2.5 config.json spells MoonViT's fields as its
remote code does (vt_hidden_size, vt_num_hidden_layers, vt_intermediate_size,
init_pos_emb_height/width); transformers' Kimi_K25VisionConfig names them hidden_size,
num_hidden_layers, intermediate_size, pos_emb_height/width. Both spellings are read, the
published one first. Both towers merge 2 x 2 patches and project them with the Qwen2-VL merger's
shape (LayerNorm, m^2 d_v -> m^2 d_v -> d, biases).
Shortcuts: Kimi's image processor (navit_resize: shrink to max_patches and max_patches_per_side,
pad to multiples of p m) reads its limits from the catalog's `preprocessor` block, else the
transformers class defaults (16,384 patches, 512 a side); Qwen3.5's Qwen2VLImageProcessor bounds
come from the `preprocessor` block, else that class's defaults. Kimi's video chunks are not
modelled: Kimi_K25VideoProcessor groups temporal_patch_size = 4 frames, the encoder reads all
their patches and pools them in time to one frame's tokens; here (temporal patch 1) each frame
counts as an image (and is resized within the images' 16,384 patches, not the video frames'
4,096), so a video's tokens read at least 4x too many.
"""

from __future__ import annotations

from .config_values import count
from .errors import LedgerError

# Qwen2VLImageProcessor defaults (transformers image_processing_qwen2_vl.py), also Qwen3.5's class
QWEN_PIXELS = {"min_pixels": 56 * 56, "max_pixels": 28 * 28 * 1280}
# Kimi_K25ImageProcessor defaults (transformers 5.23.0 image_processing_kimi_k25.py)
KIMI_PATCHES = {"max_patches": 16384, "max_patches_per_side": 512}


def _first(v: dict, keys: tuple[str, ...], lo: int = 1) -> int:
    """The first of `keys` the vision_config has (a count), or a one-line error naming them."""
    for key in keys:
        if v.get(key) is not None:
            return count(v, key, lo=lo)
    raise LedgerError(f"field {' / '.join(keys)}: missing in vision_config")


def qwen3_5(v: dict, pre: dict) -> dict:
    """Qwen3.5: Conv3d patches of temporal_patch_size frames, a learned table of
    num_position_embeddings rows (bilinearly resampled), LayerNorm blocks with biases."""
    if v.get("deepstack_visual_indexes"):
        raise LedgerError("field deepstack_visual_indexes: deepstack mergers are not modelled; expected []")
    return {
        "vision_num_channels": count(v, "in_channels", default=3, lo=1),
        "vision_hidden_size": count(v, "hidden_size", lo=1),
        "vision_num_layers": count(v, "depth", lo=1),
        "vision_intermediate_size": count(v, "intermediate_size", lo=1),
        "vision_temporal_patch_size": count(v, "temporal_patch_size", default=2, lo=1),
        "vision_merge_size": count(v, "spatial_merge_size", default=2, lo=1),
        "vision_image_size": 0,
        "vision_position_rows": count(v, "num_position_embeddings", lo=1),
        "vision_min_pixels": count(pre, "min_pixels", default=QWEN_PIXELS["min_pixels"], lo=1),
        "vision_max_pixels": count(pre, "max_pixels", default=QWEN_PIXELS["max_pixels"], lo=1),
    }


def moonvit(v: dict, pre: dict) -> dict:
    """MoonViT (Kimi-K2.5): Conv2d patches, a learned pos_emb_height x pos_emb_width table
    (bicubically resampled), 2 x 2 merge (merge_kernel_size), a final LayerNorm."""
    kernel = v.get("merge_kernel_size", [2, 2])
    if not (isinstance(kernel, list) and len(kernel) == 2 and kernel[0] == kernel[1]):
        raise LedgerError(f"field merge_kernel_size: expected [m, m], got {str(kernel)[:40]}")
    rows = _first(v, ("init_pos_emb_height", "pos_emb_height")) * _first(
        v, ("init_pos_emb_width", "pos_emb_width")
    )
    return {
        "vision_hidden_size": _first(v, ("vt_hidden_size", "hidden_size")),
        "vision_num_layers": _first(v, ("vt_num_hidden_layers", "num_hidden_layers")),
        "vision_intermediate_size": _first(v, ("vt_intermediate_size", "intermediate_size")),
        "vision_temporal_patch_size": 1,
        "vision_merge_size": count({"merge_kernel_size": kernel[0]}, "merge_kernel_size", lo=1),
        "vision_image_size": 0,
        "vision_position_rows": rows,
        "vision_max_patches": count(pre, "max_patches", default=KIMI_PATCHES["max_patches"], lo=1),
        "vision_max_patches_per_side": count(
            pre, "max_patches_per_side", default=KIMI_PATCHES["max_patches_per_side"], lo=1
        ),
    }


TOWERS = {"qwen3_5": qwen3_5, "moonvit": moonvit}
