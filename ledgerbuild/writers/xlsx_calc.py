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

import functools
from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

from ..evaluate import Result, to_plain
from ..ledger import Ledger
from ..printers.excel import formula_template
from ..units import excel_format
from .xlsx_book import column_letter
from .xlsx_layout import FORMULA_FILL, LOOKUP_FILL, merged_style
from .xlsx_models import Cell
from .xlsx_tables import lookup_formula

FIRST_COL = 4  # columns A-C: model, step, unit


@dataclass
class Variation:
    """What each column of a block re-binds: name -> (column letter -> cell text), and the
    --set that reproduces each column for the referee."""

    binds: dict[str, Callable[[str], str]]
    sets: list[dict[str, str]]


def _forms(ledger: Ledger, res: Result) -> dict[str, sp.Basic]:
    """Expressions of the model's quantities and of the inputs whose default is a formula."""
    forms: dict[str, sp.Basic] = {q.name: q.expr for q in res.quantities}
    values = {sp.Symbol(k): v for k, v in res.inputs.items()}
    forms.update(
        {
            i.name: i.default
            for i in ledger.inputs.values()
            if i.kind == "scenario"
            and isinstance(i.default, sp.Basic)
            and i.default.xreplace(values) == res.inputs[i.name]
        }
    )  # not set by the user
    return forms


@functools.lru_cache(maxsize=4096)
def symbol_names(expr: sp.Basic) -> tuple[str, ...]:
    return tuple(s.name for s in expr.free_symbols)


def steps(ledger: Ledger, res: Result, targets: list[str], bound: set[str]) -> list[str]:
    """The lookups and quantities `targets` need that depend on a bound name: lookups first,
    then in ledger order (inputs with formula defaults before the quantities)."""
    forms = _forms(ledger, res)
    lookups = {i.name: i for i in ledger.inputs_of("lookup")}
    depends: dict[str, bool] = {}

    def dep(name: str) -> bool:
        if name not in depends:
            inp = lookups.get(name)
            depends[name] = (
                name in bound
                or (inp is not None and (inp.key in bound or inp.qualifier in bound))
                or (name in forms and any(dep(s) for s in symbol_names(forms[name])))
            )
        return depends[name]

    needed: set[str] = set()

    def close(name: str) -> None:
        if name in needed or name in bound or not dep(name):
            return
        needed.add(name)
        for s in symbol_names(forms[name]) if name in forms else ():
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
    parts = list(formula_template(forms[name]).parts)
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


def write_block(
    ws,
    top: int,
    ledger: Ledger,
    res: Result,
    targets: list[str],
    variation: Variation,
    names: dict[str, str],
    cells: list[Cell],
) -> dict[str, int]:
    """Rows from `top` down; returns step name -> row (the caller reads targets there)."""
    forms = _forms(ledger, res)
    columns = [column_letter(FIRST_COL + i) for i in range(len(variation.sets))]
    bound_by_col = [{n: bind(col) for n, bind in variation.binds.items()} for col in columns]
    set_keys = [tuple(sorted(sets.items())) for sets in variation.sets]
    rows: dict[str, int] = {}
    plain = merged_style()
    for name in _steps(ledger, res, forms, targets, frozenset(variation.binds)):
        row = top + len(rows)
        is_lookup = name in ledger.inputs and ledger.inputs[name].kind == "lookup"
        item = ledger.inputs[name] if name in ledger.inputs else ledger.any_form(name)
        ws.set(row, 1, res.model_id, "s", plain)
        ws.set(row, 2, name, "s", plain)
        ws.set(row, 3, item.unit, "s", plain)
        style = merged_style(
            fill=LOOKUP_FILL if is_lookup else FORMULA_FILL,
            number_format=excel_format(item.unit, item.integer),
        )
        formulas = _row_formulas(ledger, res, name, forms, names, bound_by_col, rows, columns)
        for i, (col, formula) in enumerate(zip(columns, formulas, strict=True)):
            ws.set(row, FIRST_COL + i, formula, "f" if isinstance(formula, str) else "n", style)
            cells.append(
                Cell(ws.title, f"{col}{row}", res.model_id, name, set_keys[i], at=(row, FIRST_COL + i))
            )
        rows[name] = row
    return rows


_STEPS: dict[tuple, list[str]] = {}


def _steps(ledger: Ledger, res: Result, forms: dict, targets: list[str], bound: frozenset) -> list[str]:
    """steps(), remembered per variant, set of forms, targets and re-bound names (a
    1,000-model workbook has a few dozen kinds of model)."""
    key = (res.tags, frozenset(forms), frozenset(res.overridden), tuple(targets), bound)
    if key not in _STEPS:
        _STEPS[key] = steps(ledger, res, targets, set(bound))
    return _STEPS[key]
