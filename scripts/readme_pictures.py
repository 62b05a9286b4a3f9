"""Draw the README's pictures of the workbook (`python scripts/readme_pictures.py`).

Builds a workbook of four models on H100 SXM, H200 SXM and MI300X (the Frontier for
llama-3-70b), renders its Summary and Frontier pages through LibreOffice and pdftoppm
(scripts/render_workbook.py) and crops them to what the README shows: the Summary's plan block
and the Frontier's native chart, as LibreOffice draws them. Needs soffice, poppler-utils and
Pillow.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from render_workbook import render  # noqa: E402

from ledgerbuild.writers.xlsx import build_workbook, save_atomically  # noqa: E402

MODELS, GPUS, FRONTIER = (
    "llama-3-70b,llama-3-8b,qwen3-30b-a3b,mixtral-8x7b",
    "h100-sxm,h200-sxm,mi300x",
    "llama-3-70b",
)


def _ink(im: Image.Image) -> tuple[np.ndarray, np.ndarray]:
    dark = np.array(im.convert("L")) < 250
    return np.where(dark.any(1))[0], np.where(dark.any(0))[0]


def main(out: Path = ROOT / "docs" / "img") -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ledger.xlsx"
        save_atomically(build_workbook(MODELS, GPUS, {}, sweep_model=FRONTIER)[0], path)
        render(path, Path(tmp), ["Summary", "Frontier"], dpi=600)
        summary = Image.open(Path(tmp) / "Summary.png")
        rows, cols = _ink(summary)
        top = rows[rows > rows[0] + 40][0] - 30  # below the page header
        w = summary.size[0]
        block = summary.crop((cols[0] - 10, top, cols[0] + int(0.35 * w), top + int(0.045 * summary.size[1])))
        block.save(out / "summary.png", optimize=True)
        frontier = Image.open(Path(tmp) / "Frontier.png")
        w, h = frontier.size
        chart = frontier.crop((int(0.668 * w), int(0.075 * h), int(0.91 * w), int(0.198 * h)))
        chart.resize((chart.size[0] // 2, chart.size[1] // 2), Image.LANCZOS).save(
            out / "frontier.png", optimize=True
        )
    print(f"wrote {out / 'summary.png'} and {out / 'frontier.png'}")


if __name__ == "__main__":
    main()
