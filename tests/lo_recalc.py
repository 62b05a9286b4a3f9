"""LibreOffice referee: recalculate a workbook headless and read full doubles through UNO.

Runs under the system python3 that has python3-uno (Debian), not the project's venv:
    /usr/bin/python3 tests/lo_recalc.py < request.json > answer.json
Request: {"path": ..., "read": [[sheet, "B7"], ...], "steps": [[[sheet, "B5", value], ...], ...],
          "resave": optional path, "read_text": optional [[sheet, "B7"], ...],
          "text_every_step": optional, the read_text cells after every step as well}
Answer: {"steps": [{"values": [...], "errors": [[sheet, cell, code], ...], "formulas": n}, ...],
         "text": [...] (the read_text cells as recalculated before any change, text kept)}
Step 0 is the workbook as written; each later step applies its changes cumulatively.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException


def prop(name, value):
    p = PropertyValue()
    p.Name, p.Value = name, value
    return p


def start_office():
    profile = tempfile.mkdtemp(prefix="lo-profile-")
    pipe = "ledgerbuild-" + uuid.uuid4().hex
    proc = subprocess.Popen(
        [
            shutil.which("soffice") or "soffice",
            "--headless",
            "--invisible",
            "--nologo",
            "--norestore",
            "--nodefault",
            f"-env:UserInstallation=file://{profile}",
            f"--accept=pipe,name={pipe};urp;StarOffice.ComponentContext",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    for _ in range(240):
        try:
            ctx = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
            return proc, profile, ctx
        except NoConnectException:
            time.sleep(0.25)
    proc.kill()
    raise RuntimeError("LibreOffice did not start")


FORMULA = 16  # com.sun.star.sheet.CellFlags.FORMULA
ERROR = 4  # com.sun.star.sheet.FormulaResult.ERROR


def scan_errors(doc):
    """Error cells and the formula count, one query per sheet (not one call per cell)."""
    errors, formulas = [], 0
    for sheet in doc.Sheets:
        for rng in sheet.queryContentCells(FORMULA).getRangeAddresses():
            formulas += (rng.EndRow - rng.StartRow + 1) * (rng.EndColumn - rng.StartColumn + 1)
        for rng in sheet.queryFormulaCells(ERROR).getRangeAddresses():
            for r in range(rng.StartRow, rng.EndRow + 1):
                for c in range(rng.StartColumn, rng.EndColumn + 1):
                    cell = sheet.getCellByPosition(c, r)
                    errors.append([sheet.Name, cell.AbsoluteName, cell.getError()])
    return errors, formulas


def read_values(doc, wanted, keep_text=False):
    """[sheet, "B7"] -> number, or None where the formula's result is text (the text itself
    with keep_text); one data array per sheet."""
    arrays = {}
    for name in dict.fromkeys(sheet for sheet, _ in wanted):
        sheet = doc.Sheets.getByName(name)
        cursor = sheet.createCursor()
        cursor.gotoEndOfUsedArea(False)
        end = cursor.RangeAddress
        arrays[name] = sheet.getCellRangeByPosition(0, 0, end.EndColumn, end.EndRow).getDataArray()
    out = []
    for sheet, coord in wanted:
        col, row = _split(coord)
        value = arrays[sheet][row][col]
        out.append(None if isinstance(value, str) and not keep_text else value)
    return out


def _split(coord):
    """'AB12' -> (column index, row index), zero-based."""
    letters = "".join(ch for ch in coord if ch.isalpha())
    col = 0
    for ch in letters:
        col = col * 26 + ord(ch.upper()) - 64
    return col - 1, int(coord[len(letters) :]) - 1


def main():
    req = json.load(sys.stdin)
    proc, profile, ctx = start_office()
    try:
        desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        url = uno.systemPathToFileUrl(os.path.abspath(req["path"]))
        doc = desktop.loadComponentFromURL(url, "_blank", 0, (prop("Hidden", True),))
        answer = []
        for changes in [[]] + req.get("steps", []):
            for sheet, coord, value in changes:
                cell = doc.Sheets.getByName(sheet).getCellRangeByName(coord)
                if isinstance(value, str):
                    cell.setString(value)
                else:
                    cell.setValue(value)
            doc.calculateAll()
            values = read_values(doc, req["read"])
            errors, formulas = scan_errors(doc)
            answer.append({"values": values, "errors": errors, "formulas": formulas})
            if req.get("text_every_step"):  # the read_text cells after each step too
                answer[-1]["text"] = read_values(doc, req.get("read_text", []), keep_text=True)
            if len(answer) == 1:
                text = read_values(doc, req.get("read_text", []), keep_text=True)
        if req.get("resave"):
            doc.storeToURL(
                uno.systemPathToFileUrl(os.path.abspath(req["resave"])),
                (prop("FilterName", "Calc MS Excel 2007 XML"),),
            )
        doc.close(True)
        json.dump({"steps": answer, "text": text}, sys.stdout)
    finally:
        try:
            desktop.terminate()
        except Exception:
            pass
        proc.wait(timeout=30) if proc.poll() is None else None
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
