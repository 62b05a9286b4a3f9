"""PlanCalc: every model's plan at each layout on the Inputs GPU, and the layout chosen.

The plan (formulas/plan.py) is declared at one layout, the scenario's. Here each model's
block has one column per tensor-parallel size (planning.LAYOUTS: 1, 2, 4, 8; a --set
gpu_count_setting: that one only, read from the Inputs sheet), re-binding gpu_count_setting
(calc.py's block, stamped by stamp.BlockStamper: the ledger's formulas, one step per row),
then two rows of its own: the monthly cost where the layout meets the targets ("-"
elsewhere), and the column of the least such cost (MATCH: the first, fewest GPUs per
replica, on equal costs; 1 where none meets, whose plan then reads "cannot meet the
targets"). The Summary's plan columns read the chosen column by INDEX: what `ledgerbuild plan
MODEL --gpu <the Inputs GPU>` prints first (planning.plan_options: meeting first, then the
least USD per month, then the fewer GPUs per replica; the GPU's price is one for all its
layouts, so "priced first" does not reorder them).
Shortcuts: one GPU, the Inputs sheet's (the Frontier sheet chooses among GPUs for one
model); a layout that does not fit is a column whose plan cannot meet the targets.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...planning import LAYOUTS
from ...units import SUMMARY_FORMATS
from .book import column_letter
from .calc import FIRST_COL, Variation
from .layout import FORMULA_FILL, INPUT_FILL, TITLE_FONT, header, merged_style, print_setup, put, text, widths
from .views import PLAN_VIEW

LAYOUT_ROW = 4  # the gpu_count_setting each column binds
# what the Summary reads at the chosen layout: the plan view up to the price (the layout changes those)
PLAN_TARGETS = PLAN_VIEW[: PLAN_VIEW.index("gpu_price_usd_per_hour")]
COST_FORMAT, CHOICE_FORMAT = SUMMARY_FORMATS["USD/month"], "0"
PLAN_STYLES = [merged_style(fill=FORMULA_FILL, number_format=f) for f in (COST_FORMAT, CHOICE_FORMAT)]
COST_STEP = "plan_usd_per_month where the layout meets the targets"
CHOICE_STEP = "the chosen layout: column of the least cost above (1 if none)"


@dataclass
class PlanRows:
    """Where a model's block is: its steps' rows, the choice row, the columns' span and the
    --set values of the column chosen when the workbook was built (its cached values)."""

    rows: dict[str, int]
    choice_row: int
    span: tuple[str, str]
    chosen: tuple

    def ref(self, q: str) -> str | None:
        """The chosen column's cell of step `q` (None: not a step here, the layout leaves it alone)."""
        if q not in self.rows:
            return None
        a, b = self.span
        r = self.rows[q]
        return f"INDEX(PlanCalc!${a}${r}:${b}${r},PlanCalc!${a}${self.choice_row})"


def layout_sets(sets: dict) -> list[dict[str, str]]:
    """The columns' --set values: each of LAYOUTS, or the one --set gpu_count_setting gives."""
    if "gpu_count_setting" in sets:
        return [{"gpu_count_setting": str(sets["gpu_count_setting"])}]
    return [{"gpu_count_setting": str(n)} for n in LAYOUTS]


def plan_calc_sheet(wb, sets: dict):
    """PlanCalc with its heading and the layout row; the blocks follow (write_plan_calc)."""
    ws = wb.create_sheet("PlanCalc")
    text(ws, 1, 1, "PlanCalc: one calculation per row, one layout per column (live)", font=TITLE_FONT)
    text(ws, 2, 1, "Each model's plan on the Inputs GPU at each tensor-parallel size (row 4), and the "
         "cheapest layout meeting the targets: what the Summary shows.")  # fmt: skip
    columns = layout_sets(sets)
    header(ws, 3, ["model", "step", "unit"] + [f"TP{c['gpu_count_setting']}" for c in columns])
    text(ws, LAYOUT_ROW, 2, "gpu_count_setting")
    for i, c in enumerate(columns):
        value = int(float(c["gpu_count_setting"]))
        if "gpu_count_setting" in sets:  # as set: the Inputs cell, so typing there counts
            put(ws, LAYOUT_ROW, FIRST_COL + i, "=gpu_count_setting", cached=value, fill=FORMULA_FILL)
        else:
            put(ws, LAYOUT_ROW, FIRST_COL + i, value, fill=INPUT_FILL)
    widths(ws, {1: 24, 2: 52, 3: 12, **{c: 14 for c in range(FIRST_COL, FIRST_COL + len(columns))}})
    print_setup(ws, header_rows=f"3:{LAYOUT_ROW}")
    return ws


def write_plan_calc(ws, book, results, sets: dict, write, known: dict) -> dict[str, PlanRows]:
    """The blocks, one per model, by `write(sheet, top row, result, targets, variation) ->
    step rows` (BlockStamper: `known` then holds each column's values); model -> PlanRows."""
    columns = layout_sets(sets)
    variation = Variation({"gpu_count_setting": lambda col: f"{col}${LAYOUT_ROW}"}, columns, read_local=True)
    keys = [tuple(sorted(c.items())) for c in columns]
    a, b = column_letter(FIRST_COL), column_letter(FIRST_COL + len(columns) - 1)
    where: dict[str, PlanRows] = {}
    top = LAYOUT_ROW + 1
    for res in results:
        rows = write(ws, top, res, PLAN_TARGETS, variation)
        cost, choice = top + len(rows), top + len(rows) + 1
        values = [known[res.model_id, key] for key in keys]
        costs = [v["plan_usd_per_month"] if v["plan_meets_targets"] == 1 else None for v in values]
        for r, step in ((cost, COST_STEP), (choice, CHOICE_STEP)):
            text(ws, r, 1, res.model_id)
            text(ws, r, 2, step)
        text(ws, cost, 3, "USD/month")
        for i, found in enumerate(costs):
            col = column_letter(FIRST_COL + i)
            meets, usd = (f"{col}{rows[q]}" for q in ("plan_meets_targets", "plan_usd_per_month"))
            put(ws, cost, FIRST_COL + i, f'=IF({meets}=1,{usd},"-")', cached="-" if found is None else found,
                fill=FORMULA_FILL, number_format=COST_FORMAT)  # fmt: skip
        span = f"{a}{cost}:{b}{cost}"
        met = [(c, i) for i, c in enumerate(costs) if c is not None]
        best = min(met)[1] if met else 0  # the first of equal costs, as MATCH takes it
        put(ws, choice, FIRST_COL, f"=IF(COUNT({span})>0,MATCH(MIN({span}),{span},0),1)", cached=best + 1,
            fill=FORMULA_FILL, number_format=CHOICE_FORMAT)  # fmt: skip
        ws.flush(book, cost)
        where[res.model_id] = PlanRows(rows, choice, (a, b), keys[best])
        top = choice + 1
    return where
