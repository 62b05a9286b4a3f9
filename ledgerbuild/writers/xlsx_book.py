"""An in-memory workbook the sheet writers fill, saved through XlsxWriter.

Scope: cells (number, text or formula with its cached value), cell notes, styles as XlsxWriter
format properties, widths and heights, frozen panes, defined names (workbook or sheet scope),
data validation, conditional formats, scatter charts, Excel Tables and page setup. Why
XlsxWriter: it stores a cached value beside each formula (`write_formula(..., value)`), so
file previews, Protected View, mobile viewers and `pandas.read_excel` show numbers while Excel
and LibreOffice still recalculate; openpyxl cannot, and XlsxWriter writes the file about
three times faster. openpyxl stays for reading workbooks back in tests.
Shortcuts: the cell XML is written by us, not cell by cell through XlsxWriter's table (which
would hold every cell a second time and costs ~10 us a cell): formulas are written as they
are (ours use only Excel 2007 functions, so none needs XlsxWriter's _xlfn. search of 30
patterns). A sheet can `flush()` its rows to a scratch file as soon as they are final (a
1,000-model workbook never holds its 3.5 M cells at once); rows are rendered with the book's
style and shared-string indices, so a worker process (`freeze()`: nothing new registered)
writes a text it has no shared index for as an inline string. Notes are rendered by
xlsx_notes.py.
"""

from __future__ import annotations

import functools
import math
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from typing import Any

import xlsxwriter
import xlsxwriter.workbook
from xlsxwriter.packager import Packager
from xlsxwriter.utility import xl_cell_to_rowcol, xl_col_to_name, xl_rowcol_to_cell
from xlsxwriter.worksheet import Worksheet

from . import xlsx_notes

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
    def __init__(self, title: str, block: int = 0) -> None:
        self.title = title
        self.block = block  # the sheet's VML block for its notes (xlsx_notes.py)
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
        self.chunks: list[tuple[int, int, str]] = []  # (first row, last row, file) of flushed rows
        self.notes: list[tuple[int, int, str]] = []  # flushed notes (row, column, text)
        self.note_files: tuple[str, str] | None = None  # rendered comments and VML parts
        self.shared_uses = 0  # shared-string references in flushed rows
        self.checked = False  # its check cell is written
        self.flushed_formulas = 0
        self._file = ""  # the scratch file flushes append to
        self._max_row = self._max_col = 1

    @property
    def max_row(self) -> int:
        return self._max_row

    @property
    def max_column(self) -> int:
        return self._max_col

    def set(self, row: int, col: int, value, kind: str, style: dict) -> XCell:
        cell = XCell(value, kind, style)
        self.cells[row, col] = cell
        if row > self._max_row:
            self._max_row = row
        if col > self._max_col:
            self._max_col = col
        return cell

    def extend_to(self, row: int, col: int) -> None:
        """Rows and columns used beyond the cells held (rows written from elsewhere)."""
        self._max_row, self._max_col = max(self._max_row, row), max(self._max_col, col)

    def restyle(self, row: int, col: int, **props) -> None:
        cell = self.cells.get((row, col)) or self.set(row, col, "", "s", {})
        cell.style = {**cell.style, **props}

    @property
    def formula_count(self) -> int:
        return self.flushed_formulas + sum(1 for cell in self.cells.values() if cell.kind == "f")

    def flush(self, book: Book, from_row: int = 1) -> None:
        """Render the held rows from `from_row` down to a scratch file and drop them."""
        rows = [key for key in self.cells if key[0] >= from_row]
        if not rows:
            return
        first, last = min(r for r, _ in rows), max(r for r, _ in rows)
        if self.chunks and first <= self.chunks[-1][1]:  # checked before the cells are taken
            raise ValueError(f"{self.title}: row {first} written after row {self.chunks[-1][1]} was flushed")
        cells = {key: self.cells.pop(key) for key in sorted(rows)}
        formulas = sum(1 for cell in cells.values() if cell.kind == "f")
        self.notes += [(r, c, cell.note) for (r, c), cell in cells.items() if cell.note]
        heights = {r: h for r, h in self.row_heights.items() if first <= r <= last}
        parts: list[str] = []
        shared = render_rows(parts.append, cells, heights, book)
        self.append_rendered(book, first, last, "".join(parts), formulas, shared)

    def append_rendered(
        self, book: Book, first: int, last: int, text: str, formulas: int, shared: int
    ) -> None:
        """Rows first..last rendered as text (below every row flushed so far), with the
        formula cells and shared-string references they hold."""
        if self.chunks and first <= self.chunks[-1][1]:
            raise ValueError(f"{self.title}: row {first} written after row {self.chunks[-1][1]} was flushed")
        if self.chunks and self.chunks[-1][2] == self._file:  # appended to the sheet's file
            path, first = self._file, self.chunks.pop()[0]
        else:
            path = self._file = book.scratch_file()
        with open(path, "a", encoding="utf-8") as out:
            out.write(text)
        self.chunks.append((first, last, path))
        self.flushed_formulas += formulas
        self.shared_uses += shared
        self.extend_to(last, 1)

    def seal(self, book: Book) -> None:
        """Render the rows still held: those above the flushed ones into a first file, those
        below into a last (before the save: shared strings are final when it starts)."""
        if not self.chunks:
            self.flush(book)
            return
        first, last = self.chunks[0][0], self.chunks[-1][1]
        if any(first <= r <= last for r, _ in self.cells):
            raise ValueError(f"{self.title}: a cell was written inside rows already flushed")
        self.flush(book, last + 1)
        chunks, self.chunks, self._file = self.chunks, [], ""
        self.flush(book)
        self.chunks += chunks

    def finish(self, book: Book) -> None:
        """Flush every row and render the notes: the sheet is final (a worker's last step)."""
        self.flush(book)
        self.render_notes(book)

    def render_notes(self, book: Book) -> None:
        self.notes += [(r, c, cell.note) for (r, c), cell in sorted(self.cells.items()) if cell.note]
        for cell in self.cells.values():
            cell.note = None
        if not self.notes:
            return
        self.notes.sort()
        paths = book.scratch_file(), book.scratch_file()
        for path, text in zip(
            paths, xlsx_notes.render(self.notes, self.block, self.col_widths, self.row_heights), strict=True
        ):
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        self.note_files, self.notes = paths, []


