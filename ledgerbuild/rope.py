"""The `rope` command's table: every rotary pair's wavelength before and after scaling.

Scope: evaluate `formulas.rope.inv_freq` (the one declaration) at each pair i of a model under
a scenario, and say which pairs the scaling keeps, interpolates (wavelength x s) or blends.
"""

from __future__ import annotations

import math

from .errors import LedgerError
from .numeric import NumericEvaluator, numeric_ledger, numpy_ledger
from .rules import to_plain

MAX_TARGET_TOKENS = 10**9  # a context target; Llama 4 Scout's 10M is the longest served
METHODS = {0: "none", 1: "pi", 2: "ntk", 3: "yarn", 4: "llama3"}


def rope_sets(
    model_ref: str, sets: dict, method: str | None, factor: float | None, target_tokens: int | None
) -> dict:
    """--method / --factor / --target-tokens as --set values."""
    out = dict(sets)
    if method is not None:
        out["rope_method"] = method
    if factor is not None and target_tokens is not None:
        raise LedgerError("--factor and --target-tokens: give one")
    if factor is not None and not (math.isfinite(factor) and 1 <= factor <= 1e6):
        raise LedgerError(f"--factor {factor:g}: must be a finite scaling factor in 1..1e6")
    if factor is not None:
        out["rope_factor"] = repr(float(factor))
    if target_tokens is not None and not 1 <= target_tokens <= MAX_TARGET_TOKENS:
        raise LedgerError(
            f"--target-tokens: must be in 1..{MAX_TARGET_TOKENS:,}, got {str(target_tokens)[:40]}"
        )
    if target_tokens is not None:
        trained = NumericEvaluator(out).evaluate(model_ref).inputs["rope_original_max_position"]
        if target_tokens < 1 or trained <= 0:
            raise LedgerError(
                f"--target-tokens {target_tokens}: needs a positive target and a "
                "model with a trained context (max_position_embeddings)"
            )
        out["rope_factor"] = repr(max(1.0, target_tokens / float(trained)))
    return out


def wavelengths(result) -> tuple:
    """(pairs, wavelength before, after) as numpy arrays for a result, from inv_freq."""
    import numpy as np

    # numpy scalars: a branch not taken (0 ** -x without a trained context) gives inf, not an error
    values = {k: np.float64(to_plain(v)) for k, v in {**result.inputs, **result.values}.items()}
    pairs = np.arange(int(result.inputs["rope_dim"]) // 2, dtype=float)
    out = []
    for scaled in (False, True):
        numpy_ledger()  # binds numpy in the generated ledger
        fn, names = numeric_ledger().INV_FREQ[scaled]
        with np.errstate(divide="ignore", invalid="ignore"):  # numpy evaluates every branch
            inv = np.asarray(fn(pairs, *[values[n] for n in names]), dtype=float)
        out.append(2 * np.pi / np.broadcast_to(inv, pairs.shape))
    return pairs, out[0], out[1]


def rope_report(model_ref: str, sets: dict) -> dict:
    res = NumericEvaluator(sets).evaluate(model_ref)
    s = float(res.value("rope_factor_in_force"))
    pairs = []
    for k, was, now in zip(*wavelengths(res), strict=True):
        ratio = now / was
        band = (
            "kept"
            if math.isclose(ratio, 1, rel_tol=1e-9)
            else ("interpolated" if math.isclose(ratio, s, rel_tol=1e-9) else "blended")
        )
        pairs.append(
            {
                "pair": int(k),
                "wavelength_before_tokens": float(was),
                "wavelength_after_tokens": float(now),
                "band": band,
            }
        )
    return {
        "model": res.model_id,
        "method": METHODS.get(int(res.value("rope_code_in_force")), "none"),
        "factor": s,
        "base": to_plain(res.inputs["rope_theta"]),
        "rotary_dim": int(res.inputs["rope_dim"]),
        "trained_context_tokens": int(res.inputs["rope_original_max_position"]),
        "ntk_base": float(res.value("rope_ntk_base")),
        "yarn_attention_scale": float(res.value("yarn_attention_scale")),
        "pairs": pairs,
    }
