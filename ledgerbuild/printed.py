"""The printed ledger: what the writers print, as the generated numeric ledger holds it.

Scope: each quantity form's Excel formula and LaTeX (per set of structural fields a model has
at 0), printed once from its sympy declaration when the numeric ledger is generated
(numeric_gen.py `_printed`), read here as templates whose symbol names the writers fill per
cell or per model; the declared inputs as ledger.Input records with their computed defaults
printed (`Printed`); `printed_ledger()`, the Ledger the workbook writer reads. No sympy.
Shortcut: a form's templates are made once per process (cached by their parts).
"""

from __future__ import annotations

from functools import cache

from .ledger import Input, Ledger
from .numeric import Form, numeric_ledger, quantity_forms
from .printers.template import NameTemplate


def latex_of(form: Form, zeros: frozenset) -> NameTemplate:
    """The form's LaTeX for a model whose structural fields `zeros` are 0 (those terms dropped)."""
    fields, printed = numeric_ledger().LATEX[form.index]
    return _template(printed[tuple(n for n in fields if n in zeros)])


def excel_of(form: Form) -> NameTemplate:
    """The form's Excel formula, its names left to fill."""
    return _template(numeric_ledger().EXCEL[form.index])


@cache
def _template(parts: tuple) -> NameTemplate:
    return NameTemplate.of_parts(parts)


class Printed:
    """A declared expression as the writers use it without sympy: its Excel template (names:
    the symbols it reads) and, for a scenario input's default, its exact function. A key's
    default that follows another key is the template of that key's name."""

    def __init__(self, parts: tuple, function=None):
        self.template = _template(parts)
        self.function = function

    def __str__(self) -> str:
        return self.template.fill({}).removeprefix("=")


@cache
def printed_ledger():
    """The ledger as the writers read it: ledger.Input records, the quantities' Forms (their
    printed templates through excel_of / latex_of), no sympy."""
    g = numeric_ledger()
    inputs = {}
    for name, r in g.INPUTS.items():
        default = r["default"]
        if r["kind"] == "key" and r["follows"]:
            default = Printed(("=", default, ""))
        elif name in g.DEFAULT_EXCEL:
            default = Printed(g.DEFAULT_EXCEL[name], g.DEFAULTS[name])
        scale = r["scale_name"] or r["scale"]
        inputs[name] = Input(
            name, r["kind"], r["unit"], r["description"], r["source"], r["lo"], r["hi"], r["integer"],
            default, r["table"], r["key"], r["column"], scale, r["qualifier"], r["tex"], r["hi_open"],
        )  # fmt: skip
    return Ledger(inputs=inputs, forms=quantity_forms(), topics=list(g.TOPICS))
