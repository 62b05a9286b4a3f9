"""The sympy declarations as plain Python source, for the generated numeric ledger.

Scope: an expression becomes Python source over v['name'], using only the node kinds the
ledger uses (those of exact.py). Floats (the default): integer inputs stay Python ints through
sums, products and floor/ceiling, so counts come out as ints; anything divided or scaled by a
fraction is a float (rationals are written as float literals); about a hundred times faster
than the exact path, for cached values and sweeps, where doubles are what Excel holds anyway.
exact=True: exact.py's arithmetic in source form. numeric_gen.py writes both per form;
numeric.py runs them (evaluate_floats, evaluate).
"""

from __future__ import annotations

import sympy as sp

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
    if isinstance(expr, sp.Mod):  # Python's % has the divisor's sign, as Excel's MOD
        return f"({args[0]} % {args[1]})"
    if isinstance(expr, sp.ceiling):
        return f"_ceil({args[0]})"
    if isinstance(expr, sp.And):
        return "(" + " and ".join(args) + ")"
    if isinstance(expr, sp.Or):
        return "(" + " or ".join(args) + ")"
    if type(expr) in _RELATIONS:
        return f"({args[0]} {_RELATIONS[type(expr)]} {args[1]})"
    raise TypeError(f"no compiled form for {type(expr).__name__}: {expr}")
