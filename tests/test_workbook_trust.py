"""A workbook a finance team trusts (issue 28 item 4), read back with openpyxl: every sheet
protected without a password with only the yellow/green cells unlocked, the colour key on
Inputs, panes frozen below the first heading row, headings repeated on printed pages, print
scale never below 64 % (7 pt of the 11 pt text), units printed once on Inputs, small values
readable, "not priced" instead of $0.000, no fixed "built for" text, a Checks sheet with
one master flag, and lookups through plain-range names (no tbl[col] structured reference).
"""

import re

import openpyxl
import pytest
from openpyxl.worksheet.formula import ArrayFormula

from ledgerbuild.writers.xlsx import build_workbook, save_atomically
from ledgerbuild.writers.xlsx.layout import FORMULA_FILL, HEADER_FILL, INPUT_FILL, LOOKUP_FILL

MODELS, GPUS = "llama-3-8b,llama-3-70b,deepseek-v3", "h100-sxm,h200-sxm,mi300x,l4"


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    out = tmp_path_factory.mktemp("trust") / "ledger.xlsx"
    save_atomically(build_workbook(MODELS, GPUS, {})[0], out)
    return out


@pytest.fixture(scope="module")
def book(path):
    return openpyxl.load_workbook(path)


@pytest.fixture(scope="module")
def values(path):
    return openpyxl.load_workbook(path, data_only=True)


def _fill(cell) -> str:
    return (cell.fill.fgColor.rgb or "")[-6:].upper() if cell.fill and cell.fill.fill_type else ""


def _hex(fill: dict) -> str:
    return fill["bg_color"].lstrip("#").upper()


def _is_formula(cell) -> bool:
    return isinstance(cell.value, ArrayFormula) or isinstance(cell.value, str) and cell.value.startswith("=")


def test_every_sheet_is_protected_without_a_password(book):
    for ws in book.worksheets:
        assert ws.protection.sheet, ws.title
        assert not ws.protection.password, ws.title


def test_formula_cells_are_locked_and_inputs_unlocked(book):
    unlocked_inputs = 0
    for ws in book.worksheets:
        for row in ws.iter_rows():
            for c in row:
                fill = _fill(c)
                if fill == _hex(INPUT_FILL):
                    assert not c.protection.locked, f"{ws.title}!{c.coordinate}"
                    unlocked_inputs += 1
                elif _is_formula(c) and fill != _hex(LOOKUP_FILL):  # green: typed over on purpose
                    assert c.protection.locked, f"{ws.title}!{c.coordinate}"
                if _is_formula(c) and not c.protection.locked:  # a lookup, or a pick that follows another
                    assert fill in (_hex(LOOKUP_FILL), _hex(INPUT_FILL)), f"{ws.title}!{c.coordinate}"
    assert unlocked_inputs > 50


def test_the_colour_key_is_stated_on_inputs(book):
    ws = book["Inputs"]
    key = {_fill(c): c.value for c in ws[3] if c.value}
    assert key[_hex(INPUT_FILL)].startswith("input")
    assert key[_hex(LOOKUP_FILL)].startswith("lookup")
    assert key[_hex(FORMULA_FILL)].startswith("formula")


def _first_heading_row(ws) -> int:
    return next(r for r in range(1, ws.max_row + 1) if _fill(ws.cell(r, 1)) == _hex(HEADER_FILL))


def test_panes_freeze_below_the_first_heading_row_only(book):
    for ws in book.worksheets:
        if ws.title == "About":
            continue
        row = int(re.sub(r"[A-Z]+", "", ws.freeze_panes))
        assert row == _first_heading_row(ws) + 1, (ws.title, ws.freeze_panes)
        assert row <= 8, ws.title  # not 148, 196 or 41 rows (issue 28)


def test_headings_repeat_on_every_printed_page(book):
    for ws in book.worksheets:
        if ws.title == "About":
            continue
        first, last = (int(x) for x in ws.print_title_rows.replace("$", "").split(":"))
        assert first <= _first_heading_row(ws) <= last, ws.title


