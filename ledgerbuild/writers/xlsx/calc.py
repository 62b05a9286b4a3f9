"""Workings blocks: one calculation per row, one variant per column (FAST / ICAEW modelling
codes: short formulas a reviewer can follow).

A block serves one model. Its columns re-bind some names (`binds`: a GPU id, a batch, a
context, a whole scenario) and its rows are the steps that depend on them, in ledger order:
the catalog lookups whose key is re-bound (green), then every quantity or defaulted input whose
value depends on a re-bound name (blue). A row's formula is the ledger's expression of that
step reading the rows above in its column, the re-bound cells, and the model's cost sheet (or
the Inputs sheet) for everything else. Compare, Sweeps and Scenarios show the results, one
reference each.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...ledger import Ledger
from ...numeric import NumericResult as Result
from ...printed import Printed, excel_of
from ...printers.template import NameTemplate
from ...rules import to_plain
from ...units import excel_format
from .book import column_letter
from .layout import FORMULA_FILL, LOOKUP_FILL, merged_style, quote
from .models import Cell
from .tables import lookup_formula

FIRST_COL = 4  # columns A-C: model, step, unit


@dataclass
class Variation:
    """What each column of a block re-binds: name -> (column letter -> cell text), and the
    --set that reproduces each column for the referee."""

    binds: dict[str, Callable[[str], str]]
    sets: list[dict[str, str]]
    read_local: bool = False  # the model sheet's names the steps read get a row each, read once


def _forms(ledger: Ledger, res: Result) -> dict[str, NameTemplate]:
    """Excel templates of the model's quantities and of the inputs whose default is a formula
    (where the default is in force: its value is the input's)."""
    forms = {q.name: excel_of(q) for q in res.quantities}
    forms.update(
        {
            i.name: i.default.template
            for i in ledger.inputs.values()
            if i.kind == "scenario"
            and isinstance(i.default, Printed)
            and i.default.function is not None
            and i.default.function(res.inputs) == res.inputs[i.name]
        }
    )  # not set by the user
    return forms


def steps(ledger: Ledger, res: Result, forms: dict, targets: list[str], bound: set[str]) -> list[str]:
    """The lookups and quantities `targets` need that depend on a bound name: lookups first,
    then in ledger order (inputs with formula defaults before the quantities); `forms` are
    _forms(ledger, res)."""
    lookups = {i.name: i for i in ledger.inputs_of("lookup")}
    depends: dict[str, bool] = {}

    def dep(name: str) -> bool:
        if name not in depends:
            inp = lookups.get(name)
            depends[name] = (
                name in bound
                or (inp is not None and (inp.key in bound or inp.qualifier in bound))
                or (name in forms and any(dep(s) for s in forms[name].names))
            )
        return depends[name]

    needed: set[str] = set()

    def close(name: str) -> None:
        if name in needed or name in bound or not dep(name):
            return
        needed.add(name)
        for s in forms[name].names if name in forms else ():
            close(s)

    for t in targets:
        close(t)
    order = (
        list(lookups)
        + [i.name for i in ledger.inputs.values() if i.name in forms]
        + [q.name for q in res.quantities]
    )
    return [n for n in dict.fromkeys(order) if n in needed]


def _lookup(ledger: Ledger, name: str, bound: dict[str, str]) -> str:
    inp = ledger.inputs[name]
    key = bound.get(str(inp.key), str(inp.key))
    qualifier = bound.get(inp.qualifier, inp.qualifier) if inp.qualifier else None
    # where the column's choice is the Inputs sheet's, read the Inputs cell (a value typed
    # over it there counts); else the table row of the column's choice
    same = [f"{bound[k]}={k}" for k in (inp.key, inp.qualifier) if k and k in bound]
    condition = same[0] if len(same) == 1 else f"AND({', '.join(same)})"
    return f"=IF({condition}, {name}, {lookup_formula(inp, key, qualifier)[1:]})"


def _row_formulas(ledger, res, name, forms, names, bound_by_col, rows, columns) -> list:
    """The step's formula in each column: printed once, the names that differ between
    columns (re-bound names, steps above in the block) filled per column."""
    if ledger.inputs.get(name) is not None and ledger.inputs[name].kind == "lookup":
        return [_lookup(ledger, name, bound) for bound in bound_by_col]
    if name in res.overridden:  # a what-if value set with --set stays that value everywhere
        return [to_plain(res.values[name])] * len(columns)
    parts = list(forms[name].parts)
    varying = []
    for i in range(1, len(parts), 2):
        p = parts[i]
        if p in rows or p in bound_by_col[0]:
            varying.append((i, p))
        else:
            parts[i] = names.get(p, p)
    out = []
    for col, bound in zip(columns, bound_by_col, strict=True):
        for i, p in varying:
            parts[i] = f"{col}{rows[p]}" if p in rows else bound[p]
        out.append("".join(parts))
    return out


ROW_MARK, TITLE_MARK = "\x02", "\x03"  # marks in a plan's formulas: a step's row offset; the model's sheet


@dataclass
class BlockPlan:
    """A block for one kind of model (variant, --set values, targets, variation): its steps
    and each cell's formula with the rows and the model's sheet left as marks. Written as
    cells (write_block) or as text (stamp.py)."""

    steps: list[str]
    units: list[str]
    styles: list[dict]
    formulas: list[list]  # [step][column]: a marked formula ("=...") or a number (set with --set)
    set_keys: list[tuple]  # each column's --set values, as the manifest states them

    def fill(self, formula: str, top: int, title: str) -> str:
        """A marked formula for the block at row `top` of the model whose sheet is `title`."""
        parts = formula.replace(TITLE_MARK, quote(title)).split(ROW_MARK)
        parts[1::2] = [str(top + int(k)) for k in parts[1::2]]
        return "".join(parts)


_PLANS: dict[tuple, tuple[Variation, BlockPlan]] = {}


def plan_block(ledger: Ledger, res: Result, targets: list[str], variation: Variation, local: set[str]):
    """The plan for `res`'s kind of model (remembered: a 1,000-model workbook has a few dozen
    kinds); `local` are the names its cost sheet defines."""
    forms = _forms(ledger, res)
    key = (res.tags, frozenset(forms), frozenset(res.overridden), tuple(targets), id(variation))
    found = _PLANS.get(key)
    if found is not None and found[0] is variation:
        return found[1]
    columns = [column_letter(FIRST_COL + i) for i in range(len(variation.sets))]
    bound_by_col = [{n: bind(col) for n, bind in variation.binds.items()} for col in columns]
    names = {n: f"{TITLE_MARK}!{n}" for n in local}
    rows: dict[str, str] = {}
    plan = BlockPlan([], [], [], [], [tuple(sorted(sets.items())) for sets in variation.sets])
    found_steps = steps(ledger, res, forms, targets, set(variation.binds))
    if variation.read_local:
        _read_local(ledger, plan, found_steps, forms, names, rows, len(columns))
    for name in found_steps:
        is_lookup = name in ledger.inputs and ledger.inputs[name].kind == "lookup"
        item = ledger.inputs[name] if name in ledger.inputs else ledger.any_form(name)
        plan.steps.append(name)
        plan.units.append(item.unit)
        plan.styles.append(
            merged_style(
                fill=LOOKUP_FILL if is_lookup else FORMULA_FILL,
                number_format=excel_format(item.unit, item.integer),
            )
        )
        plan.formulas.append(_row_formulas(ledger, res, name, forms, names, bound_by_col, rows, columns))
        rows[name] = f"{ROW_MARK}{len(rows)}{ROW_MARK}"
    _PLANS[key] = (variation, plan)
    return plan


def _read_local(ledger: Ledger, plan: BlockPlan, found: list[str], forms, names, rows, columns: int) -> None:
    """A row per model-sheet name the steps read (`='model'!name` in every column), so the
    steps read it as a cell: a long model id is written once, not in every reference."""
    inside = set(found)
    used = [p for s in found if s in forms for p in forms[s].names if p in names and p not in inside]
    for name in dict.fromkeys(used):
        item = ledger.inputs[name] if name in ledger.inputs else ledger.any_form(name)
        plan.steps.append(name)
        plan.units.append(item.unit)
        style = merged_style(fill=FORMULA_FILL, number_format=excel_format(item.unit, item.integer))
        plan.styles.append(style)
        plan.formulas.append([f"={names[name]}"] * columns)
        rows[name] = f"{ROW_MARK}{len(rows)}{ROW_MARK}"


def write_block(
    ws,
    top: int,
    ledger: Ledger,
    res: Result,
    targets: list[str],
    variation: Variation,
    local: set[str],
    title: str,
    cells: list[Cell],
) -> dict[str, int]:
    """Rows from `top` down as cells; returns step name -> row (the caller reads targets
    there). `local` are the names the model's sheet `title` defines."""
    plan = plan_block(ledger, res, targets, variation, local)
    plain = merged_style()
    for k, name in enumerate(plan.steps):
        row = top + k
        ws.set(row, 1, res.model_id, "s", plain)
        ws.set(row, 2, name, "s", plain)
        ws.set(row, 3, plan.units[k], "s", plain)
        for i, formula in enumerate(plan.formulas[k]):
            col = FIRST_COL + i
            if isinstance(formula, str):
                ws.set(row, col, plan.fill(formula, top, title), "f", plan.styles[k])
                cells.append(
                    Cell(
                        ws.title,
                        f"{column_letter(col)}{row}",
                        res.model_id,
                        name,
                        plan.set_keys[i],
                        at=(row, col),
                    )
                )
            else:
                ws.set(row, col, formula, "n", plan.styles[k])
    return {name: top + k for k, name in enumerate(plan.steps)}
