"""Line charts laid out as drawing primitives, without matplotlib: the derivations' figures.

Scope: what those figures need — panels side by side, each with log or linear axes, lines
with markers, dotted reference lines across a panel, a legend, a right-hand twin axis, titles.
`layout(chart)` turns a Chart into primitives in points (1/72 inch, y up); chart_files.py
writes them as SVG and PDF. Text is Helvetica; its widths (Adobe's Core 14 metrics) place
labels exactly, and SVG asks for Helvetica, Arial or Liberation Sans, which share them.
Shortcuts: ticks at decades (or 1-2-5 within a decade) on log axes and at 1-2-2.5-5 steps on
linear ones; limits padded 5 % of the span, as matplotlib's default margins; limits take in
every point, so nothing is clipped; non-positive or non-finite points are dropped on log axes,
non-finite ones on linear axes; panel spacing as matplotlib's subplots_adjust fractions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

# matplotlib's default colour cycle ("tab10"), so the figures read as before
COLORS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)  # fmt: skip
GREY = "#808080"

# Helvetica advance widths (1/1000 em) of characters 32..126: Adobe's Core 14 AFM
# "Helvetica" (Helvetica.afm, version 001.006), with 39 and 96 as quotesingle and grave
# (WinAnsiEncoding) instead of AdobeStandardEncoding's quoteright and quoteleft.
_HELVETICA = (
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
)  # fmt: skip
ASCENT = 0.718  # Helvetica's cap height, em
TICK, PAD = 3.5, 3.5  # tick length and the gap to its label, points (matplotlib's defaults)
SIZE, TITLE_SIZE = 10.0, 12.0  # labels and ticks; panel titles (points, matplotlib's defaults)


def text_width(text: str, size: float) -> float:
    """Width in points of `text` set in Helvetica at `size` points (other characters as 556)."""
    return size * sum(_HELVETICA[o - 32] if 32 <= (o := ord(c)) <= 126 else 556 for c in text) / 1000


Values = Any  # a sequence or a numpy array of numbers


@dataclass
class Series:
    x: Values
    y: Values
    color: str = COLORS[0]
    marker: str = ""  # "o" circle, "s" square, "." dot, "" none
    line: bool = True
    label: str = ""
    twin: bool = False  # read against the right-hand axis


@dataclass
class Panel:
    title: str
    xlabel: str
    ylabel: str
    series: list[Series]
    xlog: bool = False
    ylog: bool = False
    vlines: list[float] = field(default_factory=list)  # dotted grey, across the panel
    hlines: list[float] = field(default_factory=list)
    legend: bool = False
    legend_right: bool = False  # the legend in the top right corner instead of the top left
    twin_label: str = ""
    twin_color: str = COLORS[1]


@dataclass
class Chart:
    width: float  # points
    height: float
    title: str
    panels: list[Panel]
    description: str = ""  # alt text: SVG <desc>, PDF Subject
    margins: tuple[float, float, float, float] = (0.05, 0.97, 0.16, 0.86)  # left right bottom top
    wspace: float = 0.45  # gap between panels, a fraction of a panel's width
    columns: int = 0  # panels per row (0: all in one row); rows fill top to bottom
    hspace: float = 0.35  # gap between rows, a fraction of a panel's height


@dataclass(frozen=True)
class Line:
    points: tuple[tuple[float, float], ...]
    color: str
    width: float = 1.5
    dotted: bool = False


@dataclass(frozen=True)
class Mark:
    x: float
    y: float
    shape: str
    color: str


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    width: float
    height: float
    stroke: str
    fill: str = ""


@dataclass(frozen=True)
class Label:
    x: float
    y: float  # the baseline
    text: str
    size: float
    anchor: str = "start"  # start | middle | end, along the text
    vertical: bool = False  # turned 90 degrees anticlockwise
    color: str = "#000000"


Primitive = Line | Mark | Box | Label


def si(x: float) -> str:
    """A tick label: 1K, 2.5M, 1P."""
    for scale, suffix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "K")):
        if abs(x) >= scale:
            return f"{x / scale:g}{suffix}"
    return f"{x:g}"


class Axis:
    """One axis's limits, ticks and data-to-points map."""

    def __init__(self, values: list[float], log: bool, start: float, length: float):
        self.log, self.start, self.length = log, start, length
        kept = [v for v in values if math.isfinite(v) and (v > 0 or not log)]
        lo, hi = (min(kept), max(kept)) if kept else (1.0, 10.0)
        if log:
            lo, hi = math.log10(lo), math.log10(hi)
        if hi == lo:
            lo, hi = (lo - 0.3, hi + 0.3) if log else (lo - (abs(lo) * 0.05 or 1), hi + (abs(hi) * 0.05 or 1))
        pad = (hi - lo) * 0.05
        self.lo, self.hi = lo - pad, hi + pad

    def keeps(self, v: float) -> bool:
        return math.isfinite(v) and (v > 0 or not self.log)

    def at(self, v: float) -> float:
        t = math.log10(v) if self.log else v
        return self.start + (t - self.lo) / (self.hi - self.lo) * self.length

    def ticks(self) -> list[float]:
        return self._log_ticks() if self.log else self._linear_ticks()

    def _log_ticks(self) -> list[float]:
        first, last = math.ceil(self.lo - 1e-9), math.floor(self.hi + 1e-9)
        decades = list(range(first, last + 1))
        if len(decades) >= 2:
            step = math.ceil(len(decades) / 7)
            return [10.0**k for k in decades if k % step == 0]
        for multiples in ((1, 2, 5), range(1, 10)):
            ticks = [
                m * 10.0**k
                for k in range(math.floor(self.lo), math.ceil(self.hi) + 1)
                for m in multiples
                if self.lo <= math.log10(m * 10.0**k) <= self.hi
            ]
            if len(ticks) >= 2:
                return ticks
        return [10.0 ** ((self.lo + self.hi) / 2)]

    def _linear_ticks(self) -> list[float]:
        raw = (self.hi - self.lo) / 9  # at most nine intervals: matplotlib's auto nbins on these panels
        exponent = 10.0 ** math.floor(math.log10(raw))
        step = next(m * exponent for m in (1, 2, 2.5, 5, 10) if m * exponent >= raw)
        first = math.ceil(self.lo / step - 1e-9)
        count = math.floor(self.hi / step + 1e-9) - first + 1
        return [round((first + i) * step, 12) + 0.0 for i in range(count)]


