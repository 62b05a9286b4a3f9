"""Printers: sympy expressions as Excel formulas and LaTeX."""
