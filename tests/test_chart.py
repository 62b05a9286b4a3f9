"""The derivations' figures (writers/chart.py, chart_files.py): the SVG's lines read back to the
ledger's numbers, the ticks are the ones matplotlib drew before, labels stay data, and the PDF
is read by poppler (pdfinfo, pdftotext, pdftoppm) as an independent engine; matplotlib draws
the serving panel's current values as a referee."""

import math
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from ledgerbuild.evaluate import Evaluator
from ledgerbuild.writers.docs.chart import Axis, Chart, Panel, Series, text_width
from ledgerbuild.writers.docs.chart_files import to_pdf, to_svg
from ledgerbuild.writers.docs.plots import CONTEXTS, figure_data, model_chart

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def llama():
    return figure_data(Evaluator({}).evaluate("llama-3-8b"), {})


def _texts(root):
    return [
        (t.text, float(t.get("x")), float(t.get("y")), t.get("transform")) for t in root.iter(SVG + "text")
    ]


def _panel_ticks(root, left, right, y_min):
    """Tick labels under the x axis between `left` and `right` (SVG x), below `y_min`."""
    return {
        text: x
        for text, x, y, turn in _texts(root)
        if turn is None and left <= x <= right and y > y_min and re.fullmatch(r"[\d.]+[KMGTP]?", text)
    }


def test_kv_line_reads_back_as_the_ledgers_numbers(llama):
    """Invert the KV panel's drawing with its own tick labels (1K, 10K on x; 0 and the top
    label on y) and get the ledger's KV bytes at every context back."""
    root = ET.fromstring(to_svg(model_chart(llama)))
    kv = [p for p in root.iter(SVG + "polyline") if len(p.get("points").split()) == len(CONTEXTS)][0]
    points = [tuple(map(float, p.split(","))) for p in kv.get("points").split()]
    texts = _texts(root)
    xs = {t: x for t, x, y, turn in texts if t in ("1K", "10K") and points[0][0] < x < points[-1][0]}
    top, bottom = min(y for _, y in points) - 10, max(y for _, y in points) + 10  # the KV panel's rows
    ys = {
        t: y
        for t, x, y, turn in texts
        if t in ("0", "10") and points[0][0] - 60 < x < points[0][0] and top <= y <= bottom
    }
    per_decade = xs["10K"] - xs["1K"]
    for (x, y), context, kv_bytes in zip(points, CONTEXTS, llama["kv"], strict=True):
        assert 10 ** (3 + (x - xs["1K"]) / per_decade) == pytest.approx(context, rel=2e-3)
        # a label's baseline sits half a cap height below its tick
        zero, ten = ys["0"] - 3.59, ys["10"] - 3.59
        assert 10 * (y - zero) / (ten - zero) == pytest.approx(kv_bytes / 1e9, abs=0.01)


def test_ticks_are_the_ones_matplotlib_drew(llama):
    """llama-3-8b on one H100 as matplotlib 3.x drew it before (read off that figure)."""
    chart = model_chart(llama)
    expected = {
        0: (["0.1", "1", "10", "100", "1K", "10K", "100K"], ["1T", "10T", "100T", "1P"]),
        1: (["1K", "10K", "100K"], ["0", "2.5", "5", "7.5", "10", "12.5", "15", "17.5"]),
        # the serving panel's values moved with the time model's refit (issue 27): its ticks are
        # checked against matplotlib drawing today's values below
        2: (["1", "10", "100"], matplotlib_serving_ticks(chart.panels[2])[0]),
        3: (["0", "10", "20", "30", "40", "50", "60"], ["10", "100", "1K", "10K", "100K", "1M"]),
    }
    from ledgerbuild.writers.docs.chart import si

    for i, (xticks, yticks) in expected.items():
        panel = chart.panels[i]
        own = [s for s in panel.series if not s.twin]
        xaxis = Axis([v for s in panel.series for v in s.x] + panel.vlines, panel.xlog, 0, 1)
        yaxis = Axis([v for s in own for v in s.y] + panel.hlines, panel.ylog, 0, 1)
        assert [si(v) for v in xaxis.ticks()] == xticks
        assert [si(v) for v in yaxis.ticks()] == yticks
    twin = Axis(list(chart.panels[2].series[1].y), False, 0, 1)
    assert [si(v) for v in twin.ticks()] == matplotlib_serving_ticks(chart.panels[2])[1]


