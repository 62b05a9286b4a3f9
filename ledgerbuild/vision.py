"""What one image costs a vision-language model: the report behind `ledgerbuild image`.

Scope: parse an image size, evaluate the ledger with it on the numeric path (no sympy;
formulas/vision.py and formulas/image_cost.py declare every number), and collect the
per-image quantities. Shortcut: sizes are WIDTHxHEIGHT in pixels, as image tools print them.
"""

from __future__ import annotations

import re

from . import catalog
from .errors import LedgerError
from .families_vision import AUDIO, VQ, vlm_family
from .numeric import NumericEvaluator
from .rules import gpu_count_text, time_model_text, to_plain

SIZE = re.compile(r"^\s*([0-9]{1,6})\s*[xX×]\s*([0-9]{1,6})\s*$")  # ASCII digits only
MAX_SIDE = 10**5  # the ledger's bound on image_height / image_width
PER_IMAGE = [  # (quantity, unit shown)
    ("vision_input_width", "pixels"),
    ("vision_input_height", "pixels"),
    ("vision_patches", "patches"),
    ("image_tokens", "tokens"),
    ("image_prompt_tokens", "tokens"),
    ("vision_flops_per_image", "FLOP"),
    ("vision_encoder_s", "s"),
    ("image_kv_bytes", "bytes"),
    ("encoder_output_bytes", "bytes"),
    ("image_kv_over_encoder_output", "ratio"),
    ("image_kv_bytes_in_context", "bytes"),
    ("cross_attention_kv_saving_bytes", "bytes"),
    ("image_flops", "FLOP"),
    ("usd_per_image", "USD"),
]


def parse_size(text: str) -> tuple[int, int]:
    """'1024x768' -> (1024, 768): width and height, whole pixels, 1..100,000."""
    match = SIZE.match(text or "")
    if not match:
        raise LedgerError(
            f"option --size: expected WIDTHxHEIGHT in whole pixels (e.g. 1024x1024), got {text[:40]!r}"
        )
    width, height = int(match[1]), int(match[2])
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise LedgerError(f"option --size: each side must be 1..{MAX_SIDE:,} pixels, got {width}x{height}")
    return width, height


def vision_models() -> list[str]:
    """Catalog models with a vision encoder."""
    families = {mid: vlm_family(entry.config) for mid, entry in catalog.models().items()}
    return [mid for mid, family in families.items() if family and family.connector not in (AUDIO, VQ)]


def image_result(model_ref: str, sets: dict, size: str | None):
    if size is not None:
        width, height = parse_size(size)
        sets = {**sets, "image_width": str(width), "image_height": str(height)}
    res = NumericEvaluator(sets).evaluate(model_ref)  # no sympy
    if "vision_vq" in res.tags:
        raise LedgerError(
            f"model {res.model_id!r} has no vision encoder: a VQ-VAE turns its images into codes "
            "(see `ledgerbuild show` image_tokens and params_vq_tokenizer)"
        )
    if "vision" not in res.tags:
        known = ", ".join(vision_models())
        raise LedgerError(f"model {res.model_id!r} has no vision encoder; vision-language models: {known}")
    return res


def image_report(model_ref: str, sets: dict, size: str | None = None) -> dict:
    res = image_result(model_ref, sets, size)
    names = {q.name for q in res.quantities}
    return {
        "model": res.model_id,
        "image_width_pixels": int(res.inputs["image_width"]),
        "image_height_pixels": int(res.inputs["image_height"]),
        "gpu": res.keys["gpu"],
        "gpu_count": gpu_count_text(res),
        "time_model": time_model_text(res.keys["time_model"], res.keys["gpu"]),
        "params_vision": int(res.value("params_vision")),
        "params_connector": int(res.value("params_connector")),
        "per_image": {
            name: {"value": to_plain(res.value(name)), "unit": unit}
            for name, unit in PER_IMAGE
            if name in names
        },
    }
