"""The Summary sheet: every model under the Inputs scenario, one reference per cell into the
model's cost sheet (Compare and Sweeps: compare.py)."""

from __future__ import annotations

from dataclasses import replace

from ...ledger import Ledger
from ...numeric import NumericResult as Result
from ...rules import to_plain
from ...units import SUMMARY_FORMATS, VIEW_LABELS, excel_format
from .book import coordinate
from .layout import (
    FORMULA_FILL,
    RIGHT,
    SECTION_FONT,
    TITLE_FONT,
    WRAP,
    define_range,
    header,
    print_setup,
    put,
    quote,
    text,
    widths,
)
from .models import Cell, guard_text

# quantities that mean something even for a model that does not fit (no "does not fit" guard)
UNGUARDED = (
    "gpu_count",
    "params_total",
    "params_active",
    "weight_bytes",
    "kv_bytes_per_token",
    "gpus_for_weights",
)
# the plan leads (formulas/plan.py: the Inputs sheet's traffic, targets and price or ownership)
PLAN_VIEW = [  # the layout chosen (plan_calc.py) first: GPUs per replica, replicas, GPUs, cost, targets
    "total_gpus",
    "plan_replicas",
    "plan_gpus",
    "plan_usd_per_month",
    "plan_usd_per_million_output_tokens",
    "plan_meets_targets",
    "plan_concurrency",
    "plan_ttft_s",
    "plan_tpot_s",
    "gpu_price_usd_per_hour",
    "gpu_price_known",
]
UNGUARDED_PLAN = ("plan_meets_targets", "gpu_price_usd_per_hour", "gpu_price_known", "total_gpus")
UNGUARDED_CHOICE = UNGUARDED_PLAN[:3]  # at the chosen layout, GPUs per replica reads "cannot meet" too
SECONDARY = [
    *UNGUARDED,
    "max_concurrency",
    "ttft_s",
    "tpot_s",
    "offline_throughput_tokens_per_s",
    "offline_ceiling_tokens_per_s",
    "offline_usd_per_million_output_tokens",
    "offline_floor_usd_per_million_output_tokens",
    "usd_per_million_output_tokens",
    "offline_usd_per_million_output_tokens_input_priced",
    "offline_usd_per_million_input_tokens",
]
SUMMARY = PLAN_VIEW + SECONDARY


SCENARIO_PARTS = [  # (text before, the Inputs name) of the title's scenario
    ("All models on ", "gpu"),
    (", weights ", "weight_dtype"),
    (", KV ", "kv_dtype"),
    (", workload ", "workload"),
    (", engine ", "serving_engine"),
    (", time model ", "time_model"),
]


def scenario_title(res: Result) -> tuple[str, str]:
    """(formula, its cached value): the sheet's title built from the Inputs' choices, so it
    follows a what-if (no fixed "built for ..." text)."""
    formula = "=" + "&".join(f'"{before}"&{name}' for before, name in SCENARIO_PARTS) + '&" (live)"'
    return formula, "".join(f"{before}{res.keys[name]}" for before, name in SCENARIO_PARTS) + " (live)"


def sheet_titles(model_ids: list[str], taken: set[str]) -> dict[str, str]:
    """A unique sheet title per model (Excel: 31 characters, case-insensitive, not a fixed
    sheet's name): the id, cut and numbered (~2, ~3) where it would clash."""
    used = {t.lower() for t in taken}
    titles = {}
    for mid in model_ids:
        title, n = mid[:31], 1
        while title.lower() in used:
            n += 1
            title = f"{mid[: 31 - len(str(n)) - 1]}~{n}"
        used.add(title.lower())
        titles[mid] = title
    return titles


def names_in(titles: dict[str, str]):
    """names_for(ledger, res): symbol -> text, the model's names qualified by its sheet."""

    def names_for(ledger: Ledger, res: Result) -> dict[str, str]:
        sheet = quote(titles[res.model_id])
        local = {q.name for q in res.quantities} | {i.name for i in ledger.inputs_of("model")}
        return {n: f"{sheet}!{n}" for n in local}

    return names_for


def view_label(ledger: Ledger, q: str) -> str:
    return VIEW_LABELS[q][0] if q in VIEW_LABELS else f"{q} ({ledger.any_form(q).unit})"


def guard_of(q: str) -> str:
    """The quantity that is 0 when `q` has no meaning (the model does not fit)."""
    if q in UNGUARDED or q in UNGUARDED_PLAN:
        return ""
    if q.startswith("plan_"):
        return "plan_concurrency"
    return "offline_concurrency" if q.startswith("offline_") else "max_concurrency"


