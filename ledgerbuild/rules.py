"""Scenario and model-field rules shared by the exact and the numeric evaluation.

Scope: `--set` parsing (a decimal or a ratio, bounded) into one Scenario that every evaluation
reads, the range check of a declared input, the cross-field rules a range cannot state, and
the texts every output names (the GPU count, the time model). No sympy here: the numeric path
(numeric.py) imports this module alone.
Shortcut: numbers are Python ints, Fractions or floats; a sympy number is read through its
`is_Integer` attribute without importing sympy.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from . import catalog
from .errors import LedgerError, close_matches

# a decimal number with an exponent of at most three digits (1e308 is as far as a double goes;
# an exact 10^1000000 would hang)
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]{1,3})?")
_FRACTION = re.compile(r"[+-]?[0-9]{1,40}/0*[1-9][0-9]{0,39}")  # an exact ratio, e.g. 1/3

# --set names that mean an input of another name: fixing the GPU count sets the setting, so the
# workbook keeps the choice on its Inputs sheet
SET_ALIASES = {"gpu_count": "gpu_count_setting"}
DRAFT_MODEL = "spec_draft_model"  # --set spec_draft_model=ID derives spec_draft_cost


def parse_sets(pairs: list[str] | None) -> dict[str, str]:
    """['NAME=VALUE', ...] -> {NAME: VALUE}, with a clear error for a malformed pair."""
    out = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise LedgerError(f"--set {pair!r}: expected NAME=VALUE")
        out[name.strip()] = value.strip()
    return out


def parse_number(name: str, text) -> Fraction:
    """A --set value: a plain decimal number (1024, 0.9, 2.5e-3) or a ratio of whole numbers
    (1/3, not 1/0), finite, within a double's range; exact."""
    shown, plain = str(text)[:40], str(text).strip()
    if (
        isinstance(text, bool)
        or len(plain) > 80
        or not (_DECIMAL.fullmatch(plain) or _FRACTION.fullmatch(plain))
    ):
        raise LedgerError(f"--set {name}={shown}: not a number (write e.g. 1024, 0.9, 2.5e-3 or 1/3)")
    value = Fraction(plain)
    if abs(value) > 1e300 or (value != 0 and abs(value) < 1e-300):
        raise LedgerError(f"--set {name}={shown}: out of the range a double holds")
    return value


@dataclass(frozen=True)
class Scenario:
    """A scenario's --set values, parsed once: every evaluation of a build reads this object
    (a workbook's column variants add theirs through `with_sets`, the user's are not parsed
    again). `sets`: name (aliases resolved) -> text as given, the draft model left out;
    `numbers`: each value that is not a catalog key, exact."""

    sets: Mapping[str, str] = field(default_factory=dict)
    numbers: Mapping[str, Fraction] = field(default_factory=dict)
    draft_model: str | None = None

    @classmethod
    def parse(cls, sets: Mapping[str, str] | None, inputs: Mapping[str, dict], quantities) -> Scenario:
        """Check every name against the inputs and quantities (`inputs`: the generated ledger's
        records) and parse every number; one LedgerError line naming the --set value."""
        named = {SET_ALIASES.get(k, k): v for k, v in (sets or {}).items()}
        draft = named.pop(DRAFT_MODEL, None)
        known = set(inputs) | set(quantities)
        numbers = {}
        for name, value in named.items():
            if name not in known:
                raise LedgerError(f"--set {name}: unknown name{close_matches(name, known, 'quantities')}")
            inp = inputs.get(name)
            if inp is not None and inp["kind"] == "constant":
                raise LedgerError(f"--set {name}: a constant ({inp['description']}) is not set")
            if inp is None or inp["kind"] != "key":
                numbers[name] = parse_number(name, value)
        return cls(named, numbers, None if draft is None else str(draft))

    def with_sets(self, extra: Scenario) -> Scenario:
        """This scenario with `extra`'s values on top (parsed already: a column's variant)."""
        numbers = {k: v for k, v in self.numbers.items() if k not in extra.sets}
        return Scenario(
            {**self.sets, **extra.sets}, {**numbers, **extra.numbers}, extra.draft_model or self.draft_model
        )


def decimal(text, where: str) -> float:
    """A number typed in a file or an option: an int or finite float as parsed, or a plain ASCII
    decimal (Arabic-Indic or full-width digits, '1_000', 'nan' and 'inf' are refused)."""
    if isinstance(text, bool):
        raise LedgerError(f"{where}: not a number: {text!r}")
    plain = text.strip() if isinstance(text, str) else text
    if isinstance(plain, (int, float)):
        value = float(plain)
    elif isinstance(plain, str) and len(plain) <= 80 and _DECIMAL.fullmatch(plain):
        value = float(plain)
    else:
        raise LedgerError(f"{where}: not a number (ASCII digits, e.g. 1024 or 2.5e-3): {str(text)[:40]!r}")
    if value != value or abs(value) == float("inf"):
        raise LedgerError(f"{where}: must be finite, got {str(text)[:40]!r}")
    return value


MAX_EXACT_EXPONENT = 4096  # exact powers up to this; beyond, a float (1e30 as an exponent hung)


def exact_power(base, exp):
    """base ** exp exactly on ints and Fractions; a float once either side is inexact (pi, a
    log) or the exponent is not whole (the exact and the numeric evaluation share it)."""
    if isinstance(base, float):
        return base ** float(exp)
    whole = isinstance(exp, int) or (isinstance(exp, Fraction) and exp.denominator == 1)
    if whole and abs(int(exp)) <= MAX_EXACT_EXPONENT:
        return Fraction(base) ** int(exp)
    if whole:  # an exact power this large would take minutes and gigabytes
        try:
            return float(base) ** float(exp)
        except OverflowError:
            return float("inf")
    return float(base) ** float(exp)


