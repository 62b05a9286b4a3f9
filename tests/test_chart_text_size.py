"""Issue 31: plot text at body-text size on the web and in print.

The rule (writers/plots.py): a figure's SVG is at most 660 CSS px wide (Sphinx's alabaster 1.0.0
column: page_width 940 px - sidebar_width 220 px - 2 x 30 px padding; MkDocs' and GitHub's
columns are wider), so each site shows it at its natural width, the SVG's width attribute; there
every label is at least 12 px. The SVG is parsed back (its width attribute, viewBox and each
<text>'s font-size), not the chart's settings. Labels must not overlap each other or leave the
figure (boxes from Helvetica's AFM widths, cap height 0.718 em, descender 0.207 em)."""

import re
import xml.etree.ElementTree as ET

import pytest
from typer.testing import CliRunner

from ledgerbuild.cli import app
from ledgerbuild.writers.docs import write_docs
from ledgerbuild.writers.docs.chart import text_width

SVG = "{http://www.w3.org/2000/svg}"
COLUMN_PX, BODY_PX = 660, 12
PX_PER = {"pt": 4 / 3, "px": 1.0, "": 1.0}  # CSS: 1 pt = 4/3 px


@pytest.fixture(scope="module")
def svgs(tmp_path_factory):
    out = tmp_path_factory.mktemp("plots")
    write_docs("llama-3-8b,deepseek-v3,qwen2-vl-7b,llava-1.5-7b", ["md"], {}, out, plots=True)
    r = CliRunner().invoke(app, ["frontier", "llama-3-70b", "--gpu", "h100-sxm", "-o", str(out / "f.svg")])
    assert r.exit_code == 0, r.output
    found = sorted(out.glob("*.svg"))
    assert len(found) == 6  # four models, the VLM figure, the frontier
    return found


def natural(root) -> tuple[float, float]:
    """(width in CSS px, px per user unit) at the SVG's natural size."""
    number, unit = re.fullmatch(r"([\d.]+)(pt|px|)", root.get("width")).groups()
    width_px = float(number) * PX_PER[unit]
    return width_px, width_px / float(root.get("viewBox").split()[2])


def boxes(root):
    """(text, x0, y0, x1, y1) of each label, in user units (y down)."""
    out = []
    for t in root.iter(SVG + "text"):
        size, x, y = float(t.get("font-size")), float(t.get("x")), float(t.get("y"))
        w = text_width(t.text or "", size)
        start = x - {"start": 0, "middle": 0.5, "end": 1}[t.get("text-anchor")] * w
        up, down = 0.718 * size, 0.207 * size
        if t.get("transform"):  # rotate(-90 x y): the text runs up from (x, y)
            out.append((t.text, x - up, y - (start - x) - w, x + down, y - (start - x)))
        else:
            out.append((t.text, start, y - up, start + w, y + down))
    return out


def test_every_label_is_at_body_size_where_the_figure_is_shown(svgs):
    for path in svgs:
        root = ET.parse(path).getroot()
        width_px, scale = natural(root)
        assert width_px <= COLUMN_PX, (path.name, width_px)  # shown at its natural width
        sizes = [float(t.get("font-size")) * scale for t in root.iter(SVG + "text")]
        assert len(sizes) > 10 and min(sizes) >= BODY_PX, (path.name, min(sizes))


def test_labels_neither_overlap_nor_leave_the_figure(svgs):
    for path in svgs:
        root = ET.parse(path).getroot()
        _, _, width, height = map(float, root.get("viewBox").split())
        found = [b for b in boxes(root) if b[0]]
        for text, x0, y0, x1, y1 in found:
            assert x0 >= -0.5 and y0 >= -0.5 and x1 <= width + 0.5 and y1 <= height + 0.5, (path.name, text)
        for i, a in enumerate(found):
            for b in found[i + 1 :]:
                apart = a[3] <= b[1] + 0.5 or b[3] <= a[1] + 0.5 or a[4] <= b[2] + 0.5 or b[4] <= a[2] + 0.5
                assert apart, (path.name, a, b)
