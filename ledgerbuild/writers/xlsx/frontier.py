"""The Frontier sheet: for one model, each GPU and layout, a row per candidate concurrency
(1, 2, 4 ... 1024 and the engine's limit: formulas/plan.py's candidates), the non-dominated
points marked by formula, and a native scatter chart of output tokens/s per GPU against
tokens/s per user, the way published serving benchmarks draw it.

Workings on FrontierCalc (one column per GPU x layout, re-binding `gpu` and
`gpu_count_setting`, and `expert_parallel` where a layout runs attention data-parallel
(planning.layouts); calc.py's block, written as text by stamp.BlockStamper with
each column's values); the visible cells are one reference each, their cached values the
figures the layouts were chosen by (the same evaluation), except the within-limit and Pareto
flags, which are spreadsheet formulas over the rows (SUMPRODUCT).
Beside the chart, the plan of each GPU x layout (formulas/plan.py re-bound per column, live)
and the cheapest one meeting the targets, priced GPUs before unpriced ones, by formula (MATCH
of the least monthly cost in a priced column, else in an unpriced one; no constant): what
`ledgerbuild plan` prints first for the same GPUs.
Shortcuts: the GPU x layout columns are those that fit when the workbook is built; the
chart's series cover the rows within the engine's limit at that scenario; equal monthly costs
go to the first column (the CLI takes the fewer GPUs per replica).
"""

from __future__ import annotations

from ...ledger import Ledger
from ...numeric import NumericResult as Result
from ...planning import POINT, candidate_labels, fitting_layouts, layout_name, mark_pareto
from ...units import SUMMARY_FORMATS, excel_format
from .book import Chart, column_letter, coordinate
from .calc import FIRST_COL, Variation
from .layout import (
    FORMULA_FILL,
    HEADER_FILL,
    HEADER_FONT,
    INPUT_FILL,
    SECTION_FONT,
    TITLE_FONT,
    header,
    print_setup,
    put,
    text,
    widths,
)
from .models import Cell
from .stamp import BlockStamper
from .views import view_cell, view_label
from .workers import Cacher

GPU_ROW, TP_ROW, EP_ROW, HEAD = 3, 4, 5, 4  # FrontierCalc's binding rows; Frontier's header row
FLAG = '"yes";"yes";"no"'
HEADINGS = ["GPU", "GPUs", "layout", "concurrency", "tokens/s per user", "output tokens/s per GPU",
            "TTFT (s)", "TPOT (s)", "USD per 1M output tokens", "within the engine's limit",
            "meets the targets", "Pareto (non-dominated)", "chart series"]  # fmt: skip
U, G, WITHIN = 5, 6, 10  # columns of tokens/s per user, per GPU, the within-limit flag
PLAN_AT, PLAN_COL = 22, 15  # the plan-per-layout block: first row, first column (O, under the chart)
PLAN_SHOWN = [
    "plan_gpus",
    "plan_usd_per_month",
    "plan_usd_per_million_output_tokens",
    "plan_concurrency",
    "plan_meets_targets",
    "gpu_price_known",
]

SHOWN = [  # columns U onwards
    "tokens_per_s_per_user",
    "output_tokens_per_s_per_gpu",
    "ttft_s",
    "tpot_s",
    "concurrency_usd_per_million_output_tokens",
]


