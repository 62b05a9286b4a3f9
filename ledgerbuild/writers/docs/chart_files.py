"""A laid-out chart (chart.py) written as SVG (Markdown shows it) and as PDF (LaTeX includes it).

Scope: the primitives chart.py makes — polylines, markers, boxes and Helvetica labels — and the
figure's title and description as metadata (SVG <title>/<desc>, PDF Title/Subject). Labels
are data: escaped for XML and for PDF strings, never markup. Shortcuts: one PDF page with the
standard Helvetica (not embedded; every PDF reader has it), WinAnsi text (other characters
become "?"), the content stream deflated; no dates, so the same chart gives the same bytes.
"""

from __future__ import annotations

import zlib

from .chart import Box, Chart, Line, Mark, Primitive, layout, text_width

FONTS = "Helvetica, Arial, 'Liberation Sans', sans-serif"  # Helvetica's widths, all three
DOTS = (1.5, 2.5)  # dotted lines: dash, gap (points)
MARK_RADIUS = {"o": 3.0, "s": 3.0, ".": 1.75}


def to_svg(chart: Chart, drawn: list[Primitive] | None = None) -> str:
    """The chart as SVG text; `drawn`: its layout, when the caller has it already."""
    h = chart.height
    body = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{chart.width:g}pt" height="{h:g}pt" '
        f'viewBox="0 0 {chart.width:g} {h:g}" font-family="{FONTS}">',
        f"<title>{escape(chart.title)}</title>",
        f"<desc>{escape(chart.description)}</desc>",
        f'<rect width="{chart.width:g}" height="{h:g}" fill="#ffffff"/>',
    ]
    body += [_svg(p, h) for p in (layout(chart) if drawn is None else drawn)]
    return "\n".join(body) + "\n</svg>\n"


def escape(text: str) -> str:
    """Text as XML character data (xml.sax.saxutils.escape's rule; its import costs 30 ms)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _n(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def _svg(p: Primitive, h: float) -> str:
    if isinstance(p, Line):
        points = " ".join(f"{_n(x)},{_n(h - y)}" for x, y in p.points)
        dash = f' stroke-dasharray="{DOTS[0]:g},{DOTS[1]:g}"' if p.dotted else ""
        return (
            f'<polyline points="{points}" fill="none" stroke="{p.color}" '
            f'stroke-width="{p.width:g}" stroke-linejoin="round"{dash}/>'
        )
    if isinstance(p, Mark):
        r = MARK_RADIUS[p.shape]
        if p.shape == "s":
            corner = f'x="{_n(p.x - r)}" y="{_n(h - p.y - r)}"'
            return f'<rect {corner} width="{2 * r:g}" height="{2 * r:g}" fill="{p.color}"/>'
        return f'<circle cx="{_n(p.x)}" cy="{_n(h - p.y)}" r="{r:g}" fill="{p.color}"/>'
    if isinstance(p, Box):
        fill = p.fill or "none"
        return (
            f'<rect x="{_n(p.x)}" y="{_n(h - p.y - p.height)}" width="{_n(p.width)}" '
            f'height="{_n(p.height)}" fill="{fill}" stroke="{p.stroke}" stroke-width="0.8"/>'
        )
    turn = f' transform="rotate(-90 {_n(p.x)} {_n(h - p.y)})"' if p.vertical else ""
    return (
        f'<text x="{_n(p.x)}" y="{_n(h - p.y)}" font-size="{p.size:g}" text-anchor="{p.anchor}" '
        f'fill="{p.color}"{turn}>{escape(p.text)}</text>'
    )


def to_pdf(chart: Chart, drawn: list[Primitive] | None = None) -> bytes:
    """The chart as a one-page PDF; `drawn`: its layout, when the caller has it already."""
    text = "\n".join(_pdf(p) for p in (layout(chart) if drawn is None else drawn))
    content = zlib.compress(text.encode("latin-1"), 6)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {chart.width:g} {chart.height:g}] "
        "/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(content) + content + b"\nendstream",
        f"<< /Title {_pdf_text(chart.title)} /Subject {_pdf_text(chart.description)} "
        "/Producer (ledgerbuild) >>".encode(),
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def _rgb(color: str) -> str:
    return " ".join(f"{int(color[i : i + 2], 16) / 255:.3g}" for i in (1, 3, 5))


def _pdf(p: Primitive) -> str:
    if isinstance(p, Line):
        dash = f"[{DOTS[0]:g} {DOTS[1]:g}] 0 d" if p.dotted else "[] 0 d"
        path = " ".join(f"{x:.2f} {y:.2f} {'m' if i == 0 else 'l'}" for i, (x, y) in enumerate(p.points))
        return f"{_rgb(p.color)} RG {p.width:g} w 1 j {dash} {path} S"
    if isinstance(p, Mark):
        r = MARK_RADIUS[p.shape]
        if p.shape == "s":
            return f"{_rgb(p.color)} rg {p.x - r:.2f} {p.y - r:.2f} {2 * r:g} {2 * r:g} re f"
        return f"{_rgb(p.color)} rg {_circle(p.x, p.y, r)} f"
    if isinstance(p, Box):
        fill = f"{_rgb(p.fill)} rg " if p.fill else ""
        paint = "B" if p.fill else "S"
        box = f"{p.x:.2f} {p.y:.2f} {p.width:.2f} {p.height:.2f} re"
        return f"{fill}{_rgb(p.stroke)} RG 0.8 w [] 0 d {box} {paint}"
    shift = {"start": 0.0, "middle": 0.5, "end": 1.0}[p.anchor] * text_width(p.text, p.size)
    if p.vertical:  # turned anticlockwise: the text runs up, its baseline on the right of the glyphs
        x, y, matrix = p.x, p.y - shift, "0 1 -1 0"
    else:
        x, y, matrix = p.x - shift, p.y, "1 0 0 1"
    return f"BT /F1 {p.size:g} Tf {_rgb(p.color)} rg {matrix} {x:.2f} {y:.2f} Tm {_pdf_string(p.text)} Tj ET"


def _circle(x: float, y: float, r: float) -> str:
    k = 0.5523 * r  # four cubic Beziers
    return (
        f"{x + r:.2f} {y:.2f} m "
        f"{x + r:.2f} {y + k:.2f} {x + k:.2f} {y + r:.2f} {x:.2f} {y + r:.2f} c "
        f"{x - k:.2f} {y + r:.2f} {x - r:.2f} {y + k:.2f} {x - r:.2f} {y:.2f} c "
        f"{x - r:.2f} {y - k:.2f} {x - k:.2f} {y - r:.2f} {x:.2f} {y - r:.2f} c "
        f"{x + k:.2f} {y - r:.2f} {x + r:.2f} {y - k:.2f} {x + r:.2f} {y:.2f} c"
    )


def _pdf_string(text: str) -> str:
    """A PDF string of WinAnsi text: latin-1 characters kept, others "?", delimiters escaped."""
    safe = "".join(c if 32 <= ord(c) < 127 or 160 <= ord(c) <= 255 else "?" for c in text)
    return "(" + safe.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def _pdf_text(text: str) -> str:
    """A PDF text string for metadata: UTF-16BE with its byte-order mark, in hex."""
    return "<FEFF" + text.encode("utf-16-be").hex().upper() + ">"
