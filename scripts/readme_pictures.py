"""Draw the README's pictures of the workbook (`python scripts/readme_pictures.py`).

Builds a workbook of four models on H100 SXM, H200 SXM and MI300X (the Frontier for
llama-3-70b), prints it to PDF with LibreOffice and crops two printed pages to what the README
shows: the Summary's plan block (the columns before its SECONDARY block), and the Frontier's
native chart with the plan per GPU and
layout under it, as LibreOffice draws them. The pages and the crops are found by their text
(pdftotext -bbox: the words' boxes in points), not by fixed fractions of a page, so a sheet
that grows a column or a page still crops right. For the pictures only, every sheet prints
fit to its page's width (the workbook itself never prints below MIN_PRINT_SCALE, 64 %, and
splits wide sheets over pages, which would cut the chart at a page edge). Needs soffice,
poppler-utils and Pillow.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
from ledgerbuild.writers.xlsx import build_workbook, save_atomically  # noqa: E402
from ledgerbuild.writers.xlsx import package as xlsx_package  # noqa: E402

MODELS, GPUS, FRONTIER = (
    "llama-3-70b,llama-3-8b,qwen3-30b-a3b,mixtral-8x7b",
    "h100-sxm,h200-sxm,mi300x",
    "llama-3-70b",
)
DPI = 600
WORD = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>')


def to_pdf(workbook: Path, tmp: Path) -> Path:
    profile = tmp / "profile"
    subprocess.run(
        ["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to", "pdf",
         "--outdir", str(tmp), str(workbook)],
        check=True, capture_output=True, timeout=1200,
    )  # fmt: skip
    return tmp / (workbook.stem + ".pdf")


def pages_words(pdf: Path) -> list[list[tuple[float, float, float, float, str]]]:
    """Each page's words with their boxes (points, y down), from pdftotext -bbox."""
    html = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True)
    return [
        [(float(a), float(b), float(c), float(d), w) for a, b, c, d, w in WORD.findall(page)]
        for page in html.stdout.split("<page ")[1:]
    ]


def find(words, phrase: str) -> tuple[float, float, float, float] | None:
    """The box of the first run of words spelling `phrase` on a page."""
    want = phrase.split()
    for i in range(len(words) - len(want) + 1):
        if [w[4] for w in words[i : i + len(want)]] == want:
            run = words[i : i + len(want)]
            return (
                min(w[0] for w in run),
                min(w[1] for w in run),
                max(w[2] for w in run),
                max(w[3] for w in run),
            )
    return None


def page_with(all_words, *phrases: str) -> int:
    for n, words in enumerate(all_words):
        if all(find(words, p) for p in phrases):
            return n
    raise SystemExit(f"no printed page shows {phrases}")


def render_page(pdf: Path, n: int, tmp: Path) -> Image.Image:
    stem = tmp / f"page{n}"
    subprocess.run(
        ["pdftoppm", "-f", str(n + 1), "-l", str(n + 1), "-r", str(DPI), "-png", "-singlefile", str(pdf),
         str(stem)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    return Image.open(f"{stem}.png")


def crop(im: Image.Image, words, box: tuple[float, float, float, float], widen: bool = True) -> Image.Image:
    """`box` (points) widened to every word inside it (unless not `widen`), with a margin; then
    to pixels."""
    x0, y0, x1, y1 = box
    inside = [w for w in words if w[1] >= y0 and w[3] <= y1 and w[0] >= x0 - 1]
    x1 = max([x1] + [w[2] for w in inside]) if widen else x1
    k = DPI / 72
    right = 8 if widen else 0  # a box ending where the next block starts has no margin
    return im.crop((int((x0 - 6) * k), int((y0 - 3) * k), int((x1 + right) * k), int((y1 + 6) * k)))


def main(out: Path = ROOT / "docs" / "img") -> None:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        path = tmp / "ledger.xlsx"
        xlsx_package.MIN_PRINT_SCALE = 1  # the pictures' pages fit to width (see the docstring)
        save_atomically(build_workbook(MODELS, GPUS, {}, sweep_model=FRONTIER)[0], path)
        pdf = to_pdf(path, tmp)
        words = pages_words(pdf)
        n = page_with(words, "THE PLAN:")
        title, last = find(words[n], "All models on"), find(words[n], MODELS.split(",")[-1])
        secondary = find(words[n], "SECONDARY:")
        assert title and last and secondary  # the plan block: the columns before SECONDARY
        box = (title[0], title[1], secondary[0] - 6, last[3])
        summary = crop(render_page(pdf, n, tmp), words[n], box, widen=False)
        summary.save(out / "summary.png", optimize=True)
        n = page_with(words, "The plan per GPU and layout", "output tokens/s per GPU against")
        chart = find(words[n], f"{FRONTIER}: output tokens/s per GPU against")
        choice = find(words[n], "The plan: cheapest")
        assert chart and choice
        below = choice[3] + 1.6 * (choice[3] - choice[1])  # the choice sits one row under its label
        frontier = crop(render_page(pdf, n, tmp), words[n], (choice[0], chart[1] - 8, chart[2], below))
        frontier.save(out / "frontier.png", optimize=True)
    print(f"wrote {out / 'summary.png'} and {out / 'frontier.png'}")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
