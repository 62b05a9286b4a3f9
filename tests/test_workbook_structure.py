"""Workbook structure without LibreOffice: defined names Excel accepts, catalog strings kept as
text, and the exact evaluator agreeing with sympy's own arithmetic."""

import math
import re

import openpyxl
import pytest
import sympy as sp
import yaml
from openpyxl.worksheet.formula import ArrayFormula

from ledgerbuild import catalog
from ledgerbuild.evaluate import Evaluator
from ledgerbuild.writers.xlsx import build_workbook, save_atomically
from ledgerbuild.writers.xlsx.models import guard_text

CELL_LIKE = re.compile(r"^([A-Za-z]{1,3}\d+|[RrCc]\d*|[Rr]\d*[Cc]\d*)$")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The default workbook's path and its manifest of formula cells."""
    path = tmp_path_factory.mktemp("wb") / "ledger.xlsx"
    wb, cells, _ = build_workbook("all", "all", {})
    save_atomically(wb, path)
    return path, cells


@pytest.fixture(scope="module")
def workbook_path(built):
    return built[0]


@pytest.fixture(scope="module")
def workbook(workbook_path):
    return openpyxl.load_workbook(workbook_path)


def test_defined_names_are_valid_and_unique_regardless_of_case(workbook):
    scopes = {"(workbook)": list(workbook.defined_names)}
    scopes |= {ws.title: list(ws.defined_names) for ws in workbook.worksheets}
    for scope, names in scopes.items():
        lowered = [n.lower() for n in names]
        assert len(lowered) == len(set(lowered)), scope
        for name in names:
            assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name) and not CELL_LIKE.match(name), name


def test_every_quantity_has_a_sheet_scoped_name(workbook):
    result = Evaluator().evaluate("deepseek-v3")
    names = set(workbook["deepseek-v3"].defined_names)
    assert {q.name for q in result.quantities} <= names


def test_catalog_strings_are_never_formulas(tmp_path):
    with open("models/llama-3.2-1b.yaml") as f:
        entry = yaml.safe_load(f)
    entry["id"], entry["name"] = "formula-name", '=HYPERLINK("http://x","click")'
    path = tmp_path / "formula-name.yaml"
    path.write_text(yaml.safe_dump(entry))
    wb, _, _ = build_workbook(f"{path},llama-3-8b", "h100-sxm", {})
    out = tmp_path / "x.xlsx"
    save_atomically(wb, out)
    cell = openpyxl.load_workbook(out)["Models"]["B2"]
    assert cell.value == '=HYPERLINK("http://x","click")' and cell.data_type == "s"


@pytest.mark.parametrize("model_id", sorted(catalog.models()))
def test_exact_evaluator_equals_sympy_arithmetic(model_id):
    """The compiled exact evaluator gives what sympy's own substitution gives, every form
    (exactly where the result is rational; RoPE's irrational wavelengths, pi and logs, are
    floats on the exact path by design: to 1e-12)."""
    result = Evaluator({"gpu_count": "3", "max_batch": "100"}).evaluate(model_id)
    subs = {sp.Symbol(k): v for k, v in result.inputs.items()}
    for q in result.quantities:
        want, got = q.expr.xreplace(subs), result.values[q.name]
        if isinstance(got, sp.Float):
            assert float(want) == pytest.approx(float(got), rel=1e-12), q.name
        else:
            assert want == got, q.name
        subs[q.symbol] = want


def test_no_formula_over_500_characters(workbook):
    """Issue 14 (FAST Standard / ICAEW codes: short formulas); the workings sheets hold the
    steps that would otherwise be inlined."""
    longest = max(
        (len(c.value), ws.title, c.coordinate)
        for ws in workbook.worksheets
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, str) and c.value.startswith("=")
    )
    assert longest[0] <= 500, longest


def test_dropdowns_refuse_unknown_ids(workbook):
    validations = workbook["Inputs"].data_validations.dataValidation
    assert validations and all(dv.showErrorMessage for dv in validations)


def test_long_ids_sharing_31_characters_get_their_own_sheets(tmp_path):
    """Issue 17: two ids equal in their first 31 characters (Excel's sheet-title limit) must
    not read each other's sheet: a 2-layer and a 4-layer model."""
    base = yaml.safe_load(catalog.model_paths()["llama-3.2-1b"].read_text())
    paths = []
    for layers, tail in ((2, "a"), (4, "b")):
        mid = "x" * 31 + tail
        entry = {**base, "id": mid, "config": {**base["config"], "num_hidden_layers": layers}}
        path = tmp_path / f"{mid}.yaml"
        path.write_text(yaml.safe_dump(entry))
        paths.append(str(path))
    wb, _, results = build_workbook(",".join(paths), "h100-sxm", {})
    out = tmp_path / "long.xlsx"
    save_atomically(wb, out)
    summary = openpyxl.load_workbook(out)["Summary"]
    col = next(c.column for c in summary[3] if c.value == "Parameters (billions)")  # a plain reference
    refs = [summary.cell(row=r, column=col).value for r in (4, 5)]  # params_total
    sheets = [ref.split("!")[0].lstrip("=").strip("'") for ref in refs]
    assert sheets[0] != sheets[1]
    book = openpyxl.load_workbook(out)
    for sheet, res in zip(sheets, results, strict=True):
        assert book[sheet]["B3"].value == res.model_id


