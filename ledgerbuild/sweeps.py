"""Sweeps: the ledger's declarations over numpy arrays.

Scope: `sweep` evaluates a quantity over models x GPUs x a grid of inputs (floats, not
exact), on the numeric path: each form's numpy function comes from the generated ledger
(numeric.py; sympy's NumPy printer, as lambdify uses it), so sweeping imports no sympy. The
workbook re-binds inputs on workings sheets instead (writers/xlsx/calc.py).
Shortcut: forms are evaluated in ledger order, only those the quantity depends on; each
input keeps only the axes it varies on (model constants are scalars, GPU figures a GPU axis,
grid inputs their own axis) and numpy broadcasting does the rest, so a quantity of the GPU
alone is computed once per GPU.
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

    Returns flat arrays: "model" and "gpu" as codes into "model_labels" and "gpu_labels"
    (the ids), one array per grid input, and `quantity`. Floats (numpy), not exact: this is
    for sweeps, not for the ledger's golden figures.
    """
    evaluator = NumericEvaluator(sets)
    axes = [np.asarray(v, dtype=float) for v in grid.values()]
    # each input keeps the axes it varies on (GPU, then the grid's), the rest broadcast: a
    # quantity of the GPU alone is computed once per GPU, not once per point
    shape = (len(gpus), *(len(a) for a in axes))
    keys = evaluator.keys()
    along: dict[str, np.ndarray] = {
        name: np.array([float(evaluator.lookup(name, {**keys, "gpu": g})) for g in gpus]).reshape(
            (len(gpus),) + (1,) * len(axes)
        )
        for name, inp in evaluator.inputs.items()
        if inp["kind"] == "lookup"
        and (inp["table"] == "gpus" or inp["qualifier"] == "gpu")
        and name not in evaluator.sets
    }
    for k, (name, axis) in enumerate(zip(grid, axes, strict=True)):
        along[name] = axis.reshape(tuple(len(axis) if i == k + 1 else 1 for i in range(len(shape))))
    n = int(np.prod(shape))  # points per model
    result = np.empty(n * len(models))
    for m, model in enumerate(models):
        _, inputs, tags = evaluator.inputs_for(*catalog.load_model(model))
        names, fn = sweep_function(quantity, tags)
        values: dict[str, Any] = {k: np.float64(float(inputs[k])) for k in names if k in inputs}
        values.update({k: v for k, v in along.items() if k in names})
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # branches not taken
            result[m * n : (m + 1) * n] = np.broadcast_to(fn(values), shape).ravel()
    mesh = [c.ravel() for c in np.meshgrid(*axes, indexing="ij")] if axes else []
    per_case = n // max(len(gpus), 1)
    gpu_codes = np.repeat(np.arange(len(gpus), dtype=np.int32), per_case)
    return {
        "model": np.repeat(np.arange(len(models), dtype=np.int32), n),
        "gpu": np.tile(gpu_codes, len(models)),
        "model_labels": np.array(models, dtype=object),
        "gpu_labels": np.array(gpus, dtype=object),
        **{name: np.tile(column, len(gpus) * len(models)) for name, column in zip(grid, mesh, strict=True)},
        quantity: result,
    }