def write_frontier(
    wb, ledger: Ledger, res: Result, names: dict[str, str], title: str, gpus, sets, cells, entry
):
    """Frontier and FrontierCalc for `res` (the Sweeps sheet's model; `entry`: its (entry, fields))."""
    labels = candidate_labels()
    columns = list(fitting_layouts(entry, gpus, sets, _targets(labels)))
    if not columns:
        return
    calc = wb.create_sheet("FrontierCalc")
    text(
        calc,
        1,
        1,
        "FrontierCalc: one calculation per row, one GPU x layout per column (live)",
        font=TITLE_FONT,
    )
    text(
        calc,
        2,
        1,
        f"Workings of the Frontier sheet for {res.model_id}: rows 3-5 hold each column's GPU and layout.",
    )
    header(calc, GPU_ROW, ["model", "step", "unit"] + [g for g, _, _ in columns])
    variation, first_row = _bind(calc, columns)
    cacher = Cacher(sets, {res.model_id: entry})
    stamp = BlockStamper(wb, ledger, lambda _ledger, _res: names, {res.model_id: title}, cacher, cells)
    rows = stamp(calc, first_row, res, sorted(_targets(labels)), variation)
    ws = wb.create_sheet("Frontier", 2)
    text(ws, 1, 1, f"Frontier of {res.model_id}: a row per GPU, layout and concurrency (live; workings on "
         "FrontierCalc)", font=TITLE_FONT)  # fmt: skip
    text(ws, 2, 1, "Targets, traffic and price from the Inputs sheet. Pareto: no row within the engine's "
         "limit "
         "has at least its tokens/s per user and per GPU and more of one.", font=SECTION_FONT)  # fmt: skip
    header(ws, HEAD, HEADINGS)
    ws.freeze = (HEAD + 1, 1)
    first, r, spans = HEAD + 1, HEAD + 1, []
    last = first + len(columns) * len(labels) - 1
    for i, (gpu, scenario, env) in enumerate(columns):
        ref = _refs(column_letter(FIRST_COL + i), rows, names)
        key = tuple(sorted(scenario.items()))
        top = r
        for c in labels:
            _row(ws, r, gpu, env, c, ref, key, (first, last), res, ledger, cells)
            r += 1
        within = [k for k, c in enumerate(labels) if c == "limit" or int(c) <= env["plan_concurrency_limit"]]
        text(ws, top, 13, f"{gpu} {layout_name(env)}")
        spans.append((top, top + within[0], top + within[-1]))
    _pareto_cached(ws, first, last, labels, columns)
    _plan_block(ws, columns, rows, names, res, ledger, cells, cacher)
    _chart(ws, spans, res.model_id)
    widths(ws, {1: 14, 2: 8, 3: 8, 4: 12, **{c: 16 for c in range(5, 13)}, 13: 18,
                **{c: 14 for c in range(PLAN_COL, PLAN_COL + 3 + len(PLAN_SHOWN))}})  # fmt: skip
    widths(calc, {1: 24, 2: 44, 3: 12, **{c: 14 for c in range(FIRST_COL, FIRST_COL + len(columns))}})
    print_setup(ws, header_rows=f"{HEAD}:{HEAD}")
    print_setup(calc, header_rows=f"{GPU_ROW}:{TP_ROW}")


def _bind(calc, columns) -> tuple[Variation, int]:
    """Each column's GPU, tensor-parallel size and, where a layout runs attention data-parallel,
    expert_parallel (the rows the block re-binds); the block's first row."""
    binds = {"gpu": lambda col: f"{col}${GPU_ROW}", "gpu_count_setting": lambda col: f"{col}${TP_ROW}"}
    dp = any("expert_parallel" in scenario for _, scenario, _ in columns)
    for i, (_, scenario, env) in enumerate(columns):
        put(calc, TP_ROW, FIRST_COL + i, int(env["gpu_count"]), fill=INPUT_FILL)
        scenario.setdefault("gpu_count_setting", str(int(env["gpu_count"])))
        if dp:
            put(calc, EP_ROW, FIRST_COL + i, int(env["expert_parallel"]), fill=INPUT_FILL)
            scenario.setdefault("expert_parallel", str(int(env["expert_parallel"])))
    text(calc, TP_ROW, 2, "gpu_count_setting")
    if dp:
        text(calc, EP_ROW, 2, "expert_parallel")
        binds["expert_parallel"] = lambda col: f"{col}${EP_ROW}"
    return Variation(binds, [scenario for _, scenario, _ in columns]), (EP_ROW if dp else TP_ROW) + 1


def _targets(labels: list[str]) -> set[str]:
    found = {f"{n}_at_{c}" for n in POINT for c in labels} | {f"plan_meets_at_{c}" for c in labels}
    layout = {"total_gpus", "replica_gpus", "pipeline_parallel", "expert_parallel"}  # layout_name's
    return found | layout | {"plan_concurrency_limit"} | set(PLAN_SHOWN)