def test_print_scale_is_never_below_seven_points(book):
    """Either an explicit scale >= 64 % (with the key column repeated), or fit to one page
    wide where the columns' widths (7w+5 px at 0.75 pt) fit 720 pt at >= 64 %."""
    for ws in book.worksheets:
        assert ws.page_setup.orientation == "landscape", ws.title
        if ws.sheet_properties.pageSetUpPr.fitToPage:
            width = sum(  # the width as typed: XlsxWriter stores it plus 0.71 of padding
                (_width(ws, c) - 0.7109375) * 7 + 5 for c in range(1, ws.max_column + 1)
            )
            assert 720 / (width * 0.75) >= 0.64 or ws.title == "About", ws.title
        else:
            assert ws.page_setup.scale >= 64, ws.title
            assert ws.print_title_cols, ws.title


def _width(ws, col: int) -> float:
    dim = ws.column_dimensions[openpyxl.utils.get_column_letter(col)]
    return dim.width if dim.customWidth else 8.43 + 0.7109375


def test_inputs_print_units_once_and_small_values_readably(book, values):
    ws, shown = book["Inputs"], values["Inputs"]
    small = 0
    for r in range(5, ws.max_row + 1):
        fmt, value = ws.cell(r, 2).number_format, shown.cell(r, 2).value
        assert '"' not in fmt, (ws.cell(r, 1).value, fmt)  # the unit is in column C only
        if isinstance(value, float) and 0 < abs(value) < 1e-3:
            assert fmt in ("General", "0.00%") or "E" in fmt, (ws.cell(r, 1).value, fmt)
            small += 1
    assert small >= 2  # seconds_per_microsecond (1e-6) among them


def test_a_zero_input_token_cost_reads_not_priced(book, values):
    ws = book["Summary"]
    col = next(c.column for c in ws[3] if c.value == "Cost per 1M input tokens (USD)")
    shown = [values["Summary"].cell(r, col).value for r in range(4, 7)]
    assert set(shown) <= {0, "does not fit"} and 0 in shown  # the chat workload prices no input
    for r in range(4, 7):
        assert ws.cell(r, col).number_format.endswith(';"not priced"')


def test_no_usd_format_prints_does_not_fit_for_a_number(book):
    for ws in book.worksheets:
        for row in ws.iter_rows():
            for c in row:
                assert "does not fit" not in c.number_format, f"{ws.title}!{c.coordinate}"


def test_titles_follow_the_inputs(book, values):
    formula = book["Summary"]["A1"].value
    assert formula.startswith("=") and "&gpu&" in formula
    assert values["Summary"]["A1"].value.startswith("All models on h100-sxm, weights bf16")
    for ws in book.worksheets:
        assert "built for" not in (ws.oddHeader.right.text or ""), ws.title


def test_checks_sheet_has_one_master_flag(book, values):
    ws = book["Checks"]
    assert values["Checks"]["B2"].value == "ALL CHECKS PASS"
    checked = {ws.cell(r, 1).value.split(":")[0] for r in range(5, ws.max_row + 1)}
    assert {"Summary", "Compare", "Inputs", "llama-3-8b", "deepseek-v3", "Models"} <= checked
    assert all(values["Checks"].cell(r, 3).value == 1 for r in range(5, ws.max_row + 1))


def test_lookups_read_plain_range_names(book):
    for name, dn in book.defined_names.items():
        assert "[" not in dn.attr_text, (name, dn.attr_text)
    assert re.fullmatch(r"'GPUs'!\$A\$2:\$A\$5", book.defined_names["gpus_id"].attr_text)
    for ws in book.worksheets:
        for row in ws.iter_rows():
            for c in row:
                assert not (isinstance(c.value, str) and re.search(r"tbl_\w+\[", c.value)), c.coordinate
