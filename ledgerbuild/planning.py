"""The plan and the frontier on the numeric path: the ledger's plan_* and candidate figures
read per GPU and layout, sorted and marked.

Scope: what `ledgerbuild plan` and `ledgerbuild frontier` print. Every number is a ledger
quantity (formulas/plan.py: the plan at the scenario's layout, and each candidate
concurrency's figures `<name>_at_<c>`), evaluated by the numeric evaluator without sympy; this
module only chooses the layouts to try, sorts the options and marks the non-dominated
frontier points; a GPU without a known price (gpu_price_known 0: the default price stands in)
is flagged `priced: false` with its note and ranked after every priced option. Layouts: 1, 2, 4
or 8 GPUs in tensor parallel; for an MoE model (n_routed_experts > 0) on an engine that runs
attention data-parallel (the engine table's attention_dp_max_tp > 0, cited in its
layouts_source), also the same GPU counts as D >= 2 attention replicas of t GPUs each
(t <= attention_dp_max_tp; the ledger's gpu_count t, expert_parallel D: the routed experts
split over all t x D GPUs), as InferenceX runs DeepSeek-R1 (dp_attention, ep). Shortcuts: a
--set gpu_count_setting, pipeline_parallel or expert_parallel is kept as given (a set
expert_parallel adds no DP layout); a DP degree that does not divide the routed experts is not
tried; a layout fits when the engine holds at least one request on it.
"""

from __future__ import annotations

import re
from typing import Any

from . import catalog
from .errors import LedgerError
from .numeric import NumericEvaluator, quantity_forms
from .rules import Scenario

LAYOUTS = (1, 2, 4, 8)  # GPUs of a layout
CANNOT = "cannot meet the targets"
PLAN = (
    "plan_concurrency",
    "plan_replicas",
    "plan_gpus",
    "plan_usd_per_month",
    "plan_usd_per_million_output_tokens",
    "plan_ttft_s",
    "plan_tpot_s",
    "plan_meets_targets",
    "plan_concurrency_limit",
    "total_gpus",
    "replica_gpus",
    "pipeline_parallel",
    "expert_parallel",
    "gpu_price_usd_per_hour",
    "gpu_price_known",
    "default_price_per_gpu_hour",
)
POINT = (  # a frontier point's figures, as the candidates re-state them
    "ttft_s",
    "tpot_s",
    "tokens_per_s_per_user",
    "output_tokens_per_s_per_gpu",
    "concurrency_usd_per_million_output_tokens",
)


def candidate_labels() -> list[str]:
    """The candidate concurrencies the ledger declares (1, 2, 4 ... and 'limit')."""
    found = [m.group(1) for n in quantity_forms() if (m := re.fullmatch(r"plan_meets_at_(\w+)", n))]
    return sorted(found, key=lambda s: (s == "limit", int(s) if s.isdigit() else 0))


