"""An in-memory workbook the sheet writers fill, saved through XlsxWriter.

Scope: cells (number, text or formula with its cached value), cell notes, styles as XlsxWriter
format properties, widths and heights, frozen panes, defined names (workbook or sheet scope),
data validation, conditional formats, scatter charts, Excel Tables and page setup. Why
XlsxWriter: it stores a cached value beside each formula (`write_formula(..., value)`), so
file previews, Protected View, mobile viewers and `pandas.read_excel` show numbers while Excel
and LibreOffice still recalculate; openpyxl cannot, and XlsxWriter writes the file about
three times faster. openpyxl stays for reading workbooks back in tests.
Shortcut: cells are kept in a dict and written in one pass at save (no streaming); the cell
XML is written by SheetData, not cell by cell through XlsxWriter's table (which would hold
every cell a second time and costs ~10 us a cell): formulas are written as they are (ours use
only Excel 2007 functions, so none needs XlsxWriter's _xlfn. search of 30 patterns).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import xlsxwriter
from xlsxwriter.utility import xl_cell_to_rowcol, xl_col_to_name, xl_rowcol_to_cell
from xlsxwriter.worksheet import Worksheet

NO_VALUE = object()  # a formula whose cached value is not known yet


@dataclass(slots=True)
class XCell:
    value: Any  # a number, a text, or a formula ("=...")
    kind: str  # "n" number, "s" text, "f" formula
    style: dict = field(default_factory=dict)
    cached: Any = NO_VALUE  # the formula's value for the scenario the workbook was built with
    note: str | None = None


@dataclass
class Chart:
    title: str
    x_title: str
    y_title: str
    xs: str  # a range reference, e.g. Sweeps!$A$5:$A$13
    ys: str
    name: str  # the series name's cell reference
    anchor: str  # x axis on a log2 scale (batches, contexts)


@dataclass
class Table:
    """An Excel Table (ListObject) over first..last rows, columns 1..n, header on `first`."""

    name: str
    first: int
    last: int
    columns: list[str]


class Sheet:
    def __init__(self, title: str) -> None:
        self.title = title
        self.cells: dict[tuple[int, int], XCell] = {}
        self.col_widths: dict[int, float] = {}
        self.row_heights: dict[int, float] = {}
        self.freeze: tuple[int, int] | None = None  # (first unfrozen row, column), 1-based
        self.names: dict[str, str] = {}  # sheet-scoped defined names -> reference
        self.validations: list[tuple[str, dict]] = []  # (A1 range, XlsxWriter options)
        self.conditional: list[tuple[str, str, dict]] = []  # (A1 range, formula, style)
        self.charts: list[Chart] = []
        self.tables: list[Table] = []
        self.page: dict[str, Any] = {}

    @property
    def max_row(self) -> int:
        return max((r for r, _ in self.cells), default=1)

    @property
    def max_column(self) -> int:
        return max((c for _, c in self.cells), default=1)

    def set(self, row: int, col: int, value, kind: str, style: dict) -> XCell:
        cell = XCell(value, kind, style)
        self.cells[row, col] = cell
        return cell

    def restyle(self, row: int, col: int, **props) -> None:
        cell = self.cells.setdefault((row, col), XCell("", "s"))
        cell.style = {**cell.style, **props}

    def formulas(self):
        """(row, column, cell) of every formula cell."""
        return ((r, c, cell) for (r, c), cell in self.cells.items() if cell.kind == "f")


class Book:
    def __init__(self) -> None:
        self.worksheets: list[Sheet] = []
        self.names: dict[str, str] = {}  # workbook-scoped defined names -> reference

    def create_sheet(self, title: str, index: int | None = None) -> Sheet:
        sheet = Sheet(title)
        self.worksheets.insert(len(self.worksheets) if index is None else index, sheet)
        return sheet

    @property
    def sheetnames(self) -> list[str]:
        return [s.title for s in self.worksheets]

    def __getitem__(self, title: str) -> Sheet:
        return next(s for s in self.worksheets if s.title == title)

    def save(self, path: str) -> None:
        save(self, path)


def coordinate(row: int, col: int) -> str:
    """'B7' for row 7, column 2 (1-based)."""
    return xl_rowcol_to_cell(row - 1, col - 1)


def column_letter(col: int) -> str:
    return xl_col_to_name(col - 1)


def column_index(letters: str) -> int:
    """'D' -> 4 (1-based)."""
    return xl_cell_to_rowcol(letters + "1")[1] + 1


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class SheetData(Worksheet):
    """A worksheet whose <sheetData> is written from our cells (ledger_cells), with shared
    strings, formulas and their cached values, and the custom row heights XlsxWriter keeps."""

    ledger_cells: dict = {}
    ledger_format: Any = None
    ledger_strings: dict = {}  # text -> shared-string index, registered before close()

    def _write_rows(self) -> None:
        by_row: dict[int, list] = {}
        for (row, col), cell in self.ledger_cells.items():
            by_row.setdefault(row, []).append((col, cell))
        write, shared, fmt = self.fh.write, self.ledger_strings.__getitem__, self.ledger_format
        for row in sorted(by_row.keys() | {r + 1 for r in self.row_info}):
            if row - 1 in self.row_info:
                self._write_row(row - 1, None, self.row_info[row - 1])
            else:
                write(f'<row r="{row}">')
            for col, cell in sorted(by_row.get(row, ()), key=lambda item: item[0]):
                style = fmt(cell.style)
                head = f'<c r="{xl_col_to_name(col - 1)}{row}"' + (
                    f' s="{style._get_xf_index()}"' if style else ""
                )
                write(head + _cell_body(cell, shared))
            write("</row>")


def _cell_body(cell: XCell, shared) -> str:
    """The rest of a <c> element after its r and s attributes."""
    if cell.kind == "n":
        return f"><v>{_number(cell.value)}</v></c>"
    if cell.kind == "s":
        return "/>" if cell.value == "" else f' t="s"><v>{shared(cell.value)}</v></c>'
    formula, value = _escape(cell.value[1:]), cell.cached
    if isinstance(value, str):
        return f' t="str"><f>{formula}</f><v>{_escape(value)}</v></c>'
    if not math.isfinite(value):
        return f' t="e"><f>{formula}</f><v>#NUM!</v></c>'
    return f"><f>{formula}</f><v>{_number(value)}</v></c>"


def _number(value) -> str:
    """Shortest text that reads back as the same double (ints exactly)."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else repr(float(value))


