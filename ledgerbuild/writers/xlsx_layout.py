"""Workbook building blocks: styles, safe text cells, defined names, tables, widths.

Scope: openpyxl details shared by every sheet. Catalog strings are data: `text()` always
writes a string cell, so a name starting with =, +, - or @ never becomes a formula.
"""
from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from copy import copy

from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.workbook.defined_name import DefinedName

INPUT_FILL = PatternFill("solid", fgColor="FFF2CC")  # yellow: type here
LOOKUP_FILL = PatternFill("solid", fgColor="E2EFDA")  # green: looked up (may be typed over)
FORMULA_FILL = PatternFill("solid", fgColor="DDEBF7")  # blue: live formula
HEADER_FILL = PatternFill("solid", fgColor="1F4E78")
HEADER_FONT = Font(bold=True, color="FFFFFF")
TITLE_FONT = Font(bold=True, size=14)
SECTION_FONT = Font(bold=True, size=12, color="1F4E78")
WRAP = Alignment(wrap_text=True, vertical="top")
RIGHT = Alignment(horizontal="right")  # numbers and "does not fit" line up

_CELL_LIKE = re.compile(r"^([A-Za-z]{1,3}\d+|[RrCc]\d*|[Rr]\d*[Cc]\d*)$")


def valid_name(name: str) -> bool:
    """Excel accepts it as a defined name: not cell-like, not R/C, letters/digits/_/."""
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name)) and not _CELL_LIKE.match(name)


def quote(title: str) -> str:
    return "'" + title.replace("'", "''") + "'"


def ref(ws, row: int, col: int, absolute: bool = True) -> str:
    c = get_column_letter(col)
    return f"{quote(ws.title)}!${c}${row}" if absolute else f"{c}{row}"


def define(wb, ws, name: str, row: int, col: int, local: bool) -> None:
    """A defined name for one cell, scoped to its sheet (local) or to the workbook."""
    if not valid_name(name):
        raise ValueError(f"{name!r} is not a valid Excel name")
    dn = DefinedName(name, attr_text=ref(ws, row, col))
    if local:
        ws.defined_names[name] = dn
    else:
        wb.defined_names[name] = dn


def define_range(wb, name: str, ws, col: int, first: int, last: int) -> None:
    c = get_column_letter(col)
    wb.defined_names[name] = DefinedName(name, attr_text=f"{quote(ws.title)}!${c}${first}:${c}${last}")


def text(ws, row: int, col: int, value, **style):
    """Write a catalog string as text, never as a formula."""
    cell = ws.cell(row=row, column=col)
    cell.value = "" if value is None else str(value)
    cell.data_type = "s"
    _style(cell, style)
    return cell


def put(ws, row: int, col: int, value, **style):
    """Write a number or a formula (a string starting with '=' that we generated)."""
    cell = ws.cell(row=row, column=col, value=value)
    _style(cell, style)
    return cell


_PROTOTYPES: dict = {}


def _style(cell, style):
    """Apply a style; each distinct style is resolved by openpyxl once, then copied (fast)."""
    if not style:
        return
    key = tuple(sorted((k, id(v) if not isinstance(v, str) else v) for k, v in style.items()))
    proto = _PROTOTYPES.get(key)
    if proto is None:
        for name, val in style.items():
            setattr(cell, name, val)
        _PROTOTYPES[key] = (copy(cell._style), cell.parent.parent)
        return
    array, workbook = proto
    if workbook is not cell.parent.parent:  # style indices belong to one workbook
        _PROTOTYPES.pop(key)
        return _style(cell, style)
    cell._style = copy(array)


def header(ws, row: int, titles: list[str]) -> None:
    for i, t in enumerate(titles, start=1):
        text(ws, row, i, t, font=HEADER_FONT, fill=HEADER_FILL)
    ws.freeze_panes = ws.cell(row=row + 1, column=2)


def fit_row(ws, row: int, texts: Mapping[int, str], col_widths: Mapping[int, float]) -> None:
    """Row height for wrapped texts: LibreOffice does not grow rows that openpyxl wrote."""
    lines = 1
    for col, value in texts.items():
        lines = max(lines, -(-len(value or "") // max(1, int(col_widths[col] * 1.1))))
    if lines > 1:
        ws.row_dimensions[row].height = 13 * lines + 2


def widths(ws, cols: Mapping[int, float]) -> None:
    for col, w in cols.items():
        ws.column_dimensions[get_column_letter(col)].width = w


def print_setup(ws, landscape: bool = True, header_rows: str | None = None,
                scenario: str = "") -> None:
    """Landscape, fit to width, header rows repeated on every page, the sheet and scenario in
    the page header, page x of y and the build date in the footer."""
    ws.page_setup.orientation = "landscape" if landscape else "portrait"
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.print_options.gridLines = False
    if header_rows:
        ws.print_title_rows = header_rows
    ws.oddHeader.left.text = f"ledgerbuild - {_page_text(ws.title)}"
    ws.oddHeader.right.text = _page_text(scenario)
    ws.oddFooter.left.text = f"built {datetime.date.today().isoformat()}"
    ws.oddFooter.right.text = "page &P of &N"


def _page_text(value: str) -> str:
    """Header/footer text is a format string in Excel: '&' starts a code."""
    return value.replace("&", "&&")[:120]


ERROR_FILL = PatternFill("solid", fgColor="F4CCCC")  # red: something on the sheet is an error


def check_cell(ws) -> None:
    """A cell right of the sheet's used range that counts its error cells and turns red on any."""
    used = f"$A$1:${get_column_letter(ws.max_column)}${ws.max_row}"
    count = f"SUMPRODUCT(--ISERROR({used}))"
    cell = ws.cell(row=1, column=ws.max_column + 2)
    cell.value = f'=IF({count}=0, "check: no error cells", {count}&" error cells")'
    ws.conditional_formatting.add(cell.coordinate,
                                  FormulaRule(formula=[f"{count}>0"], fill=ERROR_FILL))