def _refs(col: str, rows: dict[str, int], names: dict[str, str]):
    return lambda q: f"FrontierCalc!{col}{rows[q]}" if q in rows else names[q]


def _row(ws, r, gpu, env, c, ref, key, span, res, ledger, cells) -> None:
    """One candidate's row: references into FrontierCalc, the flags as formulas."""
    text(ws, r, 1, gpu)
    _ref_cell(ws, r, 2, ref, "total_gpus", key, res, ledger, cells, env)
    text(ws, r, 3, layout_name(env))
    if c == "limit":
        _ref_cell(ws, r, 4, ref, "plan_concurrency_limit", key, res, ledger, cells, env)
    else:
        put(ws, r, 4, int(c), number_format="#,##0")
    for col, n in enumerate(SHOWN, start=U):
        _ref_cell(ws, r, col, ref, f"{n}_at_{c}", key, res, ledger, cells, env)
    limit = ref("plan_concurrency_limit")
    put(ws, r, WITHIN, f"=IF(D{r}<={limit}, 1, 0)", fill=FORMULA_FILL, number_format=FLAG,
        cached=int(c == "limit" or int(c) <= env["plan_concurrency_limit"]))  # fmt: skip
    _ref_cell(ws, r, 11, ref, f"plan_meets_at_{c}", key, res, ledger, cells, env, FLAG)
    a, b = span
    u, g, w = (f"${column_letter(k)}${a}:${column_letter(k)}${b}" for k in (U, G, WITHIN))
    beats = f"({w}=1)*({u}>=E{r})*({g}>=F{r})*((({u}>E{r})+({g}>F{r}))>0)"
    put(ws, r, 12, f"=IF(J{r}=1, IF(SUMPRODUCT({beats})=0, 1, 0), 0)", fill=FORMULA_FILL, number_format=FLAG)


def _ref_cell(ws, r, c, ref, q, key, res, ledger, cells, env, number_format=None) -> None:
    """A reference to FrontierCalc, its cached value `env`'s (the column's evaluation)."""
    form = ledger.any_form(q)
    put(
        ws,
        r,
        c,
        "=" + ref(q),
        cached=env[q],
        fill=FORMULA_FILL,
        number_format=number_format or excel_format(form.unit, form.integer),
    )
    cells.append(Cell(ws.title, coordinate(r, c), res.model_id, q, key))


def _plan_block(ws, columns, rows, names, res, ledger, cells, cacher: Cacher) -> None:
    """The plan per GPU x layout, its monthly cost where it meets the targets (a column for
    priced GPUs, one for unpriced), and the cheapest that meets them; the cells cached here
    from each column's evaluation (the views' pass skips the Frontier)."""
    top = PLAN_AT
    text(ws, top - 1, PLAN_COL, "The plan per GPU and layout (live; Inputs' traffic, targets, price)",
         font=SECTION_FONT)  # fmt: skip
    cost_col = PLAN_COL + 2 + len(PLAN_SHOWN)
    titles = ["GPU", "layout"] + [view_label(ledger, q) for q in PLAN_SHOWN] + list(COSTS)
    for k, t in enumerate(titles, start=PLAN_COL):
        text(ws, top, k, t, font=HEADER_FONT, fill=HEADER_FILL)
    costs: list[tuple] = []
    for i, (gpu, scenario, env) in enumerate(columns):
        r = top + 1 + i
        ref = _refs(column_letter(FIRST_COL + i), rows, names)
        key = tuple(sorted(scenario.items()))
        text(ws, r, PLAN_COL, gpu)
        text(ws, r, PLAN_COL + 1, layout_name(env))
        cacher.known[(res.model_id, key)] = env
        shown: list[Cell] = []
        for c, q in enumerate(PLAN_SHOWN, start=PLAN_COL + 2):
            view_cell(ws, r, c, ledger, q, ref, Cell(ws.title, coordinate(r, c), res.model_id, q, key), shown)
        cacher.fill(ws, shown)
        cells.extend(shown)
        meets, usd, priced = (ref(q) for q in ("plan_meets_targets", "plan_usd_per_month", "gpu_price_known"))
        met = env["plan_meets_targets"] == 1
        for k, flag in enumerate((1, 0)):  # priced, then unpriced
            cached = env["plan_usd_per_month"] if met and env["gpu_price_known"] == flag else "-"
            put(ws, r, cost_col + k, f'=IF(AND({meets}=1, {priced}={flag}), {usd}, "-")', fill=FORMULA_FILL,
                number_format=SUMMARY_FORMATS["USD/month"], cached=cached)  # fmt: skip
        costs.append(tuple(env["plan_usd_per_month"] if met and env["gpu_price_known"] == f else None
                           for f in (1, 0)))  # fmt: skip
    _plan_choice(ws, columns, costs, cost_col)


