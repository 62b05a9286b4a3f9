"""Workbook building blocks: styles, safe text cells, defined names, widths, page setup.

Scope: what every sheet shares, on the in-memory book of book.py. Styles are XlsxWriter
format properties. Catalog strings are data: `text()` always writes a string cell, so a name
starting with =, +, - or @ never becomes a formula.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping

from .book import Book, Sheet, XCell, column_letter, coordinate

# One colour convention (FAST-style), stated on the Inputs sheet (COLOUR_KEY): sheets are
# protected without a password; the cells a reader may type in are the unlocked ones
INPUT_FILL = {"bg_color": "#FFF2CC", "pattern": 1, "locked": False}  # yellow: type here
LOOKUP_FILL = {"bg_color": "#E2EFDA", "pattern": 1, "locked": False}  # green: looked up (may be typed over)
FORMULA_FILL = {"bg_color": "#DDEBF7", "pattern": 1}  # blue: live formula (locked)
CONSTANT_FILL = {"bg_color": "#EDEDED", "pattern": 1}  # grey: a named constant (locked)
EDITABLE = {"locked": False}  # catalog table text a reader may edit (ids, names, sources)
COLOUR_KEY = [  # Inputs row 3, columns B..E
    ("input: type or pick", INPUT_FILL),
    ("lookup", LOOKUP_FILL),
    ("formula: protected (lookups: type over one to override it)", FORMULA_FILL),
    ("constant: protected", CONSTANT_FILL),
]
HEADER_FILL = {"bg_color": "#1F4E78", "pattern": 1}
HEADER_FONT = {"bold": True, "font_color": "#FFFFFF"}
TITLE_FONT = {"bold": True, "font_size": 14}
SECTION_FONT = {"bold": True, "font_size": 12, "font_color": "#1F4E78"}
WRAP = {"text_wrap": True, "valign": "top"}
RIGHT = {"align": "right"}  # numbers and "does not fit" line up
ERROR_FILL = {"bg_color": "#F4CCCC", "pattern": 1}  # red: something on the sheet is an error

_CELL_LIKE = re.compile(r"^([A-Za-z]{1,3}\d+|[RrCc]\d*|[Rr]\d*[Cc]\d*)$")


def valid_name(name: str) -> bool:
    """Excel accepts it as a defined name: not cell-like, not R/C, letters/digits/_/."""
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name)) and not _CELL_LIKE.match(name)


def quote(title: str) -> str:
    return "'" + title.replace("'", "''") + "'"


def ref(ws: Sheet, row: int, col: int, absolute: bool = True) -> str:
    c = column_letter(col)
    return f"{quote(ws.title)}!${c}${row}" if absolute else f"{c}{row}"


def define(wb: Book, ws: Sheet, name: str, row: int, col: int, local: bool) -> None:
    """A defined name for one cell, scoped to its sheet (local) or to the workbook."""
    if not valid_name(name):
        raise ValueError(f"{name!r} is not a valid Excel name")
    (ws.names if local else wb.names)[name] = ref(ws, row, col)


def define_range(wb: Book, name: str, ws: Sheet, col: int, first: int, last: int) -> None:
    c = column_letter(col)
    wb.names[name] = f"{quote(ws.title)}!${c}${first}:${c}${last}"


_STYLES: dict[tuple, dict] = {}


def _merge(style: dict) -> dict:
    """fill=, font=, alignment= (property dicts) and number_format= as one format; equal
    arguments give the same dict object (the writer caches formats by identity)."""
    key = (
        id(style.get("fill")),
        id(style.get("font")),
        id(style.get("alignment")),
        style.get("number_format"),
    )
    if key not in _STYLES:
        out: dict = {}
        for name, value in style.items():
            if name == "number_format":
                out["num_format"] = value
            elif value:
                out.update(value)
        _STYLES[key] = out
    return _STYLES[key]


def merged_style(**style) -> dict:
    return _merge(style)


def text(ws: Sheet, row: int, col: int, value, **style) -> XCell:
    """Write a catalog string as text, never as a formula."""
    return ws.set(row, col, "" if value is None else str(value), "s", _merge(style))


def put(ws: Sheet, row: int, col: int, value, cached=None, note: str | None = None, **style) -> XCell:
    """A number, or a formula we generated (a string starting with '='); a formula carries
    its cached value when the caller knows it (else the ledger pass fills it)."""
    if isinstance(value, str) and value.startswith("="):
        cell = ws.set(row, col, value, "f", _merge(style))
        if cached is not None:
            cell.cached = cached
    elif isinstance(value, str):
        cell = ws.set(row, col, value, "s", _merge(style))
    else:
        cell = ws.set(row, col, value, "n", _merge(style))
    cell.note = note
    return cell


def header(ws: Sheet, row: int, titles: list[str]) -> None:
    """Column headings on `row`; the sheet's panes freeze below its first heading row only
    (a sheet of blocks repeats headings further down)."""
    for i, t in enumerate(titles, start=1):
        text(ws, row, i, t, font=HEADER_FONT, fill=HEADER_FILL)
    if ws.freeze is None:
        ws.freeze = (row + 1, 2)


def fit_row(ws: Sheet, row: int, texts: Mapping[int, str], col_widths: Mapping[int, float]) -> None:
    """Row height for wrapped texts: LibreOffice does not grow rows on load."""
    lines = 1
    for col, value in texts.items():
        lines = max(lines, -(-len(value or "") // max(1, int(col_widths[col] * 1.1))))
    if lines > 1:
        ws.row_heights[row] = 13 * lines + 2


def widths(ws: Sheet, cols: Mapping[int, float]) -> None:
    ws.col_widths.update(cols)


def print_setup(
    ws: Sheet,
    landscape: bool = True,
    header_rows: str | None = None,
    scenario: str = "",
    one_page: bool = False,
) -> None:
    """Landscape, fit to width (and height where one_page) but never below MIN_PRINT_SCALE
    (package.py), header rows repeated on every page (else the rows above the frozen
    pane), the sheet in the page header, page x of y and the build date in the footer. The
    scenario is not printed as fixed text: it would be wrong after a what-if (the sheets'
    titles are formulas reading the Inputs)."""
    ws.page = {
        "landscape": landscape,
        "fit_height": 1 if one_page else 0,
        "header_left": f"ledgerbuild - {_page_text(ws.title)}",
        "header_right": _page_text(scenario),
        "footer_left": f"built {datetime.date.today().isoformat()}",
    }
    if header_rows:
        first, _, last = header_rows.partition(":")
        ws.page["repeat_rows"] = (int(first), int(last or first))


def _page_text(value: str) -> str:
    """Header/footer text is a format string in Excel: '&' starts a code."""
    return value.replace("&", "&&")[:120]


CHECK_OK = "check: no error cells"


def check_cell(ws: Sheet) -> None:
    """A cell right of the sheet's used range that counts its error cells and turns red on any.
    An array formula: Gnumeric reads ISERROR(range) inside SUMPRODUCT as one intersected cell."""
    used = f"$A$1:${column_letter(ws.max_column)}${ws.max_row}"
    count = f"SUM(IF(ISERROR({used}),1,0))"
    col = ws.max_column + 2
    cell = put(ws, 1, col, f'=IF({count}=0, "{CHECK_OK}", {count}&" error cells")', cached=CHECK_OK)
    cell.array = True
    ws.conditional.append((coordinate(1, col), f'{ref(ws, 1, col)}<>"{CHECK_OK}"', ERROR_FILL))
    ws.checked, ws.check_at = True, coordinate(1, col)
