"""How far Gnumeric agrees with LibreOffice on a workbook's formula cells (issue 28's portability).

Usage: python scripts/gnumeric_agreement.py WORKBOOK.xlsx [--show N]
Both engines recalculate the same file: LibreOffice through tests/lo_recalc.py (UNO, full
doubles, run under the system python3 with python3-uno), Gnumeric through
`ssconvert --recalc` to an .xlsx read back with openpyxl. A formula cell agrees where both give
the same text, or numbers equal to a relative 1e-9 (an error in either engine never agrees).
Prints one line: agreeing / formula cells and the share; --show N lists N disagreements.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import openpyxl
from openpyxl.worksheet.formula import ArrayFormula

ROOT = Path(__file__).resolve().parent.parent
UNO_PYTHON = "/usr/bin/python3"
ERRORS = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "Err:")


def formula_cells(path: Path) -> list[tuple[str, str]]:
    wb = openpyxl.load_workbook(path)
    return [
        (ws.title, c.coordinate)
        for ws in wb.worksheets
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, ArrayFormula) or isinstance(c.value, str) and c.value.startswith("=")
    ]


def libreoffice_values(path: Path, cells: list[tuple[str, str]]) -> list:
    request = {"path": str(path), "read": [], "read_text": [list(c) for c in cells]}
    run = subprocess.run(
        [UNO_PYTHON, str(ROOT / "tests" / "lo_recalc.py")],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=1800,
        check=True,
    )
    answer = json.loads(run.stdout)
    errors = {(s, c.replace("$", "")) for s, c, _ in answer["steps"][0]["errors"]}
    return [
        "#ERROR" if (s, c) in errors or _dollar_free(s, c, errors) else v
        for (s, c), v in zip(cells, answer["text"], strict=True)
    ]


def _dollar_free(sheet: str, coord: str, errors: set) -> bool:
    """lo_recalc names error cells by their absolute name ($Sheet.$A$1)."""
    return any(s == sheet and c.rsplit(".", 1)[-1] == coord for s, c in errors)


def gnumeric_values(path: Path, cells: list[tuple[str, str]]) -> list:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "gnumeric.xlsx"
        subprocess.run(
            ["ssconvert", "--recalc", str(path), str(out)], capture_output=True, timeout=1800, check=True
        )
        wb = openpyxl.load_workbook(out, data_only=True)
        return [wb[s][c].value if s in wb.sheetnames else "#NO SHEET" for s, c in cells]


def agrees(lo, gn) -> bool:
    if isinstance(lo, str) and lo.startswith("#ERROR") or _is_error(gn):
        return False
    if isinstance(lo, (int, float)) and isinstance(gn, (int, float)) and not isinstance(gn, bool):
        return math.isclose(lo, gn, rel_tol=1e-9, abs_tol=1e-300)
    if isinstance(gn, bool):  # Gnumeric writes TRUE/FALSE results as booleans
        return lo in (1.0, 0.0) and float(gn) == lo
    return str(lo if lo is not None else "") == str(gn if gn is not None else "")


def _is_error(value) -> bool:
    return isinstance(value, str) and value.startswith(ERRORS)


def measure(path: Path) -> tuple[int, int, list]:
    cells = formula_cells(path)
    lo, gn = libreoffice_values(path, cells), gnumeric_values(path, cells)
    bad = [(c, a, b) for c, a, b in zip(cells, lo, gn, strict=True) if not agrees(a, b)]
    return len(cells) - len(bad), len(cells), bad


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("workbook", type=Path)
    parser.add_argument("--show", type=int, default=0)
    args = parser.parse_args()
    ok, total, bad = measure(args.workbook)
    print(
        f"{args.workbook}: Gnumeric agrees with LibreOffice on {ok:,} of {total:,} formula cells "
        f"({100 * ok / max(total, 1):.3f} %)"
    )
    for (sheet, coord), lo, gn in bad[: args.show]:
        print(f"  {sheet}!{coord}: LibreOffice {lo!r}, Gnumeric {gn!r}", file=sys.stdout)


if __name__ == "__main__":
    main()
