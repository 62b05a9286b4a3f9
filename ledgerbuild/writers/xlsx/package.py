"""Saving a Book as .xlsx through XlsxWriter, its rendered rows and notes streamed into the zip.

Scope: XlsxWriter writes every part but the cell rows and the notes (sheet views, columns,
validation, conditional formats, tables, charts, page setup, styles, shared strings, names);
our sheets' rows and notes parts, rendered to scratch files while the book was built
(book.Sheet.flush, notes.py), go straight from those files into the zip entry: no
part is held in memory or written to disk twice (the 1,000-model workbook is 645 MB of XML).
Parts are deflated at level 1 (zlib's fastest: 3x faster than the default 6, the file ~25 %
larger). Sheet-scoped names are added to XlsxWriter's list directly and written in one pass
(layout.define checks them); 255,000 names through define_name() took 2 s.
Shortcut: hooks into XlsxWriter 3.x internals (_write_rows, _prepare_vml_objects, the
packager's notes parts, _store_workbook's ZipFile, _write_defined_names); pinned in
pyproject.toml and covered by the workbook tests.
"""

from __future__ import annotations

import zipfile
from typing import Any

import xlsxwriter
import xlsxwriter.workbook
from xlsxwriter.packager import Packager
from xlsxwriter.worksheet import Worksheet

from .book import Book, Chart, Segment, Sheet, escape_markup

_STREAM = b"\x00stream:"  # a part's text says where a streamed piece goes: _STREAM + n + b"\x00"
_PIECES: list[list[Segment]] = []  # the pieces of the save in progress


def _marker(segments: list[Segment]) -> str:
    _PIECES.append(segments)
    return f"\x00stream:{len(_PIECES) - 1}\x00"


class SheetData(Worksheet):
    """A worksheet whose <sheetData> rows are our Sheet's rendered rows (streamed at zip time)
    and whose notes parts are rendered (only their links are made here)."""

    ledger_sheet: Sheet

    def _write_rows(self) -> None:
        self.fh.write(_marker(self.ledger_sheet.segments()))

    def _prepare_vml_objects(self, vml_data_id, vml_shape_id, vml_drawing_id, comment_id):
        self.external_vml_links.append(["/vmlDrawing", f"../drawings/vmlDrawing{vml_drawing_id}.vml"])
        self.external_comment_links.append(["/comments", f"../comments{comment_id}.xml"])
        return 0


class _Packager(Packager):
    """The notes parts of our sheets are their rendered text (streamed at zip time)."""

    def _write_vml_files(self) -> None:
        self._notes(1, "xl/drawings/vmlDrawing{}.vml")

    def _write_comment_files(self) -> None:
        self._notes(0, "xl/comments{}.xml")

    def _notes(self, part: int, name: str) -> None:
        index = 1
        for ws in self.workbook.worksheets():
            if ws.has_vml:
                self._filename(name.format(index)).write(_marker([ws.ledger_sheet.note_parts[part]]))
                index += 1


class _StreamingZip(zipfile.ZipFile):
    """A ZipFile whose entries may hold markers of streamed pieces (level-1 deflate)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._files: dict[str, Any] = {}

    def writestr(self, zinfo_or_arcname, data, compress_type=None, compresslevel=None) -> None:
        if not isinstance(data, bytes) or _STREAM not in data:
            super().writestr(zinfo_or_arcname, data, compress_type, 1)
            return
        zinfo = zinfo_or_arcname
        # the level open(..., "w") deflates at: compress_level from Python 3.13, before _compresslevel
        setattr(zinfo, "compress_level" if hasattr(zinfo, "compress_level") else "_compresslevel", 1)
        pieces = data.split(_STREAM)
        streamed = [_PIECES[int(piece.split(b"\x00", 1)[0])] for piece in pieces[1:]]
        size = sum(length for segments in streamed for _, _, length in segments)
        with self.open(zinfo, "w", force_zip64=size > (1 << 31)) as out:
            out.write(pieces[0])
            for piece, segments in zip(pieces[1:], streamed, strict=True):
                for segment in segments:
                    self._copy(segment, out)
                out.write(piece.split(b"\x00", 1)[1])

    def _copy(self, segment: Segment, out) -> None:
        path, offset, length = segment
        if path not in self._files:
            self._files[path] = open(path, "rb")
        source = self._files[path]
        source.seek(offset)
        while length > 0:
            block = source.read(min(length, 1 << 20))
            out.write(block)
            length -= len(block)

    def close(self) -> None:
        for source in self._files.values():
            source.close()
        super().close()


class LedgerWorkbook(xlsxwriter.Workbook):
    def _get_packager(self):
        return _Packager()

    def _store_workbook(self) -> None:
        zip_file = xlsxwriter.workbook.ZipFile
        xlsxwriter.workbook.ZipFile = _StreamingZip  # type: ignore[misc]
        try:
            super()._store_workbook()
        finally:
            xlsxwriter.workbook.ZipFile = zip_file  # type: ignore[misc]
            _PIECES.clear()

    def _write_defined_names(self) -> None:
        if not self.defined_names:
            return
        out = ["<definedNames>"]
        for name, sheet, reference, hidden in self.defined_names:
            local = f' localSheetId="{sheet}"' if sheet != -1 else ""
            local += ' hidden="1"' if hidden else ""
            out.append(
                f'<definedName name="{escape_markup(name)}"{local}>{escape_markup(reference)}</definedName>'
            )
        out.append("</definedNames>")
        self.fh.write("".join(out))


def new_book() -> Book:
    """An empty Book on the XlsxWriter workbook that will save it (nothing converted on write)."""
    options = {"strings_to_numbers": False, "strings_to_formulas": False, "strings_to_urls": False}
    return Book(LedgerWorkbook(None, {**options, "in_memory": True}))


def save(book: Book, path: str) -> None:
    """Write the book as .xlsx; a formula without a cached value is a bug and refused. The
    book's scratch files are removed whether or not the save succeeds."""
    try:
        _save(book, path)
    finally:
        book.cleanup()


