"""Predicted against measured serving figures: per-row records, error tables, log-log plots.

Scope: the outputs of `ledgerbuild validate` and `ledgerbuild calibrate`; every number comes
from `ledgerbuild.calibration` (which evaluates the ledger), never from here. A row is
`evaluated` (its measured metrics beside `predicted_<metric>` and the roofline bound) or
`refused` with its reason. Groups: GPU, engine, precision, parallelism (single GPU, TP, PP,
EP: attention data-parallel replicas or expert-parallel), and the issue's three groups
(FP4 on Blackwell, pipeline-parallel, MoE with expert parallel).
Plots are drawn with chart.py (SVG), one per metric, one colour per GPU, +-20 % band as lines.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from ..calibration import METRICS, Prepared, errors
from ..files import write_text
from ..measurements import Measurement
from .docs.chart import COLORS, GREY, Chart, Panel, Series
from .docs.chart_files import to_svg

BLACKWELL = ("b200", "gb200", "rtx-pro-6000")
UNITS = {
    "output_tokens_per_s": "output tokens/s (deployment)",
    "ttft_ms": "median TTFT (ms)",
    "tpot_ms": "median TPOT (ms)",
}


def parallelism(m: Measurement) -> str:
    if m.pp > 1:
        return "PP"
    if m.replicas > 1 or m.labels.get("ep") not in ("", "None", "1", None):
        return "EP"
    return "TP" if m.tp > 1 else "single GPU"


def special_groups(m: Measurement, moe: bool) -> list[str]:
    out = []
    if m.weight_dtype in ("nvfp4", "mxfp4") and m.gpu in BLACKWELL:
        out.append("FP4 on Blackwell")
    if m.pp > 1:
        out.append("pipeline-parallel")
    if moe and parallelism(m) == "EP":
        out.append("MoE with expert parallel")
    return out


def records(rows: list[Measurement], prepared: Prepared, predicted: dict, bound: dict) -> list[dict]:
    """One record per row of the files, in file order: evaluated or refused with its reason."""
    where = {id(m): i for i, m in enumerate(prepared.rows)}
    refused = {(m.labels.get("file"), m.row): m.reason for m in prepared.refused}
    out = []
    for m in rows:
        rec = {
            "file": m.labels.get("file", ""),
            "row": m.row,
            "status": "evaluated",
            "reason": "",
            "model": m.model or m.labels.get("model", ""),
            "gpu": m.gpu or m.labels.get("gpu", ""),
            "engine": m.engine,
            "precision": m.weight_dtype,
            "parallelism": parallelism(m) if not m.reason else "",
            "tp": m.tp,
            "pp": m.pp,
            "replicas": m.replicas,
            "isl": m.isl,
            "osl": m.osl,
            "concurrency": m.concurrency,
        }
        i = where.get(id(m))
        if i is None:
            rec["status"], rec["reason"] = "refused", refused.get((m.labels.get("file"), m.row), m.reason)
        else:
            for metric, (_, _, _, kind) in METRICS.items():
                if metric in m.metrics:
                    rec[metric] = m.metrics[metric]
                    rec[f"predicted_{metric}"] = round(float(predicted[metric][i]), 4)
                    rec[f"{kind}_{metric}"] = round(float(bound[metric][i]), 4)
        out.append(rec)
    return out


def _errors_by(prepared: Prepared, predicted: dict, labels: list[list[str]]) -> dict:
    names = sorted({x for group in labels for x in group})
    out = {}
    for name in names:
        mask = np.array([name in group for group in labels])
        out[name] = {k: errors(predicted[k][mask], prepared.measured[k][mask]) for k in METRICS}
    return out


def summary(prepared: Prepared, predicted: dict, bound: dict, moe: dict[str, bool]) -> dict:
    """median/p90 |error| per metric, per group; the rows that beat their roofline bound."""
    rows = prepared.rows
    groups = {
        "gpu": [[m.gpu] for m in rows],
        "engine": [[m.engine or "-"] for m in rows],
        "precision": [[m.weight_dtype] for m in rows],
        "parallelism": [[parallelism(m)] for m in rows],
        "issue groups": [special_groups(m, moe.get(m.model, False)) for m in rows],
    }
    breaks = {}
    for metric, (_, _, _, kind) in METRICS.items():
        meas, b = prepared.measured[metric], bound[metric]
        beat = meas > b * (1 + 1e-9) if kind == "ceiling" else meas < b * (1 - 1e-9)
        breaks[metric] = [f"{rows[i].labels.get('file', '')}:{rows[i].row}" for i in np.where(beat)[0]]
    return {
        "summary": {k: errors(predicted[k], prepared.measured[k]) for k in METRICS},
        "groups": {by: _errors_by(prepared, predicted, labels) for by, labels in groups.items()},
        "bound_breaks": breaks,
        "refused": len(prepared.refused),
    }


def write_csv(path: Path, recs: list[dict]) -> None:
    columns: list[str] = []
    for r in recs:
        columns += [c for c in r if c not in columns]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns)
    writer.writeheader()
    writer.writerows(recs)
    write_text(path, buffer.getvalue())


def plot(prepared: Prepared, predicted: dict, metric: str, title: str) -> Chart | None:
    """Log-log predicted against measured for one metric, one colour per GPU."""
    meas = prepared.measured[metric]
    use = np.isfinite(meas) & np.isfinite(predicted[metric]) & (predicted[metric] > 0)
    if not use.any():
        return None
    lo, hi = float(meas[use].min()) / 1.5, float(meas[use].max()) * 1.5
    series = [
        Series([lo, hi], [lo, hi], color="#000000", label="predicted = measured"),
        Series([lo, hi], [lo * 1.2, hi * 1.2], color=GREY, label="+-20 %"),
        Series([lo, hi], [lo / 1.2, hi / 1.2], color=GREY),
    ]
    gpus = prepared.gpus
    for n, g in enumerate(sorted(set(gpus[use]))):
        mask = use & (gpus == g)
        series.append(
            Series(
                meas[mask],
                predicted[metric][mask],
                COLORS[n % len(COLORS)],
                "o",
                False,
                f"{g} ({mask.sum()})",
            )
        )
    unit = UNITS[metric]
    panel = Panel(metric, f"measured {unit}", f"predicted {unit}", series, xlog=True, ylog=True, legend=True)
    return Chart(460, 420, title, [panel], description=f"{title}: {metric}", margins=(0.16, 0.96, 0.12, 0.9))


def write_plots(stem: Path, prepared: Prepared, predicted: dict, title: str) -> list[Path]:
    written = []
    for metric in METRICS:
        chart = plot(prepared, predicted, metric, title)
        if chart is None:
            continue
        path = stem.with_name(f"{stem.name}_{metric}.svg")
        write_text(path, to_svg(chart))
        written.append(path)
    return written
