"""Scenarios side by side: up to 8 columns, each a full set of the scenario's choices (GPU,
GPU count or auto, precisions, workload, engine, time model, price), and every model's cost,
throughput, latency, concurrency and GPUs per scenario. The first column follows the Inputs
sheet; the others are starting points to edit. Workings on ScenariosCalc (calc.py).
"""

from __future__ import annotations

from ... import catalog
from ...ledger import Ledger
from ...numeric import NumericResult as Result
from ...rules import to_plain
from .book import column_index, column_letter, coordinate
from .calc import FIRST_COL, Variation
from .layout import (
    INPUT_FILL,
    TITLE_FONT,
    WRAP,
    header,
    print_setup,
    put,
    text,
    widths,
)
from .models import Cell
from .tables import add_dropdown
from .views import view_cell, view_label

CHOICES = [
    "gpu",
    "weight_dtype",
    "kv_dtype",
    "workload",
    "serving_engine",
    "time_model",
    "gpu_count_setting",
    "price_per_gpu_hour",
]
FOLLOWERS = [  # follow weight_dtype here
    "embedding_dtype",
    "lm_head_dtype",
    "expert_dtype",
    "attention_dtype",
    "attention_output_dtype",
]
PRESETS = [  # (name, changes from the Inputs sheet)
    ("as Inputs", {}),
    ("FP8 weights and KV", {"weight_dtype": "fp8", "kv_dtype": "fp8"}),
    ("B200, NVFP4", {"gpu": "b200", "weight_dtype": "nvfp4", "kv_dtype": "fp8"}),
    ("H200, FP8", {"gpu": "h200-sxm", "weight_dtype": "fp8", "kv_dtype": "fp8"}),
    ("reasoning workload", {"workload": "reasoning"}),
    ("TensorRT-LLM engine", {"serving_engine": "tensorrt-llm"}),
]
RESULTS = [
    "offline_usd_per_million_output_tokens",
    "offline_throughput_tokens_per_s",
    "ttft_s",
    "tpot_s",
    "max_concurrency",
    "gpu_count",
]
FIRST_CHOICE_ROW = 5


def _choice_cells(ws, ledger: Ledger, result: Result) -> dict[str, int]:
    """The scenario table: one row per choice, one column per scenario; returns name -> row.
    A price of 0 means each scenario's GPU at its list price."""
    header(ws, FIRST_CHOICE_ROW - 1, ["choice"] + [name for name, _ in PRESETS])
    rows: dict[str, int] = {}
    for r, name in enumerate(CHOICES, start=FIRST_CHOICE_ROW):
        inp = ledger.inputs[name]
        text(ws, r, 1, f"{name} ({inp.unit})")
        for c, (_, changes) in enumerate(PRESETS, start=2):
            value = changes.get(name)
            if value is None:
                shown = result.keys[name] if inp.kind == "key" else to_plain(result.inputs[name])
                put(ws, r, c, f"={name}", cached=shown, fill=INPUT_FILL)  # follows Inputs
            elif inp.kind == "key":
                text(ws, r, c, value, fill=INPUT_FILL)
            else:
                put(ws, r, c, float(value), fill=INPUT_FILL)
        if inp.kind == "key":
            assert inp.table is not None
            add_dropdown(ws, inp.table, f"B{r}:{column_letter(len(PRESETS) + 1)}{r}")
        rows[name] = r
    return rows


def _sets(changes: dict) -> dict[str, str]:
    """The scenario as --set values for the referee: its own choices (the rest follow the
    Inputs sheet); a workload of its own brings its token counts, whatever Inputs says."""
    sets = {n: str(v) for n, v in changes.items()}
    if "workload" in changes:
        row = catalog.row("workloads", changes["workload"])
        sets.update(prompt_tokens=str(row.prompt_tokens), output_tokens=str(row.output_tokens))
    return sets


