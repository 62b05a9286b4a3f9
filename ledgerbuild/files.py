"""Output files written atomically: a temporary file beside the target, renamed into place.

A failed or interrupted run leaves the previous file (or none), never a half-written one.
"""
from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from .errors import LedgerError


def atomic_save(path: Path, save: Callable[[str], object]) -> None:
    """Call save(temporary path), then rename the result onto `path`."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    os.close(fd)
    try:
        save(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_output(path: Path, save: Callable[[str], object]) -> None:
    """atomic_save with the folder made and OS errors as one line."""
    path = Path(path)
    if path.is_dir():
        raise LedgerError(f"{path}: is a folder, expected a file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_save(path, save)
    except OSError as e:
        raise LedgerError(f"{path}: cannot write ({e.strerror})") from None


def write_text(path: Path, text: str) -> None:
    write_output(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