def layout(chart: Chart) -> list[Primitive]:
    left, right, bottom, top = chart.margins
    columns = chart.columns or len(chart.panels)
    rows = math.ceil(len(chart.panels) / columns)
    panel_width = (right - left) * chart.width / (columns + chart.wspace * (columns - 1))
    panel_height = (top - bottom) * chart.height / (rows + chart.hspace * (rows - 1))
    out: list[Primitive] = [Label(chart.width / 2, chart.height - 14, chart.title, SIZE, "middle")]
    for i, panel in enumerate(chart.panels):
        row, column = divmod(i, columns)
        x0 = left * chart.width + column * panel_width * (1 + chart.wspace)
        y0 = bottom * chart.height + (rows - 1 - row) * panel_height * (1 + chart.hspace)
        out += _panel(panel, (x0, y0, panel_width, panel_height))
    return out


def _panel(panel: Panel, box: tuple[float, float, float, float]) -> list[Primitive]:
    x0, y0, w, h = box
    own = [s for s in panel.series if not s.twin]
    twin = [s for s in panel.series if s.twin]
    xs = [v for s in panel.series for v in s.x] + panel.vlines
    xaxis = Axis(xs, panel.xlog, x0, w)
    yaxis = Axis([v for s in own for v in s.y] + panel.hlines, panel.ylog, y0, h)
    out: list[Primitive] = []
    for v in panel.vlines:
        out.append(Line(((xaxis.at(v), y0), (xaxis.at(v), y0 + h)), GREY, 1.5, dotted=True))
    for v in panel.hlines:
        out.append(Line(((x0, yaxis.at(v)), (x0 + w, yaxis.at(v))), GREY, 1.5, dotted=True))
    out += _series(own, xaxis, yaxis)
    out.append(Box(x0, y0, w, h, "#000000"))
    out += _x_ticks(xaxis, y0)
    out.append(Label(x0 + w / 2, y0 - TICK - PAD - SIZE * ASCENT - 16, panel.xlabel, SIZE, "middle"))
    width = _y_ticks(out, yaxis, x0, -1)
    out.append(Label(x0 - TICK - PAD - width - 4, y0 + h / 2, panel.ylabel, SIZE, "middle", vertical=True))
    if twin:
        taxis = Axis([v for s in twin for v in s.y], False, y0, h)
        out += _series(twin, xaxis, taxis)
        width = _y_ticks(out, taxis, x0 + w, +1)
        baseline = x0 + w + TICK + PAD + width + 4 + SIZE * ASCENT
        out.append(Label(baseline, y0 + h / 2, panel.twin_label, SIZE, "middle", True, panel.twin_color))
    out.append(Label(x0 + w / 2, y0 + h + 6, panel.title, TITLE_SIZE, "middle"))
    if panel.legend:
        labelled = [s for s in panel.series if s.label]
        x = x0 + w - 6 - _legend_width(labelled) if panel.legend_right else x0 + 6
        out += _legend(labelled, x, y0 + h - 6)
    return out


