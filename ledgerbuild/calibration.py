"""Calibration: fit the time model's efficiencies to measured offline throughput, per GPU.

Scope: every measured row is resolved once to the ledger's inputs (exact, as `show` would),
grouped by architecture variant; `offline_throughput_tokens_per_s` and its ceiling are then
evaluated as numpy functions generated from the same sympy declarations (`sweeps`), so a fit
never re-implements a formula. Per GPU, least squares on log(predicted / measured) fits
mfu, bandwidth_efficiency, step_overhead_s, sequence_overhead_s, allreduce_efficiency and
allreduce_latency_s within physical bounds (BOUNDS), with overlap = 0 (compute, memory and
link time add: on the v0.17 table the sum fits with half the error of the max).
Shortcuts: a GPU without multi-GPU rows keeps the all-reduce figures of the fitted GPUs'
median; the fallback row (GPUs never measured) is the median of every fitted figure.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

import numpy as np
import yaml

from . import catalog
from .errors import LedgerError
from .measurements import Measurement
from .numeric import NumericEvaluator
from .sweeps import sweep_function

QUANTITY = "offline_throughput_tokens_per_s"
CEILING = "offline_ceiling_tokens_per_s"
# fitted figure -> (lower, upper, start): the physical bounds the fit may not leave
BOUNDS = {
    "mfu": (0.05, 0.85, 0.5),
    "bandwidth_efficiency": (0.05, 0.95, 0.8),
    "step_overhead_s": (0.0, 1e-3, 1e-4),
    "sequence_overhead_s": (0.0, 1e-4, 5e-6),
    "allreduce_efficiency": (0.05, 1.0, 0.6),
    "allreduce_latency_s": (0.0, 5e-5, 1e-5),
}
LINK = ("allreduce_efficiency", "allreduce_latency_s")


@dataclass
class Prepared:
    """Measured rows resolved to ledger inputs, grouped by variant."""

    rows: list[Measurement]
    measured: np.ndarray
    groups: list = field(default_factory=list)  # (row indices, values, throughput fn, ceiling fn)


def prepare(rows: list[Measurement], engine: str = "tensorrt-llm", time_model: str | None = None) -> Prepared:
    """Resolve every row's inputs once (the slow, exact part)."""
    by_tags: dict = {}
    models: dict = {}
    for i, m in enumerate(rows):
        sets = m.scenario(engine) | ({"time_model": time_model} if time_model else {})
        if m.model not in models:
            models[m.model] = catalog.load_model(m.model)
        try:
            _, inputs, tags = NumericEvaluator(sets).inputs_for(*models[m.model])
        except LedgerError as e:
            raise LedgerError(f"row {m.row}: {e}") from None
        by_tags.setdefault(tags, []).append((i, inputs))
    prepared = Prepared(rows, np.array([m.tokens_per_s for m in rows]))
    for tags, members in by_tags.items():
        names, fn = sweep_function(QUANTITY, tags)
        cnames, cfn = sweep_function(CEILING, tags)
        values = {n: np.array([float(inp[n]) for _, inp in members]) for n in set(names) | set(cnames)}
        prepared.groups.append((np.array([i for i, _ in members]), values, fn, cfn))
    return prepared


def _evaluate(prepared: Prepared, which: int, params: dict | None) -> np.ndarray:
    out = np.empty(len(prepared.rows))
    gpus = np.array([m.gpu for m in prepared.rows])
    for idx, values, fn, cfn in prepared.groups:
        env = dict(values)
        if params:
            for name in [*BOUNDS, "overlap"]:
                env[name] = np.array([params[g][name] for g in gpus[idx]], dtype=float)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out[idx] = (fn, cfn)[which](env)
    return out


def predict(prepared: Prepared, params: dict | None = None) -> np.ndarray:
    """Predicted tokens/s per row: under `params` (gpu -> figures) or the rows' time model."""
    return _evaluate(prepared, 0, params)


def ceiling(prepared: Prepared) -> np.ndarray:
    return _evaluate(prepared, 1, None)


