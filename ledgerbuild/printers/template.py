"""Print an expression once, fill its symbols in per use (shared by the Excel and LaTeX printers).

Printing sympy trees is the slow part of writing a workbook or a set of derivations; cells and
derivations that share an expression differ only in what their symbols show (a defined name,
a sheet-qualified name, a GPU lookup, a value). `NameTemplate(print_fn, expr)` prints the
expression with placeholder names; `fill(name_of)` substitutes them by string.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from functools import cache

_MARK = "\x00"


class NameTemplate:
    def __init__(self, print_fn: Callable, expr):
        placeholders = {s: f"{_MARK}{s.name}{_MARK}" for s in expr.free_symbols}
        self._parts = print_fn(expr, placeholders).split(_MARK)  # odd positions: symbol names

    @classmethod
    def of_parts(cls, parts) -> NameTemplate:
        """A template printed earlier (the numeric ledger keeps its forms' parts)."""
        template = cls.__new__(cls)
        template._parts = list(parts)
        return template

    @functools.cached_property
    def names(self) -> frozenset[str]:
        """The symbols it shows."""
        return frozenset(self._parts[1::2])

    @property
    def parts(self) -> list[str]:
        """Literal text at even positions, symbol names at odd ones."""
        return self._parts

    def fill(self, name_of: Callable[[str], str] | dict) -> str:
        names: dict = name_of if isinstance(name_of, dict) else {}
        lookup = (lambda p: str(names.get(p, p))) if isinstance(name_of, dict) else name_of
        parts = self._parts
        out = parts[:]  # even positions are literal text, odd ones symbol names
        for i in range(1, len(parts), 2):
            out[i] = lookup(parts[i])
        return "".join(out)


@cache
def cached(print_fn: Callable, expr) -> NameTemplate:
    return NameTemplate(print_fn, expr)
