"""Exact evaluation of ledger expressions with Python integers and Fractions.

Scope: a sympy expression compiled once into nested closures over the node kinds the
ledger uses (Add, Mul, Pow, Min, Max, floor, ceiling, Piecewise, relations, And). The
arithmetic is the same exact rational arithmetic sympy performs, without building a sympy
tree per evaluation (about ten times faster). An unsupported node raises at compile time.
Shortcut: a non-integer power, pi and log fall back to float (RoPE's wavelengths are not
counts).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from fractions import Fraction
from functools import reduce
from typing import Any

import sympy as sp

from .rules import exact_power

Fn = Callable[[dict], Any]
_RELATIONS = {
    sp.Eq: operator.eq,
    sp.Ne: operator.ne,
    sp.StrictLessThan: operator.lt,
    sp.LessThan: operator.le,
    sp.StrictGreaterThan: operator.gt,
    sp.GreaterThan: operator.ge,
}


def compile_exact(expr) -> Fn:
    """A function of {symbol name: int | Fraction} giving the expression's exact value."""
    if expr.is_Symbol:
        name = expr.name
        return lambda v: v[name]
    if expr.is_Integer:
        whole = int(expr)
        return lambda v: whole
    if expr.is_Rational:
        ratio = Fraction(int(expr.p), int(expr.q))
        return lambda v: ratio
    if expr in (sp.true, sp.false):
        truth = bool(expr)
        return lambda v: truth
    if expr is sp.pi:  # irrational: a float from here on (RoPE wavelengths)
        return lambda v: math.pi
    if isinstance(expr, sp.Piecewise):  # branches evaluated lazily, first true condition wins
        pairs = [(compile_exact(e), compile_exact(c)) for e, c in expr.args]
        return lambda v: next(e(v) for e, c in pairs if c(v))
    args = [compile_exact(a) for a in expr.args]
    if isinstance(expr, sp.Add):
        return lambda v: sum(f(v) for f in args)
    if isinstance(expr, sp.Mul):
        return lambda v: reduce(operator.mul, (f(v) for f in args))
    if isinstance(expr, sp.Pow):
        base, exp = args
        return lambda v: exact_power(base(v), exp(v))
    if isinstance(expr, (sp.Min, sp.Max)):
        pick = min if isinstance(expr, sp.Min) else max
        return lambda v: pick(f(v) for f in args)
    if isinstance(expr, sp.log):
        return lambda v: math.log(float(args[0](v)))
    if isinstance(expr, sp.floor):
        return lambda v: math.floor(args[0](v))
    if isinstance(expr, sp.Mod):
        return lambda v: args[0](v) % args[1](v)
    if isinstance(expr, sp.ceiling):
        return lambda v: math.ceil(args[0](v))
    if isinstance(expr, sp.And):
        return lambda v: all(f(v) for f in args)
    if isinstance(expr, sp.Or):
        return lambda v: any(f(v) for f in args)
    if type(expr) in _RELATIONS:
        rel, (lhs, rhs) = _RELATIONS[type(expr)], args
        return lambda v: rel(lhs(v), rhs(v))
    raise TypeError(f"no exact evaluation for {type(expr).__name__}: {expr}")


def to_fraction(value: sp.Expr):
    return int(value) if value.is_Integer else Fraction(int(value.p), int(value.q))


def to_sympy(value) -> sp.Expr:
    if isinstance(value, bool):
        return sp.Integer(int(value))
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    return sp.Float(value)
