"""PlanCalc (the Summary's choice of layout) without LibreOffice: what the workbook caches is
what `ledgerbuild plan --json` prints first for the Inputs GPU, with and without a --set
gpu_count_setting (kept as given, one column reading the Inputs cell), and a long model id
keeps PlanCalc's formulas under 500 characters (issue 14). LibreOffice's recalculation of the
same cells: test_workbook_plan.py."""

import json

import openpyxl
import pytest
from typer.testing import CliRunner

from ledgerbuild.cli import app
from ledgerbuild.writers.xlsx import build_workbook, save_atomically

MODELS = "llama-3-70b,llama-3-8b"
SHOWN = {  # Summary heading -> plan --json key
    "GPUs per replica": "gpus_per_replica",
    "Plan: replicas": "replicas",
    "Plan: GPUs": "gpus",
    "Plan: USD per month": "usd_per_month",
    "Plan: USD per 1M output tokens (mean load)": "usd_per_million_output_tokens",
}


def _book(tmp_path, models: str, sets: dict):
    path = tmp_path / "ledger.xlsx"
    save_atomically(build_workbook(models, "h100-sxm", sets)[0], path)
    return openpyxl.load_workbook(path, data_only=True), openpyxl.load_workbook(path)


def _summary(ws, model: str) -> dict:
    heads = [c.value for c in ws[3]]
    row = next(r for r in range(4, ws.max_row + 1) if ws[f"A{r}"].value == model)
    return {h: ws.cell(row, i + 1).value for i, h in enumerate(heads)}


def _cli_first(model: str, *extra: str) -> dict:
    result = CliRunner().invoke(
        app, ["plan", model, "--gpu", "h100-sxm", "--requests-per-day", "1000000", *extra, "--json"]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["options"][0]


@pytest.mark.parametrize("given", [None, "8"])
def test_the_summary_caches_the_cli_first_option(tmp_path, given):
    sets = {} if given is None else {"gpu_count_setting": given}
    cached, formulas = _book(tmp_path, MODELS, sets)
    extra = () if given is None else ("--set", f"gpu_count_setting={given}")
    for model in MODELS.split(","):
        shown, first = _summary(cached["Summary"], model), _cli_first(model, *extra)
        assert first["meets_targets"]
        for head, key in SHOWN.items():
            assert shown[head] == pytest.approx(first[key], rel=1e-12), (model, head)
        if given is not None:
            assert shown["GPUs per replica"] == int(given)
    layouts = [c.value for c in formulas["PlanCalc"][4][3:] if c.value is not None]
    # the layout row: 1, 2, 4, 8, or the Inputs cell where --set gives it (then the check cell)
    assert layouts[: 4 if given is None else 1] == ([1, 2, 4, 8] if given is None else ["=gpu_count_setting"])


def test_llama_70b_on_h100_plans_on_four_gpus_not_the_auto_two(tmp_path):
    """The point of the choice: at the defaults the auto layout (the smallest that fits, TP2)
    needs 37 replicas; the CLI's cheapest, and the Summary's, is TP4."""
    cached, _ = _book(tmp_path, "llama-3-70b", {})
    shown = _summary(cached["Summary"], "llama-3-70b")
    assert (shown["GPUs per replica"], shown["Plan: replicas"]) == (4, 3)
    assert _cli_first("llama-3-70b")["layout"] == "TP4"


def test_a_long_model_id_keeps_plancalc_formulas_short(tmp_path):
    _, formulas = _book(tmp_path, "llama-4-maverick-17b-128e", {})
    ws = formulas["PlanCalc"]
    longest = max(len(c.value) for row in ws.iter_rows() for c in row if str(c.value).startswith("="))
    assert 100 < longest <= 500
