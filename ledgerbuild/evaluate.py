"""Evaluation: the ledger's numbers for one model and scenario; vectorised sweeps.

Scope: resolve a scenario (defaults, catalog lookups, `--set` overrides), validate model
fields against their declared ranges, and evaluate every quantity of the model's variant in
exact sympy arithmetic (decimal inputs become exact rationals, so counts are exact
integers). `sweep` lambdifies a fully inlined quantity for numpy arrays.
Shortcut: a `--set` on a quantity name replaces that quantity's value (a what-if).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from . import catalog
from .errors import LedgerError, close_matches
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


def _number(name: str, text) -> sp.Expr:
    try:
        value = exact(text)
    except (TypeError, ValueError, SyntaxError):
        raise LedgerError(f"--set {name}={text}: not a number") from None
    if not value.is_finite:
        raise LedgerError(f"--set {name}={text}: not a finite number")
    return value


def _check_range(inp: Input, value: sp.Expr, where: str) -> None:
    if inp.integer and not value.is_integer:
        raise LedgerError(f"{where}: field {inp.name}: must be a whole number, got {value}")
    if inp.lo is not None and value < exact(inp.lo):
        raise LedgerError(f"{where}: field {inp.name}: must be >= {inp.lo}, got {value}")
    if inp.hi is not None and value > exact(inp.hi):
        raise LedgerError(f"{where}: field {inp.name}: must be <= {inp.hi}, got {value}")


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
            "scenario": {**self.keys, **{n: to_plain(v) for n, v in self.inputs.items()
                                         if ledger.inputs[n].kind != "model"}},
            "time_model": time_model_text(self.keys["time_model"]),
            "units": "bytes, seconds, FLOP; GB = 1e9 bytes, GiB = 2^30 bytes",
            "quantities": {q.name: {"value": to_plain(self.values[q.name]), "unit": q.unit}
                           for q in self.quantities},
        }


def to_plain(value):
    value = sp.sympify(value)
    if value.is_Integer:
        return int(value)
    return float(value)


def time_model_text(tm_id: str) -> str:
    tm = catalog.row("time_models", tm_id)
    return f"{tm.id}: {tm.description}"


class Evaluator:
    """Evaluates the ledger for models under one set of `--set` overrides."""

    def __init__(self, sets: dict[str, str] | None = None):
        self.ledger: Ledger = load_formulas()
        self.sets = dict(sets or {})
        known = self.ledger.known_names()
        for name in self.sets:
            if name not in known:
                raise LedgerError(f"--set {name}: unknown name{close_matches(name, known)}")

    def keys(self) -> dict[str, str]:
        out = {}
        for inp in self.ledger.inputs_of("key"):
            choice = self.sets.get(inp.name, inp.default)
            if inp.table == "gpus":
                choice = catalog.load_gpu(choice)
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
                values[inp.name] = lookup(inp, keys[inp.key])
            elif isinstance(inp.default, sp.Basic):
                deferred.append(inp)
            else:
                values[inp.name] = exact(inp.default)
        subs = {sp.Symbol(k): v for k, v in values.items()}
        for inp in deferred:
            values[inp.name] = inp.default.xreplace(subs)
        return values

    def model_values(self, fields: dict, where: str) -> dict[str, sp.Expr]:
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
        """(keys, every input's exact value, variant tags) for a model under the scenario."""
        keys = self.keys()
        inputs = {**self.model_values(fields, f"model {entry.id}"), **self.scenario_values(keys)}
        tags = self.ledger.tags_for({k: int(v) if v.is_Integer else v for k, v in inputs.items()})
        return keys, inputs, tags

    def evaluate_entry(self, entry, fields: dict) -> Result:
        keys, inputs, tags = self.inputs_for(entry, fields)
        qs = self.ledger.quantities_for(tags)
        subs = {sp.Symbol(k): v for k, v in inputs.items()}
        values, overridden = {}, set()
        for q in qs:
            if q.name in self.sets:
                val = _number(q.name, self.sets[q.name])
                overridden.add(q.name)
            else:
                val = q.expr.xreplace(subs)
                if not val.is_number:
                    val = sp.nsimplify(val)
            values[q.name] = val
            subs[q.symbol] = val
        return Result(entry.id, entry.name, tags, keys, inputs, qs, values, overridden)


def lookup(inp: Input, key: str) -> sp.Expr:
    row = catalog.row(inp.table, key)
    return exact(getattr(row, inp.column)) * exact(inp.scale)


def check_consistency(v: dict, where: str) -> None:
    """Cross-field rules a range check cannot state."""
    if v["kv_lora_rank"] == 0 and v["num_attention_heads"] % v["num_key_value_heads"] != 0:
        raise LedgerError(f"{where}: field num_key_value_heads: {v['num_key_value_heads']} "
                          f"does not divide num_attention_heads {v['num_attention_heads']}")
    layers = v["num_sliding_layers"] + v["num_chunked_layers"]
    if layers > v["num_hidden_layers"]:
        raise LedgerError(f"{where}: field num_sliding_layers: sliding + chunked layers "
                          f"exceed num_hidden_layers")
    for count, width in (("num_sliding_layers", "sliding_window"),
                         ("num_chunked_layers", "attention_chunk_size")):
        if v[count] > 0 and v[width] <= 0:
            raise LedgerError(f"{where}: field {width}: must be > 0 when {count} > 0")
    if v["n_routed_experts"] > 0 and not 0 < v["num_experts_per_tok"] <= v["n_routed_experts"]:
        raise LedgerError(f"{where}: field num_experts_per_tok: must be in 1..n_routed_experts")


def evaluate(model_ref: str, sets: dict[str, str] | None = None) -> Result:
    return Evaluator(sets).evaluate(model_ref)


# --- sweeps ------------------------------------------------------------------------------
def inline(ledger: Ledger, tags: frozenset, expr: sp.Expr, keep=()) -> sp.Expr:
    """Replace quantity symbols by their expressions until only inputs (and `keep`) remain."""
    forms = {q.name: q.expr for q in ledger.quantities_for(tags)}
    keep = {str(k) for k in keep}
    for _ in range(100):
        names = {s.name for s in expr.free_symbols} & set(forms) - keep
        if not names:
            return expr
        expr = expr.xreplace({sp.Symbol(n): forms[n] for n in names})
    raise RuntimeError("quantity definitions are cyclic")


_COMPILED: dict = {}  # id(quantity form) -> (argument names, numpy function)


def _compiled(q: Quantity):
    if id(q) not in _COMPILED:
        args = sorted(s.name for s in q.expr.free_symbols)
        _COMPILED[id(q)] = args, sp.lambdify([sp.Symbol(a) for a in args], q.expr, "numpy")
    return _COMPILED[id(q)]


def sweep_function(quantity: str, tags: frozenset):
    """(input names, numpy function of those inputs' arrays) computing `quantity`.

    Each quantity form is lambdified on its own and evaluated in ledger order (no giant
    inlined expression), so compiling stays cheap and every step is the declared formula.
    """
    ledger = load_formulas()
    forms = {q.name: q for q in ledger.quantities_for(tags)}
    needed, stack = set(), [quantity]
    while stack:
        name = stack.pop()
        if name in forms and name not in needed:
            needed.add(name)
            stack.extend(s.name for s in forms[name].expr.free_symbols)
    steps = [(q.name, *_compiled(q)) for q in forms.values() if q.name in needed]
    inputs = sorted({a for _, args, _ in steps for a in args} - needed)

    def run(values):
        env = dict(values)
        for name, args, fn in steps:
            env[name] = fn(*(env[a] for a in args))
        return np.asarray(env[quantity], dtype=float)
    return inputs, run


def sweep(quantity: str, models: list[str], gpus: list[str], grid: dict[str, list],
          sets: dict | None = None) -> dict[str, np.ndarray]:
    """`quantity` over the product models x GPUs x grid (input name -> values), vectorised.

    Returns flat arrays: "model" and "gpu" (ids), one per grid input, and `quantity`.
    Floats (numpy), not exact: this is for sweeps, not for the ledger's golden figures.
    """
    evaluator = Evaluator(sets)
    axes = [np.asarray(v, dtype=float) for v in grid.values()]
    mesh = [m.ravel() for m in np.meshgrid(*axes, indexing="ij")] if axes else []
    per_case = len(mesh[0]) if mesh else 1
    out: dict[str, list] = {"model": [], "gpu": [], quantity: [],
                            **{name: [] for name in grid}}
    gpu_inputs = [i for i in evaluator.ledger.inputs_of("lookup") if i.table == "gpus"]
    for model in models:
        _, inputs, tags = evaluator.inputs_for(*catalog.load_model(model))
        names, fn = sweep_function(quantity, tags)
        n = per_case * len(gpus)
        values = {k: np.full(n, float(v)) for k, v in inputs.items()}
        for inp in gpu_inputs:
            values[inp.name] = np.repeat([float(lookup(inp, g)) for g in gpus], per_case)
        for name, axis in zip(grid, mesh):
            values[name] = np.tile(axis, len(gpus))
            out[name].append(values[name])
        with np.errstate(divide="ignore", invalid="ignore"):  # IF branches not taken
            out[quantity].append(np.broadcast_to(fn(values), (n,)))
        out["model"].append(np.full(n, model, dtype=object))
        out["gpu"].append(np.repeat(np.array(gpus, dtype=object), per_case))
    return {k: np.concatenate(v) for k, v in out.items()}


def inline_dependents(ledger: Ledger, tags: frozenset, expr: sp.Expr, on: set[str]) -> sp.Expr:
    """Inline the quantities that (transitively) depend on any input in `on`, so `on` can be
    re-bound (a sweep variable, another GPU) while everything else stays a named reference."""
    forms = {q.name: q.expr for q in ledger.quantities_for(tags)}
    depends: dict[str, bool] = {}

    def dep(name: str) -> bool:
        if name not in depends:
            depends[name] = name in on or (name in forms and any(
                dep(s.name) for s in forms[name].free_symbols))
        return depends[name]

    for _ in range(100):
        names = {s.name for s in expr.free_symbols if s.name in forms and s.name not in on
                 and dep(s.name)}
        if not names:
            return expr
        with sp.evaluate(False):  # substitution only: no re-simplification of Min/Max trees
            expr = expr.xreplace({sp.Symbol(n): forms[n] for n in names})
    raise RuntimeError("quantity definitions are cyclic")