def test_every_computed_sheet_has_a_check_cell_and_numbers_are_validated(workbook):
    for ws in workbook.worksheets:
        if ws.title in (
            "About",
            "GPUs",
            "Precisions",
            "Workloads",
            "TimeModels",
            "Engines",
            "Training",
            "RopeMethods",
            "Checks",  # it reads every other sheet's check cell
        ):
            continue
        checks = [c for c in ws[1] if isinstance(c.value, ArrayFormula) and "ISERROR" in c.value.text]
        assert len(checks) == 1, ws.title
    rules = {
        str(dv.sqref): (dv.type, dv.operator, dv.formula1)
        for dv in workbook["Inputs"].data_validations.dataValidation
        if dv.type != "list"
    }
    # e.g. pipeline_parallel in 1..1024, its stated limit (no operator: OOXML's default, between)
    assert ("whole", None, "1") in rules.values()


CACHE_SCENARIOS = [
    pytest.param({}, id="default"),
    pytest.param(
        {"gpu": "b200", "weight_dtype": "fp8", "kv_dtype": "fp8"}, id="b200-fp8", marks=pytest.mark.slow
    ),
    pytest.param({"price_per_gpu_hour": "1.85"}, id="price", marks=pytest.mark.slow),
]


def _cell_values(path, data_only: bool) -> dict:
    """{(sheet, coordinate): value} of every non-empty cell, read by openpyxl (streaming)."""
    book = openpyxl.load_workbook(path, read_only=True, data_only=data_only)
    out = {
        (ws.title, c.coordinate): c.value
        for ws in book.worksheets
        for row in ws.iter_rows()
        for c in row
        if getattr(c, "value", None) is not None
    }
    book.close()
    return out


@pytest.mark.parametrize("sets", CACHE_SCENARIOS)
def test_cached_values_equal_the_exact_ledger(sets, built, tmp_path):
    """Issue 14: viewers that do not recalculate read the cached value beside each formula;
    it is the exact (rational) ledger's value for the scenario the workbook was built with.
    (LibreOffice's recalculation is held against the same values in the referee tier.)"""
    if sets:
        wb, cells, _ = build_workbook("all", "all", sets)
        path = tmp_path / "ledger.xlsx"
        save_atomically(wb, path)
    else:
        path, cells = built
    formulas, cached = (_cell_values(path, data_only) for data_only in (False, True))
    missing = [
        where
        for where, value in formulas.items()
        if isinstance(value, str) and value.startswith("=") and cached.get(where) is None
    ]
    assert missing == []
    results, bad = {}, []
    for cell in cells:
        key = (cell.model, cell.sets)
        if key not in results:
            results[key] = Evaluator({**sets, **dict(cell.sets)}).evaluate(cell.model)
        res, got = results[key], cached.get((cell.sheet, cell.coord))
        if cell.guard and res.value(cell.guard) == 0:
            ok = got == guard_text(cell.guard)
        else:
            want = float(res.value(cell.quantity)) * cell.scale
            ok = isinstance(got, (int, float)) and math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-3)
        if not ok:
            bad.append((cell, got))
    assert bad == [] and len(cells) > 30000


def test_pandas_reads_the_summary_costs_as_numbers(workbook_path):
    import pandas as pd

    frame = pd.read_excel(workbook_path, sheet_name="Summary", header=2)
    cost = next(c for c in frame.columns if str(c).startswith("Cost per 1M output tokens"))
    fits = frame[frame[cost] != "does not fit"]
    assert len(fits) >= 15
    assert all(isinstance(v, float) and v > 0 for v in fits[cost])
    assert frame["model"].iloc[0] == next(iter(catalog.models()))


