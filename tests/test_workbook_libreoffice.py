"""Referee: LibreOffice headless recalculates the generated workbook (all models, all GPUs).

Zero error cells, and every formula cell equals the sympy ledger for the same scenario to a
relative 1e-12 (full doubles read through UNO). Then inputs change through UNO (another GPU
from the dropdown's list, the price, the prompt tokens, one model field in the Models table),
LibreOffice recalculates, and the cells are compared with the ledger evaluated for the
changed scenario (B200, a custom price); then FP8 weights and KV are picked on the Inputs
sheet, then weight_dtype = nvfp4 (embedding, lm_head and expert formats follow it), and the
cells are compared again each time. Every formula cell's cached value (what viewers that do
not recalculate show) equals what LibreOffice recalculates. Finally the workbook survives a
LibreOffice load and re-save.
"""

import functools
import json
import math
import os
import re
import shutil
import subprocess
import sys
import zipfile
from types import SimpleNamespace

import openpyxl
import pytest
from openpyxl.worksheet.formula import ArrayFormula

from ledgerbuild.errors import LedgerError
from ledgerbuild.evaluate import Evaluator, to_plain
from ledgerbuild.ledger import load_formulas
from ledgerbuild.numeric import NumericEvaluator
from ledgerbuild.planning import plan_options
from ledgerbuild.writers.xlsx import build_workbook, save_atomically
from ledgerbuild.writers.xlsx.views import PLAN_VIEW

pytestmark = [pytest.mark.oracle, pytest.mark.libreoffice]
UNO_PYTHON = "/usr/bin/python3"
CHANGED_MODEL = "llama-3-8b"
SCENARIO_CHANGE = {
    "gpu": "b200",
    "price_per_gpu_hour": "2.5",
    "prompt_tokens": "4096",
    # multimodal: 770 / 28 = 27.5 rounds half to even (to 28) in Qwen2-VL's resize
    "image_height": "770",
    "image_width": "1330",
    "images_per_request": "2",
    "video_seconds": "3",
    "audio_seconds": "7.5",
}
MODEL_CHANGE = {"num_key_value_heads": "32"}
FP8_CHANGE = {"weight_dtype": "fp8", "kv_dtype": "fp8"}
FORMAT_CHANGE = {"weight_dtype": "nvfp4"}  # picked on the Inputs sheet: the parts follow it


def _need_libreoffice():
    ok = (
        shutil.which("soffice")
        and os.path.exists(UNO_PYTHON)
        and subprocess.run([UNO_PYTHON, "-c", "import uno"], capture_output=True).returncode == 0
    )
    if not ok:
        message = "LibreOffice with python3-uno is not installed (the README's test command installs it)"
        pytest.fail(message) if os.environ.get("CI") else pytest.skip(message)


def _cell_of(wb, name):
    sheet, coord = wb.defined_names[name].attr_text.split("!")
    return sheet.strip("'"), coord.replace("$", "")


