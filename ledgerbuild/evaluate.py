"""Evaluation: the ledger's numbers for one model and scenario; vectorised sweeps.

Scope: resolve a scenario (defaults, catalog lookups, `--set` overrides), validate model
fields against their declared ranges, and evaluate every quantity of the model's variant in
exact sympy arithmetic (decimal inputs become exact rationals, so counts are exact
integers). `sweep` lambdifies a fully inlined quantity for numpy arrays.
Shortcut: a `--set` on a quantity name replaces that quantity's value (a what-if).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import sympy as sp

from . import catalog
from .compiled import evaluator_for
from .errors import LedgerError, close_matches
from .exact import compile_exact, to_fraction, to_sympy
from .ledger import Input, Ledger, Quantity, load_formulas


def exact(value) -> sp.Expr:
    """A catalog or user number as an exact sympy number."""
    if isinstance(value, bool):
        return sp.Integer(int(value))
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, float):
        return sp.Rational(repr(value))
    return sp.Rational(str(value))


def parse_sets(pairs: list[str] | None) -> dict[str, str]:
    """['NAME=VALUE', ...] -> {NAME: VALUE}, with a clear error for a malformed pair."""
    out = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise LedgerError(f"--set {pair!r}: expected NAME=VALUE")
        out[name.strip()] = value.strip()
    return out


# a decimal number with an exponent of at most three digits (1e308 is as far as a double goes;
# sympy would build 10^1000000 exactly and hang)
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]{1,3})?")
_FRACTION = re.compile(r"[+-]?[0-9]{1,40}/0*[1-9][0-9]{0,39}")  # an exact ratio, e.g. 1/3


def _number(name: str, text) -> sp.Expr:
    """A --set value: a plain decimal number (1024, 0.9, 2.5e-3) or a ratio of whole numbers
    (1/3, not 1/0), finite, within a double's range."""
    shown, plain = str(text)[:40], str(text).strip()
    if (
        isinstance(text, bool)
        or len(plain) > 80
        or not (_DECIMAL.fullmatch(plain) or _FRACTION.fullmatch(plain))
    ):
        raise LedgerError(f"--set {name}={shown}: not a number (write e.g. 1024, 0.9, 2.5e-3 or 1/3)")
    value = sp.Rational(plain)
    if abs(value) > 1e300 or (value != 0 and abs(value) < 1e-300):
        raise LedgerError(f"--set {name}={shown}: out of the range a double holds")
    return value


def _plain_text(value) -> str:
    """An exact (sympy) or float value as the user would type it."""
    if isinstance(value, sp.Basic):
        return str(int(value)) if value.is_Integer else f"{float(value):g}"
    return f"{value:g}"


def _check_range(inp: Input, value: sp.Expr, where: str) -> None:
    rule = None
    if inp.integer and not value.is_integer:
        rule = "must be a whole number"
    elif inp.lo is not None and value < exact(inp.lo):
        rule = f"must be >= {inp.lo}"
    elif inp.hi is not None and (value >= exact(inp.hi) if inp.hi_open else value > exact(inp.hi)):
        rule = f"must be {'<' if inp.hi_open else '<='} {inp.hi}"
    if rule:
        raise LedgerError(f"{where}: field {inp.name}: {rule}, got {_plain_text(value)}")


@dataclass
class Result:
    model_id: str
    model_name: str
    tags: frozenset
    keys: dict  # key input -> chosen id
    inputs: dict  # input name -> exact value
    quantities: list[Quantity]
    values: dict  # quantity name -> exact value
    overridden: set = field(default_factory=set)

    def value(self, name: str):
        return self.values[name] if name in self.values else self.inputs[name]

    def as_json(self) -> dict:
        ledger = load_formulas()
        return {
            "model": self.model_id,
            "scenario": {
                **self.keys,
                **{n: to_plain(v) for n, v in self.inputs.items() if ledger.inputs[n].kind != "model"},
                "gpu_count": to_plain(self.value("gpu_count")),
            },
            "time_model": time_model_text(self.keys["time_model"], self.keys["gpu"]),
            "serving_engine": catalog.row("engines", self.keys["serving_engine"]).description,
            "units": "bytes, seconds, FLOP; GB = 1e9 bytes, GiB = 2^30 bytes",
            "quantities": {
                q.name: {"value": to_plain(self.values[q.name]), "unit": q.unit} for q in self.quantities
            },
        }


