"""A sympy printer for Excel formula syntax, in sympy's own printer pattern.

Scope: the constructs the ledger uses. A table of known functions; overrides only where
Excel differs from sympy's string form: `^` for powers, MAX/MIN, IF for Piecewise, AND/OR,
`=`/`<>` relations, floor as INT and ceiling as -INT(-x) (exact for every sign, unlike
ROUNDUP; CEILING differs between Excel and LibreOffice for negatives). Unary minus before a
power is printed as -(x^2): Excel binds unary minus tighter than `^`. Strict: a node it
cannot print raises ExcelPrintError, never a wrong cell. Symbols print through a name map
(defined names, sheet-qualified names, or lookup formulas).
"""

from __future__ import annotations

import sympy as sp
from sympy.printing.precedence import PRECEDENCE, precedence
from sympy.printing.str import StrPrinter

from .template import NameTemplate, cached


class ExcelPrintError(ValueError):
    pass


# Excel functions newer than Excel 2007 need the _xlfn. prefix in the file format.
XLFN = {"CEILING.MATH", "FLOOR.MATH", "IFS", "MAXIFS", "MINIFS", "XLOOKUP", "CONCAT"}


class ExcelPrinter(StrPrinter):
    printmethod = "_excel"
    known_functions = {
        "Max": "MAX",
        "Min": "MIN",
        "Abs": "ABS",
        "exp": "EXP",
        "log": "LN",
        "floor": "INT",
        "Mod": "MOD",
        "sign": "SIGN",
    }

    def __init__(self, names: dict[str, str] | None = None):
        super().__init__({"order": "none"})
        self.names = names or {}

    # -- atoms ---------------------------------------------------------------------------
    def _print_Pi(self, expr):
        return "PI()"

    def _print_Symbol(self, expr):
        return self.names.get(expr.name, expr.name)

    def _print_Integer(self, expr):
        return str(expr.p)

    def _print_Rational(self, expr):
        return f"{expr.p}/{expr.q}"

    def _print_Float(self, expr):
        return repr(float(expr))

    def _print_BooleanTrue(self, expr):
        return "TRUE"

    def _print_BooleanFalse(self, expr):
        return "FALSE"

    def emptyPrinter(self, expr):
        raise ExcelPrintError(f"cannot print {type(expr).__name__} in Excel: {expr}")

    _print_Infinity = _print_NegativeInfinity = _print_ComplexInfinity = emptyPrinter
    _print_NaN = _print_ImaginaryUnit = _print_Derivative = _print_Integral = emptyPrinter
    _print_Sum = _print_Limit = _print_Matrix = _print_Lambda = emptyPrinter

    # -- arithmetic ----------------------------------------------------------------------
    def _print_Pow(self, expr):
        if expr.exp == sp.S.Half:
            return f"SQRT({self._print(expr.base)})"
        if expr.exp.is_Number and expr.exp < 0:
            return f"1/{self.parenthesize(1 / expr, PRECEDENCE['Mul'] + 1)}"
        base = self.parenthesize(expr.base, PRECEDENCE["Pow"] + 1)
        exp = self.parenthesize(expr.exp, PRECEDENCE["Pow"] + 1)
        return f"{base}^{exp}"

    def _print_Mul(self, expr):
        if expr.could_extract_minus_sign():
            positive = self._print(-expr)
            if "^" in positive or positive.startswith("-"):
                return f"-({positive})"
            return f"-{positive}"
        return super()._print_Mul(expr)

    # -- functions -----------------------------------------------------------------------
    def _print_Function(self, expr):
        name = type(expr).__name__
        if name not in self.known_functions:
            raise ExcelPrintError(f"no Excel function for {name}")
        fn = self.known_functions[name]
        fn = f"_xlfn.{fn}" if fn in XLFN else fn
        return f"{fn}({', '.join(self._print(a) for a in expr.args)})"

    _print_Max = _print_Min = _print_Abs = _print_floor = _print_Mod = _print_Function
    _print_exp = _print_log = _print_sign = _print_Function

    def _print_ceiling(self, expr):
        return f"-INT(-({self._print(expr.args[0])}))"

    def _print_Piecewise(self, expr):
        *pairs, (last_value, last_cond) = expr.args
        if last_cond != sp.true:
            raise ExcelPrintError("Piecewise without a default branch")
        text = self._print(last_value)
        for value, cond in reversed(pairs):
            text = f"IF({self._print(cond)}, {self._print(value)}, {text})"
        return text

    # -- logic ---------------------------------------------------------------------------
    _REL = {"==": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

    def _print_Relational(self, expr):
        op = self._REL[expr.rel_op]
        lhs = self.parenthesize(expr.lhs, precedence(expr))
        rhs = self.parenthesize(expr.rhs, precedence(expr))
        return f"{lhs}{op}{rhs}"

    def _print_And(self, expr):
        return f"AND({', '.join(self._print(a) for a in expr.args)})"

    def _print_Or(self, expr):
        return f"OR({', '.join(self._print(a) for a in expr.args)})"

    def _print_Not(self, expr):
        return f"NOT({self._print(expr.args[0])})"


def excel_formula(expr, names: dict[str, str] | None = None) -> str:
    """'=' + the Excel form of a sympy expression."""
    return "=" + ExcelPrinter(names).doprint(sp.sympify(expr))


def _print_with(expr, placeholders: dict) -> str:
    return "=" + ExcelPrinter({s.name: text for s, text in placeholders.items()}).doprint(expr)


def formula_template(expr) -> NameTemplate:
    """The expression's Excel formula, printed once per expression, names filled per cell."""
    return cached(_print_with, sp.sympify(expr))