def _models_cell(wb, model_id, field):
    ws = wb["Models"]
    col = next(c.column_letter for c in ws[1] if c.value == field)
    row = next(c.row for c in ws["A"] if c.value == model_id)
    return "Models", f"{col}{row}"


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory):
    _need_libreoffice()
    tmp = tmp_path_factory.mktemp("lo")
    wb, cells, _ = build_workbook("all", "all", {})
    path = tmp / "ledger.xlsx"
    save_atomically(wb, path)
    reloaded = openpyxl.load_workbook(path)  # the workbook reloads in openpyxl
    cached = openpyxl.load_workbook(path, data_only=True)
    formulas = [
        [ws.title, c.coordinate]
        for ws in reloaded.worksheets
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, ArrayFormula) or isinstance(c.value, str) and c.value.startswith("=")
    ]
    changes = [[*_cell_of(reloaded, k), float(v) if k != "gpu" else v] for k, v in SCENARIO_CHANGE.items()]
    changes.append(
        [
            *_models_cell(reloaded, CHANGED_MODEL, "num_key_value_heads"),
            float(MODEL_CHANGE["num_key_value_heads"]),
        ]
    )
    picks = [
        [[*_cell_of(reloaded, k), v] for k, v in change.items()] for change in (FP8_CHANGE, FORMAT_CHANGE)
    ]
    request = {
        "path": str(path),
        "read": [[c.sheet, c.coord] for c in cells],
        "steps": [changes, *picks],
        "resave": str(tmp / "resaved.xlsx"),
        "read_text": formulas,
    }
    run = subprocess.run(
        [UNO_PYTHON, os.path.join(os.path.dirname(__file__), "lo_recalc.py")],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    answer = json.loads(run.stdout)
    return SimpleNamespace(
        cells=cells,
        steps=answer["steps"],
        tmp=tmp,
        reloaded=reloaded,
        formulas=formulas,
        recalculated=answer["text"],
        cached=[cached[s][c].value for s, c in formulas],
    )


@functools.cache
def plan_layout(model: str, sets: tuple) -> tuple:
    """The --set of the tensor-parallel layout `ledgerbuild plan` lists first on the scenario's
    GPU: where the Summary's plan is (xlsx plan_calc.py holds TP 1, 2, 4, 8 only, so the CLI's
    DP-attention x EP layouts of an MoE model are not among its choices; LibreOffice's MATCH must
    choose the same)."""
    given = dict(sets)
    gpu = given.get("gpu") or NumericEvaluator(given).keys()["gpu"]
    try:
        options = plan_options(model, [gpu], given)["options"]
    except LedgerError:  # fits in no layout: every plan cell reads the text, at any layout
        return ()
    sizes = [o["layout"].removeprefix("TP") for o in options]
    tensor_parallel = [n for n in sizes if n.isdigit()]
    return (("gpu_count_setting", tensor_parallel[0]),) if tensor_parallel else ()


def _mismatches(cells, values, sets_for):
    ledger = load_formulas()
    cache, bad = {}, []
    for cell, got in zip(cells, values, strict=False):
        own = dict(cell.sets)
        if cell.sheet == "Summary" and cell.quantity in PLAN_VIEW:
            own = dict(plan_layout(cell.model, tuple(sorted(sets_for(cell.model).items()))))
        sets = {**sets_for(cell.model), **own}
        key = (cell.model, tuple(sorted(sets.items())))
        if key not in cache:
            cache[key] = Evaluator(sets).evaluate(cell.model)
        if got is None:  # the cell reads "does not fit": its guard must be 0 in the ledger
            if not (cell.guard and cache[key].value(cell.guard) == 0):
                bad.append((cell, "text", cell.guard))
            continue
        want = float(to_plain(cache[key].value(cell.quantity))) * cell.scale
        # a difference of two large byte counts (spare_bytes_on_N_gpus ~ 4e10 - 4e10) carries
        # the doubles' rounding of its operands: a thousandth of a byte is the floor there
        item = ledger.inputs.get(cell.quantity) or ledger.any_form(cell.quantity)
        floor = 1e-3 if item.unit == "bytes" else 1e-300
        if not math.isclose(got, want, rel_tol=1e-12, abs_tol=floor):
            bad.append((cell, got, want))
    return bad


def test_no_error_cells(recalculated):
    steps, cells = recalculated.steps, recalculated.cells
    assert steps[0]["formulas"] == len(recalculated.formulas) >= len(cells) > 3000
    for step in steps:
        assert step["errors"] == []


def test_every_formula_cell_equals_the_ledger(recalculated):
    assert _mismatches(recalculated.cells, recalculated.steps[0]["values"], lambda m: {}) == []


def test_cached_values_equal_what_libreoffice_recalculates(recalculated):
    """Issue 14: every formula cell carries a value for viewers that do not recalculate."""
    bad = []
    for where, cached, live in zip(
        recalculated.formulas, recalculated.cached, recalculated.recalculated, strict=True
    ):
        same = (
            cached == live
            if isinstance(live, str)
            else (
                isinstance(cached, (int, float)) and math.isclose(cached, live, rel_tol=1e-12, abs_tol=1e-3)
            )
        )
        if not same:
            bad.append((where, cached, live))
    assert bad == []


def _changed(*changes):
    def sets_for(model):
        out = {k: v for change in changes for k, v in change.items()}
        return {**out, **(MODEL_CHANGE if model == CHANGED_MODEL else {})}

    return sets_for


def test_after_changing_inputs_every_cell_equals_the_changed_ledger(recalculated):
    steps = recalculated.steps
    assert steps[1]["values"] != steps[0]["values"]
    assert _mismatches(recalculated.cells, steps[1]["values"], _changed(SCENARIO_CHANGE)) == []


def test_after_picking_fp8_every_cell_equals_the_ledger(recalculated):
    steps = recalculated.steps
    assert steps[2]["values"] != steps[1]["values"]
    assert _mismatches(recalculated.cells, steps[2]["values"], _changed(SCENARIO_CHANGE, FP8_CHANGE)) == []


def test_after_picking_nvfp4_every_cell_equals_the_ledger(recalculated):
    steps = recalculated.steps
    assert steps[3]["values"] != steps[2]["values"]
    assert (
        _mismatches(
            recalculated.cells, steps[3]["values"], _changed(SCENARIO_CHANGE, FP8_CHANGE, FORMAT_CHANGE)
        )
        == []
    )


def test_survives_libreoffice_resave(recalculated):
    resaved = openpyxl.load_workbook(recalculated.tmp / "resaved.xlsx")
    assert set(recalculated.reloaded.sheetnames) <= set(resaved.sheetnames)
    assert "params_total" in resaved["llama-3-8b"].defined_names


def test_charts_reference_formula_cells(recalculated):
    """The chart parts as written: scatter charts with the scatterStyle element the schema
    requires, each series' values a range of formula cells."""
    book = recalculated.reloaded
    with zipfile.ZipFile(recalculated.tmp / "ledger.xlsx") as z:
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]
    assert len(charts) == 5  # throughput and cost vs batch, KV vs context, cost vs prompt; the Frontier
    for xml in charts:
        assert '<c:scatterStyle val="lineMarker"/>' in xml
        for ref in re.findall(r"<c:yVal><c:numRef><c:f>([^<]+)</c:f>", xml):
            sheet, rng = ref.split("!")
            first, last = rng.replace("$", "").split(":")
            for row in book[sheet.strip("'")][f"{first}:{last}"]:
                assert str(row[0].value).startswith("="), ref


def test_summary_and_a_model_sheet_render_as_a_reader_sees_them(recalculated, tmp_path):
    """LibreOffice -> PDF -> pdftoppm (scripts/render_workbook.py, which made the README's
    pictures): the Summary and the llama-3-8b sheet print, with their page headers."""
    if shutil.which("pdftoppm") is None:
        pytest.fail("poppler-utils is not installed (the README's test command installs it)")
    tmp = recalculated.tmp
    script = os.path.join(os.path.dirname(__file__), "..", "scripts", "render_workbook.py")
    run = subprocess.run(
        [sys.executable, script, str(tmp / "ledger.xlsx"), str(tmp_path), "Summary", "llama-3-8b"],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    for name in ("Summary", "llama-3-8b"):
        assert (tmp_path / f"{name}.png").stat().st_size > 20_000
