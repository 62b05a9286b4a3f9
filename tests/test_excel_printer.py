"""The Excel printer: one exact-string test per construct (expected strings are Excel syntax
as documented by Microsoft: `^` for powers, unary minus binds tighter than `^`, IF/AND/MAX)."""

import pytest
import sympy as sp

from ledgerbuild.ledger import load_formulas
from ledgerbuild.printers.excel import ExcelPrintError, excel_formula

x, y, z = sp.symbols("x y z")

CASES = [
    ("power", x**2, "=x^2"),
    ("unary-minus-before-power", -(x**2), "=-(x^2)"),
    ("minus-power-in-sum", y - x**2, "=y - (x^2)"),
    ("negative-coefficient", -2 * x, "=-2*x"),
    ("division", x / (y * z), "=x/(y*z)"),
    ("reciprocal", 1 / x, "=1/x"),
    ("rational-coefficient", 3 * x / 2, "=3*x/2"),
    ("power-of-sum", (1 - x / y) ** z, "=(1 - x/y)^z"),
    ("sqrt", sp.sqrt(x), "=SQRT(x)"),
    ("max", sp.Max(0, x - y), "=MAX(0, x - y)"),
    ("min", sp.Min(x, y), "=MIN(x, y)"),
    ("floor", sp.floor(x / y), "=INT(x/y)"),
    ("ceiling", sp.ceiling(x / y), "=-INT(-(x/y))"),
    ("piecewise-eq", sp.Piecewise((x, sp.Eq(y, 0)), (z, True)), "=IF(y=0, x, z)"),
    ("piecewise-and", sp.Piecewise((x, sp.And(y > 0, z > 0)), (z, True)), "=IF(AND(y>0, z>0), x, z)"),
    ("nested-piecewise", sp.Piecewise((x, y > 1), (z, y > 0), (0, True)), "=IF(y>1, x, IF(y>0, z, 0))"),
    ("big-integer", x * 10**12, "=1000000000000*x"),
    ("names", x + y, "=a + B5"),
]


@pytest.mark.parametrize("expr,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_construct(expr, expected):
    names = {"x": "a", "y": "B5"} if expected == "=a + B5" else None
    assert excel_formula(expr, names) == expected


@pytest.mark.parametrize(
    "expr", [sp.zoo, sp.nan, sp.oo, sp.Function("mystery")(x), sp.Piecewise((x, y > 0)), sp.I * x]
)
def test_strict_unprintable_raises(expr):
    with pytest.raises(ExcelPrintError):
        excel_formula(expr)


def test_every_ledger_formula_prints_without_python_syntax():
    for forms in load_formulas().forms.values():
        for q in forms:
            text = excel_formula(q.expr)
            assert "**" not in text and "ceiling(" not in text and "Piecewise" not in text, q.name
