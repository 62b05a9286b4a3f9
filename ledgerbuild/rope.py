"""The `rope` command's table: every rotary pair's wavelength before and after scaling.

Scope: evaluate `formulas.rope.inv_freq` (the one declaration) at each pair i of a model under
a scenario, and say which pairs the scaling keeps, interpolates (wavelength x s) or blends.
"""

from __future__ import annotations

import math

import sympy as sp

from .errors import LedgerError
from .evaluate import Evaluator, to_plain

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
    if factor is not None:
        out["rope_factor"] = repr(float(factor))
    if target_tokens is not None:
        trained = Evaluator(out).evaluate(model_ref).inputs["rope_original_max_position"]
        if target_tokens < 1 or trained <= 0:
            raise LedgerError(
                f"--target-tokens {target_tokens}: needs a positive target and a "
                "model with a trained context (max_position_embeddings)"
            )
        out["rope_factor"] = repr(max(1.0, target_tokens / float(trained)))
    return out


def rope_report(model_ref: str, sets: dict) -> dict:
    from .formulas.rope import inv_freq

    res = Evaluator(sets).evaluate(model_ref)
    values = {sp.Symbol(k): v for k, v in {**res.inputs, **res.values}.items()}
    i = sp.Symbol("i")
    before = inv_freq(i, method=0, s=1).xreplace(values)
    after = inv_freq(i).xreplace(values)
    s = float(res.value("rope_factor_in_force"))
    pairs = []
    for k in range(int(res.inputs["rope_dim"]) // 2):
        was, now = 2 * math.pi / float(before.subs(i, k)), 2 * math.pi / float(after.subs(i, k))
        ratio = now / was
        band = (
            "kept"
            if math.isclose(ratio, 1, rel_tol=1e-9)
            else ("interpolated" if math.isclose(ratio, s, rel_tol=1e-9) else "blended")
        )
        pairs.append(
            {"pair": k, "wavelength_before_tokens": was, "wavelength_after_tokens": now, "band": band}
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
