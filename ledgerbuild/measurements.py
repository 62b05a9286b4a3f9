"""Measured serving throughput: load, validate and resolve a measurement file.

Scope: a YAML file (a `rows:` list, optionally with its `source:` header, as
`measurements/trtllm_perf_v0.17.yaml`) or a CSV file, one row per measured configuration with
the fields model, gpu, precision (or dtype), tp, pp (default 1), isl, osl, tokens_per_s
(output tokens per second of the whole deployment, all requests queued). Names as a published
table prints them are mapped to catalog ids by `measurements/aliases.yaml`; catalog ids and
model/GPU YAML paths work directly. Every bad row is one LedgerError naming file, row, field.
Shortcut: a row's KV cache uses its weights' precision unless `kv_dtype` is given.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import yaml

from . import catalog
from .errors import LedgerError, close_matches
from .files import read_input
from .rules import decimal

SHIPPED = "trtllm_perf_v0.17.yaml"
REQUIRED = ("model", "gpu", "tp", "isl", "osl", "tokens_per_s")
MAX_BYTES = 50 * 2**20


@dataclass(frozen=True)
class Measurement:
    row: int  # 1-based position in the file
    model: str  # catalog id or path
    gpu: str
    weight_dtype: str
    kv_dtype: str
    tp: int
    pp: int
    isl: int
    osl: int
    tokens_per_s: float

    def scenario(self, engine: str) -> dict[str, str]:
        """The `--set` values that evaluate this row."""
        return {
            "gpu": self.gpu,
            "gpu_count": str(self.tp),
            "pipeline_parallel": str(self.pp),
            "weight_dtype": self.weight_dtype,
            "kv_dtype": self.kv_dtype,
            "prompt_tokens": str(self.isl),
            "output_tokens": str(self.osl),
            "serving_engine": engine,
        }


def shipped_path() -> Path:
    return Path(str(resources.files("ledgerbuild.catalog_measurements").joinpath(SHIPPED)))


@cache
def aliases() -> dict:
    path = Path(str(resources.files("ledgerbuild.catalog_measurements").joinpath("aliases.yaml")))
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _read_rows(path: Path) -> list[dict]:
    text = read_input(path, MAX_BYTES)
    if path.suffix.lower() == ".csv":
        try:
            return [dict(r) for r in csv.DictReader(text.splitlines())]
        except csv.Error as e:  # a field over csv's 131,072-character limit
            raise LedgerError(f"{path}: malformed CSV ({e})") from None
    data = catalog._read_yaml(path, text)  # malformed, nested too deeply, duplicate keys: one line
    rows = data.get("rows") if isinstance(data, dict) else data
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise LedgerError(f"{path}: expected a list of rows (or a mapping with `rows:`)")
    return rows


MAX_TOKENS = 10_000_000  # isl / osl: Llama 4 Scout's 10M-token context is the longest served


def _whole(value, where: str, lo: int, hi: int = 2**20) -> int:
    number = decimal(value, where)
    if not number.is_integer() or not lo <= number <= hi:
        raise LedgerError(f"{where}: must be a whole number in {lo}..{hi:,}, got {str(value)[:40]!r}")
    return int(number)


def _resolve(kind: str, name: str, where: str) -> str:
    name = str(name).strip()
    mapped = aliases()[kind].get(name, name)
    known = catalog.model_paths() if kind == "models" else catalog.gpus()
    if mapped in known or Path(mapped).suffix in (".yaml", ".yml", ".json"):
        return mapped
    names = list(known) + list(aliases()[kind])
    raise LedgerError(f"{where}: unknown {kind[:-1]} {name!r}{close_matches(name, names)}")


def _dtypes(row: dict, where: str) -> tuple[str, str]:
    precision = row.get("precision", row.get("dtype"))
    if precision is None:
        raise LedgerError(f"{where} field precision: missing (or give dtype)")
    pair = aliases()["precisions"].get(str(precision).strip())
    weight, kv = pair if pair else (str(precision).strip(), precision)
    if row.get("kv_dtype") not in (None, ""):  # given beside an alias too: it takes effect
        kv = str(row["kv_dtype"]).strip()
    for dt in (weight, str(kv)):
        if dt not in catalog.table("dtypes"):
            raise LedgerError(
                f"{where} field precision: unknown dtype {dt!r}{close_matches(dt, catalog.table('dtypes'))}"
            )
    return weight, str(kv)


def _measurement(row: dict, n: int, path: Path) -> Measurement:
    where = f"{path}: row {n}"
    for name in REQUIRED:
        if row.get(name) in (None, ""):
            raise LedgerError(f"{where} field {name}: missing")
    tokens = decimal(row["tokens_per_s"], f"{where} field tokens_per_s")
    if not tokens > 0 or tokens == float("inf"):
        raise LedgerError(
            f"{where} field tokens_per_s: must be a positive number, got {row['tokens_per_s']!r}"
        )
    weight, kv = _dtypes(row, where)
    return Measurement(
        n,
        _resolve("models", row["model"], f"{where} field model"),
        _resolve("gpus", row["gpu"], f"{where} field gpu"),
        weight,
        kv,
        _whole(row["tp"], f"{where} field tp", 1),
        _whole(row.get("pp") or 1, f"{where} field pp", 1),
        _whole(row["isl"], f"{where} field isl", 1, MAX_TOKENS),
        _whole(row["osl"], f"{where} field osl", 1, MAX_TOKENS),
        tokens,
    )


def load(path: str | Path | None = None) -> tuple[Path, list[Measurement]]:
    """(path, rows) of a measurement file; the shipped v0.17 table when no path is given."""
    path = Path(path) if path else shipped_path()
    rows = [_measurement(r, n, path) for n, r in enumerate(_read_rows(path), start=1)]
    if not rows:
        raise LedgerError(f"{path}: no rows")
    seen: dict[tuple, int] = {}
    for m in rows:
        key = (m.model, m.gpu, m.weight_dtype, m.kv_dtype, m.tp, m.pp, m.isl, m.osl)
        if key in seen:
            raise LedgerError(
                f"{path}: row {m.row} field tokens_per_s: duplicate of row "
                f"{seen[key]} (same model, gpu, precision, tp, pp, isl, osl)"
            )
        seen[key] = m.row
    return path, rows
