"""The Summary sheet: every model under the Inputs scenario, one reference per cell into the
model's cost sheet (Compare and Sweeps: xlsx_compare.py)."""
from __future__ import annotations

from ..evaluate import Result
from ..ledger import Ledger
from ..units import excel_format
from .xlsx_layout import (
    FORMULA_FILL,
    TITLE_FONT,
    WRAP,
    header,
    print_setup,
    put,
    quote,
    text,
    widths,
)
from .xlsx_models import Cell

SUMMARY = ["gpu_count", "params_total", "params_active", "weight_bytes", "kv_bytes_per_token",
           "gpus_for_weights", "max_concurrency", "ttft_s", "tpot_s",
           "offline_throughput_tokens_per_s", "offline_ceiling_tokens_per_s",
           "offline_usd_per_million_output_tokens", "offline_floor_usd_per_million_output_tokens",
           "usd_per_million_output_tokens"]


def names_for(ledger: Ledger, res: Result) -> dict[str, str]:
    """Symbol -> text: the model's names qualified by its sheet; workbook names as they are."""
    sheet = quote(res.model_id[:31])
    local = {q.name for q in res.quantities} | {i.name for i in ledger.inputs_of("model")}
    return {n: f"{sheet}!{n}" for n in local}


def write_summary(wb, ledger: Ledger, results: list[Result], cells: list[Cell]) -> None:
    ws = wb.create_sheet("Summary", 1)
    text(ws, 1, 1, "All models under the scenario on the Inputs sheet (live)", font=TITLE_FONT)
    header(ws, 3, ["model"] + SUMMARY)
    for c in range(1, len(SUMMARY) + 2):
        ws.cell(row=3, column=c).alignment = WRAP
    ws.row_dimensions[3].height = 30
    text(ws, 2, 1, "params in B (1e9), bytes in GB (1e9 bytes); 'does not fit': no request's KV "
                   "fits beside the weights on gpu_count GPUs")
    for r, res in enumerate(results, start=4):
        text(ws, r, 1, res.model_id)
        names = names_for(ledger, res)
        for c, q in enumerate(SUMMARY, start=2):
            form = ledger.any_form(q)
            put(ws, r, c, "=" + names[q], fill=FORMULA_FILL,
                number_format=excel_format(form.unit, form.integer, scaled=q != "kv_bytes_per_token"))
            cells.append(Cell(ws.title, ws.cell(row=r, column=c).coordinate, res.model_id, q))
    widths(ws, {1: 24, **{c: 20 for c in range(2, len(SUMMARY) + 2)}})
    print_setup(ws)