class Book:
    def __init__(self) -> None:
        self.worksheets: list[Sheet] = []
        self.names: dict[str, str] = {}  # workbook-scoped defined names -> reference
        self.xw = _Workbook(
            None, {"strings_to_numbers": False, "strings_to_formulas": False, "strings_to_urls": False}
        )
        self.frozen = False  # a worker: styles and shared strings are the parent's, read-only
        self._formats: dict[tuple, Any] = {}
        self._style_ids: dict[int, tuple[int, dict]] = {}  # id(style dict) -> (xf index, the dict)
        self._scratch = tempfile.TemporaryDirectory(prefix="ledgerbuild-")
        self._blocks = 0

    def create_sheet(self, title: str, index: int | None = None) -> Sheet:
        self._blocks += 1
        sheet = Sheet(title, self._blocks)
        self.worksheets.insert(len(self.worksheets) if index is None else index, sheet)
        return sheet

    def add_sheet(self, sheet: Sheet, index: int | None = None) -> None:
        """A sheet a worker built (its rows flushed into this book's scratch folder)."""
        self.worksheets.insert(len(self.worksheets) if index is None else index, sheet)

    def reserve_blocks(self, count: int) -> int:
        """VML blocks for sheets a worker will create; returns the first."""
        first = self._blocks + 1
        self._blocks += count
        return first

    @property
    def sheetnames(self) -> list[str]:
        return [s.title for s in self.worksheets]

    def __getitem__(self, title: str) -> Sheet:
        return next(s for s in self.worksheets if s.title == title)

    def scratch_file(self) -> str:
        fd, path = tempfile.mkstemp(suffix=".xml", dir=self._scratch.name)
        os.close(fd)
        return path

    def style_index(self, style: dict) -> int:
        """The style's xf index (0: the default), registered on first use."""
        if not style:
            return 0
        found = self._style_ids.get(id(style))
        if found is None:
            key = tuple(sorted(style.items()))
            if key not in self._formats:
                if self.frozen:
                    raise RuntimeError(f"style {style} not registered before the workers started")
                self._formats[key] = self.xw.add_format(style)
            found = self._style_ids[id(style)] = (self._formats[key]._get_xf_index(), style)
        return found[0]

    def format_of(self, style: dict):
        self.style_index(style)
        return self._formats[tuple(sorted(style.items()))] if style else None

    def string_index(self, text: str) -> int | None:
        """The shared-string index of `text`; None in a worker for a text the parent never
        registered (written inline)."""
        table = self.xw.str_table
        index = table.string_table.get(text)
        if index is None and not self.frozen:
            index = table.string_table[text] = table.unique_count
            table.unique_count += 1
        return index

    def freeze(self) -> None:
        self.frozen = True

    def save(self, path: str) -> None:
        try:
            save(self, path)
        finally:
            self._scratch.cleanup()