def test_no_formula_hides_a_constant(workbook):
    """Issue 14 (FAST / ICAEW: no hard-coded numbers): unit conversions and guards are named
    cells on the Inputs sheet; what remains in formulas is structure (0, 1, 2 FLOPs per MAC,
    3 SwiGLU matrices, the tensor-parallel sizes 1, 2, 4, 8, Korthikanti's 34 and 5; the
    weights per channel pair of Emu3's VQ-VAE convolutions, 3 x 3 = 9, 3 x 3 x 3 = 27 and
    4 x 3 x 3 = 36, and its middle block's five affine norms of 2 c each, 10 c)."""
    allowed = {"0", "1", "2", "3", "4", "5", "6", "8", "9", "10", "27", "34", "36"}
    found = set()
    for ws in workbook.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if isinstance(c.value, str) and c.value.startswith("="):
                    f = re.sub(r'"[^"]*"', "", c.value)
                    f = re.sub(r"'[^']*'!|\$?[A-Z]{1,3}\$?\d+", "", f)
                    found |= set(re.findall(r"(?<![A-Za-z_.\d])(\d+(?:\.\d+)?(?:E[+-]?\d+)?)", f))
    assert found <= allowed, found - allowed
    names = set(workbook.defined_names)
    assert {"seconds_per_hour", "tokens_per_million", "per_tera", "bytes_per_gib"} <= names


def test_blue_cells_on_model_sheets_say_what_they_compute(workbook):
    """Issue 14: each formula cell of a model sheet carries a note with the quantity, its unit
    and what it computes in words (the view sheets' headers carry the same)."""
    ws = workbook["llama-3-8b"]
    formulas = [
        c
        for c in ws["B"]
        if isinstance(c.value, str) and not c.value.startswith("=INDEX") and c.value.startswith("=")
    ]
    assert len(formulas) > 100
    for c in formulas:
        name = ws.cell(row=c.row, column=1).value
        assert c.comment is not None and c.comment.text.startswith(f"{name} ("), c.coordinate


def test_notes_are_the_parts_xlsxwriter_writes(tmp_path):
    """xlsx_notes.py renders a sheet's comments and VML drawing as text; the referee is
    XlsxWriter's own write_comment for the same notes, column widths and row heights (the
    first row's note included: its box starts on that row)."""
    import zipfile

    import xlsxwriter

    from ledgerbuild.writers.xlsx import notes as xlsx_notes

    widths, heights = {1: 34, 2: 24, 3: 12, 4: 60}, {3: 41, 7: 28}
    notes = [(1, 1, "top & <left>"), (3, 2, " padded "), (7, 2, "tab\there\x01"), (8, 4, "x" * 300)]
    path = tmp_path / "notes.xlsx"
    wb = xlsxwriter.Workbook(path)
    ws = wb.add_worksheet("S")
    for col, width in widths.items():
        ws.set_column(col - 1, col - 1, width)
    for row, height in heights.items():
        ws.set_row(row - 1, height)
    for row, col, text in notes:
        ws.write_comment(row - 1, col - 1, text, {"author": "ledgerbuild", "x_scale": 2, "y_scale": 1.5})
    wb.close()
    with zipfile.ZipFile(path) as z:
        want = z.read("xl/comments1.xml").decode(), z.read("xl/drawings/vmlDrawing1.vml").decode()
    assert xlsx_notes.render(notes, 1, widths, heights) == want


def test_a_row_written_after_it_was_flushed_is_refused():
    from ledgerbuild.writers.xlsx.package import new_book

    book = new_book()
    sheet = book.create_sheet("S")
    sheet.set(5, 1, "x", "s", {})
    sheet.flush(book)
    sheet.set(3, 1, "y", "s", {})
    with pytest.raises(ValueError, match="row 3 written after row 5"):
        sheet.flush(book)


def test_the_workers_build_the_same_workbook(tmp_path, monkeypatch):
    """The per-model jobs in two forked workers (as from 48 models) give the workbook the
    in-process build gives: every cell's formula, value, cached value, style and note."""
    from ledgerbuild.writers.xlsx import workers as xlsx_workers

    monkeypatch.setattr(xlsx_workers, "PARALLEL_FROM", 1)
    models = "llama-3-8b,deepseek-v3,qwen2-vl-7b,gpt-oss-20b"
    books = []
    for workers in (1, 2):
        wb, cells, _ = build_workbook(models, "h100-sxm,b200", {}, workers=workers)
        out = tmp_path / f"w{workers}.xlsx"
        save_atomically(wb, out)
        books.append((out, sorted(cells, key=str)))
    assert books[0][1] == books[1][1]

    def contents(path, data_only):
        book = openpyxl.load_workbook(path, data_only=data_only)
        return {
            (ws.title, c.coordinate): (
                (c.value.ref, c.value.text) if isinstance(c.value, ArrayFormula) else c.value,
                c.number_format,
                c.fill.fgColor.rgb,
                c.comment and c.comment.text,
            )
            for ws in book.worksheets
            for row in ws.iter_rows()
            for c in row
            if c.value is not None
        }

    for data_only in (False, True):
        assert contents(books[0][0], data_only) == contents(books[1][0], data_only)