def to_plain(value):
    value = sp.sympify(value)
    if value.is_Integer:
        return int(value)
    return float(value)


def gpu_count_text(result: Result) -> str:
    """'4 (auto)' when the count was chosen as the smallest that fits, else '4'."""
    auto = result.inputs["gpu_count_setting"] == 0 and "gpu_count" not in result.overridden
    return f"{to_plain(result.value('gpu_count'))}{' (auto)' if auto else ''}"


def time_model_text(tm_id: str, gpu: str | None = None) -> str:
    """The time-model row in force (`calibrated@h100-sxm` where fitted) and what it says."""
    tm = catalog.row("time_models", catalog.row_id("time_models", tm_id, gpu))
    return f"{tm.id}: {tm.description}"


# --set names that mean an input of another name: fixing the GPU count sets the setting, so the
# workbook keeps the choice on its Inputs sheet
SET_ALIASES = {"gpu_count": "gpu_count_setting"}


class Evaluator:
    """Evaluates the ledger for models under one set of `--set` overrides."""

    def __init__(self, sets: dict[str, str] | None = None):
        self.ledger: Ledger = load_formulas()
        self.sets = {SET_ALIASES.get(k, k): v for k, v in (sets or {}).items()}
        self.draft_model = self.sets.pop(DRAFT_MODEL, None)
        self._scenario: tuple[dict, dict] | None = None
        self._scenario_floats: dict | None = None
        known = self.ledger.known_names()
        for name, value in self.sets.items():
            if name not in known:
                raise LedgerError(f"--set {name}: unknown name{close_matches(name, known, 'quantities')}")
            inp = self.ledger.inputs.get(name)
            if inp is not None and inp.kind == "constant":
                raise LedgerError(f"--set {name}: a constant ({inp.description}) is not set")
            if inp is None or inp.kind != "key":  # a number, whether or not the model uses it
                _number(name, value)

    def keys(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for inp in self.ledger.inputs_of("key"):
            default = inp.default
            if isinstance(default, sp.Symbol):  # a key that follows another (weight_dtype)
                default = out[default.name]
            choice = str(self.sets.get(inp.name, default))
            assert inp.table is not None
            if inp.table == "gpus":
                choice = catalog.load_gpu(choice)
            elif inp.table == "time_models":
                choice = catalog.load_time_model(choice)
            catalog.row(inp.table, choice)
            out[inp.name] = choice
        return out

    def scenario_values(self, keys: dict) -> dict[str, sp.Expr]:
        values: dict[str, sp.Expr] = {}
        deferred = []
        for inp in self.ledger.inputs.values():
            if inp.kind in ("model", "key"):
                continue
            if inp.name in self.sets:
                values[inp.name] = _number(inp.name, self.sets[inp.name])
                _check_range(inp, values[inp.name], "--set")
            elif inp.kind == "lookup":
                values[inp.name] = lookup(inp, keys)
            elif isinstance(inp.default, sp.Basic):
                deferred.append(inp)
            else:
                values[inp.name] = exact(inp.default)
        subs = {sp.Symbol(k): v for k, v in values.items()}
        for inp in deferred:
            assert isinstance(inp.default, sp.Basic)
            values[inp.name] = inp.default.xreplace(subs)
        return values

    def model_values(self, fields: dict, where: str) -> dict[str, sp.Expr]:
        """The model's fields as exact numbers, range- and consistency-checked (remembered per
        field values and the --set values that touch them: a workbook evaluates each model
        under hundreds of scenarios)."""
        model_sets = tuple(
            (k, v)
            for k, v in self.sets.items()
            if k in self.ledger.inputs and self.ledger.inputs[k].kind == "model"
        )
        key = (where, tuple(fields.items()), model_sets)
        try:
            hash(key)
        except TypeError:  # a field that is not a number: the checks below say which
            return self._model_values(fields, where)
        if key not in _MODEL_VALUES:
            _MODEL_VALUES[key] = self._model_values(fields, where)
        return dict(_MODEL_VALUES[key])

    def _model_values(self, fields: dict, where: str) -> dict[str, sp.Expr]:
        values = {}
        for inp in self.ledger.inputs_of("model"):
            if inp.name in self.sets:
                raw, src = self.sets[inp.name], "--set"
                values[inp.name] = _number(inp.name, raw)
            else:
                raw, src = fields.get(inp.name, inp.default), where
                if raw is None:
                    raise LedgerError(f"{where}: field {inp.name}: missing")
                values[inp.name] = exact(raw)
            _check_range(inp, values[inp.name], src)
        check_consistency(values, where)
        return values

    def evaluate(self, model_ref: str) -> Result:
        """A model by catalog id, model YAML path or HF config.json path."""
        return self.evaluate_entry(*catalog.load_model(model_ref))

    def inputs_for(self, entry, fields: dict) -> tuple[dict, dict, frozenset]:
        """(keys, every input's exact value, variant tags) for a model under the scenario
        (the scenario's part resolved once per evaluator)."""
        if self._scenario is None:
            keys = self.keys()
            self._scenario = keys, self.scenario_values(keys)
        keys, scenario = self._scenario
        inputs = {**self.model_values(fields, entry.where), **scenario}
        _check_combination(inputs, entry.where)
        tags = self.ledger.tags_for({k: int(v) if v.is_Integer else v for k, v in inputs.items()})
        return keys, inputs, tags

    def float_inputs(self, entry, fields: dict) -> tuple[dict, frozenset]:
        """(every input as a Python number, variant tags): inputs_for through caches of the
        model's part (per field values) and the scenario's (per evaluator)."""
        model = self.model_values(fields, entry.where)  # checked, remembered
        key = (entry.where, tuple(fields.items()), tuple(sorted(self.sets.items())))
        if key not in _MODEL_FLOATS:
            numbers = {k: int(v) if v.is_Integer else float(v) for k, v in model.items()}
            _MODEL_FLOATS[key] = numbers, self.ledger.tags_for(numbers)
        if self._scenario_floats is None:
            if self._scenario is None:
                keys = self.keys()
                self._scenario = keys, self.scenario_values(keys)
            self._scenario_floats = {
                k: int(v) if v.is_Integer else float(v) for k, v in self._scenario[1].items()
            }
        numbers, tags = _MODEL_FLOATS[key]
        env = {**numbers, **self._scenario_floats}
        _check_combination(env, entry.where)
        return env, tags

    def evaluate_entry(self, entry, fields: dict) -> Result:
        if self.draft_model is not None:
            return self._with_draft_model(entry, fields)
        keys, inputs, tags = self.inputs_for(entry, fields)
        qs = self.ledger.quantities_for(tags)
        env = {k: to_fraction(v) for k, v in inputs.items()}
        values, overridden = {}, set()
        for q in qs:
            if q.name in self.sets:
                env[q.name] = to_fraction(_number(q.name, self.sets[q.name]))
                overridden.add(q.name)
            else:
                try:
                    env[q.name] = _exact_form(q)(env)
                except (ZeroDivisionError, OverflowError):
                    raise LedgerError(f"{entry.where}: {q.name} divides by zero for these inputs") from None
            values[q.name] = to_sympy(env[q.name])
        return Result(entry.id, entry.name, tags, keys, inputs, qs, values, overridden)

    def evaluate_floats(self, entry, fields: dict) -> dict:
        """Every input and quantity as a Python number (ints where exact integer arithmetic
        keeps them so, else floats) through the compiled path (compiled.py); the same
        scenario resolution and checks as evaluate_entry."""
        if self.draft_model is not None:
            return _as_numbers(self._with_draft_model(entry, fields))
        env, tags = self.float_inputs(entry, fields)
        qs = self.ledger.quantities_for(tags)
        for q in qs:
            if q.name in self.sets:
                env[q.name] = float(_number(q.name, self.sets[q.name]))
        try:
            return evaluator_for(qs)(env)
        except (ZeroDivisionError, OverflowError):
            raise LedgerError(
                f"{entry.where}: a quantity divides by zero or overflows a double for these inputs"
            ) from None

    def _with_draft_model(self, entry, fields: dict) -> Result:
        """spec_draft_cost from a draft model: its active parameters over the target's (one
        draft step reads and multiplies its weights as a target step does; a shortcut that
        leaves out the draft's own KV and overheads)."""
        plain = Evaluator(self.sets)
        draft = plain.evaluate(str(self.draft_model))
        target = plain.evaluate_entry(entry, fields)
        if draft.inputs["vocab_size"] != target.inputs["vocab_size"]:
            raise LedgerError(
                f"--set {DRAFT_MODEL}={self.draft_model}: vocabulary "
                f"{draft.inputs['vocab_size']} differs from {entry.id}'s "
                f"{target.inputs['vocab_size']} (a draft must share the target's)"
            )
        cost = draft.values["params_active"] / target.values["params_active"]
        result = Evaluator({**self.sets, "spec_draft_cost": str(cost)}).evaluate_entry(entry, fields)
        result.keys = {**result.keys, DRAFT_MODEL: draft.model_id}
        return result


def _check_combination(inputs: dict, where: str) -> None:
    """Scenario values that must agree with the model's (a rope factor, the EP degree)."""
    if 0 < inputs["rope_factor"] < 1:
        raise LedgerError(
            f"--set rope_factor={_plain_text(inputs['rope_factor'])}: field rope_factor: "
            "must be 0 (the model's own) or >= 1"
        )
    ep, experts = inputs["expert_parallel"], inputs["n_routed_experts"]
    if ep > 1 and experts > 0 and experts % ep != 0:
        raise LedgerError(
            f"--set expert_parallel={ep}: field expert_parallel: does not divide "
            f"{where}'s n_routed_experts {experts}"
        )


_MODEL_FLOATS: dict[tuple, tuple[dict, frozenset]] = {}
_MODEL_VALUES: dict[tuple, dict] = {}
DRAFT_MODEL = "spec_draft_model"  # --set spec_draft_model=ID derives spec_draft_cost
_EXACT: dict = {}


def _exact_form(q: Quantity):
    if id(q) not in _EXACT:
        _EXACT[id(q)] = compile_exact(q.expr)
    return _EXACT[id(q)]


def lookup(inp: Input, keys: dict) -> sp.Expr:
    """A lookup input's value at the row its key (and qualifier) name in `keys`."""
    assert inp.table and inp.key and inp.column, inp.name
    qualifier = keys.get(inp.qualifier) if inp.qualifier else None
    row = catalog.row(inp.table, catalog.row_id(inp.table, keys[inp.key], qualifier))
    return exact(getattr(row, inp.column)) * scale_of(inp)


def scale_of(inp: Input) -> sp.Expr:
    """A lookup's unit conversion as an exact number (a named constant, or 1)."""
    if isinstance(inp.scale, sp.Symbol):
        return exact(load_formulas().inputs[inp.scale.name].default)
    return exact(inp.scale)


def _as_numbers(result: Result) -> dict:
    return {n: to_plain(v) for n, v in {**result.inputs, **result.values}.items()}


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


def evaluate(model_ref: str, sets: dict[str, str] | None = None) -> Result:
    return Evaluator(sets).evaluate(model_ref)
