"""ledgerbuild: the arithmetic of transformer LLM inference, declared once in sympy.

Python API: `ledgerbuild.evaluate.evaluate(model, sets)` returns every quantity of a model's
variant for a scenario; `ledgerbuild.writers.xlsx.write_workbook` writes the live workbook.
"""

__version__ = "0.1.0"
