"""Measure a docs folder's displays: Markdown math blocks (count, longest in characters, widest
line in em by printers/latex_lines.rendered_width, half an em a character) and LaTeX
(\\resizebox count, displays over 1,000 characters).

Usage: python scripts/formula_report.py build/docs
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from markdown_it import MarkdownIt

from ledgerbuild.printers.latex_lines import line_widths

GFM = MarkdownIt("commonmark").enable("table")


def report(folder: Path) -> dict:
    blocks = [
        t.content
        for md in sorted(folder.glob("*.md"))
        for t in GFM.parse(md.read_text(encoding="utf-8"))
        if t.type == "fence" and t.info == "math"
    ]
    widths = [
        max(line_widths(b.replace(r"\begin{aligned}", "").replace(r"\end{aligned}", ""))) for b in blocks
    ]
    tex = "".join(p.read_text(encoding="utf-8") for p in folder.glob("*.tex"))
    displays = re.findall(r"\\begin\{(?:align|equation)\}(.*?)\\end\{(?:align|equation)\}", tex, re.S)
    return {
        "md_math_blocks": len(blocks),
        "md_longest_block_chars": max(map(len, blocks), default=0),
        "md_blocks_over_1000_chars": sum(len(b) > 1000 for b in blocks),
        "md_widest_line_em": round(max(widths, default=0) / 2, 1),
        "md_blocks_wider_than_40_em": sum(w > 80 for w in widths),
        "tex_resizebox": tex.count(r"\resizebox"),
        "tex_displays": len(displays),
        "tex_longest_display_chars": max(map(len, displays), default=0),
    }


if __name__ == "__main__":
    for key, value in report(Path(sys.argv[1])).items():
        print(f"{key}: {value}")
