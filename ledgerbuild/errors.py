"""User-facing errors: one clear line naming the file, entry and field; the CLI exits 2."""
from __future__ import annotations

import difflib


class LedgerError(Exception):
    """Bad input from a user or a catalog file. str(e) is the one line to print."""


def close_matches(word: str, choices) -> str:
    """' (did you mean a, b?)' or ', valid: ...' for an unknown id."""
    choices = sorted(choices)
    near = difflib.get_close_matches(word, choices, n=3, cutoff=0.5)
    if near:
        return f" (did you mean {', '.join(near)}?)"
    if len(choices) > 20:
        return " (see `ledgerbuild list quantities`; inputs are declared in formulas/inputs.py)"
    return f"; valid: {', '.join(choices)}"
