"""Render sheets of a workbook to PNG as a reader sees them: LibreOffice -> PDF -> pdftoppm.

Usage: python scripts/render_workbook.py WORKBOOK.xlsx OUT_DIR [SHEET ...]
Each sheet's first printed page is found by its page header ("ledgerbuild - <sheet>") and
written as OUT_DIR/<sheet>.png. Needs soffice and poppler-utils (pdftotext, pdftoppm).
Only the named sheets print: LibreOffice exports a copy whose other sheets are hidden (its PDF
export skips hidden sheets), so the calculation sheets' thousands of pages are not laid out.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

WORKBOOK_PART = "xl/workbook.xml"


def _only_sheets_visible(workbook: Path, copy: Path, sheets: list[str]) -> None:
    """`copy`: `workbook` with every sheet not in `sheets` hidden (the <sheet> elements of
    xl/workbook.xml get state="hidden"; nothing else changes) and the first named sheet active."""

    def hide(match: re.Match) -> str:
        element = re.sub(r'\s+state="[^"]*"', "", match.group(0))
        name = re.search(r'name="([^"]*)"', element)
        shown = name is not None and html.unescape(name.group(1)) in sheets
        return element if shown else element.replace("<sheet ", '<sheet state="hidden" ', 1)

    with zipfile.ZipFile(workbook) as src, zipfile.ZipFile(copy, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == WORKBOOK_PART:
                xml = re.sub(r"<sheet [^>]*/>", hide, data.decode("utf-8"))
                names = [html.unescape(n) for n in re.findall(r'<sheet [^>]*name="([^"]*)"', xml)]
                active = names.index(sheets[0]) if sheets[0] in names else 0
                xml = re.sub(r'\s(activeTab|firstSheet)="\d+"', "", xml)
                xml = xml.replace("<workbookView ", f'<workbookView activeTab="{active}" ', 1)
                data = xml.encode("utf-8")
            dst.writestr(item, data)


def render(workbook: Path, out_dir: Path, sheets: list[str], dpi: int = 110) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        profile = Path(tmp) / "profile"
        printed = Path(tmp) / workbook.name
        _only_sheets_visible(workbook, printed, sheets)
        subprocess.run(
            [
                "soffice",
                f"-env:UserInstallation=file://{profile}",
                "--headless",
                "--convert-to",
                "pdf",
                "--outdir",
                str(Path(tmp) / "pdf"),
                str(printed),
            ],
            check=True,
            capture_output=True,
            timeout=1500,  # loading the all-model workbook (610k formulas): about 2 min idle on 2 cores
        )
        pdf = Path(tmp) / "pdf" / (workbook.stem + ".pdf")
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
