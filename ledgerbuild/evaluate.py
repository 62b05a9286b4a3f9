"""Evaluation on the declarations themselves: the ledger's exact numbers as sympy values.

Scope: the Python API's exact path and the referee of the generated numeric ledger. The
scenario is resolved by the numeric path's rules (numeric.py: defaults, catalog lookups,
`--set` overrides, the model's fields range- and consistency-checked, as exact ints and
Fractions), then every quantity of the model's variant is evaluated from its sympy
expression in exact arithmetic (exact.py: decimal inputs are exact rationals, so counts are
exact integers) and kept as sympy numbers. The commands and writers run on numeric.py
instead (the same values, generated from the same declarations, without sympy);
`evaluate_floats` is numeric.py's float path. Shortcut: a `--set` on a quantity name
replaces that quantity's value (a what-if).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from . import catalog
from .errors import LedgerError
from .exact import compile_exact, to_fraction, to_sympy
from .ledger import Ledger, Quantity, load_formulas
from .numeric import NumericEvaluator
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


def _number(name: str, text) -> sp.Expr:
    """A --set value as an exact sympy number (rules.parse_number)."""
    return to_sympy(parse_number(name, text))


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
        # the scenario's rules are stated once, on the numeric path (numeric.py): --set names
        # and values checked there, keys, lookups and fields resolved there, as exact numbers
        self.numbers = NumericEvaluator(self.sets)

    def keys(self) -> dict[str, str]:
        return self.numbers.keys()

    def scenario_values(self, keys: dict) -> dict[str, sp.Expr]:
        return {k: to_sympy(v) for k, v in self.numbers.scenario_values(keys).items()}

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
        return {k: to_sympy(v) for k, v in self.numbers.model_values(fields, where).items()}

    def evaluate(self, model_ref: str) -> Result:
        """A model by catalog id, model YAML path or HF config.json path."""
        return self.evaluate_entry(*catalog.load_model(model_ref))

    def scenario(self) -> tuple[dict, dict]:
        """(keys, the scenario's exact input values), resolved once per evaluator."""
        if self._scenario is None:
            keys = self.keys()
            self._scenario = keys, self.scenario_values(keys)
        return self._scenario

    def inputs_for(self, entry, fields: dict) -> tuple[dict, dict, frozenset]:
        """(keys, every input's exact value, variant tags) for a model under the scenario
        (the scenario's part resolved once per evaluator)."""
        keys, scenario = self.scenario()
        inputs = {**self.model_values(fields, entry.where), **scenario}
        check_combination(inputs, entry.where)
        tags = self.ledger.tags_for({k: int(v) if v.is_Integer else v for k, v in inputs.items()})
        return keys, inputs, tags

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

    def evaluate_floats(self, entry, fields: dict, names: frozenset[str] | None = None) -> dict:
        """Every input and quantity (or those `names` need) as a Python number (ints where
        exact integer arithmetic keeps them so, else floats): numeric.py's float path."""
        if self.draft_model is not None:
            return _as_numbers(self._with_draft_model(entry, fields))
        return self.numbers.evaluate_floats(entry, fields, names)

    def _with_draft_model(self, entry, fields: dict) -> Result:
        """spec_draft_cost from a draft model (numeric.py: NumericEvaluator.draft_cost)."""
        numbers = NumericEvaluator({**self.sets, DRAFT_MODEL: str(self.draft_model)})
        cost, draft_id = numbers.draft_cost(entry, fields)
        result = Evaluator({**self.sets, "spec_draft_cost": str(cost)}).evaluate_entry(entry, fields)
        result.keys = {**result.keys, DRAFT_MODEL: draft_id}
        return result


_MODEL_VALUES: dict[tuple, dict] = {}
_EXACT: dict = {}


def _exact_form(q: Quantity):
    if id(q) not in _EXACT:
        _EXACT[id(q)] = compile_exact(q.expr)
    return _EXACT[id(q)]


def _as_numbers(result: Result) -> dict:
    return {n: to_plain(v) for n, v in {**result.inputs, **result.values}.items()}


def evaluate(model_ref: str, sets: dict[str, str] | None = None) -> Result:
    return Evaluator(sets).evaluate(model_ref)