def write_scenario_choices(wb, ledger: Ledger, first: Result) -> tuple:
    """The Scenarios sheet's choices table and the (empty) ScenariosCalc sheet; returns both
    sheets and the choices' rows."""
    ws = wb.create_sheet("Scenarios", 3)
    text(
        ws,
        1,
        1,
        "Scenarios side by side (live): edit the yellow cells; the first column follows the Inputs sheet",
        font=TITLE_FONT,
    )
    text(
        ws,
        2,
        1,
        "gpu_count_setting 0 = auto (the smallest of 1, 2, 4, 8 GPUs that fits); "
        "price_per_gpu_hour 0 = the scenario's GPU at its list price (GPUs sheet). "
        "Other inputs come from the Inputs sheet. Workings on ScenariosCalc.",
    )
    choice_rows = _choice_cells(ws, ledger, first)
    calc = wb.create_sheet("ScenariosCalc")
    text(
        calc, 1, 1, "ScenariosCalc: one calculation per row, one scenario per column (live)", font=TITLE_FONT
    )
    header(calc, 3, ["model", "step", "unit"] + [name for name, _ in PRESETS])
    widths(calc, {1: 24, 2: 36, 3: 12, **{c: 14 for c in range(FIRST_COL, FIRST_COL + len(PRESETS))}})
    print_setup(calc, header_rows="3:3")
    return ws, calc, choice_rows


def write_scenarios_calc(calc, results: list[Result], choice_rows, write) -> dict:
    """ScenariosCalc's blocks, one per model, by `write(sheet, top row, result, targets,
    variation) -> step rows`; returns (model, step) -> row."""

    def cell_of(name):
        row = choice_rows["weight_dtype" if name in FOLLOWERS else name]
        return lambda col: f"Scenarios!${column_letter(column_index(col) - FIRST_COL + 2)}${row}"

    keys = results[0].keys  # parts that follow weight_dtype on the Inputs sheet follow it here
    followers = [f for f in FOLLOWERS if keys[f] == keys["weight_dtype"]]
    binds = {n: cell_of(n) for n in CHOICES + followers}
    variation = Variation(binds, [_sets(changes) for _, changes in PRESETS])
    where: dict[tuple[str, str], int] = {}
    row = 4
    for res in results:
        rows = write(calc, row, res, RESULTS, variation)
        where.update({(res.model_id, n): r for n, r in rows.items()})
        row += len(rows)
    return where


def write_scenarios(wb, ws, ledger: Ledger, results: list[Result], where: dict, cells: list[Cell]) -> None:
    """The Scenarios sheet's result tables: each cell one reference into ScenariosCalc."""
    top = FIRST_CHOICE_ROW + len(CHOICES) + 2
    for q in RESULTS:
        text(ws, top, 1, f"{view_label(ledger, q)} - {ledger.any_form(q).description}", font=TITLE_FONT)
        header(ws, top + 1, ["model"] + [name for name, _ in PRESETS])
        for c in range(1, len(PRESETS) + 2):
            ws.restyle(top + 1, c, **WRAP)
        ws.row_heights[top + 1] = 30
        for r, res in enumerate(results, start=top + 2):
            text(ws, r, 1, res.model_id)
            for c, (_, changes) in enumerate(PRESETS, start=2):
                col = column_letter(FIRST_COL + c - 2)
                view_cell(
                    ws,
                    r,
                    c,
                    ledger,
                    q,
                    lambda n, m=res.model_id, col=col: f"ScenariosCalc!{col}{where[m, n]}",
                    Cell(ws.title, coordinate(r, c), res.model_id, q, tuple(sorted(_sets(changes).items()))),
                    cells,
                )
        top += len(results) + 4
    for c in range(1, len(PRESETS) + 2):
        ws.restyle(FIRST_CHOICE_ROW - 1, c, **WRAP)
    ws.row_heights[FIRST_CHOICE_ROW - 1] = 30
    widths(ws, {1: 30, **{c: 20 for c in range(2, len(PRESETS) + 2)}})
    print_setup(ws)
