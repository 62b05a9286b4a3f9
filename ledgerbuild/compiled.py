"""Float evaluation of the ledger: the sympy declarations compiled to plain Python source.

Scope: a list of quantities (one model variant, in ledger order) becomes a Python function of
{input name: number} that fills in every quantity, using only the node kinds the
ledger uses (those of exact.py). Integer inputs stay Python ints through sums, products and
floor/ceiling, so counts come out as ints; anything divided or scaled by a fraction is a float
(rationals are written as float literals). About a hundred times faster than the exact path:
for cached values and sweeps, where doubles are what Excel holds anyway.
Shortcut: each form is compiled once per process, in memory (not on disk); a variant's or a
block's evaluator is the list of its forms' functions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import sympy as sp

from .ledger import Quantity

_RELATIONS = {
    sp.Eq: "==",
    sp.Ne: "!=",
    sp.StrictLessThan: "<",
    sp.LessThan: "<=",
    sp.StrictGreaterThan: ">",
    sp.GreaterThan: ">=",
}


def python_source(expr, exact: bool = False) -> str:
    """The expression as Python source over v['name']. Floats (the default): rationals as
    float literals, `**` for powers. exact=True: exact.py's arithmetic in source form
    (rationals as `_F(p, q)` Fractions, powers through `_pow` = rules.exact_power, a log of
    the float), for the numeric path's generated ledger (numeric_gen.py)."""
    if expr.is_Symbol:
        return f"v[{expr.name!r}]"
    if expr.is_Integer:
        return repr(int(expr))
    if expr.is_Rational:
        return f"_F({int(expr.p)}, {int(expr.q)})" if exact else repr(float(expr))
    if expr in (sp.true, sp.false):
        return repr(bool(expr))
    if expr is sp.pi:
        return "_pi"
    if isinstance(expr, sp.Piecewise):  # the first true condition wins; the rest unevaluated
        *branches, (last, _) = expr.args
        out = python_source(last, exact)
        for value, condition in reversed(branches):
            out = f"({python_source(value, exact)} if {python_source(condition, exact)} else {out})"
        return out
    args = [python_source(a, exact) for a in expr.args]
    if isinstance(expr, sp.Add):
        return "(" + " + ".join(args) + ")"
    if isinstance(expr, sp.Mul):
        return "(" + " * ".join(args) + ")"
    if isinstance(expr, sp.Pow):  # floats: an int to a negative int is a float, as in Excel
        return f"_pow({args[0]}, {args[1]})" if exact else f"({args[0]} ** {args[1]})"
    if isinstance(expr, (sp.Min, sp.Max)):
        return f"{'min' if isinstance(expr, sp.Min) else 'max'}({', '.join(args)})"
    if isinstance(expr, sp.log):
        return f"_log(float({args[0]}))" if exact else f"_log({args[0]})"
    if isinstance(expr, sp.floor):
        return f"_floor({args[0]})"
    if isinstance(expr, sp.ceiling):
        return f"_ceil({args[0]})"
    if isinstance(expr, sp.And):
        return "(" + " and ".join(args) + ")"
    if isinstance(expr, sp.Or):
        return "(" + " or ".join(args) + ")"
    if type(expr) in _RELATIONS:
        return f"({args[0]} {_RELATIONS[type(expr)]} {args[1]})"
    raise TypeError(f"no compiled form for {type(expr).__name__}: {expr}")


_SCOPE: dict[str, Any] = {"_floor": math.floor, "_ceil": math.ceil, "_log": math.log, "_pi": math.pi}
_FUNCTIONS: dict[int, tuple[Quantity, Callable[[dict], Any]]] = {}  # id(form) -> (form, its function)


def _functions(quantities: Sequence[Quantity]) -> list[Callable[[dict], Any]]:
    """Each form's function of {name: number}, compiled once per process (those not yet
    compiled in one batch): variants and the subsets a workbook block needs share them."""
    missing = [q for q in quantities if _FUNCTIONS.get(id(q), (None,))[0] is not q]
    if missing:
        source = "[" + ",\n".join(f"lambda v: {python_source(q.expr)}" for q in missing) + "]"
        functions = eval(compile(source, "<ledger compiled>", "eval"), _SCOPE)
        for q, function in zip(missing, functions, strict=True):
            _FUNCTIONS[id(q)] = (q, function)
    return [_FUNCTIONS[id(q)][1] for q in quantities]


def compile_quantities(quantities: Sequence[Quantity]) -> Callable[[dict], dict]:
    """A function that adds each quantity's value to the given {name: number} dict; a
    quantity already there (set on the command line) keeps its value."""
    steps = tuple(zip([q.name for q in quantities], _functions(quantities), strict=True))

    def evaluate(v: dict) -> dict:
        for name, function in steps:
            if name not in v:
                v[name] = function(v)
        return v

    return evaluate


_COMPILED: dict[tuple[int, ...], Callable[[dict], dict]] = {}


def evaluator_for(quantities: Sequence[Quantity]) -> Callable[[dict], dict]:
    """compile_quantities, once per list of quantities (a model variant); the list object a
    ledger hands out for a tag set is looked up by identity first (kept alive beside it)."""
    same = _BY_LIST.get(id(quantities))
    if same is not None and same[0] is quantities:
        return same[1]
    key = tuple(id(q) for q in quantities)
    if key not in _COMPILED:
        _COMPILED[key] = compile_quantities(quantities)
    _BY_LIST[id(quantities)] = (quantities, _COMPILED[key])
    return _COMPILED[key]


_BY_LIST: dict[int, tuple[Sequence[Quantity], Callable[[dict], dict]]] = {}


_NEEDED: dict[tuple[int, frozenset], list[Quantity]] = {}


def needed_for(quantities: Sequence[Quantity], names: frozenset[str]) -> list[Quantity]:
    """The quantities (in the list's order) that `names` depend on, themselves included: a
    workbook block needs ~40 of a variant's ~450 (remembered per list and names)."""
    key = (id(quantities), names)
    if key not in _NEEDED:
        by_name = {q.name: q for q in quantities}
        wanted: set[str] = set()
        todo = [n for n in names if n in by_name]
        while todo:
            name = todo.pop()
            if name not in wanted:
                wanted.add(name)
                todo += [s.name for s in by_name[name].expr.free_symbols if s.name in by_name]
        _NEEDED[key] = [q for q in quantities if q.name in wanted]
        _BY_LIST[id(_NEEDED[key])] = (_NEEDED[key], compile_quantities(_NEEDED[key]))
    return _NEEDED[key]
