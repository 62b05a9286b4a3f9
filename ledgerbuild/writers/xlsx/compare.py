"""Compare (model x GPU) and Sweeps (batch, context), each with its workings on a helper sheet
(CompareCalc, SweepsCalc: one calculation per row, see calc.py); the visible cells are one
reference each."""

from __future__ import annotations

from collections.abc import Callable

from ...ledger import Ledger
from ...numeric import NumericResult as Result
from ...units import excel_format
from .book import Chart, column_letter, coordinate
from .calc import FIRST_COL, Variation, write_block
from .layout import (
    FORMULA_FILL,
    INPUT_FILL,
    SECTION_FONT,
    TITLE_FONT,
    header,
    print_setup,
    put,
    quote,
    text,
    widths,
)
from .models import Cell
from .views import view_cell, view_label

# the plan leads (formulas/plan.py), at the Inputs sheet's GPUs per replica: choosing the layout per
# GPU as PlanCalc does for the Summary's GPU would take a block per layout and GPU (about 1.4 M cells)
COMPARE_PLAN = [
    "gpu_count",
    "plan_gpus",
    "plan_usd_per_month",
    "plan_usd_per_million_output_tokens",
    "plan_concurrency",
    "plan_meets_targets",
]
COMPARE_SECONDARY = [
    "max_concurrency",
    "offline_throughput_tokens_per_s",
    "offline_usd_per_million_output_tokens",
    "usd_per_million_output_tokens",
]
COMPARE = COMPARE_PLAN + COMPARE_SECONDARY
GPU_ROW = 3  # the GPU ids heading the CompareCalc columns
BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256]
CONTEXTS = [1024 * 2**i for i in range(8)]  # 1K .. 128K
CALC_WIDTHS = {1: 24, 2: 36, 3: 12}


def _calc_sheet(wb, title: str, note: str):
    ws = wb.create_sheet(title)
    text(ws, 1, 1, title + ": one calculation per row, one variant per column (live)", font=TITLE_FONT)
    text(ws, 2, 1, note)
    return ws


def compare_calc_sheet(wb, gpus: list[str]):
    """CompareCalc with its heading, one column per GPU; the blocks follow (write_compare_calc)."""
    ws = _calc_sheet(
        wb,
        "CompareCalc",
        "Green rows read the GPU table at the column's GPU; "
        "blue rows are the ledger's formulas; everything "
        "GPU-independent is read from the model's sheet.",
    )
    header(ws, GPU_ROW, ["model", "step", "unit"] + gpus)
    ws.freeze = (GPU_ROW + 1, FIRST_COL)
    widths(ws, {**CALC_WIDTHS, **{c: 14 for c in range(FIRST_COL, FIRST_COL + len(gpus))}})
    print_setup(ws, header_rows=f"{GPU_ROW}:{GPU_ROW}")
    return ws


def write_compare_calc(ws, results: list[Result], gpus: list[str], write) -> dict:
    """CompareCalc's blocks, one per model, by `write(sheet, top row, result, targets,
    variation) -> step rows`; returns (model, step) -> row."""
    variation = Variation({"gpu": lambda col: f"{col}${GPU_ROW}"}, [{"gpu": g} for g in gpus])
    where: dict[tuple[str, str], int] = {}
    row = GPU_ROW + 1
    for res in results:
        rows = write(ws, row, res, COMPARE, variation)
        where.update({(res.model_id, n): r for n, r in rows.items()})
        row += len(rows)
    return where


def write_compare(
    wb,
    ledger: Ledger,
    results: list[Result],
    gpus: list[str],
    where: dict[tuple[str, str], int],
    cells: list[Cell],
) -> None:
    """Model x GPU matrices: each cell one reference into CompareCalc."""
    ws = wb.create_sheet("Compare", 2)
    text(
        ws,
        1,
        1,
        "Model x GPU under the other inputs of the Inputs sheet (live; workings on CompareCalc)",
        font=TITLE_FONT,
    )
    row = _section(ws, 2, PLAN_HEADING)
    for q in COMPARE:
        if q == COMPARE_SECONDARY[0]:
            row = _section(ws, row, SECONDARY_HEADING)
        row = _matrix(ws, row, ledger, q, results, gpus, where, cells)
    widths(ws, {1: 24, **{c: 21 for c in range(2, len(gpus) + 2)}})  # 'cannot meet the targets'
    print_setup(ws)


PLAN_HEADING = (
    "THE PLAN at the Inputs sheet's GPUs per replica (gpu_count_setting; auto: the smallest that fits):",
    "replicas for requests_per_day at peak_to_mean_ratio, meeting ttft_target_s and tpot_target_s, at "
    "the price or ownership on Inputs.",
    "The Summary chooses the cheapest GPUs per replica for the Inputs GPU (PlanCalc); "
    "`ledgerbuild plan MODEL --gpu ID,...` chooses them for every GPU.",
)
SECONDARY_HEADING = (
    "SECONDARY: every GPU busy (offline estimate) and the lecture's decode-only figure, at the same "
    "GPUs per replica",
)


def _section(ws, row: int, lines: tuple[str, ...]) -> int:
    """A section's heading, a line per row; returns the row its first matrix starts on."""
    for i, line in enumerate(lines):
        text(ws, row + i, 1, line, **({"font": SECTION_FONT} if i == 0 else {}))
    return row + len(lines) + 1


