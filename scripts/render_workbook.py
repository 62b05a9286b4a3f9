"""Render sheets of a workbook to PNG as a reader sees them: LibreOffice -> PDF -> pdftoppm.

Usage: python scripts/render_workbook.py WORKBOOK.xlsx OUT_DIR [SHEET ...]
Each sheet's first printed page is found by its page header ("ledgerbuild - <sheet>") and
written as OUT_DIR/<sheet>.png. Needs soffice and poppler-utils (pdftotext, pdftoppm).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def render(workbook: Path, out_dir: Path, sheets: list[str], dpi: int = 110) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        profile = Path(tmp) / "profile"
        subprocess.run(
            [
                "soffice",
                f"-env:UserInstallation=file://{profile}",
                "--headless",
                "--convert-to",
                "pdf",
                "--outdir",
                tmp,
                str(workbook),
            ],
            check=True,
            capture_output=True,
            timeout=1500,  # the all-model workbook (267k formulas, PlanCalc) on a 2-core machine
        )
        pdf = Path(tmp) / (workbook.stem + ".pdf")
        pages = int(
            next(
                line.split()[-1]
                for line in subprocess.run(
                    ["pdfinfo", str(pdf)], capture_output=True, text=True, check=True
                ).stdout.splitlines()
                if line.startswith("Pages:")
            )
        )
        first_page = {}
        for page in range(1, pages + 1):
            head = subprocess.run(
                ["pdftotext", "-f", str(page), "-l", str(page), str(pdf), "-"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            title = head.split("\n", 1)[0].removeprefix("ledgerbuild - ").strip()
            first_page.setdefault(title, page)
            if all(s in first_page for s in sheets):
                break
        written = []
        for sheet in sheets:
            if sheet not in first_page:
                raise SystemExit(f"{workbook}: no printed page for sheet {sheet!r}")
            page = first_page[sheet]
            stem = Path(tmp) / "page"
            subprocess.run(
                [
                    "pdftoppm",
                    "-f",
                    str(page),
                    "-l",
                    str(page),
                    "-r",
                    str(dpi),
                    "-png",
                    "-singlefile",
                    str(pdf),
                    str(stem),
                ],
                check=True,
            )
            target = out_dir / f"{sheet}.png"
            shutil.move(str(stem) + ".png", target)
            written.append(target)
        return written


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    for path in render(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:] or ["Summary"]):
        print(f"wrote {path}")
