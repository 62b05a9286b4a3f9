"""The numeric path: the ledger evaluated without importing sympy.

Scope: `show` and other numeric commands load the ledger as generated Python (numeric_gen.py
writes it from the sympy declarations into a cache keyed by a hash of the declaring files,
once per change) and resolve the scenario the way evaluate.py does: catalog lookups and
their unit scales computed exactly on Fractions, `--set` values parsed and range-checked,
the model's fields checked, the variant's forms picked (variants.py). The generated functions do
exact.py's arithmetic on ints and Fractions, so every value equals the exact path's
(tests/test_numeric.py holds the two equal for every model in several scenarios). The
generated module also holds what the writers print (printed.py reads it), so the workbook and
the documents are written without sympy too.
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import sys
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache
from pathlib import Path
from types import ModuleType

from . import catalog
from .errors import LedgerError
from .files import cache_dirs, write_output, write_text
from .rules import (
    DRAFT_MODEL,
    Scenario,
    check_combination,
    check_consistency,
    check_range,
    check_sets_read,
    result_json,
)
from .variants import tags_for

# files whose text decides the generated module (the declarations and their printer)
_ENGINE_FILES = (
    "ledger.py",
    "compiled.py",
    "variants.py",
    "numeric_gen.py",
    "printers/excel.py",
    "printers/latex.py",
    "printers/template.py",
)


def _digest() -> str:
    h = hashlib.sha256(sys.version.encode())
    package = Path(__file__).parent
    for name in _ENGINE_FILES:
        h.update((package / name).read_bytes())
    spec = importlib.util.find_spec("ledgerbuild.formulas")  # found, not run (its import is sympy)
    assert spec is not None and spec.submodule_search_locations
    root = Path(spec.submodule_search_locations[0])
    for entry in sorted(root.rglob("*.py")):  # formulas/inputs/ is a package of its own
        h.update(entry.relative_to(root).as_posix().encode() + entry.read_bytes())
    return h.hexdigest()[:20]


def _prune(folder: Path, keep: Path, most: int = 8) -> None:
    """Keep the newest few generated ledgers (other versions may share the cache)."""
    old = sorted(folder.glob("numeric_*.py"), key=lambda p: p.stat().st_mtime, reverse=True)
    for path in [p for p in old if p != keep][most - 1 :]:
        path.unlink(missing_ok=True)
        path.with_suffix(".marshal").unlink(missing_ok=True)


@cache
def numeric_ledger() -> ModuleType:
    """The generated module for the declarations as they are: its source (for readers) and its
    compiled code (marshal, as this Python writes it: loaded without compiling, whatever
    PYTHONDONTWRITEBYTECODE says) in the first writable cache folder; made, with sympy, once."""
    digest = _digest()
    for folder in cache_dirs():
        source, code = folder / f"numeric_{digest}.py", folder / f"numeric_{digest}.marshal"
        try:
            if not code.is_file():
                _generate(digest, source, code)
            compiled = marshal.loads(code.read_bytes())
        except (OSError, LedgerError, ValueError, EOFError, TypeError):  # unwritable, cut short
            continue
        module = _module(compiled)
        if getattr(module, "HASH", None) == digest:
            return module
    from .numeric_gen import generate_source  # no writable cache: build it in memory

    return _module(compile(generate_source(digest), "<numeric ledger>", "exec"))


def _generate(digest: str, source: Path, code: Path) -> None:
    from .numeric_gen import generate_source  # sympy: only when the cache is cold

    text = generate_source(digest)
    source.parent.mkdir(parents=True, exist_ok=True)
    write_text(source, text)
    compiled = compile(text, str(source), "exec")
    write_output(code, lambda tmp: Path(tmp).write_bytes(marshal.dumps(compiled)))
    _prune(source.parent, keep=source)


def _module(code) -> ModuleType:
    module = ModuleType("ledgerbuild_numeric")
    exec(code, module.__dict__)
    return module


@dataclass(frozen=True)
class Form:
    """A quantity form as outputs read it (the numeric twin of ledger.Quantity)."""

    name: str
    when: str | None
    unit: str
    description: str
    source: str
    topic: str
    integer: bool
    index: int


def _exact(value) -> Fraction:
    """A catalog number exactly (a float by its shortest repr: 3.35 is 335/100)."""
    if isinstance(value, bool):
        return Fraction(int(value))
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


def _number(value: Fraction):
    """An exact number as the exact path keeps it: an int where whole, else the Fraction."""
    return value.numerator if value.denominator == 1 else value


def _normal(value):
    """A Fraction that is whole as an int (exact.to_fraction's form of a whole number)."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    return value


@cache
def quantity_forms() -> dict[str, list[Form]]:
    """Every quantity's forms, in ledger order."""
    forms: dict[str, list[Form]] = {}
    for record in numeric_ledger().FORMS:
        forms.setdefault(record[0], []).append(Form(*record))
    return forms


@dataclass
class NumericResult:
    model_id: str
    model_name: str
    tags: frozenset
    keys: dict
    inputs: dict
    quantities: list[Form]
    values: dict
    topics: list[str]
    input_kinds: dict
    overridden: set = field(default_factory=set)

    def value(self, name: str):
        return self.values[name] if name in self.values else self.inputs[name]

    def as_json(self) -> dict:
        return result_json(self, {n for n, kind in self.input_kinds.items() if kind == "model"})


class NumericEvaluator:
    """Evaluator's scenario resolution and checks, in Python numbers, over the generated ledger."""

    def __init__(self, sets: dict[str, str] | Scenario | None = None):
        self.g = numeric_ledger()
        self.inputs: dict[str, dict] = self.g.INPUTS
        self.forms = quantity_forms()
        # the --set values parsed once (a Scenario passed in is read as it is)
        self.parsed = sets if isinstance(sets, Scenario) else Scenario.parse(sets, self.inputs, self.forms)
        self.sets = self.parsed.sets
        self.draft_model = self.parsed.draft_model
        self._scenario: tuple[dict, dict] | None = None
        self._scenario_floats: dict | None = None
        self._set_floats = {n: float(v) for n, v in self.parsed.numbers.items() if n in self.forms}
        self._float_steps: dict[tuple, tuple] = {}
        self._set_quantities = [n for n in self.sets if n in self.forms]  # lost in the h32perf merge

    def variant(self, sets: dict[str, str]) -> NumericEvaluator:
        """An evaluator of this scenario with `sets` on top: only those values are parsed."""
        return NumericEvaluator(self.parsed.with_sets(Scenario.parse(sets, self.inputs, self.forms)))

    def keys(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for name, inp in self.inputs.items():
            if inp["kind"] != "key":
                continue
            default = out[inp["default"]] if inp["follows"] else inp["default"]
            choice = str(self.sets.get(name, default))
            try:
                if inp["table"] == "gpus":
                    choice = catalog.load_gpu(choice)
                elif inp["table"] == "time_models":
                    choice = catalog.load_time_model(choice)
                catalog.row(inp["table"], choice)
            except LedgerError as e:  # the message names the input (--set NAME= or --gpu)
                raise LedgerError(f"field {name}: {e}") from None
            out[name] = choice
        return out

    def _check(self, name: str, value: Fraction, where: str) -> None:
        inp = self.inputs[name]
        lo = None if inp["lo"] is None else _exact(inp["lo"])
        hi = None if inp["hi"] is None else _exact(inp["hi"])
        check_range(name, lo, hi, inp["integer"], inp["hi_open"], value, where)

    def scenario_values(self, keys: dict) -> dict:
        values: dict = {}
        deferred = []
        for name, inp in self.inputs.items():
            if inp["kind"] in ("model", "key"):
                continue
            if name in self.sets:
                value = self.parsed.numbers[name]
                self._check(name, value, "--set")
                values[name] = _number(value)
            elif inp["kind"] == "lookup":
                values[name] = self.lookup(name, keys)
            elif name in self.g.DEFAULTS:
                deferred.append(name)
            else:
                values[name] = inp["default"]
        for name in deferred:
            values[name] = _normal(self.g.DEFAULTS[name](values))
        check_sets_read(self.sets, values)
        return values

    def lookup(self, name: str, keys: dict):
        """A lookup input's value at the row its key (and qualifier) name in `keys`."""
        inp = self.inputs[name]
        qualifier = keys.get(inp["qualifier"]) if inp["qualifier"] else None
        row = catalog.row(inp["table"], catalog.row_id(inp["table"], keys[inp["key"]], qualifier))
        found = _LOOKUPS.get((name, id(row)))
        if found is None or found[0] is not row:  # remembered per row object: a row read again
            found = row, _number(_exact(getattr(row, inp["column"])) * _exact(inp["scale"]))
            _LOOKUPS[name, id(row)] = found  # (a GPU file given anew) is a new object
        return found[1]

    def model_values(self, fields: dict, where: str) -> dict:
        values = {}
        for name, inp in self.inputs.items():
            if inp["kind"] != "model":
                continue
            if name in self.sets:
                value, src = self.parsed.numbers[name], "--set"
            else:
                raw, src = fields.get(name, inp["default"]), where
                if raw is None:
                    raise LedgerError(f"{where}: field {name}: missing")
                value = _exact(raw)
            self._check(name, value, src)
            values[name] = _number(value)
        check_consistency(values, where)
        return values

    def scenario(self) -> tuple[dict, dict]:
        """(keys, the scenario's exact input values), resolved once per evaluator."""
        if self._scenario is None:
            keys = self.keys()
            self._scenario = keys, self.scenario_values(keys)
        return self._scenario

    def inputs_for(self, entry, fields: dict) -> tuple[dict, dict, frozenset]:
        """(keys, every input's exact value, variant tags) for a model under the scenario."""
        keys, scenario = self.scenario()
        model = self.model_values(fields, entry.where)
        env = {**model, **scenario}
        check_combination(env, entry.where)
        return keys, env, tags_for(model)

    def chosen(self, tags: frozenset) -> list[Form]:
        """One form per quantity that applies to a model with these tags, in ledger order."""
        return chosen_forms(tags)

    def float_inputs(self, entry, fields: dict) -> tuple[dict, frozenset]:
        """(every input as a Python number: ints where whole, else floats; variant tags), the
        model's part remembered per field values and the --set values that touch them (a
        workbook evaluates each model under hundreds of scenarios)."""
        model_sets = tuple(
            (k, v) for k, v in self.sets.items() if self.inputs.get(k, {}).get("kind") == "model"
        )
        key = (entry.where, tuple(fields.items()), model_sets)
        try:
            found = _MODEL_FLOATS.get(key)
            hashable = True
        except TypeError:  # a field that is not a number: model_values says which
            found, hashable = None, False
        if found is None:
            model = self.model_values(fields, entry.where)
            found = {k: _float(v) for k, v in model.items()}, tags_for(model)
            if hashable:
                _MODEL_FLOATS[key] = found
        if self._scenario_floats is None:
            self._scenario_floats = {k: _float(v) for k, v in self.scenario()[1].items()}
        env = {**found[0], **self._scenario_floats}
        check_combination(env, entry.where)
        return env, found[1]

    def evaluate_floats(self, entry, fields: dict, names: frozenset[str] | None = None) -> dict:
        """Every input and quantity (or those `names` need) as a Python number, through the
        generated float functions (compiled.py's source: integer arithmetic stays int, the rest
        doubles, as Excel holds them); the same scenario resolution and checks as evaluate."""
        if self.draft_model is not None:
            return self._with_draft(entry, fields)[0].evaluate_floats(entry, fields, names)
        env, tags = self.float_inputs(entry, fields)
        env.update(self._set_floats)
        steps = self._float_steps.get((tags, names))
        if steps is None:  # those set with --set keep their value
            steps = float_steps(tags, names)
            if self._set_quantities:
                steps = tuple(s for s in steps if s[0] not in self.sets)
            self._float_steps[tags, names] = steps
        try:
            for name, function in steps:
                env[name] = function(env)
        except (ZeroDivisionError, OverflowError):
            raise LedgerError(
                f"{entry.where}: a quantity divides by zero or overflows a double for these inputs"
            ) from None
        return env

    def evaluate(self, model_ref: str) -> NumericResult:
        """A model by catalog id, model YAML path or HF config.json path."""
        return self.evaluate_entry(*catalog.load_model(model_ref))

    def _with_draft(self, entry, fields: dict) -> tuple[NumericEvaluator, str]:
        """(an evaluator with spec_draft_cost set from the draft model, the draft's id)."""
        cost, draft_id = self.draft_cost(entry, fields)
        with_cost = self.parsed.with_sets(Scenario({"spec_draft_cost": str(cost)}, {"spec_draft_cost": cost}))
        return NumericEvaluator(replace(with_cost, draft_model=None)), draft_id

    def draft_cost(self, entry, fields: dict) -> tuple[Fraction, str]:
        """(spec_draft_cost, the draft's id) from the draft model: its active parameters over
        the target's (one draft step reads and multiplies its weights as a target step does;
        a shortcut that leaves out the draft's own KV and overheads)."""
        plain = NumericEvaluator(replace(self.parsed, draft_model=None))
        draft = plain.evaluate(str(self.draft_model))
        target = plain.evaluate_entry(entry, fields)
        if draft.inputs["vocab_size"] != target.inputs["vocab_size"]:
            raise LedgerError(
                f"--set {DRAFT_MODEL}={self.draft_model}: vocabulary "
                f"{draft.inputs['vocab_size']} differs from {entry.id}'s "
                f"{target.inputs['vocab_size']} (a draft must share the target's)"
            )
        return Fraction(draft.values["params_active"]) / target.values["params_active"], draft.model_id

    def evaluate_entry(self, entry, fields: dict, exact_values: bool = True) -> NumericResult:
        """The model's exact values; without `exact_values`, only those set with --set (a
        workbook's cells carry formulas, their cached values come from evaluate_floats)."""
        if self.draft_model is not None:
            evaluator, draft_id = self._with_draft(entry, fields)
            result = evaluator.evaluate_entry(entry, fields, exact_values)
            result.keys = {**result.keys, DRAFT_MODEL: draft_id}
            return result
        keys, env, tags = self.inputs_for(entry, fields)
        chosen = self.chosen(tags)
        overridden = set()
        functions = self.g.FUNCTIONS
        evaluated = chosen if exact_values else [q for q in chosen if q.name in self.sets]
        for q in evaluated:
            if q.name in self.sets:
                env[q.name] = _number(self.parsed.numbers[q.name])
                overridden.add(q.name)
                continue
            try:
                env[q.name] = _normal(functions[q.index](env))
            except (ZeroDivisionError, OverflowError):
                raise LedgerError(f"{entry.where}: {q.name} divides by zero for these inputs") from None
        inputs = {n: env[n] for n in self.inputs if n in env}
        values = {q.name: env[q.name] for q in evaluated}
        kinds = {n: i["kind"] for n, i in self.inputs.items()}
        return NumericResult(
            entry.id, entry.name, tags, keys, inputs, chosen, values, self.g.TOPICS, kinds, overridden
        )


_MODEL_FLOATS: dict[tuple, tuple[dict, frozenset]] = {}
_LOOKUPS: dict[tuple[str, int], tuple[object, object]] = {}  # (input, id(row)) -> (row, value)


def _float(value):
    """An exact number as the float path holds it: ints stay ints, Fractions become floats."""
    return float(value) if isinstance(value, Fraction) else value


@cache
def chosen_forms(tags: frozenset) -> list[Form]:
    """One form per quantity that applies to a model with these tags, in ledger order."""
    return [
        next(f for f in forms if f.when is None or f.when in tags)
        for forms in quantity_forms().values()
        if any(f.when is None or f.when in tags for f in forms)
    ]


@cache
def float_steps(tags: frozenset, names: frozenset[str] | None) -> tuple:
    """(name, float function) of each form a model with these tags evaluates, in ledger
    order; with `names`, only the forms they depend on (a workbook block needs ~40 of ~450)."""
    forms = chosen_forms(tags)
    if names is not None:
        by_name, arguments = {f.name: f for f in forms}, numeric_ledger().NUMPY_ARGS
        wanted: set[str] = set()
        todo = [n for n in names if n in by_name]
        while todo:
            name = todo.pop()
            if name not in wanted:
                wanted.add(name)
                todo += [a for a in arguments[by_name[name].index] if a in by_name]
        forms = [f for f in forms if f.name in wanted]
    functions = numeric_ledger().FLOATS
    return tuple((f.name, functions[f.index]) for f in forms)


def numpy_ledger() -> tuple[tuple, tuple]:
    """(numpy function per form, its argument names), with numpy bound (sweeps only)."""
    import functools

    import numpy

    module = numeric_ledger()
    module.__dict__.update(numpy=numpy, functools=functools)
    return module.NUMPY, module.NUMPY_ARGS
