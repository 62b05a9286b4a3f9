"""The ledger core: inputs and quantities declared once, symbolically.

Scope: the registry that `formulas/` fills. An *input* is a named symbol whose value comes
from a model catalog entry, from the scenario, or from a lookup into a catalog table keyed by
a scenario choice (the GPU, the precision, the workload, the time model). A *quantity* is a
sympy expression over inputs and other quantities, with unit, description, citation and
topic. A quantity may have several forms, one per architecture variant (`when`); a model
sees exactly one form of each quantity that applies to it.

Shortcuts: a single process-wide ledger (`LEDGER`), filled by importing `formulas`;
declaration order is evaluation order (a quantity may only use what was declared before it).
The module imports sympy only where a symbol is made: the writers read a Ledger built from
the generated numeric ledger (printed.py: printed_ledger) without it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .variants import VARIANTS

if TYPE_CHECKING:
    import sympy as sp


@dataclass(frozen=True)
class Input:
    """A named input symbol.

    kind: "model" (a catalog field), "scenario" (a number the user sets), "key" (a string
    choice naming a row of a catalog table), "lookup" (a column of a catalog table, read
    at the row a key input names), or "constant" (a unit conversion, named so that no formula
    hides a number: seconds per hour, bytes per GiB).
    """

    name: str
    kind: str
    unit: str
    description: str
    source: str
    lo: float | None = None
    hi: float | None = None
    integer: bool = False
    default: object = None  # number, sympy expression over inputs, or key string
    table: str | None = None  # key/lookup: catalog table
    key: str | None = None  # lookup: the key input naming the row
    column: str | None = None  # lookup: the table column
    scale: object = 1  # lookup: catalog unit -> base unit (a constant's symbol, e.g. TB/s -> B/s)
    qualifier: str | None = None  # lookup: a key input whose row `key@qualifier` wins if present
    tex: str | None = None  # math symbol in derivations (default: \mathrm{name})
    hi_open: bool = False  # the range excludes hi (a probability below 1)

    @property
    def symbol(self) -> sp.Symbol:
        import sympy as sp

        return sp.Symbol(self.name)


@dataclass(frozen=True)
class Quantity:
    name: str
    expr: sp.Expr
    unit: str
    description: str
    source: str
    topic: str
    when: str | None = None  # variant tag this form applies to; None = every model
    integer: bool = False

    @property
    def symbol(self) -> sp.Symbol:
        import sympy as sp

        return sp.Symbol(self.name)


@dataclass
class Ledger:
    inputs: dict[str, Input] = field(default_factory=dict)
    # name -> its forms: Quantity as declared; numeric.Form in the writers' printed_ledger()
    forms: dict[str, list[Any]] = field(default_factory=dict)
    variants: dict[str, Callable[[dict], bool]] = field(default_factory=lambda: dict(VARIANTS))
    topics: list[str] = field(default_factory=list)
    _chosen: dict = field(default_factory=dict, repr=False)  # tags -> quantities_for

    # -- declaration ---------------------------------------------------------------------
    def add_input(self, item: Input) -> sp.Symbol:
        if item.name in self.inputs or item.name in self.forms:
            raise ValueError(f"input {item.name!r} declared twice")
        self.inputs[item.name] = item
        return item.symbol

    def add_quantity(self, q: Quantity) -> sp.Symbol:
        if q.name in self.inputs:
            raise ValueError(f"quantity {q.name!r} clashes with an input")
        unknown = {s.name for s in q.expr.free_symbols} - self.known_names()
        if unknown:
            raise ValueError(f"quantity {q.name!r} uses undeclared {sorted(unknown)}")
        forms = self.forms.setdefault(q.name, [])
        if any(f.when == q.when for f in forms):
            raise ValueError(f"quantity {q.name!r} declared twice for variant {q.when!r}")
        forms.append(q)
        self._chosen.clear()
        if q.topic not in self.topics:
            self.topics.append(q.topic)
        return q.symbol

    def known_names(self) -> set[str]:
        return set(self.inputs) | set(self.forms)

    # -- reading -------------------------------------------------------------------------
    def tags_for(self, model_fields: dict) -> frozenset[str]:
        """The variant tags that hold for a model's fields."""
        return frozenset(t for t, test in self.variants.items() if test(model_fields))

    def quantities_for(self, tags: frozenset[str]) -> list[Quantity]:
        """One form per quantity that applies to a model with these tags, in ledger order
        (remembered per tag set until a declaration changes the ledger)."""
        if tags not in self._chosen:
            self._chosen[tags] = self._choose(tags)
        return self._chosen[tags]

    def _choose(self, tags: frozenset[str]) -> list[Quantity]:
        chosen = []
        for forms in self.forms.values():
            for f in forms:
                if f.when is None or f.when in tags:
                    chosen.append(f)
                    break
        return chosen

    def any_form(self, name: str) -> Quantity:
        return self.forms[name][0]

    def inputs_of(self, kind: str) -> list[Input]:
        return [i for i in self.inputs.values() if i.kind == kind]


LEDGER = Ledger()


def model_input(
    name, unit, description, *, source="HF config.json", lo=0, hi=None, integer=True, default=None, tex=None
) -> sp.Symbol:
    return LEDGER.add_input(
        Input(name, "model", unit, description, source, lo, hi, integer, default, tex=tex)
    )


def constant(name, value, unit, description, *, source, tex) -> sp.Symbol:
    """A unit conversion with a name (and its number in derivations: `tex`)."""
    return LEDGER.add_input(
        Input(name, "constant", unit, description, source, value, value, False, value, tex=tex)
    )


def scenario_input(
    name, unit, description, *, source, default, lo=None, hi=None, integer=False, tex=None, hi_open=False
) -> sp.Symbol:
    return LEDGER.add_input(
        Input(name, "scenario", unit, description, source, lo, hi, integer, default, tex=tex, hi_open=hi_open)
    )


def key_input(name, description, *, table, default, source) -> None:
    LEDGER.add_input(Input(name, "key", "id", description, source, default=default, table=table))


def lookup_input(
    name,
    unit,
    description,
    *,
    key,
    column,
    scale=1,
    source,
    tex=None,
    qualifier=None,
    lo=0,
    hi=None,
    integer=False,
) -> sp.Symbol:
    """A catalog column; lo/hi/integer bound a value typed over it (--set, the workbook)."""
    table = LEDGER.inputs[key].table
    return LEDGER.add_input(
        Input(
            name,
            "lookup",
            unit,
            description,
            source,
            lo=lo,
            hi=hi,
            integer=integer,
            table=table,
            key=key,
            column=column,
            scale=scale,
            tex=tex,
            qualifier=qualifier,
        )
    )


def quantity(name, expr, unit, description, *, source, topic, when=None, integer=False) -> sp.Symbol:
    import sympy as sp

    return LEDGER.add_quantity(
        Quantity(name, sp.sympify(expr), unit, description, source, topic, when, integer)
    )


def load_formulas() -> Ledger:
    """Import every topic module of `formulas/` (idempotent) and return the ledger."""
    import ledgerbuild.formulas  # noqa: F401  (declarations happen on import)

    return LEDGER