def _series(series: list[Series], xaxis: Axis, yaxis: Axis) -> list[Primitive]:
    out: list[Primitive] = []
    for s in series:
        points = tuple(
            (xaxis.at(x), yaxis.at(y))
            for x, y in zip(s.x, s.y, strict=True)
            if xaxis.keeps(x) and yaxis.keeps(y)
        )
        if s.line and len(points) > 1:
            out.append(Line(points, s.color))
        if s.marker:
            out += [Mark(x, y, s.marker, s.color) for x, y in points]
    return out


def _x_ticks(axis: Axis, y0: float) -> list[Primitive]:
    out: list[Primitive] = []
    for v in axis.ticks():
        x = axis.at(v)
        out.append(Line(((x, y0), (x, y0 - TICK)), "#000000", 0.8))
        out.append(Label(x, y0 - TICK - PAD - SIZE * ASCENT, si(v), SIZE, "middle"))
    return out


def _y_ticks(out: list[Primitive], axis: Axis, x: float, side: int) -> float:
    """Ticks and labels on the left (side -1) or right (+1) edge; returns the widest label."""
    widest = 0.0
    for v in axis.ticks():
        y = axis.at(v)
        text = si(v)
        widest = max(widest, text_width(text, SIZE))
        out.append(Line(((x, y), (x + side * TICK, y)), "#000000", 0.8))
        anchor = "end" if side < 0 else "start"
        out.append(Label(x + side * (TICK + PAD), y - SIZE * ASCENT / 2, text, SIZE, anchor))
    return widest


LEGEND_SIZE = 9.0  # 12 px at the figure's natural width, as the ticks (plots.py states the rule)


def _legend_width(series: list[Series]) -> float:
    return 30 + max(text_width(s.label, LEGEND_SIZE) for s in series) + 6


def _legend(series: list[Series], x: float, top: float) -> list[Primitive]:
    size, row = LEGEND_SIZE, 12.0
    width = _legend_width(series)
    out: list[Primitive] = [
        Box(x, top - row * len(series) - 6, width, row * len(series) + 6, "#cccccc", "#ffffff")
    ]
    for i, s in enumerate(series):
        y = top - 3 - row * (i + 0.5)
        if s.line:
            out.append(Line(((x + 6, y), (x + 24, y)), s.color))
        if s.marker:
            out.append(Mark(x + 15, y, s.marker, s.color))
        out.append(Label(x + 30, y - size * ASCENT / 2, s.label, size))
    return out