COSTS = ("USD per month if priced and meeting the targets", "USD per month if unpriced and meeting them")


def _plan_choice(ws, columns, costs: list[tuple], cost_col: int) -> None:
    """The cheapest GPU x layout meeting the targets, priced GPUs first: MATCH of the least
    cost in the priced column, else in the unpriced one, else "cannot meet the targets"."""
    first, last = PLAN_AT + 1, PLAN_AT + len(columns)
    span = [f"${column_letter(c)}${first}:${column_letter(c)}${last}" for c in (cost_col, cost_col + 1)]
    gpus, tps = (
        f"${column_letter(PLAN_COL + k)}${first}:${column_letter(PLAN_COL + k)}${last}" for k in (0, 1)
    )
    picks = []
    for s in span:
        at = f"MATCH(MIN({s}),{s},0)"
        picks.append(f'INDEX({gpus},{at})&" "&INDEX({tps},{at})')
    choice = f'=IF(COUNT({span[0]})>0,{picks[0]},IF(COUNT({span[1]})>0,{picks[1]},"cannot meet the targets"))'
    cached = "cannot meet the targets"
    for k in (0, 1):
        found = [(c[k], i) for i, c in enumerate(costs) if c[k] is not None]
        if found:
            best = columns[min(found)[1]]
            cached = f"{best[0]} {layout_name(best[2])}"
            break
    text(ws, last + 2, PLAN_COL, "The plan: cheapest GPU and layout meeting the targets", font=SECTION_FONT)
    put(ws, last + 3, PLAN_COL, choice, fill=FORMULA_FILL, cached=cached, font=SECTION_FONT)


def _pareto_cached(ws, first, last, labels, columns) -> None:
    """The Pareto flags' cached values: the same rule over the rows' ledger values."""
    points, r = [], first
    for _, _, env in columns:
        for c in labels:
            value = env["plan_concurrency_limit"] if c == "limit" else int(c)
            if value <= env["plan_concurrency_limit"]:
                u, g = (env[f"{n}_at_{c}"] for n in ("tokens_per_s_per_user", "output_tokens_per_s_per_gpu"))
                points.append({"row": r, "tokens_per_s_per_user": u, "output_tokens_per_s_per_gpu": g})
            else:
                ws.cells[r, 12].cached = 0
            r += 1
    mark_pareto(points)
    for p in points:
        ws.cells[p["row"], 12].cached = int(p["pareto"])


def _chart(ws, spans, model: str) -> None:
    sheet = f"'{ws.title}'"
    series = [(f"{sheet}!$M${n}", f"{sheet}!$E${a}:$E${b}", f"{sheet}!$F${a}:$F${b}") for n, a, b in spans]
    (name, xs, ys), more = series[0], series[1:]
    ws.charts.append(
        Chart(
            f"{model}: output tokens/s per GPU against tokens/s per user",
            "tokens/s per user",
            "output tokens/s per GPU",
            xs,
            ys,
            name,
            "O4",
            more=more,
            log_x=False,
        )  # fmt: skip
    )


__all__ = ["write_frontier"]