def matplotlib_serving_ticks(panel):
    """(y, twin y) tick labels matplotlib draws for the serving panel's values, in the layout
    plots.py gave it before writers/chart.py (3c4532b^: 1 x 4 panels, 17 x 3.6 in)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ledgerbuild.writers.docs.chart import si

    fig, axes = plt.subplots(1, 4, figsize=(17, 3.6))
    fig.subplots_adjust(left=0.05, right=0.97, bottom=0.16, top=0.86, wspace=0.45)
    ax, twin = axes[2], axes[2].twinx()
    for series in panel.series:
        (twin if series.twin else ax).plot(series.x, series.y)
    ax.set_xscale("log" if panel.xlog else "linear")
    fig.canvas.draw()
    out = [[si(t) for t in a.get_yticks() if a.get_ylim()[0] <= t <= a.get_ylim()[1]] for a in (ax, twin)]
    plt.close(fig)
    return out


@pytest.mark.parametrize(
    "values, log",
    [
        ([3.0, 3.0], False),
        ([5.0, 5.0], True),
        ([0.0, -1.0, 2.0], True),
        ([math.nan, 1.0, 1e9], True),
        ([], False),
    ],
)
def test_awkward_data_still_gives_ticks_inside_the_axis(values, log):
    axis = Axis(values, log, 0.0, 100.0)
    ticks = axis.ticks()
    assert ticks and all(-1e-9 <= axis.at(t) <= 100 + 1e-9 for t in ticks)


def _hostile_chart():
    title = 'x</title><script>alert(1)</script> \\(1) & "q"'
    series = [Series([1, 2, 3], [1, 4, 9], label="<b>&amp;</b> (a)\\")]
    panel = Panel("t{\\x}", "x <", "y >", series, legend=True)
    return Chart(400, 200, title, [panel], "desc ) ( \\")


def test_catalog_strings_stay_text_in_the_svg():
    root = ET.fromstring(to_svg(_hostile_chart()))
    assert root.find(SVG + "title").text == _hostile_chart().title
    assert root.find(SVG + "script") is None and root.find(f".//{SVG}script") is None
    assert "<b>&amp;</b> (a)\\" in [t[0] for t in _texts(root)]


def test_text_width_is_helveticas():
    """Adobe's Helvetica metrics: 'H' is 722/1000 em, '1' 556, ' ' 278."""
    assert text_width("H1 ", 10) == pytest.approx(15.56)


def _poppler(tool):
    if shutil.which(tool) is None:
        message = f"{tool} is not installed (poppler-utils: the README's test command installs it)"
        pytest.fail(message) if os.environ.get("CI") else pytest.skip(message)


@pytest.mark.tex
def test_poppler_reads_the_pdf(tmp_path, llama):
    _poppler("pdftoppm")
    path = tmp_path / "f.pdf"
    path.write_bytes(to_pdf(model_chart(llama)))
    info = subprocess.run(["pdfinfo", path], capture_output=True, text=True, check=True)
    assert info.stderr == ""
    assert "Title:           llama-3-8b on 1 x h100-sxm" in info.stdout
    assert re.search(r"Page size: +480 x 470 pts", info.stdout)  # plots.NATURAL_WIDTH_PT wide
    text = subprocess.run(["pdftotext", path, "-"], capture_output=True, text=True, check=True).stdout
    for label in ("roofline (dotted: ridge)", "KV cache of one sequence", "100K", "17.5", "scaled"):
        assert label in text
    subprocess.run(["pdftoppm", "-png", "-r", "40", path, tmp_path / "f"], check=True, capture_output=True)
    from PIL import Image

    pixels = np.asarray(Image.open(next(tmp_path.glob("f*.png"))).convert("L"))
    assert 0.01 < (pixels < 128).mean() < 0.2  # ink, and not a black page


@pytest.mark.tex
def test_pdf_strings_escaped(tmp_path):
    _poppler("pdftotext")
    path = tmp_path / "h.pdf"
    path.write_bytes(to_pdf(_hostile_chart()))
    info = subprocess.run(["pdfinfo", path], capture_output=True, text=True, check=True)
    assert info.stderr == "" and _hostile_chart().title in info.stdout
    text = subprocess.run(["pdftotext", path, "-"], capture_output=True, text=True, check=True).stdout
    assert "<b>&amp;</b> (a)\\" in text and "t{\\x}" in text
