"""Typed values read from an HF config.json: whole-number counts, yes/no flags, real numbers.

Scope: the getters every family reader shares (families.py for the text decoder, families_vision.py
and families_towers.py for the vision towers); each raises LedgerError naming the field. They sit
below the readers so that none imports another's module for them.
"""

from __future__ import annotations

from .errors import LedgerError

MAX_COUNT = 2**53  # larger counts are not exact in a double (Excel) and are no model's


def count(config: dict, key: str, default: int | None = None, lo: int = 0) -> int:
    """A count from the config: a whole number (not a bool, a string or a float), lo..2^53."""
    value = config.get(key)
    if value is None:
        if default is None:
            raise LedgerError(f"field {key}: missing")
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise LedgerError(f"field {key}: must be a whole number, got {shown(value)}")
    if not lo <= value <= MAX_COUNT:
        raise LedgerError(f"field {key}: must be in {lo}..2^53, got {shown(value)}")
    return value


def flag(config: dict, key: str) -> int:
    """A yes/no field: true, false (or 1, 0); absent is false."""
    value = config.get(key, False)
    if value is None:
        return 0
    if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
        return int(value)
    raise LedgerError(f"field {key}: must be true or false, got {shown(value)}")


def number(config: dict, key: str, default: float, lo: float = 0) -> float:
    """A real number from the config: an int or a finite float (not a bool or a string), >= lo."""
    value = config.get(key)
    if value is None:
        return default
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or value != value
        or value in (float("inf"), float("-inf"))
        or abs(value) > 1e30
    ):
        raise LedgerError(f"field {key}: must be a number, got {shown(value)}")
    if value < lo:
        raise LedgerError(f"field {key}: must be >= {lo}, got {shown(value)}")
    return value


def shown(value) -> str:
    """A value as an error message quotes it: its repr (cut to 40 characters) and its type."""
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**30 else "a huge number"
    return f"{text[:40]} ({type(value).__name__})"
