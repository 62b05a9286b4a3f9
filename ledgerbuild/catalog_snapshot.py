"""The shipped catalogs, validated once: each shipped YAML file's validated entries kept as
plain data in the cache folder and rebuilt without parsing or validating while the file's
text and the catalog classes are the same.

Scope: the files of the package's catalog folders (models/, hardware/, scenarios/), which
every command reads; a user's files are always parsed and validated. An entry is keyed by
the table it fills and a hash of the file's text; the snapshot file by a hash of catalog.py
and catalog_entries.py (the classes and their validators), pydantic's version and Python's.
Rebuilt entries are the validated ones' fields through `model_construct` (equal field for field:
tests/test_catalog_snapshot.py checks every shipped file). Shortcuts: a file whose data
marshal cannot hold is validated every time; the snapshot is written once, at exit, by the
process that found it incomplete.
"""

from __future__ import annotations

import atexit
import hashlib
import marshal
import os
import sys
from collections.abc import Callable
from pathlib import Path

from .errors import LedgerError
from .files import cache_dirs, write_output

_MOST = 1000  # entries kept (a changed file adds one; the oldest go first)
_snapshot: dict | None = None
_dirty_in: int | None = None  # the process that added entries (a forked worker leaves them)


def _name() -> str:
    import pydantic

    h = hashlib.sha256(sys.version.encode() + pydantic.VERSION.encode())
    for name in ("catalog.py", "catalog_entries.py"):  # the loader and the schema
        h.update((Path(__file__).parent / name).read_bytes())
    return f"catalog_{h.hexdigest()[:20]}.marshal"


def _entries() -> dict:
    global _snapshot
    if _snapshot is None:
        _snapshot = {}
        for folder in cache_dirs():
            try:
                found = marshal.loads((folder / _name()).read_bytes())
            except (OSError, ValueError, EOFError, TypeError):
                continue
            if isinstance(found, dict):
                _snapshot = found
                break
    return _snapshot


def validated(table: str, path: Path, text: str, classes: dict, build: Callable[[], dict]) -> dict:
    """{id: entry} of a shipped file: from the snapshot, else `build()` (parse and validate)
    and remember it. `classes`: the entry classes by name."""
    key = hashlib.sha256(f"{table}\0{path.name}\0{text}".encode()).hexdigest()
    found = _entries().get(key)
    if found is not None:
        return {entry_id: classes[cls].model_construct(**data) for entry_id, (cls, data) in found.items()}
    built = build()
    record = {entry_id: (type(e).__name__, e.model_dump()) for entry_id, e in built.items()}
    try:
        marshal.dumps(record)
    except ValueError:  # a value marshal cannot hold
        return built
    _entries()[key] = record
    _remember()
    return built


def _remember() -> None:
    global _dirty_in
    if _dirty_in is None:
        _dirty_in = os.getpid()
        atexit.register(_save)


def _save() -> None:
    if _dirty_in != os.getpid() or _snapshot is None:
        return
    kept = dict(list(_snapshot.items())[-_MOST:])
    data = marshal.dumps(kept)
    for folder in cache_dirs():
        try:
            write_output(folder / _name(), lambda tmp: Path(tmp).write_bytes(data))
            return
        except LedgerError:  # an unwritable folder: the next one
            continue
