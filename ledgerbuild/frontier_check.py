"""The frontier against measurement: the ledger's serving frontier beside the measured best
throughput per GPU at a given decode speed per user.

Scope: the latency measurements shipped in `measurements/` (InferenceX DeepSeek-R1; NVIDIA NIM
and GPUStack dense models), rows the ledger can evaluate at a concurrency. A *series* is one
model, GPU, engine, weight and KV precision, prompt and output length (and the row's own engine
limits); its measured points are every layout and concurrency published for it, its measured
frontier their non-dominated points (planning.mark_pareto: none has at least their tokens/s per
user and per GPU, and more of one). For each measured frontier point, the ledger's frontier is
planning.frontier_points for the same model, GPU and scenario with the layouts the plan searches
(planning.layouts: tensor parallel 1, 2, 4, 8 and, for an MoE model on an engine that runs
attention data-parallel, those GPU counts as attention replicas x expert parallel; pipeline
stages as published), read at the point's tokens/s per user: the best output tokens/s per
GPU the ledger gives at that decode speed or faster, linear in log(tokens/s per GPU) against
log(tokens/s per user) between the ledger's Pareto points. The error is ledger / measured - 1
of output tokens/s per GPU; each row also names the ledger's Pareto points it was read between
(`ledger_frontier_layouts`, layout@concurrency), so a gap can be traced to the layout behind it.
Shortcuts: below the ledger's slowest Pareto point (past the engine's limit, where more requests
only queue) the ledger's best is that point's throughput; a measured point faster per user than
the ledger's fastest (concurrency 1) has no ledger throughput at that speed and is counted
apart ("beyond"), not in the errors. The calibrated time model was fitted to these same files
(scenarios/calibrated.yaml's header), so this is an in-sample check of the frontier's shape,
not of how the time model transfers (`ledgerbuild validate --cv` is that).
"""

from __future__ import annotations

import math
from collections import defaultdict
from statistics import median
from typing import Any

from . import measurements
from .errors import LedgerError
from .planning import frontier_points, mark_pareto

LATENCY_FILES = ("inferencex_dsr1_latency.yaml", "nim_gpustack_dense_latency.yaml")
USER, GPU = "tokens_per_s_per_user", "output_tokens_per_s_per_gpu"
LAYOUT_KEYS = ("gpu", "gpu_count", "concurrency", "expert_parallel")  # what the frontier searches


def measured_series(names=LATENCY_FILES) -> dict[tuple, list[dict]]:
    """Series key -> its measured points (a dict per row: tokens/s per user and per GPU, layout)."""
    series: dict[tuple, list[dict]] = defaultdict(list)
    for name in names:
        _, rows = measurements.load(measurements.shipped_path(name))
        for m in rows:
            tpot, tps = m.metrics.get("tpot_ms"), m.metrics.get("output_tokens_per_s")
            if m.reason or m.concurrency < 1 or not tpot or not tps:
                continue
            sets = {k: v for k, v in m.scenario("vllm").items() if k not in LAYOUT_KEYS}
            key = (m.model, m.gpu, tuple(sorted(sets.items())))
            series[key].append(
                {
                    "file": name,
                    "row": m.row,
                    "layout": (m.tp, m.replicas),
                    "concurrency": m.concurrency,
                    USER: 1000.0 / tpot,
                    GPU: tps / m.gpus,
                }
            )
    return dict(series)


def ledger_best(pareto: list[dict], user: float) -> tuple[float, str]:
    """The ledger's best output tokens/s per GPU at `user` tokens/s per user or faster, and how
    it was read: 'interpolated', 'slowest' (below its slowest point) or 'beyond' (nan)."""
    pts = sorted(pareto, key=lambda p: p[USER])
    if not pts:
        return math.nan, "does not fit"
    if user > pts[-1][USER]:
        return math.nan, "beyond"
    if user <= pts[0][USER]:
        return pts[0][GPU], "slowest"
    for a, b in zip(pts, pts[1:], strict=False):
        if a[USER] <= user <= b[USER]:
            t = (math.log(user) - math.log(a[USER])) / (math.log(b[USER]) - math.log(a[USER]))
            return math.exp(math.log(a[GPU]) + t * (math.log(b[GPU]) - math.log(a[GPU]))), "interpolated"
    raise AssertionError("unreachable: the points are sorted and user lies within them")


def ledger_layouts(pareto: list[dict], user: float) -> str:
    """The layout and concurrency of the ledger's Pareto points `ledger_best` reads at `user`
    ('TP1xDP8-EP8@128/TP1xDP8-EP8@64': the two it interpolates between; one when read at the
    slowest; '' beyond or when nothing fits)."""
    pts = sorted(pareto, key=lambda p: p[USER])
    if not pts or user > pts[-1][USER]:
        return ""
    name = [f"{p['layout']}@{p['concurrency']}" for p in pts]
    if user <= pts[0][USER]:
        return name[0]
    i = next(i for i in range(len(pts) - 1) if pts[i][USER] <= user <= pts[i + 1][USER])
    return f"{name[i]}/{name[i + 1]}"


