"""Compare (model x GPU) with its workings on a helper sheet, one calculation per row.

CompareCalc holds, for each model, one row per GPU-dependent step of the compared quantities
(the GPU table lookups first, then each quantity in ledger order) and one column per GPU: a
row's formula is the ledger's expression of that quantity, reading the rows above in its
column, the GPU id in its column header and, for everything that does not depend on the GPU,
the model's cost sheet. Compare shows the results, one reference each. Short formulas that
a reviewer can follow (FAST / ICAEW modelling codes: one calculation per row).
"""
from __future__ import annotations

import sympy as sp
from openpyxl.utils import get_column_letter

from ..evaluate import Result, to_plain
from ..ledger import Ledger
from ..printers.excel import formula_template
from ..units import excel_format
from .xlsx_layout import FORMULA_FILL, LOOKUP_FILL, TITLE_FONT, header, print_setup, put, text, widths
from .xlsx_models import Cell
from .xlsx_tables import lookup_formula

COMPARE = ["gpu_count", "max_concurrency", "offline_throughput_tokens_per_s",
           "offline_usd_per_million_output_tokens", "usd_per_million_output_tokens"]
CALC = "CompareCalc"
GPU_ROW = 3  # the GPU ids heading the CompareCalc columns
FIRST_COL = 4


def gpu_lookups(ledger: Ledger) -> list[str]:
    """Lookups whose value depends on the GPU: GPU table columns and GPU-qualified rows."""
    return [i.name for i in ledger.inputs_of("lookup") if i.table == "gpus" or i.qualifier == "gpu"]


def gpu_steps(ledger: Ledger, res: Result, targets: list[str]) -> list[str]:
    """The GPU lookups and GPU-dependent quantities `targets` need, lookups first, then the
    quantities in ledger (dependency) order."""
    forms = {q.name: q.expr for q in res.quantities}
    lookups = set(gpu_lookups(ledger))
    depends: dict[str, bool] = {}

    def dep(name: str) -> bool:
        if name not in depends:
            depends[name] = name in lookups or (name in forms and any(
                dep(s.name) for s in forms[name].free_symbols))
        return depends[name]

    needed: set[str] = set()

    def close(name: str) -> None:
        if name in needed or not dep(name):
            return
        needed.add(name)
        for s in forms[name].free_symbols if name in forms else ():
            close(s.name)

    for t in targets:
        close(t)
    return [n for n in gpu_lookups(ledger) if n in needed] + \
        [q.name for q in res.quantities if q.name in needed]


def _step_formula(ledger: Ledger, res: Result, name: str, col: str, rows: dict[str, int],
                  names: dict[str, str]) -> str | float | int:
    if name in ledger.inputs:
        inp = ledger.inputs[name]
        gpu = f"{col}${GPU_ROW}"
        return lookup_formula(inp, gpu) if inp.table == "gpus" \
            else lookup_formula(inp, str(inp.key), gpu)
    if name in res.overridden:  # a what-if value set with --set stays that value everywhere
        return to_plain(res.values[name])
    q = next(q for q in res.quantities if q.name == name)
    local = {n: f"{col}{r}" for n, r in rows.items()}
    return formula_template(sp.sympify(q.expr)).fill({**names, **local})


def write_compare_calc(wb, ledger: Ledger, results: list[Result], gpus: list[str],
                       names_for, cells: list[Cell]) -> dict[tuple[str, str], int]:
    """The helper sheet; returns (model, quantity) -> its row."""
    ws = wb.create_sheet(CALC)
    text(ws, 1, 1, "Workings of Compare: one calculation per row, one GPU per column (live)",
         font=TITLE_FONT)
    text(ws, 2, 1, "Green rows read the GPU table at the column's GPU; blue rows are the "
                   "ledger's formulas; everything GPU-independent is read from the model's sheet.")
    header(ws, GPU_ROW, ["model", "quantity", "unit"] + gpus)
    where: dict[tuple[str, str], int] = {}
    row = GPU_ROW + 1
    for res in results:
        names = names_for(ledger, res)
        rows: dict[str, int] = {}
        for name in gpu_steps(ledger, res, COMPARE):
            is_lookup = name in ledger.inputs
            item = ledger.inputs[name] if is_lookup else ledger.any_form(name)
            text(ws, row, 1, res.model_id)
            text(ws, row, 2, name)
            text(ws, row, 3, item.unit)
            for c, gpu in enumerate(gpus, start=FIRST_COL):
                col = get_column_letter(c)
                put(ws, row, c, _step_formula(ledger, res, name, col, rows, names),
                    fill=LOOKUP_FILL if is_lookup else FORMULA_FILL,
                    number_format=excel_format(item.unit, getattr(item, "integer", False)))
                if not is_lookup:
                    cells.append(Cell(ws.title, f"{col}{row}", res.model_id, name,
                                      (("gpu", gpu),)))
            rows[name] = where[res.model_id, name] = row
            row += 1
    ws.freeze_panes = ws.cell(row=GPU_ROW + 1, column=FIRST_COL)
    widths(ws, {1: 24, 2: 36, 3: 12, **{c: 14 for c in range(FIRST_COL, FIRST_COL + len(gpus))}})
    print_setup(ws)
    return where


def write_compare(wb, ledger: Ledger, results: list[Result], gpus: list[str],
                  where: dict[tuple[str, str], int], cells: list[Cell]) -> None:
    """Model x GPU matrices: each cell one reference into CompareCalc."""
    ws = wb.create_sheet("Compare", 2)
    text(ws, 1, 1, "Model x GPU under the other inputs of the Inputs sheet (live; workings on "
                   "CompareCalc)", font=TITLE_FONT)
    row = 3
    for q in COMPARE:
        form = ledger.any_form(q)
        text(ws, row, 1, f"{q} ({form.unit}): {form.description}", font=TITLE_FONT)
        header(ws, row + 1, ["model"] + gpus)
        for r, res in enumerate(results, start=row + 2):
            text(ws, r, 1, res.model_id)
            for c, gpu in enumerate(gpus, start=2):
                col = get_column_letter(c + FIRST_COL - 2)
                put(ws, r, c, f"={CALC}!{col}{where[res.model_id, q]}", fill=FORMULA_FILL,
                    number_format=excel_format(form.unit, form.integer))
                cells.append(Cell(ws.title, ws.cell(row=r, column=c).coordinate, res.model_id, q,
                                  (("gpu", gpu),)))
        row += len(results) + 4
    widths(ws, {1: 24, **{c: 16 for c in range(2, len(gpus) + 2)}})
    print_setup(ws)
