"""Sweeps: the ledger's declarations over numpy arrays, and re-binding an input in a formula.

Scope: `sweep` evaluates a quantity over models x GPUs x a grid of inputs (floats, not
exact); `inline_dependents` substitutes the quantities that depend on chosen inputs so a
writer can re-bind those inputs (another GPU's table row, a batch or context cell).
Shortcut: each quantity form is lambdified once per process and evaluated in ledger order.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp
from sympy.functions.elementary.piecewise import ExprCondPair

from . import catalog
from .evaluate import Evaluator, lookup
from .ledger import Ledger, Quantity, load_formulas

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


def sweep(quantity: str, models: list[str], gpus: list[str], grid: dict[str, Any],
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
    keys = evaluator.keys()
    gpu_inputs = [i for i in evaluator.ledger.inputs_of("lookup")
                  if (i.table == "gpus" or i.qualifier == "gpu") and i.name not in evaluator.sets]
    for model in models:
        _, inputs, tags = evaluator.inputs_for(*catalog.load_model(model))
        names, fn = sweep_function(quantity, tags)
        n = per_case * len(gpus)
        values = {k: np.full(n, float(v)) for k, v in inputs.items()}
        for inp in gpu_inputs:
            values[inp.name] = np.repeat([float(lookup(inp, {**keys, "gpu": g})) for g in gpus],
                                         per_case)
        for name, axis in zip(grid, mesh, strict=False):
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
        expr = substitute(expr, {sp.Symbol(n): forms[n] for n in names})
    raise RuntimeError("quantity definitions are cyclic")


def substitute(expr: sp.Basic, mapping: dict) -> sp.Basic:
    """xreplace that rebuilds every node unevaluated: substitution only, no re-simplification
    (sympy's Piecewise simplifies its conditions even under `evaluate(False)`)."""
    if expr in mapping:
        return mapping[expr]
    if not expr.args:
        return expr
    args = [substitute(a, mapping) for a in expr.args]
    if all(a is b for a, b in zip(args, expr.args, strict=False)):
        return expr
    if isinstance(expr, ExprCondPair):  # its constructor folds Piecewise conditions
        return sp.Tuple.__new__(ExprCondPair, *args)
    if isinstance(expr, sp.Piecewise):
        return sp.Basic.__new__(sp.Piecewise, *args)
    with sp.evaluate(False):
        return expr.func(*args)
