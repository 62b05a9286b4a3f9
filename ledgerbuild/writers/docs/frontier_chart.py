"""The frontier as a figure: output tokens/s per GPU against tokens/s per user, one series per
layout, the non-dominated points ringed, as published serving benchmarks draw it.

Every point is a `frontier_points` point (the ledger's candidate figures); drawn by chart.py
and written as SVG, PDF or PNG (chart_png.py). Shortcut: linear axes (the points span one to two decades).
"""

from __future__ import annotations

from pathlib import Path

from ...errors import LedgerError
from ...files import write_output
from .chart import COLORS, Chart, Panel, Series, layout
from .chart_files import to_pdf, to_svg
from .chart_png import to_png
from .plots import NATURAL_WIDTH_PT

USER, GPU = "tokens_per_s_per_user", "output_tokens_per_s_per_gpu"


def frontier_chart(data: dict) -> Chart:
    """One panel: a line per layout through its concurrencies, the Pareto points ringed."""
    layouts = list(dict.fromkeys(p["layout"] for p in data["points"]))
    series = []
    for i, name in enumerate(layouts):
        pts = [p for p in data["points"] if p["layout"] == name]
        series.append(Series([p[USER] for p in pts], [p[GPU] for p in pts], COLORS[i % 10], ".", label=name))
    best = sorted((p for p in data["points"] if p["pareto"]), key=lambda p: p[USER])
    series.append(Series([p[USER] for p in best], [p[GPU] for p in best], "#000000", "o", False, "Pareto"))
    panel = Panel(
        f"{data['model']} on {data['gpu']}: one point per concurrency",
        "tokens/s per user (1 / TPOT)",
        "output tokens/s per GPU",
        series,
        legend=True,
        legend_right=True,
    )
    caption = (
        f"Serving frontier of {data['model']} on {data['gpu']}: output tokens/s per GPU against "
        "tokens/s per user, a line per layout through concurrencies 1, 2, 4 ... the engine's limit"
    )
    # plots.py's natural width (labels at 12 px and more where the figure is shown at it)
    return Chart(NATURAL_WIDTH_PT, 340, "", [panel], caption, margins=(0.12, 0.96, 0.12, 0.9))


def save_frontier(data: dict, path: Path) -> None:
    """The chart as SVG, PDF or PNG, by the file's suffix (written to a temporary file, renamed)."""
    save_chart_file(frontier_chart(data), path, "the frontier plot")


def save_chart_file(chart: Chart, path: Path, what: str) -> None:
    """`chart` as SVG, PDF or PNG by `path`'s suffix, written to a temporary file and renamed."""
    path = Path(path)
    if path.suffix.lower() == ".svg":
        text = to_svg(chart, layout(chart))
        write_output(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    elif path.suffix.lower() in (".pdf", ".png"):
        blob = to_pdf(chart, layout(chart)) if path.suffix.lower() == ".pdf" else to_png(chart)
        write_output(path, lambda tmp: Path(tmp).write_bytes(blob))
    else:
        raise LedgerError(f"-o {path}: {what} is written as .svg, .pdf or .png")