def view_cell(ws, r: int, c: int, ledger: Ledger, q: str, ref_of, cell: Cell, cells: list[Cell],
              guard: str | None = None) -> None:  # fmt: skip
    """A cell of a view: the quantity (scaled to its display unit), or "does not fit" where the
    model cannot run (`guard`: the quantity that is 0 then, if not guard_of's); the header's
    note says what it is."""
    _, shown, constant = VIEW_LABELS.get(q, (q, ledger.any_form(q).unit, None))
    factor = float(to_plain(ledger.inputs[constant].default)) if constant else 1.0  # its one value
    value = ref_of(q) + (f"*{constant}" if constant else "")
    guard = guard_of(q) if guard is None else guard
    formula = f'=IF({ref_of(guard)}>0, {value}, "{guard_text(guard)}")' if guard else "=" + value
    form = ledger.any_form(q)
    put(
        ws,
        r,
        c,
        formula,
        fill=FORMULA_FILL,
        alignment=RIGHT,
        number_format=SUMMARY_FORMATS.get(shown, excel_format(shown, form.integer)),
    )
    cells.append(replace(cell, scale=factor, guard=guard))


def header_notes(ws, row: int, ledger: Ledger, quantities: list[str], first_col: int) -> None:
    """Readable headers; each note names the ledger quantity and says what it is."""
    for c, q in enumerate(quantities, start=first_col):
        form = ledger.any_form(q)
        ws.restyle(row, c, **WRAP)
        ws.cells[row, c].value = view_label(ledger, q)
        ws.cells[row, c].note = f"{q} ({form.unit}): {form.description}"


def write_summary(wb, ledger: Ledger, results: list[Result], names_for, cells: list[Cell], plans) -> None:
    """Summary (created already, at its place): the plan at the layout PlanCalc chooses
    (`plans`: model -> plan_calc.PlanRows), then the secondary block at the Inputs layout."""
    ws = wb["Summary"]
    title, cached = scenario_title(results[0])
    put(ws, 1, 1, title, cached=cached, font=TITLE_FONT)
    header(ws, 3, ["model"] + SUMMARY)
    header_notes(ws, 3, ledger, SUMMARY, 2)
    ws.row_heights[3] = 60
    plan = text(
        ws,
        2,
        2,
        "THE PLAN: the cheapest GPUs per replica meeting requests_per_day, peak_to_mean_ratio, "
        "ttft_target_s, tpot_target_s at the price or ownership on Inputs (idle capacity paid for)",
        font=SECTION_FONT,
    )
    plan.note = (
        "formulas/plan.py: the largest concurrency per replica meeting both targets, replicas for "
        "the peak (Little's law), GPUs, USD per month and per 1M output tokens at the mean load, on "
        "the Inputs GPU at the layout (GPUs per replica 1, 2, 4, 8; a --set gpu_count_setting as "
        "given) that meets the targets at the least USD per month (workings on PlanCalc); rented "
        "(price_per_gpu_hour, else the GPU's list price) or owned (gpu_purchase_usd > 0: capital, "
        "hosting, electricity). 'cannot meet the targets': no concurrency within the engine's limit "
        "meets both at any layout; the Frontier sheet chooses among GPUs too."
    )
    rest = text(
        ws,
        2,
        len(PLAN_VIEW) + 2,
        "SECONDARY: the model, every GPU busy (offline estimate), the roofline floors and the "
        "lecture's figures",
        font=SECTION_FONT,
    )
    rest.note = (
        "GB = 1e9 bytes. 'does not fit': no request's KV fits beside the weights. Estimate: the "
        "calibrated time model (fitted to measured throughput, prefill charged); floor / ceiling: "
        "the roofline; 'lecture decode-only': the lecture's serving table (prefill not charged)."
    )
    for r, res in enumerate(results, start=4):
        text(ws, r, 1, res.model_id)
        _model_row(ws, r, ledger, res.model_id, names_for(ledger, res), plans[res.model_id], cells)
    fits = SUMMARY.index("max_concurrency") + 2  # the Checks sheet reads it
    define_range(wb, "summary_requests_in_flight", ws, fits, 4, 3 + len(results))
    # 15 wide, headings on up to 4 lines: nine columns on a printed page at 64 % (7 pt)
    widths(ws, {1: 24, **{c: 15 for c in range(2, len(SUMMARY) + 2)}})
    print_setup(ws, header_rows="1:3", one_page=True)


def _model_row(ws, r: int, ledger: Ledger, model: str, names: dict, plan, cells: list[Cell]) -> None:
    """A model's row: the plan at the layout PlanCalc chooses (`plan`: its PlanRows; "cannot
    meet the targets" in every figure but the flags and the price where none meets), then
    the secondary block from the model's sheet."""
    for c, q in enumerate(PLAN_VIEW, start=2):
        guard = "" if q in UNGUARDED_CHOICE else "plan_concurrency"
        cell = Cell(ws.title, coordinate(r, c), model, q, plan.chosen)
        view_cell(ws, r, c, ledger, q, lambda n: plan.ref(n) or names[n], cell, cells, guard)
    for c, q in enumerate(SECONDARY, start=len(PLAN_VIEW) + 2):
        view_cell(ws, r, c, ledger, q, names.__getitem__, Cell(ws.title, coordinate(r, c), model, q), cells)
