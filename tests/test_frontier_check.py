"""The ledger's serving frontier against the shipped latency measurements (issue 28's done
criterion: the measured best output tokens/s per GPU at a given tokens/s per user within 20 %,
median, of the ledger's frontier at that interactivity). Expected values are the published
measurements, read here straight from the YAML files (not through ledgerbuild.measurements)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from ledgerbuild.frontier_check import LATENCY_FILES, frontier_check, ledger_best, ledger_layouts

pytestmark = pytest.mark.slow  # minutes with a cold numeric cache (47 series x 4 layouts)
MEASUREMENTS = Path(__file__).resolve().parent.parent / "measurements"
U, G = "tokens_per_s_per_user", "output_tokens_per_s_per_gpu"


@pytest.fixture(scope="module")
def checks():
    return {same: frontier_check(same_layouts=same) for same in (False, True)}


def _published(file: str, row: int) -> tuple[float, float]:
    """(tokens/s per user, output tokens/s per GPU) as the file publishes them."""
    r = yaml.safe_load((MEASUREMENTS / file).read_text())["rows"][row - 1]
    tpot = r.get("tpot_ms_median") or r.get("itl_ms")
    per_gpu = r.get("throughput_output_tokens_per_s_per_gpu")
    if per_gpu is None:  # NIM and GPUStack publish the deployment's output tokens/s
        per_gpu = r["throughput_output_tokens_per_s"] / r["gpu_count"]
    return 1000 / tpot, per_gpu


def test_the_measured_points_are_the_published_ones(checks):
    rows = checks[True]["rows"]
    assert {r["file"] for r in rows} == set(LATENCY_FILES)
    assert {r["gpu"] for r in rows} >= {"h100-sxm", "h200-sxm", "b200", "mi300x", "mi325x"}
    for r in rows:
        user, per_gpu = _published(r["file"], r["row"])
        assert r["measured_tokens_per_s_per_user"] == pytest.approx(user, rel=1e-12)
        assert r["measured_output_tokens_per_s_per_gpu"] == pytest.approx(per_gpu, rel=1e-12)


def test_nim_llama_70b_at_concurrency_250_is_on_the_measured_frontier(checks):
    """NIM's Llama 3.3 70B 1000/1000 on 2 x H100 at concurrency 250: 2083.7 / 2 tok/s per GPU
    at 1000 / 56.3 ms tokens/s per user (row nim-0031), the series' fastest per GPU."""
    (row,) = [
        r
        for r in checks[True]["rows"]
        if r["model"] == "llama-3-70b" and r["isl"] == 1000 and r["concurrency"] == 250
    ]
    assert row["measured_tokens_per_s_per_user"] == pytest.approx(1000 / 56.3)
    assert row["measured_output_tokens_per_s_per_gpu"] == pytest.approx(
        4167.39 / 2
    )  # nim-0031: throughput_output_tokens_per_s 4167.39, itl_ms 56.3


def test_log_log_interpolation_between_frontier_points():
    """Between (10, 100) and (40, 25) the frontier is g = 1000 / u in log-log: 50 at u = 20."""
    pts = [{U: 10.0, G: 100.0}, {U: 40.0, G: 25.0}]
    assert ledger_best(pts, 20.0) == (pytest.approx(50.0), "interpolated")
    assert ledger_best(pts, 5.0) == (100.0, "slowest")  # more requests only queue
    value, how = ledger_best(pts, 41.0)
    assert math.isnan(value) and how == "beyond"


def test_the_layouts_read_are_the_bracketing_pareto_points():
    """The points ledger_best reads: the two around u = 20 (TP8 at 64 and TP2 at 8), the slowest
    below it, none beyond the fastest."""
    pts = [
        {U: 10.0, G: 100.0, "layout": "TP8", "concurrency": 64},
        {U: 40.0, G: 25.0, "layout": "TP2", "concurrency": 8},
    ]
    assert ledger_layouts(pts, 20.0) == "TP8@64/TP2@8"
    assert ledger_layouts(pts, 5.0) == "TP8@64"
    assert ledger_layouts(pts, 41.0) == ""
    assert ledger_layouts([], 20.0) == ""


def test_summaries_count_every_row(checks):
    for result in checks.values():
        o = result["overall"]
        assert o["points"] + o["beyond"] + o["does_not_fit"] == len(result["rows"])
        assert sum(s["points"] for s in result["per_gpu"].values()) == o["points"]
        assert o["median_abs_error"] <= o["p90_abs_error"]


PLAN_LAYOUTS_NOT_MET = pytest.mark.xfail(
    strict=True,
    reason="not met over the plan's layouts at the time model of 2026-12-02 (fourth round: the "
    "launch-script layouts of InferenceX's H200 TensorRT-LLM rows): median |error| 34.0 %, p90 "
    "432 % (155 points; 33.4 % / 432 % on the third round's; python scripts/frontier_check.py "
    "--worst 20 names the ledger layout behind each). By the layouts the ledger's frontier is read "
    "between at the point: dense models where one is TP4/TP8, above the measured TP1/TP2, 45 points, "
    "median 111 % (11.9 % at the measured layout); DeepSeek-R1 where they run DP attention, 54 "
    "points, 44.9 % (27.3 % at the measured layouts); DeepSeek-R1 on TP layouts, 25 points, 37.3 %; "
    "the other 31 dense points 9.5 %. The layouts are ones the engines run (SGLang "
    "--enable-dp-attention, TensorRT-LLM enable_attention_dp; engines.yaml layouts_source) but the "
    "shipped series did not (InferenceX's SGLang B200 script pins --data-parallel-size=1; NIM and "
    "GPUStack publish TP1/TP2 only), so the measured best at that interactivity is not the best the "
    "hardware gives, and where the measured frontier is nearly vertical a few per cent of TPOT is a "
    "factor on throughput. strict: remove this mark once it is met",
)


@pytest.mark.parametrize(
    "same_layouts",
    [pytest.param(False, marks=PLAN_LAYOUTS_NOT_MET), True],
    ids=["plan-layouts", "measured-layouts"],
)
def test_median_error_within_20_percent(checks, same_layouts):
    assert checks[same_layouts]["overall"]["median_abs_error"] <= 0.20