def ledger_frontier(model: str, gpu: str, sets: dict, layouts: list[tuple[int, int]] | None) -> list[dict]:
    """The ledger's Pareto points: over the layouts the plan searches (None), or over the
    given (tensor parallel, attention replicas) layouts only."""
    if layouts is None:
        points = frontier_points(model, gpu, sets)["points"]
    else:
        points = []
        for tp, replicas in layouts:
            at = {**sets, "gpu_count_setting": str(tp), "expert_parallel": str(replicas)}
            try:
                points += frontier_points(model, gpu, at)["points"]
            except LedgerError:  # the ledger does not fit the model on the layout measured
                continue
        mark_pareto(points)
    return [p for p in points if p["pareto"] and p[USER] > 0 and p[GPU] > 0]


def compare_series(key: tuple, points: list[dict], same_layouts: bool = False) -> list[dict]:
    """A row per measured frontier point of one series, with the ledger's frontier beside it
    (`same_layouts`: the ledger's over the layouts measured, not those the plan searches)."""
    model, gpu, items = key
    sets = dict(items)
    mark_pareto(points)
    measured = sorted({p["layout"] for p in points})
    pareto = ledger_frontier(model, gpu, sets, measured if same_layouts else None)
    rows = []
    for p in sorted((p for p in points if p["pareto"]), key=lambda p: p[USER]):
        best, how = ledger_best(pareto, p[USER])
        rows.append(
            {
                "model": model,
                "gpu": gpu,
                "engine": sets["serving_engine"],
                "weight_dtype": sets["weight_dtype"],
                "kv_dtype": sets["kv_dtype"],
                "isl": int(sets["prompt_tokens"]),
                "osl": int(sets["output_tokens"]),
                **{k: p[k] for k in ("file", "row", "concurrency")},
                "layout": _layout_name(*p["layout"]),
                "measured_tokens_per_s_per_user": p[USER],
                "measured_output_tokens_per_s_per_gpu": p[GPU],
                "ledger_output_tokens_per_s_per_gpu": best,
                "ledger_read": how,
                "ledger_frontier_layouts": ledger_layouts(pareto, p[USER]),
                "error": best / p[GPU] - 1,
            }
        )
    return rows


def series_name(r: dict) -> str:
    """'b200 deepseek-r1 sglang fp8 1024/1024': a series' GPU, model, engine, weights, lengths."""
    return f"{r['gpu']} {r['model']} {r['engine']} {r['weight_dtype']} {r['isl']}/{r['osl']}"


def _layout_name(tp: int, replicas: int) -> str:
    return f"TP{tp}" + (f"xDP{replicas}" if replicas > 1 else "")


def _summary(rows: list[dict]) -> dict[str, Any]:
    errs = sorted(abs(r["error"]) for r in rows if not math.isnan(r["error"]))
    if not errs:
        return {
            "points": 0,
            "beyond": 0,
            "does_not_fit": len(rows),
            "median_abs_error": math.nan,
            "p90_abs_error": math.nan,
            "median_signed_error": math.nan,
        }
    p90 = errs[min(len(errs) - 1, math.ceil(0.9 * len(errs)) - 1)]  # nearest rank
    signed = median(r["error"] for r in rows if not math.isnan(r["error"]))
    return {
        "points": len(errs),
        "beyond": sum(r["ledger_read"] == "beyond" for r in rows),
        "does_not_fit": sum(r["ledger_read"] == "does not fit" for r in rows),
        "median_abs_error": median(errs),
        "p90_abs_error": p90,
        "median_signed_error": signed,
    }


def frontier_check(names=LATENCY_FILES, same_layouts: bool = False) -> dict[str, Any]:
    """Every series' measured frontier points beside the ledger's; per GPU and overall |error|."""
    series = sorted(measured_series(names).items())
    rows = [r for key, pts in series for r in compare_series(key, pts, same_layouts)]
    by_gpu: dict[str, list[dict]] = defaultdict(list)
    by_series: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_gpu[r["gpu"]].append(r)
        by_series[series_name(r)].append(r)
    return {
        "files": list(names),
        "ledger_layouts": "as measured" if same_layouts else "the plan's (planning.layouts)",
        "rows": rows,
        "per_gpu": {g: _summary(rs) for g, rs in sorted(by_gpu.items())},
        "per_series": {name: _summary(rs) for name, rs in by_series.items()},
        "overall": _summary(rows),
    }
