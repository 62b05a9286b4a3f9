"""Sweeps: the ledger's declarations over numpy arrays.

Scope: `sweep` evaluates a quantity over models x GPUs x a grid of inputs (floats, not
exact), on the numeric path: each form's numpy function comes from the generated ledger
(numeric.py; sympy's NumPy printer, as lambdify uses it), so sweeping imports no sympy. The
workbook re-binds inputs on workings sheets instead (writers/xlsx_calc.py).
Shortcut: forms are evaluated in ledger order, only those the quantity depends on; inputs
that do not vary are zero-stride broadcast views, not filled arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import catalog
from .numeric import NumericEvaluator, numpy_ledger


def sweep_function(quantity: str, tags: frozenset):
    """(input names, numpy function of those inputs' arrays) computing `quantity`.

    Each quantity form is its own numpy function, evaluated in ledger order (no giant inlined
    expression), so every step is the declared formula.
    """
    functions, arguments = numpy_ledger()
    forms = {f.name: f for f in NumericEvaluator().chosen(tags)}
    needed, stack = set(), [quantity]
    while stack:
        name = stack.pop()
        if name in forms and name not in needed:
            needed.add(name)
            stack.extend(arguments[forms[name].index])
    steps = [(f.name, arguments[f.index], functions[f.index]) for f in forms.values() if f.name in needed]
    inputs = sorted({a for _, args, _ in steps for a in args} - needed)

    def run(values):
        env = dict(values)
        for name, args, fn in steps:
            env[name] = fn(*(env[a] for a in args))
        return np.asarray(env[quantity], dtype=float)

    return inputs, run


def sweep(
    quantity: str, models: list[str], gpus: list[str], grid: dict[str, Any], sets: dict | None = None
) -> dict[str, np.ndarray]:
    """`quantity` over the product models x GPUs x grid (input name -> values), vectorised.

    Returns flat arrays: "model" and "gpu" (ids), one per grid input, and `quantity`.
    Floats (numpy), not exact: this is for sweeps, not for the ledger's golden figures.
    """
    evaluator = NumericEvaluator(sets)
    axes = [np.asarray(v, dtype=float) for v in grid.values()]
    mesh = [m.ravel() for m in np.meshgrid(*axes, indexing="ij")] if axes else []
    per_case = len(mesh[0]) if mesh else 1
    out: dict[str, list] = {"model": [], "gpu": [], quantity: [], **{name: [] for name in grid}}
    keys = evaluator.keys()
    gpu_inputs = [
        name
        for name, inp in evaluator.inputs.items()
        if inp["kind"] == "lookup"
        and (inp["table"] == "gpus" or inp["qualifier"] == "gpu")
        and name not in evaluator.sets
    ]
    for model in models:
        _, inputs, tags = evaluator.inputs_for(*catalog.load_model(model))
        names, fn = sweep_function(quantity, tags)
        n = per_case * len(gpus)
        # constants are broadcast views (stride 0: nothing filled); only what varies is stored
        values: dict[str, Any] = {k: np.broadcast_to(float(v), (n,)) for k, v in inputs.items()}
        for name in gpu_inputs:
            per_gpu = [float(evaluator.lookup(name, {**keys, "gpu": g})) for g in gpus]
            values[name] = np.repeat(per_gpu, per_case)
        for name, axis in zip(grid, mesh, strict=False):
            values[name] = np.tile(axis, len(gpus))
            out[name].append(values[name])
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # branches not taken
            out[quantity].append(np.broadcast_to(fn(values), (n,)))
        out["model"].append(np.full(n, model, dtype=object))
        out["gpu"].append(np.repeat(np.array(gpus, dtype=object), per_case))
    return {k: np.concatenate(v) for k, v in out.items()}
