"""Cross-model sheets: Summary and Sweeps (batch, context) with charts (Compare:
xlsx_compare.py).

Every cell is live: Summary reads the cost sheets' names; Sweeps print the ledger's
expression with the varied input re-bound (a batch or a context cell) and everything else
read through the cost sheet's names.
"""
from __future__ import annotations

from functools import cache

import sympy as sp
from openpyxl.chart import Reference, ScatterChart, Series

from ..evaluate import Result
from ..ledger import Ledger, load_formulas
from ..printers.excel import formula_template
from ..printers.template import NameTemplate
from ..sweeps import inline_dependents
from ..units import excel_format
from .xlsx_layout import (
    FORMULA_FILL,
    INPUT_FILL,
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
BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256]
CONTEXTS = [1024 * 2**i for i in range(8)]  # 1K .. 128K


@cache
def _template(tags: frozenset, quantity: str, on: frozenset) -> NameTemplate:
    """`quantity` with the quantities that depend on `on` inlined, printed once per variant."""
    return formula_template(inline_dependents(load_formulas(), tags, sp.Symbol(quantity),
                                              set(on)))


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


def _sweep_block(ws, ledger, res, top, var, values, columns, cells, set_for):
    """A sweep table: column A holds `var` values (yellow), the rest re-bind it per row."""
    header(ws, top, [var] + [label for label, _ in columns])
    names = names_for(ledger, res)
    templates = [_template(res.tags, q, frozenset(set_for)) for q, _ in columns]
    for i, v in enumerate(values):
        r = top + 1 + i
        put(ws, r, 1, v, fill=INPUT_FILL)
        for c, ((label, unit), template) in enumerate(zip(columns, templates, strict=False), start=2):
            row_names = {**names, **{k: t.replace("{cell}", f"$A{r}") for k, t in
                                     set_for.items()}}
            put(ws, r, c, template.fill(row_names), fill=FORMULA_FILL,
                number_format=excel_format(unit))
            cells.append(Cell(ws.title, ws.cell(row=r, column=c).coordinate, res.model_id, label,
                              tuple(sorted((k, str(v) if "{cell}" in t else t)
                                           for k, t in set_for.items()))))
    return top + 1, top + len(values)


def write_sweeps(wb, ledger: Ledger, res: Result, cells: list[Cell]) -> None:
    ws = wb.create_sheet("Sweeps", 3)
    text(ws, 1, 1, f"Sweeps for {res.model_id} (other inputs from the Inputs sheet)",
         font=TITLE_FONT)
    text(ws, 2, 1, "Batch sweep: decode at a full batch of B requests (KV capacity not "
                   "enforced). Context sweep: one request of S tokens.")
    batch_cols = [(q, ledger.any_form(q).unit)
                  for q in ("throughput_tokens_per_s", "tokens_per_s_per_user_full_batch",
                            "usd_per_million_output_tokens")]
    first, last = _sweep_block(ws, ledger, res, 4, "max_concurrency", BATCHES, batch_cols,
                               cells, {"max_concurrency": "{cell}"})
    ctx_top = last + 3
    ctx_cols = [(q, ledger.any_form(q).unit)
                for q in ("kv_bytes_at_context", "flops_attention_decode", "flops_per_token")]
    c_first, c_last = _sweep_block(ws, ledger, res, ctx_top, "context_tokens", CONTEXTS,
                                   ctx_cols, cells, {"context_tokens": "{cell}"})
    conc = [("max_concurrency", "requests")]
    _sweep_block(ws, ledger, res, c_last + 3, "prompt_tokens", CONTEXTS, conc, cells,
                 {"prompt_tokens": "{cell}", "output_tokens": "0"})
    widths(ws, {c: 26 for c in range(1, 5)})
    _chart(ws, "Throughput vs batch", "batch (requests)", "tokens/s", 1, 2, first, last, "F4")
    _chart(ws, "USD per million output tokens vs batch", "batch (requests)", "USD", 1, 4, first,
           last, "F20")
    _chart(ws, "KV bytes vs context", "context (tokens)", "bytes", 1, 2, c_first, c_last, "F36")
    print_setup(ws)


def _chart(ws, title, x_title, y_title, x_col, y_col, first, last, anchor):
    chart = ScatterChart()
    chart.title, chart.style = title, 13
    chart.x_axis.title, chart.y_axis.title = x_title, y_title
    chart.x_axis.scaling.logBase = 2
    xs = Reference(ws, min_col=x_col, min_row=first, max_row=last)
    ys = Reference(ws, min_col=y_col, min_row=first - 1, max_row=last)
    series = Series(ys, xs, title_from_data=True)
    series.marker.symbol = "circle"
    chart.series.append(series)
    chart.legend = None
    chart.width, chart.height = 16, 7.5
    ws.add_chart(chart, anchor)