def layouts(sets: dict, experts: int = 0, attention_dp_max_tp: int = 0) -> list[dict[str, str]]:
    """The --set values of each layout to try ({}: the one --set gpu_count_setting gives), fewer
    GPUs first, tensor parallel before attention data parallel; `experts`: the model's routed
    experts (0: dense), `attention_dp_max_tp`: the engine's (0: no DP attention)."""
    if "gpu_count_setting" in sets:
        return [{}]
    found = []
    for n in LAYOUTS:
        found.append({"gpu_count_setting": str(n)})
        if experts and "expert_parallel" not in sets:
            found += [
                {"gpu_count_setting": str(t), "expert_parallel": str(n // t)}
                for t in sorted(LAYOUTS, reverse=True)
                if t < n and n % t == 0 and t <= attention_dp_max_tp and experts % (n // t) == 0
            ]
    return found


def _search(model: tuple, base: NumericEvaluator) -> list[dict[str, str]]:
    """layouts() for `model` under the evaluator's scenario (its engine row's DP attention)."""
    _, fields = model
    engine = catalog.row("engines", base.keys()["serving_engine"])
    return layouts(dict(base.sets), int(fields.get("n_routed_experts") or 0), engine.attention_dp_max_tp)


def _evaluate(model, sets: dict, names: set[str], base: NumericEvaluator | None = None) -> dict:
    """`model`: a catalog id or path, or an (entry, fields) pair already read; `base`: an
    evaluator whose scenario `sets` adds to (its --set values parsed once, not per layout)."""
    entry, fields = catalog.load_model(model) if isinstance(model, str) else model
    evaluator = NumericEvaluator(sets) if base is None else base.variant(sets)
    return evaluator.evaluate_floats(entry, fields, frozenset(names))


def layout_name(env: dict) -> str:
    """TP8, TP4xPP2; with attention data parallel TP1xDP8-EP8 (attention TP x replicas, experts
    over all GPUs)."""
    parts = [f"TP{int(env['replica_gpus'] // env['pipeline_parallel'])}"]
    parts += [f"PP{int(env['pipeline_parallel'])}"] if env["pipeline_parallel"] > 1 else []
    if env["expert_parallel"] > 1:
        parts.append(f"DP{int(env['expert_parallel'])}")
        return "x".join(parts) + f"-EP{int(env['total_gpus'])}"
    return "x".join(parts)


def fitting_layouts(model, gpus: list[str], sets: dict | Scenario, names: set[str]):
    """(gpu, the layout's --set values, evaluated env) for every GPU and layout that fits
    (`sets`: the --set values, or the build's Scenario parsed already)."""
    base = NumericEvaluator(sets)
    model = catalog.load_model(model) if isinstance(model, str) else model
    search = _search(model, base)
    for gpu in gpus:
        for layout in search:
            scenario = {"gpu": gpu, **layout}
            env = _evaluate(model, scenario, names | {"plan_concurrency_limit"}, base)
            if env["plan_concurrency_limit"] >= 1:
                yield gpu, scenario, env


def plan_options(model: str, gpus: list[str], sets: dict) -> dict[str, Any]:
    """Each GPU x layout's plan, sorted by USD per month (those that cannot meet the targets last)."""
    rows = []
    for gpu, _, env in fitting_layouts(model, gpus, sets, set(PLAN)):
        meets = env["plan_meets_targets"] == 1
        rows.append(
            {
                "gpu": gpu,
                "layout": layout_name(env),
                "gpus_per_replica": int(env["total_gpus"]),
                "meets_targets": meets,
                "concurrency": int(env["plan_concurrency"]) if meets else CANNOT,
                "replicas": int(env["plan_replicas"]) if meets else None,
                "gpus": int(env["plan_gpus"]) if meets else None,
                "usd_per_month": env["plan_usd_per_month"] if meets else None,
                "usd_per_million_output_tokens": env["plan_usd_per_million_output_tokens"] if meets else None,
                "ttft_s": env["plan_ttft_s"] if meets else None,
                "tpot_s": env["plan_tpot_s"] if meets else None,
                "usd_per_gpu_hour": env["gpu_price_usd_per_hour"],
                **price_flag(env),
            }
        )
    if not rows:
        raise LedgerError(f"{model}: fits on none of {', '.join(gpus)} in any layout tried")
    # unpriced GPUs after every priced one: their cost is the default price, not a quote
    rows.sort(
        key=lambda r: (
            not r["meets_targets"],
            not r["priced"],
            r["usd_per_month"] or 0.0,
            r["gpus_per_replica"],
        )
    )
    return {"model": model, "targets": _targets(model, sets), "options": rows}


def price_flag(env: dict) -> dict:
    """`priced` (the ledger's gpu_price_known) and, where the default price stands in, the note
    every output prints beside the cost."""
    priced = env["gpu_price_known"] == 1
    note = "" if priced else f"not priced (default {env['default_price_per_gpu_hour']:g} USD)"
    return {"priced": priced, "price_note": note}


def _targets(model: str, sets: dict) -> dict:
    names = ("requests_per_day", "peak_to_mean_ratio", "ttft_target_s", "tpot_target_s")
    env = _evaluate(model, sets, set())
    return {n: env[n] for n in names}


def frontier_points(model: str, gpu: str, sets: dict) -> dict[str, Any]:
    """A point per layout and candidate concurrency within the engine's limit; `pareto` marks
    those no other point beats on both tokens/s per user and output tokens/s per GPU."""
    labels = candidate_labels()
    names = (
        {f"{n}_at_{c}" for n in POINT for c in labels} | {f"plan_meets_at_{c}" for c in labels} | set(PLAN)
    )
    points, flag = [], {}
    for _, _, env in fitting_layouts(model, [gpu], sets, names):
        flag = price_flag(env)
        limit, seen = int(env["plan_concurrency_limit"]), set()
        for c in labels:
            value = limit if c == "limit" else int(c)
            if value > limit or value in seen:
                continue
            seen.add(value)
            point = {"gpu": gpu, "gpu_count": int(env["total_gpus"]), "layout": layout_name(env)}
            point["concurrency"] = value
            point.update({n: env[f"{n}_at_{c}"] for n in POINT})
            point["usd_per_million_output_tokens"] = point.pop("concurrency_usd_per_million_output_tokens")
            point["meets_targets"] = env[f"plan_meets_at_{c}"] == 1
            points.append(point)
    if not points:
        raise LedgerError(f"{model}: does not fit on {gpu} in any layout tried")
    mark_pareto(points)
    return {"model": model, "gpu": gpu, **flag, "targets": _targets(model, sets), "points": points}


def mark_pareto(points: list[dict]) -> None:
    """pareto = no other point has at least its tokens/s per user and per GPU, one of them more."""
    u, g = "tokens_per_s_per_user", "output_tokens_per_s_per_gpu"
    for p in points:
        p["pareto"] = not any(q[u] >= p[u] and q[g] >= p[g] and (q[u] > p[u] or q[g] > p[g]) for q in points)
