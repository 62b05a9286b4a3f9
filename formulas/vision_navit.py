"""What an image becomes for Kimi-K2.5's MoonViT: NaViT-style resizing, then 2 x 2 merging.

Kimi_K25ImageProcessor (transformers 5.23.0 image_processing_kimi_k25.navit_resize) never
upscales: it shrinks an image so that its patches fit max_patches and each side fits
max_patches_per_side patches, truncating to whole pixels (int()), then pads each side up to a
multiple of p x m (28 px). The padded image is cut into p x p patches and merged m x m, so
an image of H x W pixels inside the limits becomes ceil(H/28) x ceil(W/28) tokens.
Shortcut: the scale is exact (sympy) where the processor computes it in floating point; the
two can differ by one pixel at an exact boundary.
"""

from sympy import Max, Min, ceiling, floor, sqrt

from ledgerbuild.ledger import model_input, quantity

from .vision import H, W, m, p

T = "multimodal"
NAVIT = "HF transformers 5.23.0 image_processing_kimi_k25.py navit_resize (Kimi_K25ImageProcessor)"
PRE = "Kimi_K25ImageProcessor defaults (max_patches 16384, size.max_height 512 patches)"

max_patches = model_input(
    "vision_max_patches", "patches", "NaViT resize: most patches an image keeps", source=PRE, default=0
)
side_patches = model_input(
    "vision_max_patches_per_side", "patches", "NaViT resize: most patches a side keeps", source=PRE, default=0
)


def when():
    return {"topic": T, "when": "vision_navit", "integer": True}


# the tightest of the patch budget, the per-side budget and 1 (never up)
scale = Min(
    1,
    sqrt(max_patches / (Max(1, floor(H / p)) * Max(1, floor(W / p)))),
    side_patches * p / H,
    side_patches * p / W,
)
for name, side, label in (("vision_input_height", H, "Height"), ("vision_input_width", W, "Width")):
    quantity(
        name,
        ceiling(Min(Max(1, floor(side * scale)), side_patches * p) / (p * m)) * (p * m),
        "pixels",
        f"{label} the encoder sees: scaled (whole pixels), padded up to a multiple of p x m",
        source=NAVIT,
        **when(),
    )