def save(book: Book, path: str) -> None:
    """Write the book as .xlsx; a formula without a cached value is a bug and refused."""
    wb = xlsxwriter.Workbook(
        path, {"strings_to_numbers": False, "strings_to_formulas": False, "strings_to_urls": False}
    )
    formats: dict[tuple, Any] = {}
    by_identity: dict[int, Any] = {}

    def fmt(style: dict):
        if not style:
            return None
        if id(style) not in by_identity:
            key = tuple(sorted(style.items()))
            if key not in formats:
                formats[key] = wb.add_format(style)
            by_identity[id(style)] = (formats[key], style)  # the dict kept alive with its id
        return by_identity[id(style)][0]

    sheets = {s.title: wb.add_worksheet(s.title, worksheet_class=SheetData) for s in book.worksheets}
    for sheet in book.worksheets:
        _write_sheet(wb, sheets[sheet.title], sheet, fmt)
    for name, reference in book.names.items():
        wb.define_name(name, "=" + reference)
    for sheet in book.worksheets:
        for name, reference in sheet.names.items():
            wb.define_name(f"{_quoted(sheet.title)}!{name}", "=" + reference)
    wb.close()


def _quoted(title: str) -> str:
    return "'" + title.replace("'", "''") + "'"


def _write_sheet(wb, ws, sheet: Sheet, fmt) -> None:
    ws.ledger_cells, ws.ledger_format = sheet.cells, fmt
    ws.ledger_strings = wb.str_table.string_table  # the table's dict before close() sorts it
    register = wb.str_table._get_shared_string_index
    if sheet.cells:
        ws._check_dimensions(0, 0)
        ws._check_dimensions(sheet.max_row - 1, sheet.max_column - 1)
    for (row, col), cell in sheet.cells.items():
        if cell.kind == "s" and cell.value != "":
            register(cell.value)
        elif cell.kind == "f" and cell.cached is NO_VALUE:
            raise ValueError(
                f"{sheet.title}!{coordinate(row, col)}: formula without a cached value: {cell.value[:80]}"
            )
        if cell.note:
            ws.write_comment(
                row - 1, col - 1, cell.note, {"author": "ledgerbuild", "x_scale": 2, "y_scale": 1.5}
            )
    for col, width in sheet.col_widths.items():
        ws.set_column(col - 1, col - 1, width)
    for row, height in sheet.row_heights.items():
        ws.set_row(row - 1, height)
    if sheet.freeze:
        ws.freeze_panes(sheet.freeze[0] - 1, sheet.freeze[1] - 1)
    for cells, options in sheet.validations:
        ws.data_validation(cells, options)
    for cells, formula, style in sheet.conditional:
        ws.conditional_format(cells, {"type": "formula", "criteria": "=" + formula, "format": fmt(style)})
    for table in sheet.tables:  # after the cells: the table writes its header row
        ws.add_table(
            table.first - 1,
            0,
            table.last - 1,
            len(table.columns) - 1,
            {
                "name": table.name,
                "autofilter": False,
                "style": "Table Style Light 1",
                "columns": [
                    {"header": h, "header_format": fmt(sheet.cells[table.first, c].style)}
                    for c, h in enumerate(table.columns, start=1)
                ],
            },
        )
    for chart in sheet.charts:
        ws.insert_chart(chart.anchor, _chart(wb, chart))
    _page_setup(ws, sheet.page)


def _chart(wb, spec: Chart):
    chart = wb.add_chart({"type": "scatter", "subtype": "straight_with_markers"})
    chart.add_series(
        {
            "name": "=" + spec.name,
            "categories": "=" + spec.xs,
            "values": "=" + spec.ys,
            "marker": {"type": "circle"},
        }
    )
    chart.set_title({"name": spec.title})
    chart.set_x_axis({"name": spec.x_title, "log_base": 2})
    chart.set_y_axis({"name": spec.y_title})
    chart.set_legend({"none": True})
    chart.set_style(13)
    chart.set_size({"width": 605, "height": 283})
    return chart


def _page_setup(ws, page: dict) -> None:
    if not page:
        return
    ws.set_landscape() if page.get("landscape", True) else ws.set_portrait()
    ws.fit_to_pages(1, page.get("fit_height", 0))
    if page.get("repeat_rows"):
        ws.repeat_rows(*(r - 1 for r in page["repeat_rows"]))
    ws.set_header(f"&L{page['header_left']}&R{page['header_right']}")
    ws.set_footer(f"&L{page['footer_left']}&Rpage &P of &N")
