"""A laid-out chart (chart.py) rasterised as PNG: the same primitives chart_files.py writes as
SVG and PDF, painted by matplotlib's Agg renderer (a declared dependency; no system tool).

Scope: polylines, markers, boxes and labels in points (1/72 inch, y up), placed one data unit
per point on an axes that fills the figure, so the picture is the SVG's at `dpi`. Shortcuts:
labels ask for Helvetica, Arial or Liberation Sans and fall back to matplotlib's DejaVu Sans
(a little wider than the Helvetica widths chart.py placed them by); no PNG metadata but the
title, so the same chart gives the same bytes.
"""

from __future__ import annotations

import io

from .chart import Box, Chart, Label, Line, Mark, Primitive, layout
from .chart_files import DOTS, MARK_RADIUS

FONTS = ["Helvetica", "Arial", "Liberation Sans", "DejaVu Sans"]
ANCHOR = {"start": "left", "middle": "center", "end": "right"}


def to_png(chart: Chart, drawn: list[Primitive] | None = None, dpi: float = 150) -> bytes:
    """The chart as PNG bytes at `dpi` pixels per inch."""
    import logging

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)  # a missing Helvetica
    fig = Figure(figsize=(chart.width / 72, chart.height / 72), dpi=dpi, facecolor="#ffffff")
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, chart.width)
    ax.set_ylim(0, chart.height)
    ax.set_axis_off()
    for z, p in enumerate(layout(chart) if drawn is None else drawn):
        _paint(ax, p, z)  # painted in the order drawn, as SVG and PDF paint them
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None, "Title": chart.title})
    return buf.getvalue()


def _paint(ax, p: Primitive, z: int) -> None:
    from matplotlib.patches import Circle, Rectangle

    if isinstance(p, Line):
        xs, ys = zip(*p.points, strict=True)
        style = {"dashes": DOTS} if p.dotted else {}
        ax.plot(xs, ys, color=p.color, linewidth=p.width, solid_joinstyle="round", zorder=z, **style)
    elif isinstance(p, Mark):
        r = MARK_RADIUS[p.shape]
        if p.shape == "s":
            ax.add_patch(
                Rectangle((p.x - r, p.y - r), 2 * r, 2 * r, facecolor=p.color, edgecolor="none", zorder=z)
            )
        else:
            ax.add_patch(Circle((p.x, p.y), r, facecolor=p.color, edgecolor="none", zorder=z))
    elif isinstance(p, Box):
        ax.add_patch(
            Rectangle(
                (p.x, p.y),
                p.width,
                p.height,
                facecolor=p.fill or "none",
                edgecolor=p.stroke,
                linewidth=0.8,
                zorder=z,
            )
        )
    elif isinstance(p, Label):
        ax.text(
            p.x,
            p.y,
            p.text,
            fontsize=p.size,
            color=p.color,
            family=FONTS,
            ha=ANCHOR[p.anchor],
            va="baseline",
            rotation=90 if p.vertical else 0,
            rotation_mode="anchor",
            zorder=z,
        )