def _save(book: Book, path: str) -> None:
    wb = book.xw
    wb.filename = path
    sheets = [wb.add_worksheet(s.title, worksheet_class=SheetData) for s in book.worksheets]
    for ws, sheet in zip(sheets, book.worksheets, strict=True):
        _write_sheet(wb, ws, sheet, book)
        sheet.render_notes(book)
        sheet.seal(book)
        ws.ledger_sheet = sheet
        ws.has_vml = ws.has_comments = sheet.note_parts is not None
    book.scratch_done()
    wb.str_table.count = sum(s.shared_uses for s in book.worksheets)
    for name, reference in book.names.items():
        wb.define_name(name, "=" + reference)
    for index, sheet in enumerate(book.worksheets):
        for name, reference in sheet.names.items():  # names checked by layout.define
            wb.defined_names.append([name, index, reference, False])
    wb.close()


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
    _page_setup(ws, sheet)
    ws.protect("", PROTECTION)


# every sheet protected without a password: formula cells cannot be typed over, unlocked
# (input) cells can; Review > Unprotect Sheet lifts it, no password asked
PROTECTION = {
    "format_cells": True,
    "format_columns": True,
    "format_rows": True,
    "autofilter": True,
    "sort": False,
    "select_locked_cells": True,
    "select_unlocked_cells": True,
}
MIN_PRINT_SCALE = 64  # percent: 11 pt text prints at >= 7 pt
PRINTABLE_PT = (720.0, 504.0)  # landscape Letter less 0.5 in margins: width, height (points)


def _print_scale(sheet: Sheet, one_page: bool) -> int:
    """The scale that fits the used columns (and rows, where one_page) on a page, in percent."""
    width = sum(
        (sheet.col_widths.get(c, 8.43) * 7 + 5) * 0.75 for c in range(1, sheet.max_column + 1)
    )  # a column of width w is 7w+5 pixels of Calibri 11; 0.75 point a pixel
    scale = PRINTABLE_PT[0] / max(width, 1.0)
    if one_page:
        height = sum(sheet.row_heights.get(r, 15.0) for r in range(1, sheet.max_row + 1))
        scale = min(scale, PRINTABLE_PT[1] / max(height, 1.0))
    return min(100, int(scale * 100))


def _chart(wb, spec: Chart):
    chart = wb.add_chart({"type": "scatter", **({"subtype": "straight_with_markers"} if spec.lines else {})})
    for name, xs, ys in [(spec.name, spec.xs, spec.ys), *spec.more]:
        chart.add_series(
            {"name": "=" + name, "categories": "=" + xs, "values": "=" + ys, "marker": {"type": "circle"}}
        )
    chart.set_title({"name": spec.title})
    chart.set_x_axis({"name": spec.x_title, **({"log_base": 2} if spec.log_x else {})})
    chart.set_y_axis({"name": spec.y_title})
    chart.set_legend({"position": "right"} if spec.more else {"none": True})
    chart.set_style(2 if spec.more else 13)  # several series: a colour each
    chart.set_size({"width": spec.size[0], "height": spec.size[1]})
    return chart


def _page_setup(ws, sheet: Sheet) -> None:
    """Fit to the page's width where that prints at >= MIN_PRINT_SCALE, else print at that
    scale over several pages wide with the frozen (else the first) columns repeated; the rows above the
    frozen pane repeat on every page unless the sheet names its own."""
    page = sheet.page
    if not page:
        return
    ws.set_landscape() if page.get("landscape", True) else ws.set_portrait()
    if _print_scale(sheet, bool(page.get("fit_height"))) >= MIN_PRINT_SCALE:
        ws.fit_to_pages(1, page.get("fit_height", 0))
    elif _print_scale(sheet, False) >= MIN_PRINT_SCALE:
        ws.fit_to_pages(1, 0)
    else:
        ws.set_print_scale(MIN_PRINT_SCALE)
        # the frozen columns repeat on every page; without any, the first (the key) column
        key_columns = sheet.freeze[1] - 1 if sheet.freeze and sheet.freeze[1] > 1 else 1
        ws.repeat_columns(0, key_columns - 1)
    repeat = page.get("repeat_rows") or ((1, sheet.freeze[0] - 1) if sheet.freeze else None)
    if repeat and repeat[1] >= repeat[0]:
        ws.repeat_rows(*(r - 1 for r in repeat))
    ws.set_header(f"&L{page['header_left']}&R{page['header_right']}")
    ws.set_footer(f"&L{page['footer_left']}&Rpage &P of &N")