def _matrix(ws, row, ledger, q, results, gpus, where, cells) -> int:
    """One quantity's model x GPU matrix from `row` (its title, header, a row per model);
    returns the first row after it and its gap."""
    text(ws, row, 1, f"{view_label(ledger, q)} - {ledger.any_form(q).description}", font=TITLE_FONT)
    header(ws, row + 1, ["model"] + gpus)
    for r, res in enumerate(results, start=row + 2):
        text(ws, r, 1, res.model_id)
        for c, gpu in enumerate(gpus, start=2):
            col = column_letter(c + FIRST_COL - 2)
            view_cell(
                ws,
                r,
                c,
                ledger,
                q,
                lambda n, m=res.model_id, col=col: f"CompareCalc!{col}{where[m, n]}",
                Cell(ws.title, coordinate(r, c), res.model_id, q, (("gpu", gpu),)),
                cells,
            )
    return row + len(results) + 4


SWEEPS = [  # (varied name, values, fixed names, columns, note)
    (
        "max_concurrency",
        BATCHES,
        {},
        ["throughput_tokens_per_s", "tokens_per_s_per_user_full_batch", "usd_per_million_output_tokens"],
        "Batch sweep: decode at a full batch of B requests (KV capacity not enforced).",
    ),
    (
        "context_tokens",
        CONTEXTS,
        {},
        ["kv_bytes_at_context", "flops_attention_decode", "flops_per_token"],
        "Context sweep: one request of S tokens.",
    ),
    (
        "prompt_tokens",
        CONTEXTS,
        {"output_tokens": "0"},
        ["max_concurrency"],
        "Prompt sweep (no output tokens): requests whose KV fits.",
    ),
    (
        "prompt_tokens",
        CONTEXTS,
        {},
        ["offline_usd_per_million_output_tokens", "offline_throughput_tokens_per_s"],
        "Cost against context: every request's prompt length (output tokens from the Inputs "
        "sheet; $0 / 'does not fit' where no request fits).",
    ),
]


def write_sweeps(
    wb, ledger: Ledger, res: Result, names: dict[str, str], title: str, cells: list[Cell]
) -> None:
    """Sweeps (tables and charts) with their workings on SweepsCalc."""
    calc = _calc_sheet(
        wb,
        "SweepsCalc",
        f"Workings of the Sweeps sheet for {res.model_id}: each block's first row holds the swept value.",
    )
    ws = wb.create_sheet("Sweeps", 3)
    text(
        ws,
        1,
        1,
        f"Sweeps for {res.model_id} (other inputs from the Inputs sheet; workings on SweepsCalc)",
        font=TITLE_FONT,
    )
    calc_row, top, spans = 4, 3, []
    for var, values, fixed, columns, note in SWEEPS:
        text(ws, top, 1, note)
        header(calc, calc_row, ["model", "step", "unit"] + [var] * len(values))
        for i, v in enumerate(values):
            put(calc, calc_row, FIRST_COL + i, v, fill=INPUT_FILL)
        value_row = calc_row
        binds: dict[str, Callable[[str], str]] = {var: _cell_in_row(value_row)}
        binds.update({n: _constant(t) for n, t in fixed.items()})
        variation = Variation(binds, [{var: str(v), **fixed} for v in values])
        rows = write_block(calc, calc_row + 1, ledger, res, columns, variation, set(names), title, cells)
        header(ws, top + 1, [var] + columns)
        for i, v in enumerate(values):
            r, col = top + 2 + i, column_letter(FIRST_COL + i)
            put(ws, r, 1, f"=SweepsCalc!{col}{value_row}", cached=v, fill=FORMULA_FILL)
            for c, q in enumerate(columns, start=2):
                form = ledger.any_form(q)
                put(
                    ws,
                    r,
                    c,
                    f"=SweepsCalc!{col}{rows[q]}",
                    fill=FORMULA_FILL,
                    number_format=excel_format(form.unit, form.integer),
                )
                cells.append(
                    Cell(
                        ws.title,
                        coordinate(r, c),
                        res.model_id,
                        q,
                        tuple(sorted({var: str(v), **fixed}.items())),
                    )
                )
        spans.append((top + 2, top + 1 + len(values)))
        top += len(values) + 4
        calc_row += len(rows) + 3
    widths(ws, {c: 26 for c in range(1, 5)})
    widths(calc, {**CALC_WIDTHS, **{c: 14 for c in range(FIRST_COL, FIRST_COL + 9)}})
    (b_first, b_last), (c_first, c_last), (p_first, p_last) = spans[0], spans[1], spans[3]
    _chart(ws, "Throughput vs batch", "batch (requests)", "tokens/s", 2, b_first, b_last, "F4")
    _chart(ws, "USD per million output tokens vs batch", "batch (requests)", "USD", 4, b_first, b_last, "F20")
    _chart(ws, "KV bytes vs context", "context (tokens)", "bytes", 2, c_first, c_last, "F36")
    _chart(
        ws,
        "USD per million output tokens vs prompt length (estimate)",
        "prompt (tokens)",
        "USD",
        2,
        p_first,
        p_last,
        "F52",
    )
    print_setup(ws)
    print_setup(calc)


def _cell_in_row(row: int) -> Callable[[str], str]:
    return lambda col: f"{col}${row}"


def _constant(value: str) -> Callable[[str], str]:
    return lambda col: value


def _chart(ws, title, x_title, y_title, y_col, first, last, anchor):
    """A scatter chart (lines and markers, log2 x) of column y_col against column A."""
    sheet = quote(ws.title)
    y = column_letter(y_col)
    ws.charts.append(
        Chart(
            title,
            x_title,
            y_title,
            f"{sheet}!$A${first}:$A${last}",
            f"{sheet}!${y}${first}:${y}${last}",
            f"{sheet}!${y}${first - 1}",
            anchor,
        )
    )