def coordinate(row: int, col: int) -> str:
    """'B7' for row 7, column 2 (1-based)."""
    return xl_rowcol_to_cell(row - 1, col - 1)


def column_letter(col: int) -> str:
    return _COLUMNS[col] if col < len(_COLUMNS) else xl_col_to_name(col - 1)


_COLUMNS = [""] + [xl_col_to_name(c) for c in range(702)]  # A..ZZ


@functools.cache
def row_col(coord: str) -> tuple[int, int]:
    """'B7' -> (7, 2) (1-based)."""
    row, col = xl_cell_to_rowcol(coord)
    return row + 1, col + 1


def column_index(letters: str) -> int:
    """'D' -> 4 (1-based)."""
    return xl_cell_to_rowcol(letters + "1")[1] + 1


def escape_markup(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render_rows(write, cells: dict, heights: dict, book: Book, hole=None) -> int:
    """<row> elements for cells {(row, col): XCell} and the rows' custom heights, in order;
    returns the number of shared-string references written. With `hole`, a formula cell's
    element stops after its r and s attributes and hole(row, col, cell) is called (a
    stamp's value goes there)."""
    style_of, shared = book.style_index, book.string_index
    uses = 0
    keys = sorted(cells)
    for row in sorted(heights.keys() - {r for r, _ in keys}):  # rows with a height only
        keys.append((row, 0))
    keys.sort()
    current = None
    for key in keys:
        row, col = key
        if row != current:
            if current is not None:
                write("</row>")
            current, height = row, heights.get(row)
            write(f'<row r="{row}" ht="{height}" customHeight="1">' if height else f'<row r="{row}">')
        if col == 0:
            continue
        cell = cells[key]
        style = style_of(cell.style)
        head = f'<c r="{column_letter(col)}{row}"' + (f' s="{style}"' if style else "")
        if cell.kind == "s" and cell.value != "":
            index = shared(cell.value)
            if index is None:
                write(f'{head} t="inlineStr"><is>{inline(cell.value)}</is></c>')
            else:
                uses += 1
                write(f'{head} t="s"><v>{index}</v></c>')
        elif hole is not None and cell.kind == "f":
            write(head)
            hole(row, col, cell)
        else:
            write(head + _cell_body(cell))
    if current is not None:
        write("</row>")
    return uses


def inline(text: str) -> str:
    """An inline string's <t> element."""
    preserve = ' xml:space="preserve"' if text != text.strip() else ""
    return f"<t{preserve}>{xlsx_notes.escape_text(text)}</t>"


def _cell_body(cell: XCell) -> str:
    """The rest of a number, empty-text or formula <c> element after its r and s attributes."""
    if cell.kind == "n":
        return f"><v>{number_text(cell.value)}</v></c>"
    if cell.kind == "s":
        return "/>"
    if cell.cached is NO_VALUE:
        raise ValueError(f"formula without a cached value: {cell.value[:80]}")
    return formula_body(escape_markup(cell.value[1:]), cell.cached)


def formula_body(formula: str, value) -> str:
    """A formula cell's element after its r and s attributes: the (escaped) formula and its
    cached value."""
    attr, text = value_parts(value)
    return f"{attr}><f>{formula}</f><v>{text}</v></c>"


def value_parts(value) -> tuple[str, str]:
    """A cached value's type attribute and text: a number, a text, or #NUM! where not finite."""
    if isinstance(value, str):
        return ' t="str"', escape_markup(value)
    if not math.isfinite(value):
        return ' t="e"', "#NUM!"
    return "", number_text(value)


def number_text(value) -> str:
    """Shortest text that reads back as the same double (ints exactly)."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else repr(float(value))


class SheetData(Worksheet):
    """A worksheet whose <sheetData> is our Sheet's rendered rows, copied from their files in
    row order; its notes from their rendered parts."""

    ledger_sheet: Sheet

    def _write_rows(self) -> None:
        for _, _, path in self.ledger_sheet.chunks:
            with open(path, encoding="utf-8") as rows:
                shutil.copyfileobj(rows, self.fh, 1 << 20)

    def _prepare_vml_objects(self, vml_data_id, vml_shape_id, vml_drawing_id, comment_id):
        """The notes' parts are rendered (xlsx_notes.py); only their links are made here."""
        self.external_vml_links.append(["/vmlDrawing", f"../drawings/vmlDrawing{vml_drawing_id}.vml"])
        self.external_comment_links.append(["/comments", f"../comments{comment_id}.xml"])
        return 0


class _Packager(Packager):
    """Copies the rendered notes parts of our sheets instead of assembling them."""

    def _write_vml_files(self) -> None:
        self._copy_notes(1, "xl/drawings/vmlDrawing{}.vml")

    def _write_comment_files(self) -> None:
        self._copy_notes(0, "xl/comments{}.xml")

    def _copy_notes(self, part: int, name: str) -> None:
        index = 1
        for ws in self.workbook.worksheets():
            if ws.has_vml:
                shutil.copyfile(ws.ledger_sheet.note_files[part], self._filename(name.format(index)))
                index += 1


class _Workbook(xlsxwriter.Workbook):
    def _get_packager(self):
        return _Packager()

    def _store_workbook(self) -> None:
        zip_file = xlsxwriter.workbook.ZipFile
        xlsxwriter.workbook.ZipFile = functools.partial(zipfile.ZipFile, compresslevel=1)  # type: ignore[misc]
        try:
            super()._store_workbook()
        finally:
            xlsxwriter.workbook.ZipFile = zip_file  # type: ignore[misc]


def save(book: Book, path: str) -> None:
    """Write the book as .xlsx; a formula without a cached value is a bug and refused. Parts
    are deflated at level 1 (zlib's fastest): for the 645 MB of XML of 1,000 models, 3x
    faster than the default level 6 for a file ~25 % larger."""
    wb = book.xw
    wb.filename = path
    sheets = [wb.add_worksheet(s.title, worksheet_class=SheetData) for s in book.worksheets]
    for ws, sheet in zip(sheets, book.worksheets, strict=True):
        _write_sheet(wb, ws, sheet, book)  # the heights of held rows first: their notes' boxes
        sheet.render_notes(book)
        sheet.seal(book)
        ws.has_vml = ws.has_comments = sheet.note_files is not None
    wb.str_table.count = sum(s.shared_uses for s in book.worksheets)
    for name, reference in book.names.items():
        wb.define_name(name, "=" + reference)
    for index, sheet in enumerate(book.worksheets):
        for name, reference in sheet.names.items():  # names checked by xlsx_layout.define
            wb.defined_names.append([name, index, reference, False])
    wb.close()


def _quoted(title: str) -> str:
    return "'" + title.replace("'", "''") + "'"


def _write_sheet(wb, ws, sheet: Sheet, book: Book) -> None:
    ws.ledger_sheet = sheet
    fmt = book.format_of
    ws._check_dimensions(0, 0)
    ws._check_dimensions(sheet.max_row - 1, sheet.max_column - 1)
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
