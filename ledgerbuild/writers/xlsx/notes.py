"""Cell notes (Excel comments) rendered as text: the commentsN.xml part and its VML drawing.

Scope: the same parts XlsxWriter writes for `write_comment(..., {"author": "ledgerbuild",
"x_scale": 2, "y_scale": 1.5})` (8 pt Tahoma text, a hidden 256 x 111 px box one column right
of and a row above its cell), one f-string a note instead of ~40 us of XlsxWriter calls; a
sheet's model has 300-450 notes and a 1,000-model workbook 400,000.
Shortcut: each sheet owns one VML block (`block`: o:idmap data and shape ids 1024*block+i), so
a sheet's drawing is final when the sheet is, even in a worker process; a sheet holds at most
1,023 notes (checked).
"""

from __future__ import annotations

import re
from itertools import accumulate

from xlsxwriter.utility import xl_rowcol_to_cell

WIDTH_PX, HEIGHT_PX = 256, 111  # 128 x 2, 74 x 1.5: XlsxWriter's default note box, scaled
MAX_NOTES = 1023

_COMMENTS_HEAD = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<comments xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    "<authors><author>ledgerbuild</author></authors><commentList>"
)
_RUN = '<rPr><sz val="8"/><color indexed="81"/><rFont val="Tahoma"/><family val="2"/></rPr>'
_VML_HEAD = (
    '<xml xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" '
    'xmlns:x="urn:schemas-microsoft-com:office:excel"><o:shapelayout v:ext="edit">'
    '<o:idmap v:ext="edit" data="{0}"/></o:shapelayout><v:shapetype id="_x0000_t202" '
    'coordsize="21600,21600" o:spt="202" path="m,l,21600r21600,l21600,xe"><v:stroke joinstyle="miter"/>'
    '<v:path gradientshapeok="t" o:connecttype="rect"/></v:shapetype>'
)
_SHAPE = (
    '<v:shape id="_x0000_s{id}" type="#_x0000_t202" style="position:absolute;margin-left:{left:.15g}pt;'
    'margin-top:{top:.15g}pt;width:192pt;height:83.25pt;z-index:{z};visibility:hidden" '
    'fillcolor="#ffffe1" o:insetmode="auto"><v:fill color2="#ffffe1"/><v:shadow on="t" color="black" '
    'obscured="t"/><v:path o:connecttype="none"/><v:textbox style="mso-direction-alt:auto">'
    '<div style="text-align:left"></div></v:textbox><x:ClientData ObjectType="Note"><x:MoveWithCells/>'
    "<x:SizeWithCells/><x:Anchor>{anchor}</x:Anchor><x:AutoFill>False</x:AutoFill><x:Row>{row}</x:Row>"
    "<x:Column>{col}</x:Column></x:ClientData></v:shape>"
)


_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def escape_text(text: str) -> str:
    """XML text: markup characters and the control characters XML 1.0 forbids (as _xHHHH_)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if _CONTROL.search(text):
        text = _CONTROL.sub(lambda m: f"_x{ord(m.group()):04X}_", text)
    return text


def inline(text: str) -> str:
    """A text's <t> element (leading or trailing spaces kept)."""
    preserve = ' xml:space="preserve"' if text != text.strip() else ""
    return f"<t{preserve}>{escape_text(text)}</t>"


def column_px(width: float | None) -> int:
    """A column's width in pixels from its width in characters (XlsxWriter's rule)."""
    if width is None:
        return 64
    return int(width * 12 + 0.5) if width < 1 else int(width * 7 + 0.5) + 5


def row_px(height: float | None) -> int:
    return 20 if height is None else int(height * 4.0 / 3.0 + 0.5)


def _span(sizes: list[int], start: int, offset: int, length: int) -> tuple[int, int]:
    """(last index, offset in it) of a box `length` px long from `offset` px into `start`."""
    length += offset
    end = start
    while length >= sizes[end]:
        length -= sizes[end]
        end += 1
    return end, length


def render(notes: list[tuple[int, int, str]], block: int, widths: dict, heights: dict) -> tuple[str, str]:
    """(commentsN.xml, vmlDrawingN.vml) for notes (row, column 1-based, text) in row order."""
    comments, vml = template(notes, widths, heights)
    return comments, drawing(vml, block, len(notes))


def drawing(vml_template: str, block: int, count: int) -> str:
    """The VML part of a template for the sheet's block."""
    return vml_template.format(block, *range(1024 * block + 1, 1024 * block + count + 1))


def template(notes: list[tuple[int, int, str]], widths: dict, heights: dict) -> tuple[str, str]:
    """(commentsN.xml, the VML part as a format string: {0} the block, {i} the i-th shape id)."""
    if len(notes) > MAX_NOTES:
        raise ValueError(f"{len(notes)} notes on one sheet; at most {MAX_NOTES}")
    last_row = max(r for r, _, _ in notes) + 12
    last_col = max(c for _, c, _ in notes) + 12
    cols = [column_px(widths.get(c + 1)) for c in range(last_col)]
    rows = [row_px(heights.get(r + 1)) for r in range(last_row)]
    col_at, row_at = [0, *accumulate(cols)], [0, *accumulate(rows)]
    comments, shapes = [_COMMENTS_HEAD], [_VML_HEAD]
    for i, (row, col, text) in enumerate(notes, start=1):
        r0, c0 = row - 1, col - 1
        row_start, y1 = (r0 - 1, 10) if r0 > 0 else (0, 2)
        col_start, x1 = c0 + 1, 15
        col_end, x2 = _span(cols, col_start, x1, WIDTH_PX)
        row_end, y2 = _span(rows, row_start, y1, HEIGHT_PX)
        ref = xl_rowcol_to_cell(r0, c0)
        comments.append(
            f'<comment ref="{ref}" authorId="0"><text><r>{_RUN}{inline(text)}</r></text></comment>'
        )
        shapes.append(
            _SHAPE.format(
                id=f"{{{i}}}",
                left=(col_at[col_start] + x1) * 0.75,
                top=(row_at[row_start] + y1) * 0.75,
                z=i,
                anchor=f"{col_start}, {x1}, {row_start}, {y1}, {col_end}, {x2}, {row_end}, {y2}",
                row=r0,
                col=c0,
            )
        )
    comments.append("</commentList></comments>")
    shapes.append("</xml>")
    return "".join(comments), "".join(shapes)
