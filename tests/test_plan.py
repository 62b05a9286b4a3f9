"""The plan, the frontier and owning versus renting (formulas/plan.py, formulas/ownership.py).

Expected values: compound-interest factor tables (capital recovery), the measured power rows of
measurements/gpu_power.yaml (power model), and the ledger's own figures at a concurrency set
directly (`--set concurrency=c`, formulas/load.py), against which the plan's re-stated candidates
and its choice are checked (an independent path: the candidates are re-declared expressions).
"""

import math
from pathlib import Path

import pytest
import yaml

from ledgerbuild.evaluate import evaluate

ROOT = Path(__file__).resolve().parents[1]
H100_70B = {"gpu": "h100-sxm", "gpu_count_setting": "4"}


def value(result, name):
    return float(result.value(name))


# --- capital recovery: the A/P and A/F factors of the interest tables --------------------
# Blank & Tarquin, Engineering Economy (8th ed.), compound interest factor tables:
# i = 10 %, n = 5: A/P = 0.26380, A/F = 0.16380; i = 8 %, n = 5: A/P = 0.25046;
# i = 0: A/P = 1 / n (straight line). A 10,000 USD purchase at 10 % over 5 years is repaid by
# 2,637.97 USD a year (the same annuity an amortisation table gives).
@pytest.mark.parametrize(
    "rate, years, a_p",
    [("0.1", "5", 0.26380), ("0.08", "5", 0.25046), ("0", "4", 0.25), ("0.1", "10", 0.16275)],
)
def test_capital_recovery_factor_matches_the_interest_tables(rate, years, a_p):
    r = evaluate("llama-3-8b", {"cost_of_capital": rate, "depreciation_years": years})
    assert value(r, "capital_recovery_factor") == pytest.approx(a_p, abs=5e-6)


def test_the_annuity_less_the_resale_value():
    sets = {"cost_of_capital": "0.1", "depreciation_years": "5", "gpu_purchase_usd": "10000"}
    r = evaluate("llama-3-8b", sets)
    assert value(r, "capital_usd_per_gpu_year") == pytest.approx(2637.97, abs=0.005)
    # resale S after n years is worth S x (A/F, 10 %, 5) = S x 0.16380 a year
    r = evaluate("llama-3-8b", {**sets, "residual_value_fraction": "0.2"})
    assert value(r, "capital_usd_per_gpu_year") == pytest.approx(2637.97 - 2000 * 0.16380, abs=0.01)


def test_owning_replaces_the_rental_price_and_breaks_even_at_the_rental_price():
    rent = evaluate("llama-3-8b", H100_70B)
    price = value(rent, "rent_usd_per_gpu_hour")
    assert value(rent, "gpu_price_usd_per_hour") == price
    breakeven = value(rent, "breakeven_gpu_purchase_usd")
    owned = evaluate("llama-3-8b", {**H100_70B, "gpu_purchase_usd": str(breakeven)})
    assert value(owned, "gpu_price_usd_per_hour") == pytest.approx(price, rel=1e-12)
    cheaper = evaluate("llama-3-8b", {**H100_70B, "gpu_purchase_usd": str(breakeven / 2)})
    assert value(cheaper, "offline_usd_per_million_output_tokens") < value(
        rent, "offline_usd_per_million_output_tokens"
    )
    # electricity: board power x busy share x PUE x price, 8760 h a year
    r = evaluate("llama-3-8b", {**H100_70B, "pue": "1.5", "power_usd_per_kwh": "0.1"})
    assert value(r, "energy_usd_per_gpu_hour") == pytest.approx(0.7 * 0.85 * 1.5 * 0.1, rel=1e-12)


# --- the power model against measured power ------------------------------------------------
POWER = yaml.safe_load((ROOT / "measurements/gpu_power.yaml").read_text())["rows"]


@pytest.mark.parametrize("row", POWER, ids=[r["id"] for r in POWER])
def test_power_model_against_measured_power(row):
    r = evaluate("llama-3-8b", {"gpu": row["gpu"]})
    name, tolerance = ("gpu_power_w", 0.20) if row["state"] == "serving" else ("gpu_idle_power_w", 0.35)
    assert value(r, name) == pytest.approx(row["power_w"], rel=tolerance)


