"""Compare leads with the plan (issue 28: "On Summary and Compare this is the first thing a reader
sees; floors and the lecture's figures move to a clearly labelled secondary block"): per model x
GPU at the Inputs sheet's GPUs per replica, what the workbook caches is what `ledgerbuild plan
--json` prints for that GPU and layout, and "cannot meet the targets" where the CLI lists no
option meeting them. LibreOffice's recalculation of the same cells: test_workbook_libreoffice.py
(every Compare cell is among the cells it holds against the ledger)."""

import json

import openpyxl
import pytest
from typer.testing import CliRunner

from ledgerbuild.cli import app
from ledgerbuild.writers.xlsx import build_workbook, save_atomically

MODELS = ["llama-3-70b", "qwen3-8b"]
GPUS = ["a100-40gb", "a10g", "h100-sxm", "mi300x"]
SHOWN = {  # Compare matrix title (up to " - ") -> plan --json key
    "GPUs (tensor parallel)": "gpus_per_replica",
    "Plan: GPUs": "gpus",
    "Plan: USD per month": "usd_per_month",
    "Plan: USD per 1M output tokens (mean load)": "usd_per_million_output_tokens",
    "Plan: requests in flight per replica": "concurrency",
}


@pytest.fixture(scope="module")
def compare(tmp_path_factory):
    path = tmp_path_factory.mktemp("compare") / "ledger.xlsx"
    save_atomically(build_workbook(",".join(MODELS), ",".join(GPUS), {})[0], path)
    return openpyxl.load_workbook(path, data_only=True)["Compare"]


def _matrices(ws) -> dict:
    """title -> {(model, gpu): cached value}, and the titles in sheet order."""
    found, order = {}, []
    for r in range(1, ws.max_row + 1):
        head = ws.cell(r + 1, 1).value
        if head != "model":
            continue
        title = str(ws.cell(r, 1).value).split(" - ")[0]
        gpus = [ws.cell(r + 1, c).value for c in range(2, ws.max_column + 1)]
        found[title] = {
            (ws.cell(m, 1).value, g): ws.cell(m, c).value
            for m in range(r + 2, r + 2 + len(MODELS))
            for c, g in enumerate(gpus, start=2)
        }
        order.append(title)
    return found, order


def _cli_options(model: str) -> list[dict]:
    result = CliRunner().invoke(
        app, ["plan", model, "--gpu", ",".join(GPUS), "--requests-per-day", "1000000", "--json"]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["options"]


def test_the_plan_comes_first_and_the_floors_after_a_secondary_heading(compare):
    _, order = _matrices(compare)
    assert order[: len(SHOWN)] == list(SHOWN)
    column_a = [str(compare.cell(r, 1).value) for r in range(1, compare.max_row + 1)]
    secondary = next(i for i, v in enumerate(column_a) if v.startswith("SECONDARY"))
    lecture = next(i for i, v in enumerate(column_a) if "lecture decode-only" in v)
    plan_last = next(i for i, v in enumerate(column_a) if v.startswith("Plan meets the targets"))
    assert plan_last < secondary < lecture


@pytest.mark.parametrize("model", MODELS)
def test_compare_caches_the_cli_plan_at_the_inputs_layout(compare, model):
    found, _ = _matrices(compare)
    options = _cli_options(model)
    for gpu in GPUS:
        tp = int(found["GPUs (tensor parallel)"][model, gpu])
        option = next(
            (o for o in options if o["gpu"] == gpu and o["layout"] == f"TP{tp}" and o["meets_targets"]),
            None,
        )
        if option is None:  # the CLI has no option meeting the targets at this layout
            for title in list(SHOWN)[1:]:
                assert found[title][model, gpu] == "cannot meet the targets", (model, gpu, title)
            assert found["Plan meets the targets"][model, gpu] == 0
            continue
        for title, key in SHOWN.items():
            assert found[title][model, gpu] == pytest.approx(option[key], rel=1e-12), (model, gpu, title)
        assert found["Plan meets the targets"][model, gpu] == 1  # shown "yes" (number format)
