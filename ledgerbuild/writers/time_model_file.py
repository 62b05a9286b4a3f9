"""The calibrated time model as a file: `ledgerbuild calibrate`'s time-model YAML.

Scope: a Fit (ledgerbuild.calibration) written as the rows of a time-model table, readable as
`--time-model FILE` or shipped as scenarios/calibrated.yaml: the shared row, one row per measured
GPU (its own refit) and one per catalog GPU the transfer rule gives a family fit; each description
says what the row was fitted to and its |error| medians; with the leave-one-GPU-out predictions
(calibration.cross_validate by GPU) a measured GPU's row also carries its error when a fit without
its rows predicts them, the band of a GPU without measurements. The header holds the totals and
every note of the fit (figures at a bound, figures not fitted). Every number comes from
ledgerbuild.calibration; nothing is computed here but the |error| summaries.
"""

from __future__ import annotations

import datetime

import numpy as np
import yaml

from .. import catalog
from ..calibration import BOUNDS, METRICS, Fit, Prepared, errors, predict


def time_model_yaml(
    name: str, result: Fit, prepared: Prepared, source: str, left_out: dict[str, np.ndarray] | None = None
) -> str:
    """The fit as a time-model file (`--time-model FILE`, or scenarios/calibrated.yaml); with
    `left_out` (cross_validate by GPU), each measured GPU's row also says how far its rows are
    from a fit that never saw that GPU: the band of a GPU without measurements."""
    pred = predict(prepared, result.params(set(prepared.gpus)))
    today = datetime.date.today().isoformat()
    how = f"ledgerbuild calibrate {source} ({today}); least squares on log error, overlap 0, "
    how += f"bounds {_bounds_text()}"
    unmeasured = ""  # the band of a GPU without measurements: every measured GPU left out in turn
    if left_out is not None:
        every = np.ones(len(prepared.rows), dtype=bool)
        unmeasured = f"; a GPU left out (a fit without its rows): {_medians(left_out, prepared, every)}"
    rows = [
        _row(
            name,
            result.shared,
            "Calibrated figures shared by every GPU (the transfer rule: a GPU without its own fit runs "
            f"at its datasheet peaks with these efficiencies), fitted to every row of {source}{unmeasured}",
            how,
        )
    ]
    for gpu, figures in sorted(result.per_gpu.items()):
        mask = prepared.gpus == gpu
        said = f"Fitted to the measured rows on {gpu}: |error| {_medians(pred, prepared, mask)}"
        if left_out is not None:
            said += f"; left out (a fit without {gpu}'s rows): {_medians(left_out, prepared, mask)}"
        rows.append(_row(f"{name}@{gpu}", figures, said, how))
    for gpu in sorted(set(catalog.gpus()) - set(result.per_gpu)):
        figures, where = result.for_gpu(gpu)
        if where != "every measured GPU's fit":
            rows.append(
                _row(
                    f"{name}@{gpu}",
                    figures,
                    f"No measurements: the transfer rule gives it {where}{unmeasured}",
                    how,
                )
            )
    head = [f"# Time model `{name}`: written by `ledgerbuild calibrate` on {today}."]
    head += _totals(pred, prepared, f"figures of {source}")
    if left_out is not None:
        head += _totals(left_out, prepared, "figures, each GPU's predicted by a fit without its rows")
    head += [f"# Rows `{name}@GPU` apply to that GPU; `{name}` to every other GPU."]
    head += [f"# note: {n}" for n in result.notes]
    return "\n".join(head) + "\n" + yaml.safe_dump({"rows": rows}, sort_keys=False, width=100)


def _medians(pred: dict[str, np.ndarray], prepared: Prepared, mask: np.ndarray) -> str:
    e = {k: errors(pred[k][mask], prepared.measured[k][mask]) for k in METRICS}
    return "; ".join(f"{k} median {v['median']:.1%}" for k, v in e.items() if v["rows"])


def _totals(pred: dict[str, np.ndarray], prepared: Prepared, what: str) -> list[str]:
    total = {k: errors(pred[k], prepared.measured[k]) for k in METRICS}
    return [
        f"# {k}: {v['rows']} {what}, |predicted/measured - 1| median {v['median']:.1%}, p90 {v['p90']:.1%}."
        for k, v in total.items()
        if v["rows"]
    ]


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
