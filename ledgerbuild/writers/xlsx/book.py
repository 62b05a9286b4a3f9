"""An in-memory workbook the sheet writers fill, saved through XlsxWriter (package.py).

Scope: cells (number, text or formula with its cached value), cell notes, styles as XlsxWriter
format properties, widths and heights, frozen panes, defined names (workbook or sheet scope),
data validation, conditional formats, scatter charts, Excel Tables and page setup. Why
XlsxWriter: it stores a cached value beside each formula (`write_formula(..., value)`), so
file previews, Protected View, mobile viewers and `pandas.read_excel` show numbers while Excel
and LibreOffice still recalculate; openpyxl cannot, and XlsxWriter writes the file about
three times faster. openpyxl stays for reading workbooks back in tests.
Shortcuts: the cell XML is written by us (`render_rows`), not cell by cell through
XlsxWriter's table (which would hold every cell a second time and costs ~10 us a cell):
formulas are written as they are (ours use only Excel 2007 functions, so none needs
XlsxWriter's _xlfn. search of 30 patterns). Rows leave memory as soon as they are final
(`Sheet.flush`, `append_rendered`): rendered with the book's style and shared-string
indices into one scratch file per process, streamed into the zip at the save; a worker
process (`freeze()`: nothing new registered) writes a text it has no shared index for as an
inline string. Notes are rendered by notes.py.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass, field
from typing import Any

from xlsxwriter.utility import xl_cell_to_rowcol, xl_col_to_name, xl_rowcol_to_cell

from ...files import ScratchFolder
from . import notes as xlsx_notes

NO_VALUE = object()  # a formula whose cached value is not known yet


@dataclass(slots=True)
class XCell:
    value: Any  # a number, a text, or a formula ("=...")
    kind: str  # "n" number, "s" text, "f" formula
    style: dict = field(default_factory=dict)
    cached: Any = NO_VALUE  # the formula's value for the scenario the workbook was built with
    note: str | None = None
    array: bool = False  # a one-cell array formula (ranges inside are read element by element)


@dataclass
class Chart:
    title: str
    x_title: str
    y_title: str
    xs: str  # a range reference, e.g. Sweeps!$A$5:$A$13
    ys: str
    name: str  # the series name's cell reference
    anchor: str  # x axis on a log2 scale (batches, contexts)
    more: list[tuple[str, str, str]] = field(default_factory=list)  # further series: (name, xs, ys)
    log_x: bool = True
    lines: bool = True  # False: markers only
    size: tuple[int, int] = (605, 283)  # pixels


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
        self.block = block  # the sheet's VML block for its notes (notes.py)
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
        self.chunks: list[tuple[int, int, list[Segment]]] = []  # (first row, last row, text) flushed
        self.notes: list[tuple[int, int, str]] = []  # flushed notes (row, column, text)
        self.note_parts: tuple[Segment, Segment] | None = None  # rendered comments and VML
        self.shared_uses = 0  # shared-string references in flushed rows
        self.checked = False  # its check cell is written
        self.check_at = ""  # where: "S1"
        self.flushed_formulas = 0
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
        path, offset, size = book.scratch_write(text)
        if self.chunks:
            before, _, segments = self.chunks[-1]
            last_path, last_offset, last_size = segments[-1]
            if last_path == path and last_offset + last_size == offset:  # contiguous: one segment
                segments[-1] = (path, last_offset, last_size + size)
                self.chunks[-1] = (before, last, segments)
            else:
                self.chunks.append((first, last, [(path, offset, size)]))
        else:
            self.chunks.append((first, last, [(path, offset, size)]))
        self.flushed_formulas += formulas
        self.shared_uses += shared
        self.extend_to(last, 1)

    def seal(self, book: Book) -> None:
        """Render the rows still held: those above the flushed ones first, those below last
        (before the save: shared strings are final when it starts)."""
        if not self.chunks:
            self.flush(book)
            return
        first, last = self.chunks[0][0], self.chunks[-1][1]
        if any(first <= r <= last for r, _ in self.cells):
            raise ValueError(f"{self.title}: a cell was written inside rows already flushed")
        self.flush(book, last + 1)
        chunks, self.chunks = self.chunks, []
        self.flush(book)
        self.chunks += chunks

    def segments(self) -> list[Segment]:
        """Where the sheet's rendered rows are, in row order."""
        return [segment for _, _, segments in self.chunks for segment in segments]

    def render_notes(self, book: Book) -> None:
        self.notes += [(r, c, cell.note) for (r, c), cell in sorted(self.cells.items()) if cell.note]
        for cell in self.cells.values():
            cell.note = None
        if not self.notes:
            return
        self.notes.sort()
        comments, vml = xlsx_notes.render(self.notes, self.block, self.col_widths, self.row_heights)
        self.note_parts = book.scratch_write(comments), book.scratch_write(vml)
        self.notes = []


