"""User-facing errors: one clear line naming the file, entry and field; the CLI exits 2."""

from __future__ import annotations

import difflib


class LedgerError(Exception):
    """Bad input from a user or a catalog file. str(e) is the one line to print."""


def close_matches(word: str, choices, listing: str | None = None) -> str:
    """' (did you mean a, b?)' or '; valid: ...' for an unknown id; for long lists, the
    `ledgerbuild list` that shows them."""
    choices = sorted(choices)
    near = difflib.get_close_matches(word, choices, n=3, cutoff=0.5)
    if near:
        return f" (did you mean {', '.join(near)}?)"
    if len(choices) > 20:
        return f" (see `ledgerbuild list {listing}`)" if listing else ""
    return f"; valid: {', '.join(choices)}"


def one_line(message: str, limit: int = 600) -> str:
    """A message as one printable line: control characters shown escaped, long text cut."""
    text = "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in str(message)
    )
    return text if len(text) <= limit else text[:limit] + f"... ({len(text):,} characters)"
