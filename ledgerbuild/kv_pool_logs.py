"""Engine start-up logs against kv_pool_tokens: load, resolve and evaluate a KV-pool log file.

Scope: a YAML file with `rows:` in the form of `measurements/kv_pool_logs.yaml` (one row per
start-up log: engine, model_id, gpu_id, tp, pp, the utilisation flag, batch limits and dtypes
in force, the logged pool). Each row becomes the `--set` values of its scenario; the ledger's
kv_pool_tokens is set beside the logged number. Every bad row is one LedgerError naming file,
row and field. Shortcut: a row without max_num_seqs / max_num_batched_tokens uses the engine
row's limits (the log did not print them).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import yaml

from . import catalog
from .errors import LedgerError
from .files import read_input

SHIPPED = "kv_pool_logs.yaml"
REQUIRED = ("id", "engine", "model_id", "gpu_id", "tp", "gpu_memory_utilization", "logged_kv_pool_tokens")
DTYPES = ("weight_dtype", "embedding_dtype", "lm_head_dtype", "kv_dtype")
LIMITS = {"max_num_seqs": "max_batch", "max_num_batched_tokens": "max_num_tokens"}
MAX_BYTES = 10 * 2**20


@dataclass(frozen=True)
class PoolLog:
    id: str
    model: str
    sets: dict[str, str]
    logged_tokens: int
    outside_rule: str = ""  # why the engine rules cannot reproduce this log ("": they should)


@dataclass(frozen=True)
class PoolError:
    log: PoolLog
    predicted_tokens: int

    @property
    def error(self) -> float:
        """Relative error of the prediction (predicted / logged - 1)."""
        return self.predicted_tokens / self.log.logged_tokens - 1


def shipped_path() -> Path:
    return Path(str(resources.files("ledgerbuild.catalog_measurements").joinpath(SHIPPED)))


def _whole(value, where: str, lo: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        raise LedgerError(f"{where}: must be a whole number >= {lo}, got {value!r}")
    return value


def _known(table: str, key: str, where: str) -> str:
    try:
        catalog.row(table, key)
    except LedgerError:
        raise LedgerError(f"{where}: unknown {table[:-1]} {key!r}") from None
    return key


def _sets(row: dict, where: str) -> dict[str, str]:
    """The scenario (`--set` values) a row's log was started with."""
    util = row["gpu_memory_utilization"]
    if isinstance(util, bool) or not isinstance(util, int | float) or not 0 < util <= 1:
        raise LedgerError(f"{where} field gpu_memory_utilization: must be in (0, 1], got {util!r}")
    sets = {
        "serving_engine": _known("engines", str(row["engine"]), f"{where} field engine"),
        "gpu": _known("gpus", str(row["gpu_id"]), f"{where} field gpu_id"),
        "gpu_count": str(_whole(row["tp"], f"{where} field tp", 1)),
        "pipeline_parallel": str(_whole(row.get("pp", 1), f"{where} field pp", 1)),
        "memory_utilization": str(util),
    }
    for name in DTYPES:
        if row.get(name) is not None:
            sets[name] = _known("dtypes", str(row[name]), f"{where} field {name}")
    for name, symbol in LIMITS.items():
        if row.get(name) is not None:
            sets[symbol] = str(_whole(row[name], f"{where} field {name}", 1))
    extra = row.get("set") or {}
    if not isinstance(extra, dict):
        raise LedgerError(f"{where} field set: expected a mapping of model fields")
    return sets | {str(k): str(v) for k, v in extra.items()}


def _log(row, n: int, path: Path) -> PoolLog:
    where = f"{path}: row {n}"
    if not isinstance(row, dict):
        raise LedgerError(f"{where}: expected a mapping")
    for name in REQUIRED:
        if row.get(name) is None:
            raise LedgerError(f"{where} field {name}: missing")
    model = str(row["model_id"])
    if model not in catalog.models():
        raise LedgerError(f"{where} field model_id: unknown model {model!r}")
    tokens = _whole(row["logged_kv_pool_tokens"], f"{where} field logged_kv_pool_tokens", 1)
    return PoolLog(str(row["id"]), model, _sets(row, where), tokens, str(row.get("outside_rule") or ""))


def load(path: str | Path | None = None) -> tuple[Path, list[PoolLog]]:
    """The logs of a KV-pool log file (default: the shipped one)."""
    path = Path(path) if path is not None else shipped_path()
    try:
        data = yaml.safe_load(read_input(path, MAX_BYTES))
    except yaml.YAMLError as e:
        raise LedgerError(f"{path}: malformed YAML ({getattr(e, 'problem', e)})") from None
    rows = data.get("rows") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not rows:
        raise LedgerError(f"{path}: expected a mapping with a non-empty `rows:` list")
    return path, [_log(row, n, path) for n, row in enumerate(rows, 1)]


def evaluate_logs(logs: list[PoolLog]) -> list[PoolError]:
    """kv_pool_tokens of every log's scenario beside the logged pool."""
    from .evaluate import evaluate

    return [PoolError(log, int(evaluate(log.model, log.sets).value("kv_pool_tokens"))) for log in logs]


def is_pool_log_file(path: str | Path) -> bool:
    """True for a YAML file of engine start-up logs (rows carry logged_kv_pool_tokens)."""
    path = Path(path)
    if path.suffix.lower() not in (".yaml", ".yml") or not path.is_file():
        return False
    return "logged_kv_pool_tokens:" in read_input(path, MAX_BYTES)


def summary(errors: list[PoolError]) -> dict[str, float]:
    """Median and 90th percentile of the absolute relative error, and the row count, over the
    logs the engine rules cover (outside_rule empty)."""
    magnitudes = sorted(abs(e.error) for e in errors if not e.log.outside_rule)
    if not magnitudes:
        raise LedgerError("no log the engine rules cover (every row has outside_rule)")
    p90 = (
        magnitudes[0]
        if len(magnitudes) == 1
        else statistics.quantiles(magnitudes, n=10, method="inclusive")[-1]
    )
    return {"rows": len(magnitudes), "median": statistics.median(magnitudes), "p90": p90}