def _fit_gpu(prepared: Prepared, gpu: str, free: list[str], fixed: dict) -> dict:
    from scipy.optimize import least_squares

    mask = np.array([m.gpu == gpu for m in prepared.rows])
    lo = [BOUNDS[n][0] for n in free]
    hi = [BOUNDS[n][1] for n in free]

    def residuals(x):
        figures = {**fixed, **dict(zip(free, x, strict=False)), "overlap": 0}
        pred = predict(prepared, {g: figures for g in {m.gpu for m in prepared.rows}})
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(pred[mask] / prepared.measured[mask])

    start = [BOUNDS[n][2] for n in free]
    bad = ~np.isfinite(residuals(start))
    if bad.any():  # no throughput under the model (the row's KV does not fit, a zero rate)
        row = [m for m, keep in zip(prepared.rows, mask, strict=True) if keep][int(np.argmax(bad))]
        raise LedgerError(
            f"row {row.row}: the ledger predicts no finite throughput for it on {gpu} "
            f"(isl {row.isl:,}, osl {row.osl:,}: does the request fit the GPUs?); not fitted"
        )
    sol = least_squares(residuals, start, bounds=(lo, hi), x_scale=np.maximum(hi, 1e-9))
    return {**fixed, **{n: float(v) for n, v in zip(free, sol.x, strict=False)}, "overlap": 0}


def fit(prepared: Prepared) -> tuple[dict, dict]:
    """(figures per GPU, fallback figures) fitted to the prepared rows."""
    gpus = sorted({m.gpu for m in prepared.rows})
    multi = {m.gpu for m in prepared.rows if m.tp > 1}
    fitted = {g: _fit_gpu(prepared, g, list(BOUNDS), {}) for g in gpus if g in multi}
    link = {n: float(np.median([f[n] for f in fitted.values()])) if fitted else BOUNDS[n][2] for n in LINK}
    for g in gpus:
        if g not in fitted:
            fitted[g] = _fit_gpu(prepared, g, [n for n in BOUNDS if n not in LINK], link)
    fallback = {n: float(np.median([f[n] for f in fitted.values()])) for n in BOUNDS}
    return fitted, {**fallback, "overlap": 0}


def errors(predicted: np.ndarray, measured: np.ndarray) -> dict:
    rel = np.abs(predicted / measured - 1)
    return {
        "rows": len(rel),
        "median": float(np.median(rel)),
        "p90": float(np.percentile(rel, 90)),
        "max": float(rel.max()),
    }


def time_model_yaml(name: str, fitted: dict, fallback: dict, prepared: Prepared, source_path: str) -> str:
    """The fit as a time-model file (`--time-model FILE`, or scenarios/calibrated.yaml)."""
    pred = predict(prepared, {**fitted})
    today = datetime.date.today().isoformat()
    rows = [
        _row(
            name,
            fallback,
            "Calibrated preset for GPUs without measurements: the median "
            f"of the figures fitted per GPU on {source_path}",
            f"ledgerbuild calibrate {source_path} ({today}); median of {len(fitted)} GPUs",
        )
    ]
    for gpu, figures in sorted(fitted.items()):
        mask = np.array([m.gpu == gpu for m in prepared.rows])
        e = errors(pred[mask], prepared.measured[mask])
        rows.append(
            _row(
                f"{name}@{gpu}",
                figures,
                f"Fitted to {e['rows']} measured rows on {gpu}: |error| median "
                f"{e['median']:.1%}, p90 {e['p90']:.1%}",
                f"ledgerbuild calibrate {source_path} ({today}); least squares on log "
                f"error, overlap 0, bounds {_bounds_text()}",
            )
        )
    total = errors(pred, prepared.measured)
    head = (
        f"# Time model `{name}`: written by `ledgerbuild calibrate` on {today}.\n"
        f"# Fitted to {total['rows']} rows of {source_path}: |predicted/measured - 1| median "
        f"{total['median']:.1%}, p90 {total['p90']:.1%}.\n"
        f"# Rows `{name}@GPU` apply to that GPU; `{name}` to every other GPU.\n"
    )
    return head + yaml.safe_dump({"rows": rows}, sort_keys=False, width=100)


def _row(ident: str, figures: dict, description: str, source: str) -> dict:
    return {
        "id": ident,
        **{n: _round(figures[n]) for n in ["mfu", "bandwidth_efficiency", "overlap", *list(BOUNDS)[2:]]},
        "description": description,
        "source": source,
    }


def _round(x: float):
    if abs(x) < 1e-12:  # an overhead fitted to nothing
        return 0
    return int(x) if float(x).is_integer() else float(f"{x:.4g}")


def _bounds_text() -> str:
    return ", ".join(f"{n} <= {hi:g}" for n, (_, hi, _) in BOUNDS.items())
