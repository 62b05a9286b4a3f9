"""A model document's tables: its tensor shapes in prefill and decode (formulas/shapes.py)
and one layer's FLOPs and bytes per step, as the templates print them.

Scope: values read from the numeric ledger's result, formatted with the display units.
"""

from __future__ import annotations

import math

from ...numeric import NumericResult, numeric_ledger
from ...rules import to_plain
from ...units import human

STEPS = {"qkv": "QKV projection", "attention": "attention", "o_proj": "output projection", "mlp": "MLP"}


def shape_rows(result: NumericResult) -> list[dict]:
    """formulas/shapes.py's tensors for the model, prefill and decode (B sequences, T new
    tokens each, S tokens in the cache after the step)."""
    v = result.inputs
    prompt, batch = v["prompt_tokens"], v["batch_size"]
    phases = {
        "prefill": {**v, "B": batch, "T": prompt, "S": prompt},
        "decode": {**v, "B": batch, "T": 1, "S": decode_cached(result)},
    }
    rows = []
    for step, tensor, dims, when in numeric_ledger().SHAPES:
        if when is None or when in result.tags:
            shown = {p: "[" + ", ".join(f"{int(d):,}" for d in dims(s)) + "]" for p, s in phases.items()}
            rows.append({"step": step, "tensor": tensor, **shown})
    return rows


def decode_cached(result: NumericResult) -> int:
    """Tokens in the cache after a decode step: the context and the new token."""
    return math.floor(result.inputs["context_tokens"]) + 1


def layer_rows(result: NumericResult) -> list[dict]:
    def h(name, unit):
        return human(to_plain(result.values[name]), unit).split("  (")[0]

    return [
        {
            "step": what,
            "pf": h(f"layer_{s}_flops_prefill", "FLOP"),
            "pb": h(f"layer_{s}_bytes_prefill", "bytes"),
            "df": h(f"layer_{s}_flops_decode", "FLOP"),
            "db": h(f"layer_{s}_bytes_decode", "bytes"),
        }
        for s, what in STEPS.items()
    ] + [
        {
            "step": "total",
            "pf": h("layer_flops_prefill", "FLOP"),
            "pb": h("layer_bytes_prefill", "bytes"),
            "df": h("layer_flops_decode", "FLOP"),
            "db": h("layer_bytes_decode", "bytes"),
        }
    ]
