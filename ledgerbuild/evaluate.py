"""Evaluation: the ledger's numbers for one model and scenario; vectorised sweeps.

Scope: resolve a scenario (defaults, catalog lookups, `--set` overrides), validate model
fields against their declared ranges, and evaluate every quantity of the model's variant in
exact sympy arithmetic (decimal inputs become exact rationals, so counts are exact
integers). `sweep` lambdifies a fully inlined quantity for numpy arrays.
Shortcut: a `--set` on a quantity name replaces that quantity's value (a what-if).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from . import catalog
from .compiled import evaluator_for
from .errors import LedgerError, close_matches
from .exact import compile_exact, to_fraction, to_sympy
from .ledger import Input, Ledger, Quantity, load_formulas
from .rules import (  # noqa: F401  (re-exported: the writers import them from here)
    DRAFT_MODEL,
    SET_ALIASES,
    check_combination,
    check_consistency,
    check_range,
    gpu_count_text,
    parse_number,
    parse_sets,
    result_json,
    time_model_text,
    to_plain,
)


def exact(value) -> sp.Expr:
    """A catalog or user number as an exact sympy number."""
    if isinstance(value, bool):
        return sp.Integer(int(value))
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, float):
        return sp.Rational(repr(value))
    return sp.Rational(str(value))


def _number(name: str, text) -> sp.Expr:
    """A --set value as an exact sympy number (rules.parse_number)."""
    value = parse_number(name, text)
    return sp.Rational(value.numerator, value.denominator)


def _check_range(inp: Input, value: sp.Expr, where: str) -> None:
    lo = None if inp.lo is None else exact(inp.lo)
    hi = None if inp.hi is None else exact(inp.hi)
    check_range(inp.name, lo, hi, inp.integer, inp.hi_open, value, where)


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

    @property
    def topics(self) -> list[str]:
        return load_formulas().topics

    def as_json(self) -> dict:
        return result_json(self, {i.name for i in load_formulas().inputs_of("model")})


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
        check_combination(inputs, entry.where)
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
        check_combination(env, entry.where)
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


_MODEL_FLOATS: dict[tuple, tuple[dict, frozenset]] = {}
_MODEL_VALUES: dict[tuple, dict] = {}
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


def evaluate(model_ref: str, sets: dict[str, str] | None = None) -> Result:
    return Evaluator(sets).evaluate(model_ref)
