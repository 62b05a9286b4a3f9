"""Workbook sheets per model: the Models table and one cost sheet per model.

A cost sheet lists the model's fields (INDEX/MATCH into the Models table) and every quantity
of its variant, grouped by topic: name, live formula, unit, formula text, description,
source. Each value cell carries a sheet-scoped defined name equal to the input or quantity
name, so formulas read as math. `Cell` records what each formula cell must equal (the
referee test recomputes it with the ledger).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...ledger import Ledger
from ...numeric import NumericResult as Result
from ...printed import excel_of
from ...rules import to_plain
from ...units import excel_format
from .layout import (
    EDITABLE,
    FORMULA_FILL,
    INPUT_FILL,
    LOOKUP_FILL,
    SECTION_FONT,
    TITLE_FONT,
    WRAP,
    define,
    define_range,
    fit_row,
    header,
    print_setup,
    put,
    text,
    widths,
)


@dataclass(frozen=True, slots=True)
class Cell:
    """A formula cell and the ledger value it must show: `quantity` of `model` under `sets`."""

    sheet: str
    coord: str
    model: str
    quantity: str
    sets: tuple = field(default_factory=tuple)
    scale: float = 1  # the cell shows quantity x scale (seconds as ms)
    guard: str = ""  # the cell reads "does not fit" where this quantity is 0
    at: tuple[int, int] | None = None  # (row, column) where the writer knows them


def guard_text(guard: str) -> str:
    """What a guarded cell reads where its guard is 0."""
    return "cannot meet the targets" if guard == "plan_concurrency" else "does not fit"


COLUMNS = {1: 34, 2: 24, 3: 12, 4: 60, 5: 60, 6: 40}  # name, value, unit, formula, description, source
HEADINGS = ["name", "value", "unit", "formula", "description", "source"]
MODEL_FIELDS, FROM_TABLE, SET_ON_CLI = "model fields", "Models table", "set on the command line"
BODY_TEXTS = (*HEADINGS, MODEL_FIELDS, FROM_TABLE, SET_ON_CLI)  # texts every cost sheet shows


def model_fields_used(ledger: Ledger, result: Result) -> list[str]:
    used: set[str] = set()
    for q in result.quantities:
        used |= excel_of(q).names
    return [i.name for i in ledger.inputs_of("model") if i.name in used]


def write_models_table(wb, ledger: Ledger, results: list[Result]) -> None:
    ws = wb.create_sheet("Models")
    fields = [i.name for i in ledger.inputs_of("model")]
    header(ws, 1, ["id", "name"] + fields)
    for r, res in enumerate(results, start=2):
        text(ws, r, 1, res.model_id, font=EDITABLE)  # an editable table: unlocked
        text(ws, r, 2, res.model_name, font=EDITABLE)
        for c, f in enumerate(fields, start=3):
            put(ws, r, c, to_plain(res.inputs[f]), fill=INPUT_FILL)
    define_range(wb, "models_id", ws, 1, 2, len(results) + 1)
    for c, f in enumerate(fields, start=3):
        define_range(wb, f"models_{f}", ws, c, 2, len(results) + 1)
    widths(ws, {1: 24, 2: 30, **{c: max(10, len(f) + 2) for c, f in enumerate(fields, start=3)}})
    print_setup(ws)


def write_model_head(wb, ws, res: Result) -> None:
    """Rows 1-3: the model's name, variants and id (what differs between models of a kind)."""
    widths(ws, COLUMNS)
    print_setup(ws)
    text(ws, 1, 1, f"{res.model_name} ({res.model_id})", font=TITLE_FONT)
    text(
        ws,
        2,
        1,
        f"Variants: {', '.join(sorted(res.tags))}. Scenario on the Inputs sheet; "
        "model fields in the Models table.",
    )
    text(ws, 3, 1, "model_id")
    text(ws, 3, 2, res.model_id, fill=INPUT_FILL)
    define(wb, ws, "model_id", 3, 2, local=True)


def write_model_body(wb, ws, ledger: Ledger, res: Result, cells: list[Cell]) -> None:
    """Rows 5 on: the model fields and every quantity of the model's variant (the same for
    every model of a variant and --set values: stamped, see stamp.py)."""
    header(ws, 5, HEADINGS)
    row = 6
    text(ws, row, 1, MODEL_FIELDS, font=SECTION_FONT)
    row += 1
    for name in model_fields_used(ledger, res):
        inp = ledger.inputs[name]
        put(
            ws,
            row,
            2,
            f"=INDEX(models_{name}, MATCH(model_id, models_id, 0))",
            fill=LOOKUP_FILL,
            number_format=excel_format(inp.unit, inp.integer),
        )
        _describe(ws, row, name, inp.unit, FROM_TABLE, inp.description, inp.source)
        define(wb, ws, name, row, 2, local=True)
        cells.append(Cell(ws.title, f"B{row}", res.model_id, name))
        row += 1
    for topic in ledger.topics:
        text(ws, row, 1, topic, font=SECTION_FONT)
        row += 1
        for q in (q for q in res.quantities if q.topic == topic):
            fmt = excel_format(q.unit, q.integer)
            if q.name in res.overridden:
                put(ws, row, 2, to_plain(res.values[q.name]), fill=INPUT_FILL, number_format=fmt)
                shown = SET_ON_CLI
            else:
                shown = excel_of(q).fill({})
                put(
                    ws,
                    row,
                    2,
                    shown,
                    fill=FORMULA_FILL,
                    number_format=fmt,
                    note=f"{q.name} ({q.unit}): {q.description}",
                )
                cells.append(Cell(ws.title, f"B{row}", res.model_id, q.name))
            _describe(ws, row, q.name, q.unit, shown.lstrip("="), q.description, q.source)
            define(wb, ws, q.name, row, 2, local=True)
            row += 1


def _describe(ws, row, name, unit, formula_text, description, source):
    text(ws, row, 1, name)
    text(ws, row, 3, unit)
    text(ws, row, 4, formula_text, alignment=WRAP)
    text(ws, row, 5, description, alignment=WRAP)
    text(ws, row, 6, source, alignment=WRAP)
    fit_row(ws, row, {4: formula_text, 5: description, 6: source}, COLUMNS)
