"""`ledgerbuild plan` and `ledgerbuild frontier`: JSON contract, bad input, the plot.

Every number these commands print is a ledger figure; here they are held against the ledger
evaluated directly (ledgerbuild.evaluate, the exact path) for the same scenario. The workbook's
cached values are held against the same JSON in test_workbook_plan.py.
"""

import json

import pytest
from typer.testing import CliRunner

from ledgerbuild.cli import app
from ledgerbuild.evaluate import evaluate

runner = CliRunner()
POINT_KEYS = {
    "gpu",
    "gpu_count",
    "concurrency",
    "tokens_per_s_per_user",
    "output_tokens_per_s_per_gpu",
    "ttft_s",
    "tpot_s",
    "usd_per_million_output_tokens",
    "pareto",
}


def run(*args):
    return runner.invoke(app, list(args))


def test_plan_json_is_the_ledger_sorted_by_month():
    targets = ["--requests-per-day", "2e6", "--ttft", "0.5", "--tpot", "0.05"]
    result = run("plan", "llama-3-70b", "--gpu", "h100-sxm,mi300x", *targets, "--json")
    assert result.exit_code == 0, result.output
    options = json.loads(result.output)["options"]
    months = [o["usd_per_month"] for o in options if o["meets_targets"]]
    assert months == sorted(months) and len(months) >= 4
    for o in options:
        tp = o["layout"].removeprefix("TP")
        r = evaluate("llama-3-70b", {"gpu": o["gpu"], "gpu_count_setting": tp, "requests_per_day": "2e6",
                                      "ttft_target_s": "0.5", "tpot_target_s": "0.05"})  # fmt: skip
        if not o["meets_targets"]:
            assert r.value("plan_concurrency") == 0 and o["concurrency"] == "cannot meet the targets"
            continue
        assert o["concurrency"] == int(r.value("plan_concurrency"))
        assert o["gpus"] == int(r.value("plan_gpus"))
        assert o["usd_per_month"] == pytest.approx(float(r.value("plan_usd_per_month")), rel=1e-12)
        assert o["usd_per_million_output_tokens"] == pytest.approx(
            float(r.value("plan_usd_per_million_output_tokens")), rel=1e-12
        )


def test_plan_that_cannot_meet_the_targets_says_so():
    result = run(
        "plan", "llama-3-70b", "--gpu", "h100-sxm", "--requests-per-day", "1e6", "--tpot", "0.001", "--json"
    )
    options = json.loads(result.output)["options"]
    assert options and all(o["concurrency"] == "cannot meet the targets" for o in options)
    assert all(o["usd_per_month"] is None and not o["meets_targets"] for o in options)
    table = run("plan", "llama-3-70b", "--gpu", "h100-sxm", "--requests-per-day", "1e6", "--tpot", "0.001")
    assert table.exit_code == 0 and "cannot meet" in table.output


def test_an_unpriced_gpu_is_flagged_and_ranked_after_the_priced_ones():
    """MI355X has no dated public price (hardware/mi355x.yaml): the 3 USD default stands in, so
    its options say so and come after every priced option that meets the targets."""
    args = ("plan", "llama-3-70b", "--gpu", "mi355x,h100-sxm", "--requests-per-day", "1e6")
    options = json.loads(run(*args, "--json").output)["options"]
    met = [o for o in options if o["meets_targets"]]
    assert {o["gpu"] for o in met} == {"mi355x", "h100-sxm"}
    flags = [o["priced"] for o in met]
    assert flags == sorted(flags, reverse=True)  # every priced option first
    for o in options:
        assert o["priced"] is (o["gpu"] == "h100-sxm")
        assert o["price_note"] == ("" if o["priced"] else "not priced (default 3 USD)")
    table = run(*args)
    assert "* mi355x: not priced (default 3 USD)" in " ".join(table.output.split())
    owned = json.loads(run(*args, "--set", "gpu_purchase_usd=30000", "--json").output)["options"]
    assert all(o["priced"] for o in owned)  # an owned GPU's cost is its purchase, not a quote
    frontier = json.loads(run("frontier", "llama-3-70b", "--gpu", "mi355x", "--json").output)
    assert (frontier["priced"], frontier["price_note"]) == (False, "not priced (default 3 USD)")


def test_frontier_json_points_and_pareto(tmp_path):
    plot = tmp_path / "f.svg"
    result = run("frontier", "llama-3-70b", "--gpu", "h100-sxm", "--json", "-o", str(plot))
    assert result.exit_code == 0, result.output
    points = json.loads(result.output)["points"]
    assert all(POINT_KEYS <= set(p) for p in points)
    assert plot.read_text().startswith("<svg") or "<svg" in plot.read_text()[:400]
    u, g = "tokens_per_s_per_user", "output_tokens_per_s_per_gpu"
    for p in points:  # pareto: nothing at least as good on both, better on one
        beaten = any(q[u] >= p[u] and q[g] >= p[g] and (q[u] > p[u] or q[g] > p[g]) for q in points)
        assert p["pareto"] is (not beaten)
    png = tmp_path / "f.png"
    assert run("frontier", "llama-3-70b", "--gpu", "h100-sxm", "-o", str(png)).exit_code == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"  # the PNG signature (RFC 2083 3.1)
    tp4 = [p for p in points if p["gpu_count"] == 4]
    r = evaluate("llama-3-70b", {"gpu": "h100-sxm", "gpu_count_setting": "4", "concurrency": "64"})
    p64 = next(p for p in tp4 if p["concurrency"] == 64)
    assert p64["tpot_s"] == pytest.approx(float(r.value("tpot_s")), rel=1e-12)
    assert p64[g] == pytest.approx(float(r.value("output_tokens_per_s_per_gpu")), rel=1e-12)
    assert [p["concurrency"] for p in tp4][-1] == int(r.value("plan_concurrency_limit"))


@pytest.mark.parametrize(
    "args, says",
    [
        (["plan", "llama-3-70b", "--requests-per-day", "1e6", "--ttft", "-1"], "--ttft"),
        (["plan", "llama-3-70b", "--requests-per-day", "1e6", "--tpot", "-0.1"], "--tpot"),
        (["plan", "llama-3-70b", "--requests-per-day", "1e6", "--peak-to-mean", "0.5"], "--peak-to-mean"),
        (["plan", "llama-3-70b", "--requests-per-day", "0"], "--requests-per-day"),
        (["plan", "llama-3-70b", "--requests-per-day", "1e6", "--gpu", "nope"], "nope"),
        (["plan", "llama-3-70b", "--requests-per-day", "1e6", "--set", "pue=0.5"], "pue"),
        (
            ["plan", "llama-3-70b", "--requests-per-day", "1e6", "--set", "cost_of_capital=-1"],
            "cost_of_capital",
        ),
        (
            ["plan", "llama-3-70b", "--requests-per-day", "1e6", "--set", "gpu_purchase_usd=-5"],
            "gpu_purchase_usd",
        ),
        (
            ["plan", "llama-3-70b", "--requests-per-day", "1e6", "--set", "depreciation_years=0"],
            "depreciation_years",
        ),
        (
            ["plan", "llama-3-70b", "--requests-per-day", "1e6", "--set", "residual_value_fraction=2"],
            "residual",
        ),
        (["frontier", "llama-3-70b", "--gpu", "h100-sxm", "-o", "x.gif"], ".svg, .pdf or .png"),
        (["frontier", "llama-3-70b", "--gpu", "h100-sxm", "--tpot", "-1"], "--tpot"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, says):
    result = run(*args)
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert text.startswith("error:") and "\n" not in text and "Traceback" not in text
    assert says in text
