"""What the workbook and the documents share: the --models / --gpus selection and a progress
bar (rich, imported only when a terminal shows one)."""

from __future__ import annotations

import glob
from pathlib import Path

from ..errors import LedgerError, close_matches


def select(spec: str, valid: dict, what: str) -> list[str]:
    """Comma-separated items: 'all' (the catalog), ids, or (models and GPUs) file paths, folders
    of them and glob patterns (`models/*.yaml`); the order kept, repeats dropped."""
    items = [s.strip() for s in spec.split(",") if s.strip()]
    if not items:
        raise LedgerError(f"--{what}: no ids given")
    chosen: list[str] = []
    for item in items:
        if item == "all":
            chosen += list(valid)
        elif item in valid:
            chosen.append(item)
        elif Path(item).is_dir():
            found = sorted(str(p) for p in Path(item).iterdir() if p.suffix in (".yaml", ".yml", ".json"))
            if not found:
                raise LedgerError(f"--{what}: {item}: no .yaml or .json files in the folder")
            chosen += found
        elif any(ch in item for ch in "*?["):
            found = sorted(glob.glob(item))
            if not found:
                raise LedgerError(f"--{what}: {item}: the pattern matches no file")
            chosen += found
        elif Path(item).suffix:
            chosen.append(item)
        else:
            raise LedgerError(
                f"--{what}: unknown id {item!r}{close_matches(item, valid)}; valid: {', '.join(valid)}"
            )
    return list(dict.fromkeys(chosen))


def progress_bar(items, enabled: bool, label: str):
    """A progress bar on stderr (rich) when `enabled` (the CLI: stderr is a terminal and no
    --quiet), nothing otherwise; stdout keeps only the run's data."""
    if not enabled:
        return items
    from rich.console import Console
    from rich.progress import track

    return track(items, description=label, transient=True, console=Console(stderr=True))
