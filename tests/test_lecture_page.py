"""Issue 31: `docs` writes the page "Reproduce the lecture": the lecture's scenario pinned, the
commands, and the lecture's figures beside the ledger's. The lecture's figures are the golden
tests' cited values (scenarios/lecture_figures.yaml holds a copy, checked here row for row
against tests/test_golden.py); the ledger's column is checked against the exact evaluation the
golden tests run, and one of the page's own commands is run."""

import json
import re
import shlex

import pytest
import test_golden
from typer.testing import CliRunner

from ledgerbuild.cli import app
from ledgerbuild.evaluate import evaluate, to_plain
from ledgerbuild.writers.docs import write_docs
from ledgerbuild.writers.docs.lecture_page import PAGE, lecture_figures

runner = CliRunner()


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    out = tmp_path_factory.mktemp("docs")
    write_docs("llama-3-8b", ["md"], {}, out, plots=False)
    return (out / PAGE).read_text(encoding="utf-8"), (out / "index.md").read_text(encoding="utf-8")


def table(text: str) -> list[list[str]]:
    body = text.split("## The figures side by side", 1)[1]
    lines = [line for line in body.splitlines() if line.startswith("| ") and not line.startswith("| ---")]
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines[1:]]  # no heading row


def number(cell: str) -> float:
    return float(cell.replace(",", ""))


def test_the_data_file_is_the_golden_tests_cases():
    doc = lecture_figures()
    assert doc["scenario"] == test_golden.LECTURE
    golden = [c for c in test_golden.CASES if c[0].startswith("000-")]
    assert len(doc["figures"]) == len(golden) > 50
    for row, (cid, model, sets, quantity, expected, scale, check) in zip(doc["figures"], golden, strict=True):
        assert (row["id"], row["model"], row["quantity"], row["lecture"], row["scale"]) == (
            cid, model, quantity, expected, scale,
        )  # fmt: skip
        assert row.get("set", {}) == {k: str(v) for k, v in sets.items()}
        assert row["check"] == (check[0] if check[0] == "exact" else {check[0]: check[1]})
        assert row["section"].replace("exercise ", "ex").lstrip("§") == cid.split("-")[1]


def test_the_page_puts_every_lecture_figure_beside_the_ledgers(page):
    text, index = page
    assert "(reproduce-the-lecture.md)" in index
    rows = table(text)
    golden = [c for c in test_golden.CASES if c[0].startswith("000-")]
    assert len(rows) == len(golden)
    for cells, (cid, model, sets, quantity, expected, scale, _check) in zip(rows, golden, strict=True):
        section, shown_model, shown_quantity, settings, lecture, ledger, _unit, agrees = cells
        assert (shown_model, shown_quantity) == (f"`{model}`", f"`{quantity}`"), cid
        assert section.replace("exercise ", "ex").lstrip("§") == cid.split("-")[1]
        assert all(f"--set {k}={v}" in settings for k, v in sets.items())
        assert number(lecture) == pytest.approx(expected, rel=1e-12), cid  # as the lecture prints it
        # the ledger's column: the exact evaluation the golden tests run, at the printed digits
        scenario = {**test_golden.LECTURE, **{k: str(v) for k, v in sets.items()}}
        exact = float(to_plain(evaluate(model, scenario).value(quantity))) / scale
        digits = len(ledger.split(".")[1]) if "." in ledger else 0
        assert number(ledger) == pytest.approx(exact, abs=0.51 * 10**-digits + 1e-9 * abs(exact)), cid
        assert agrees == "yes", cid  # every golden case passes


def test_a_command_on_the_page_prints_the_figure(page):
    text, _ = page
    lecture = shlex.split(re.search(r'^LECTURE="(.*)"$', text, re.M).group(1))
    row = next(r for r in table(text) if r[0] == "§6.1" and "prompt_tokens=4096" in r[3])
    args = ["show", "llama-3-8b", *lecture, *shlex.split(row[3].strip("`")), "--json"]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["quantities"]["kv_capacity_requests"]["value"] == 104 == number(row[5])


def test_no_page_for_latex_only(tmp_path):
    write_docs("llama-3-8b", ["tex"], {}, tmp_path, plots=False)
    assert not (tmp_path / PAGE).exists()