# --- the plan's candidates are the ledger's figures at that concurrency ---------------------
@pytest.mark.parametrize(
    "model, sets",
    [
        ("llama-3-70b", H100_70B),
        ("llama-3-70b", {**H100_70B, "pipeline_parallel": "2"}),
        ("qwen3-30b-a3b", {"gpu": "h200-sxm", "expert_parallel": "2"}),
        ("llama-3-8b", {"gpu": "l40s", "time_model": "roofline"}),
    ],
)
def test_candidates_equal_the_figures_at_that_concurrency(model, sets):
    plan = evaluate(model, sets)
    for c in (1, 16, 256):
        direct = evaluate(model, {**sets, "concurrency": str(c)})
        for name in (
            "ttft_s",
            "tpot_s",
            "output_tokens_per_s_per_gpu",
            "concurrency_usd_per_million_output_tokens",
        ):
            assert value(plan, f"{name}_at_{c}") == pytest.approx(value(direct, name), rel=1e-12), name
    limit = int(value(plan, "plan_concurrency_limit"))
    direct = evaluate(model, {**sets, "concurrency": str(limit)})
    assert value(plan, "tpot_s_at_limit") == pytest.approx(value(direct, "tpot_s"), rel=1e-12)


def best_by_search(model, sets, ttft, tpot):
    """The largest candidate meeting the targets, by evaluating each concurrency directly."""
    limit = int(value(evaluate(model, sets), "plan_concurrency_limit"))
    best = 0
    for c in sorted({2**k for k in range(11) if 2**k <= limit} | {limit}):
        r = evaluate(model, {**sets, "concurrency": str(c)})
        if (ttft == 0 or value(r, "ttft_s") <= ttft) and (tpot == 0 or value(r, "tpot_s") <= tpot):
            best = c
    return best


@pytest.mark.parametrize("ttft, tpot", [(2, 0.2), (0.5, 0.05), (0.15, 0.03), (0, 0.03), (0, 0)])
def test_plan_concurrency_is_the_largest_meeting_both_targets(ttft, tpot):
    sets = {**H100_70B, "ttft_target_s": str(ttft), "tpot_target_s": str(tpot)}
    r = evaluate("llama-3-70b", sets)
    assert int(value(r, "plan_concurrency")) == best_by_search("llama-3-70b", sets, ttft, tpot)


def test_targets_no_concurrency_meets_give_no_plan():
    r = evaluate("llama-3-70b", {**H100_70B, "tpot_target_s": "0.001"})
    for name in (
        "plan_concurrency",
        "plan_replicas",
        "plan_gpus",
        "plan_usd_per_month",
        "plan_meets_targets",
    ):
        assert value(r, name) == 0, name


def test_replicas_by_littles_law_and_cost_at_the_mean_load():
    sets = {**H100_70B, "requests_per_day": "5000000", "peak_to_mean_ratio": "3"}
    r = evaluate("llama-3-70b", sets)
    c = int(value(r, "plan_concurrency"))
    at = evaluate("llama-3-70b", {**sets, "concurrency": str(c)})
    latency = value(at, "ttft_s") + (value(at, "output_tokens") - 1) * value(at, "tpot_s")
    in_flight = 5e6 * 3 / 86400 * latency  # L = lambda W at the peak
    assert value(r, "plan_replicas") == math.ceil(in_flight / c - 1e-9)
    gpus = value(r, "plan_replicas") * value(r, "total_gpus")
    assert value(r, "plan_gpus") == gpus
    month = gpus * value(r, "rent_usd_per_gpu_hour") * 8760 / 12
    assert value(r, "plan_usd_per_month") == pytest.approx(month, rel=1e-12)
    tokens = 5e6 * value(r, "output_tokens") * 365 / 12
    assert value(r, "plan_usd_per_million_output_tokens") == pytest.approx(month / tokens * 1e6, rel=1e-12)
    # idle capacity is paid for: at the mean load a token costs more than with every GPU busy
    assert value(r, "plan_usd_per_million_output_tokens") > value(
        at, "concurrency_usd_per_million_output_tokens"
    )
