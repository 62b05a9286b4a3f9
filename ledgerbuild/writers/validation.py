"""Predicted against measured throughput: a per-row table (CSV), a summary, a log-log plot.

Scope: the outputs of `ledgerbuild validate` and `ledgerbuild calibrate`; the numbers come
from `ledgerbuild.calibration` (which evaluates the ledger), never from here.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from ..calibration import Prepared, errors
from ..files import write_output, write_text

COLUMNS = [
    "row",
    "model",
    "gpu",
    "weight_dtype",
    "tp",
    "pp",
    "isl",
    "osl",
    "measured_tokens_per_s",
    "predicted_tokens_per_s",
    "ceiling_tokens_per_s",
    "predicted_over_measured",
]


def rows_table(prepared: Prepared, predicted: np.ndarray, ceiling: np.ndarray) -> list[dict]:
    return [
        {
            "row": m.row,
            "model": m.model,
            "gpu": m.gpu,
            "weight_dtype": m.weight_dtype,
            "tp": m.tp,
            "pp": m.pp,
            "isl": m.isl,
            "osl": m.osl,
            "measured_tokens_per_s": m.tokens_per_s,
            "predicted_tokens_per_s": round(float(p), 2),
            "ceiling_tokens_per_s": round(float(c), 2),
            "predicted_over_measured": round(float(p) / m.tokens_per_s, 4),
        }
        for m, p, c in zip(prepared.rows, predicted, ceiling, strict=False)
    ]


def summary(prepared: Prepared, predicted: np.ndarray, ceiling: np.ndarray) -> dict:
    """Error overall and per GPU, and the rows that beat the ceiling."""
    gpus = sorted({m.gpu for m in prepared.rows})
    per_gpu = {}
    for g in gpus:
        mask = np.array([m.gpu == g for m in prepared.rows])
        per_gpu[g] = errors(predicted[mask], prepared.measured[mask])
    breaks = [m.row for m, c in zip(prepared.rows, ceiling, strict=False) if m.tokens_per_s > c]
    return {"overall": errors(predicted, prepared.measured), "per_gpu": per_gpu, "ceiling_breaks": breaks}


def write_csv(path: Path, table: list[dict]) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS)
    writer.writeheader()
    writer.writerows(table)
    write_text(path, buffer.getvalue())


def write_plot(path: Path, prepared: Prepared, predicted: np.ndarray, title: str) -> None:
    """Log-log scatter of predicted against measured, one colour per GPU, +-20 % band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 6.2), dpi=110)
    measured = prepared.measured
    lo, hi = measured.min() / 1.5, measured.max() * 1.5
    ax.plot([lo, hi], [lo, hi], color="black", lw=1, label="predicted = measured")
    ax.fill_between([lo, hi], [lo / 1.2, hi / 1.2], [lo * 1.2, hi * 1.2], color="0.9", label="within 20 %")
    for g in sorted({m.gpu for m in prepared.rows}):
        mask = np.array([m.gpu == g for m in prepared.rows])
        ax.scatter(measured[mask], predicted[mask], s=14, alpha=0.8, label=g)
    ax.set(
        xscale="log",
        yscale="log",
        xlim=(lo, hi),
        ylim=(lo, hi),
        xlabel="measured output tokens/s (deployment)",
        ylabel="predicted output tokens/s",
        title=title,
    )
    ax.grid(True, which="both", lw=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    for suffix in (".png", ".svg"):

        def save(tmp, fmt: str = suffix[1:]) -> None:
            fig.savefig(tmp, format=fmt)

        write_output(path.with_suffix(suffix), save)
    plt.close(fig)