Segment = tuple[str, int, int]  # (scratch file, byte offset, byte length)


class Book:
    """The workbook in memory; made by package.new_book() on the XlsxWriter workbook that saves it."""

    def __init__(self, xw: Any) -> None:
        self.worksheets: list[Sheet] = []
        self.names: dict[str, str] = {}  # workbook-scoped defined names -> reference
        self.xw = xw  # its styles and shared strings; package.py saves through it
        self.frozen = False  # a worker: styles and shared strings are the parent's, read-only
        self._formats: dict[tuple, Any] = {}
        self._style_ids: dict[int, tuple[int, dict]] = {}  # id(style dict) -> (xf index, the dict)
        self._scratch = ScratchFolder()
        self._out: Any = None  # this process's scratch file, appended to
        self._out_pid, self._out_path = 0, ""
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

    def scratch_write(self, text: str) -> Segment:
        """Append rendered text to this process's scratch file (one per process: workers
        write theirs); returns where it is."""
        if self._out is None or self._out_pid != os.getpid():
            self._out_pid = os.getpid()
            self._out_path = os.path.join(self._scratch.name, f"{self._out_pid}.xml")
            self._out = open(self._out_path, "ab")
        data = text.encode("utf-8")
        offset = self._out.tell()
        self._out.write(data)
        return self._out_path, offset, len(data)

    def scratch_done(self) -> None:
        """Everything this process wrote is on disk (a worker's last step; before the save)."""
        if self._out is not None and self._out_pid == os.getpid():
            self._out.close()
            self._out = None

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

    def cleanup(self) -> None:
        """After the save: this process's scratch file closed, the scratch folder removed."""
        self.scratch_done()
        self._scratch.cleanup()


def coordinate(row: int, col: int) -> str:
    """'B7' for row 7, column 2 (1-based)."""
    return f"{_COLUMNS[col]}{row}" if 0 < col < len(_COLUMNS) else xl_rowcol_to_cell(row - 1, col - 1)


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
                write(f'{head} t="inlineStr"><is>{xlsx_notes.inline(cell.value)}</is></c>')
            else:
                uses += 1
                write(f'{head} t="s"><v>{index}</v></c>')
        elif hole is not None and cell.kind == "f":
            write(head)
            hole(row, col, cell)
        else:
            write(head + _cell_body(cell, f"{column_letter(col)}{row}"))
    if current is not None:
        write("</row>")
    return uses


def _cell_body(cell: XCell, coord: str) -> str:
    """The rest of a number, empty-text or formula <c> element after its r and s attributes."""
    if cell.kind == "n":
        return f"><v>{number_text(cell.value)}</v></c>"
    if cell.kind == "s":
        return "/>"
    if cell.cached is NO_VALUE:
        raise ValueError(f"formula without a cached value: {cell.value[:80]}")
    if cell.array:
        attr, text = value_parts(cell.cached)
        return f'{attr}><f t="array" ref="{coord}">{escape_markup(cell.value[1:])}</f><v>{text}</v></c>'
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