def to_plain(value):
    """A number as JSON shows it: an int where it is a whole number exactly, else a float."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    return int(value) if getattr(value, "is_Integer", False) else float(value)  # a sympy number


def plain_text(value) -> str:
    """A value as the user would type it."""
    value = to_plain(value)
    return str(value) if isinstance(value, int) else f"{value:g}"


def check_range(name: str, lo, hi, integer: bool, hi_open: bool, value, where: str) -> None:
    """A declared input's range (lo, hi: numbers or None) and integrality."""
    rule = None
    if integer and value != int(value):
        rule = "must be a whole number"
    elif lo is not None and value < lo:
        rule = f"must be >= {lo}"
    elif hi is not None and (value >= hi if hi_open else value > hi):
        rule = f"must be {'<' if hi_open else '<='} {hi}"
    if rule:
        raise LedgerError(f"{where}: field {name}: {rule}, got {plain_text(value)}")


def check_consistency(v: dict, where: str) -> None:
    """Cross-field rules a range check cannot state."""
    if v["kv_lora_rank"] == 0 and v["num_attention_heads"] % v["num_key_value_heads"] != 0:
        raise LedgerError(
            f"{where}: field num_key_value_heads: {v['num_key_value_heads']} "
            f"does not divide num_attention_heads {v['num_attention_heads']}"
        )
    layers = v["num_sliding_layers"] + v["num_chunked_layers"]
    if layers > v["num_hidden_layers"]:
        raise LedgerError(
            f"{where}: field num_sliding_layers: sliding + chunked layers exceed num_hidden_layers"
        )
    for count, width in (
        ("num_sliding_layers", "sliding_window"),
        ("num_chunked_layers", "attention_chunk_size"),
    ):
        if v[count] > 0 and v[width] <= 0:
            raise LedgerError(f"{where}: field {width}: must be > 0 when {count} > 0")
    if v["n_routed_experts"] > 0 and not 0 < v["num_experts_per_tok"] <= v["n_routed_experts"]:
        raise LedgerError(f"{where}: field num_experts_per_tok: must be in 1..n_routed_experts")
    if v["first_k_dense_replace"] > v["num_hidden_layers"]:
        raise LedgerError(
            f"{where}: field first_k_dense_replace: {v['first_k_dense_replace']} "
            f"exceeds num_hidden_layers {v['num_hidden_layers']}"
        )


# --set names the ledger reads only under a condition on the scenario: (condition, why not read)
READ_ONLY_IF = {
    "gpu_memory_gb": (
        lambda v: v["memory_gb_unit_bytes"] > 0,
        "not read while the GPU's memory comes from its driver figure (memory_mib); set "
        "gpu_memory_driver_bytes, or memory_gb_unit_bytes=1000000000 as well",
    ),
}


def check_sets_read(sets: Mapping, values: dict) -> None:
    """Refuse a --set of an input the ledger would not read under this scenario (it would be
    echoed as if it took effect)."""
    for name, (read, why) in READ_ONLY_IF.items():
        if name in sets and not read(values):
            raise LedgerError(f"--set {name}={str(sets[name])[:40]}: field {name}: {why}")


def check_combination(inputs: dict, where: str) -> None:
    """Scenario values that must agree with the model's (a rope factor, the EP degree)."""
    if 0 < inputs["rope_factor"] < 1:
        raise LedgerError(
            f"--set rope_factor={plain_text(inputs['rope_factor'])}: field rope_factor: "
            "must be 0 (the model's own) or >= 1"
        )
    ep, experts = inputs["expert_parallel"], inputs["n_routed_experts"]
    if ep > 1 and experts > 0 and experts % ep != 0:
        raise LedgerError(
            f"--set expert_parallel={plain_text(ep)}: field expert_parallel: does not divide "
            f"{where}'s n_routed_experts {plain_text(experts)}"
        )


def gpu_count_text(result) -> str:
    """'4 (auto)' when the count was chosen as the smallest that fits, else '4'."""
    auto = result.inputs["gpu_count_setting"] == 0 and "gpu_count" not in result.overridden
    return f"{to_plain(result.value('gpu_count'))}{' (auto)' if auto else ''}"


def time_model_text(tm_id: str, gpu: str | None = None) -> str:
    """The time-model row in force (`calibrated@h100-sxm` where fitted) and what it says."""
    tm = catalog.row("time_models", catalog.row_id("time_models", tm_id, gpu))
    return f"{tm.id}: {tm.description}"


def result_json(result, model_fields: set[str]) -> dict:
    """The JSON document of an evaluated model (exact or numeric result alike); the scenario
    lists every input that is not one of the model's fields."""
    return {
        "model": result.model_id,
        "scenario": {
            **result.keys,
            **{n: to_plain(v) for n, v in result.inputs.items() if n not in model_fields},
            "gpu_count": to_plain(result.value("gpu_count")),
        },
        "time_model": time_model_text(result.keys["time_model"], result.keys["gpu"]),
        "serving_engine": catalog.row("engines", result.keys["serving_engine"]).description,
        "units": "bytes, seconds, FLOP; GB = 1e9 bytes, GiB = 2^30 bytes",
        "quantities": {
            q.name: {"value": to_plain(result.values[q.name]), "unit": q.unit} for q in result.quantities
        },
    }
