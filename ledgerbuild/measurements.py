"""Measured serving figures: load a measurement file, resolve its rows, say which cannot be evaluated.

Scope: a YAML file (a `rows:` list under its source header, as the files of `measurements/`) or a
CSV file. Two row formats, read as published:
- offline throughput (TensorRT-LLM perf-overview v0.17, v1.0): model, gpu, precision (or dtype),
  tp, pp, isl, osl, tokens_per_s (output tokens/s of the deployment, all requests queued);
- at a concurrency (InferenceX): concurrency, engine, tp, ep, pp, dp_attention, disagg,
  spec_decoding, throughput_output_tokens_per_s[_per_gpu], ttft_ms_median, tpot_ms_median (else
  the unstated statistic ttft_ms / itl_ms, else the mean ttft_ms_mean / tpot_ms_mean).
Optional per-row limits `max_num_seqs`, `max_num_batched_tokens` override the engine preset;
`launch_ep`, `launch_dp_attention` (the run's launch script) override a record's ep and
dp_attention where the record holds only defaults;
`scheduler_recv_interval` (SGLang's launch flag) sets the scenario input of that name,
`adp_balance_timeout_iters` (TensorRT-LLM's attention_dp_config timeout_iters under
enable_balance) sets `adp_balance_timeout_steps`.
Names as published map to catalog ids through `measurements/aliases.yaml`. A row the ledger
cannot evaluate (unknown model or GPU, disaggregated prefill/decode, speculative decoding, the
same configuration twice) is kept with its reason; a malformed file (a missing field, a value
that is not a number) is one LedgerError naming file, row, field.
Shortcuts: a row's KV cache uses the precision alias's KV format (the engine's, aliases.yaml
`engine_precisions`, before the general one) unless `kv_dtype` (or `kv_cache_dtype`) is given;
the embedding and lm_head of a quantized checkpoint are read in the dtype aliases.yaml
`checkpoint_parts` gives its weight format (BF16 for FP8 and NVFP4: ModelOpt, DeepSeek-V3), and
a model's own checkpoint keeps the parts `checkpoint_parts_by_model` names in theirs (NVIDIA's
DeepSeek-R1 NVFP4: MLA's projections in BF16);
InferenceX's per-GPU output throughput is per tensor-parallel GPU (its process_result.py divides
the deployment's by tp), so the deployment's is that times tp; with dp_attention the attention
runs data-parallel on ep replicas of tp / ep GPUs each (the ledger's expert_parallel).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

import yaml

from . import catalog
from .errors import LedgerError, close_matches
from .files import read_input
from .rules import decimal

# the files calibrate fits and validate reads by default; nim_dli_llama3_latency.yaml ships held
# out (an older NIM, scored by `validate FILE` against a fit that never saw it)
SHIPPED = (
    "trtllm_perf_v0.17.yaml",
    "trtllm_perf_v1.0.yaml",
    "inferencex_dsr1_latency.yaml",
    "nim_gpustack_dense_latency.yaml",
)
REQUIRED = ("model", "gpu", "tp", "isl", "osl")
METRICS = ("output_tokens_per_s", "ttft_ms", "tpot_ms")
MAX_BYTES = 50 * 2**20
NONE = (None, "", "none", "None", "null", False, "false", "False")


@dataclass(frozen=True)
class Measurement:
    row: int  # 1-based position in the file
    model: str  # catalog id or path ("" when refused for it)
    gpu: str
    weight_dtype: str
    kv_dtype: str
    tp: int  # tensor-parallel GPUs of one attention replica (the ledger's gpu_count)
    pp: int
    isl: int
    osl: int
    metrics: dict[str, float] = field(default_factory=dict)  # measured: output_tokens_per_s, ...
    concurrency: int = 0  # 0: offline (every request queued)
    replicas: int = 1  # attention data-parallel replicas (the ledger's expert_parallel)
    engine: str = ""  # engine table id ("": the caller's default)
    limits: dict[str, str] = field(default_factory=dict)  # the row's own engine limits (--set)
    reason: str = ""  # why it cannot be evaluated ("" = it can)
    labels: dict[str, str] = field(default_factory=dict)  # names as published, for the tables
    harness: dict[str, str] = field(default_factory=dict)  # the source's stated harness (--set)
    parts: dict[str, str] = field(default_factory=dict)  # parts the checkpoint keeps unquantized (--set)

    @property
    def tokens_per_s(self) -> float:
        return self.metrics.get("output_tokens_per_s", float("nan"))

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.replicas

    def scenario(self, engine: str) -> dict[str, str]:
        """The `--set` values that evaluate this row."""
        return {
            "gpu": self.gpu,
            "gpu_count": str(self.tp),
            "pipeline_parallel": str(self.pp),
            "expert_parallel": str(self.replicas),
            "weight_dtype": self.weight_dtype,
            "kv_dtype": self.kv_dtype,
            "prompt_tokens": str(self.isl),
            "output_tokens": str(self.osl),
            "concurrency": str(self.concurrency),
            "serving_engine": self.engine or engine,
            **self.limits,
            **self.harness,
            **self.parts,
        }


def shipped_path(name: str = SHIPPED[0]) -> Path:
    return Path(str(resources.files("ledgerbuild.catalog_measurements").joinpath(name)))


@cache
def aliases() -> dict:
    path = Path(str(resources.files("ledgerbuild.catalog_measurements").joinpath("aliases.yaml")))
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _read_rows(path: Path) -> tuple[dict, list[dict]]:
    """(the file's header, its rows)."""
    text = read_input(path, MAX_BYTES)
    if path.suffix.lower() == ".csv":
        try:
            return {}, [dict(r) for r in csv.DictReader(text.splitlines())]
        except csv.Error as e:  # a field over csv's 131,072-character limit
            raise LedgerError(f"{path}: malformed CSV ({e})") from None
    data = catalog._read_yaml(path, text)  # malformed, nested too deeply, duplicate keys: one line
    rows = data.get("rows") if isinstance(data, dict) else data
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise LedgerError(f"{path}: expected a list of rows (or a mapping with `rows:`)")
    return (data if isinstance(data, dict) else {}), rows


def _layout_defaults(header: dict) -> dict:
    """How the file's source ran MoE models where its rows do not say (aliases.yaml `layouts`,
    keyed by the source's commit)."""
    found = header.get("source")
    source: dict = found if isinstance(found, dict) else {}
    return aliases().get("layouts", {}).get(str(source.get("commit", "")), {})


def _harness(header: dict, row: dict, where: str) -> dict[str, str]:
    """What the row's source states of its harness, as --set: the TTFT overhead
    (`sources.<key>.ttft_overhead_ms`) and whether every request has the same lengths
    (`sources.<key>.request_lengths`: fixed or varied)."""
    sources = header.get("sources")
    source = sources.get(str(row.get("source", ""))) if isinstance(sources, dict) else None
    if not isinstance(source, dict):
        return {}
    out = {}
    if source.get("ttft_overhead_ms") not in (None, ""):
        what = f"{where} source {row.get('source')} field ttft_overhead_ms"
        value = decimal(source["ttft_overhead_ms"], what)
        if not 0 <= value < 1e5:
            raise LedgerError(f"{what}: must be 0..100000 ms")
        out["harness_overhead_s"] = repr(value / 1000)
    lengths = source.get("request_lengths")
    if lengths not in (None, ""):
        if lengths not in ("fixed", "varied"):
            raise LedgerError(
                f"{where} source {row.get('source')} field request_lengths: expected fixed or varied, "
                f"got {lengths!r}"
            )
        out["harness_fixed_lengths"] = "1" if lengths == "fixed" else "0"
    return out


def _is_moe(model: str) -> bool:
    try:
        _, fields = catalog.load_model(model)
    except LedgerError:
        return False
    return bool(fields.get("n_routed_experts"))


def _number(value, where: str) -> float:
    number = decimal(value, where)  # ASCII digits only, one line otherwise
    if not number > 0 or number == float("inf"):
        raise LedgerError(f"{where}: must be a positive number, got {value!r}")
    return number


MAX_TOKENS = 10_000_000  # isl / osl: Llama 4 Scout's 10M-token context is the longest served


def _whole(value, where: str, lo: int, hi: int = 2**20) -> int:
    number = decimal(value, where)
    if not number.is_integer() or not lo <= number <= hi:
        raise LedgerError(f"{where}: must be a whole number in {lo}..{hi:,}, got {str(value)[:40]!r}")
    return int(number)


def _resolve(kind: str, name) -> tuple[str, str]:
    """(catalog id or path, "") or ("", reason) for a published name."""
    name = str(name).strip()
    mapped = aliases()[kind].get(name, name)
    known = catalog.model_paths() if kind == "models" else catalog.gpus()
    if isinstance(mapped, list):  # candidates in order: the first the catalog has
        mapped = next((c for c in mapped if c in known), mapped[0])
    if mapped in known or Path(mapped).suffix in (".yaml", ".yml", ".json"):
        return mapped, ""
    names = list(known) + list(aliases()[kind])
    via = f" (alias of {name!r})" if mapped != name else ""
    return "", f"unknown {kind[:-1]} {mapped!r}{via}{close_matches(mapped, names)}"


def _dtypes(row: dict, where: str) -> tuple[str, str]:
    precision = row.get("precision", row.get("dtype"))
    if precision in (None, ""):
        raise LedgerError(f"{where} field precision: missing (or give dtype)")
    table = aliases()
    by_engine = table.get("engine_precisions", {}).get(str(row.get("engine", "")).strip(), {})
    pair = by_engine.get(str(precision).strip()) or table["precisions"].get(str(precision).strip())
    given = row.get("kv_dtype", row.get("kv_cache_dtype"))
    weight, kv = pair if pair else (str(precision).strip(), given or precision)
    if given not in NONE:
        kv = str(given)
    for dt in (weight, str(kv)):
        if dt not in catalog.table("dtypes"):
            raise LedgerError(
                f"{where} field precision: unknown dtype {dt!r}{close_matches(dt, catalog.table('dtypes'))}"
            )
    return weight, str(kv)


def _metrics(row: dict, where: str, tp: int) -> dict[str, float]:
    """The measured figures a row gives, as the ledger's metrics."""
    out = {}
    if row.get("tokens_per_s") not in (None, ""):
        out["output_tokens_per_s"] = _number(row["tokens_per_s"], f"{where} field tokens_per_s")
    elif row.get("throughput_output_tokens_per_s") not in (None, ""):
        name = "throughput_output_tokens_per_s"
        out["output_tokens_per_s"] = _number(row[name], f"{where} field {name}")
    elif row.get("throughput_output_tokens_per_s_per_gpu") not in (None, ""):
        name = "throughput_output_tokens_per_s_per_gpu"
        out["output_tokens_per_s"] = tp * _number(row[name], f"{where} field {name}")
    # the median where the source names it; else a figure whose statistic the source does not
    # state (NVIDIA NIM's TTFT and ITL, ITL being its per-request time per output token); else
    # the mean (GenAI-Perf's avg; the ledger's steady state has median = mean)
    for metric, names in (
        ("ttft_ms", ("ttft_ms_median", "ttft_ms", "ttft_ms_mean")),
        ("tpot_ms", ("tpot_ms_median", "itl_ms", "tpot_ms_mean")),
    ):
        given = [n for n in names if row.get(n) not in (None, "")]
        if given:
            out[metric] = _number(row[given[0]], f"{where} field {given[0]}")
    if not out:
        raise LedgerError(f"{where} field tokens_per_s: missing (no throughput, TTFT or TPOT given)")
    return out


def _refusal(row: dict) -> str:
    if row.get("disagg") not in NONE:
        return "disaggregated prefill/decode (separate prefill and decode workers are not modelled)"
    if row.get("spec_decoding") not in NONE:
        return f"speculative decoding ({row['spec_decoding']}) is not modelled at a concurrency"
    return ""


def _layout(row: dict, where: str) -> tuple[int, int, int, int]:
    """(attention tensor-parallel GPUs, pipeline stages, attention replicas, tp as published);
    ep and dp_attention from the run's launch script (`launch_ep`, `launch_dp_attention`) where
    the file transcribes them: a record that holds only its API's defaults for them."""
    tp = _whole(row["tp"], f"{where} field tp", 1)
    pp = _whole(row.get("pp") or 1, f"{where} field pp", 1)
    ep_field, dp_field = (
        f"launch_{k}" if row.get(f"launch_{k}") not in (None, "") else k for k in ("ep", "dp_attention")
    )
    ep = _whole(row.get(ep_field) or 1, f"{where} field {ep_field}", 1)
    if row.get(dp_field) not in NONE and ep > 1:
        if tp % ep:
            raise LedgerError(
                f"{where} field {ep_field}: {dp_field} needs {ep_field} to divide tp, got tp {tp}, ep {ep}"
            )
        return tp // ep, pp, ep, tp
    return tp, pp, 1, tp


def _limits(row: dict, where: str) -> dict[str, str]:
    out = {}
    for column, name, lo in (
        ("max_num_seqs", "max_batch", 1),
        ("max_num_batched_tokens", "max_num_tokens", 1),
        ("scheduler_recv_interval", "scheduler_recv_interval", 1),
        ("adp_balance_timeout_iters", "adp_balance_timeout_steps", 0),
    ):
        if row.get(column) not in (None, ""):
            out[name] = str(_whole(row[column], f"{where} field {column}", lo))
    return out


def _engine(row: dict) -> tuple[str, str]:
    name = row.get("engine")
    if name in (None, ""):
        return "", ""
    mapped = aliases().get("engines", {}).get(str(name).strip(), str(name).strip())
    if mapped in catalog.table("engines"):
        return mapped, ""
    return "", f"unknown engine {name!r}{close_matches(str(name), catalog.table('engines'))}"


def _mean_lengths(row: dict, where: str) -> dict:
    """A run of varying lengths (a ShareGPT dataset: isl/osl null) at its mean prompt and
    output lengths: the run's total tokens over its requests, rounded (a shortcut: the ledger
    costs one length, not the spread)."""
    if row.get("isl") not in (None, "") or row.get("total_input_tokens") in (None, ""):
        return row
    requests = _whole(row.get("num_requests"), f"{where} field num_requests", 1)
    isl = _whole(row["total_input_tokens"], f"{where} field total_input_tokens", 1, 10**12)
    osl = _whole(row.get("total_output_tokens"), f"{where} field total_output_tokens", 1, 10**12)
    return {**row, "isl": max(1, round(isl / requests)), "osl": max(1, round(osl / requests))}


def _measurement(row: dict, n: int, path: Path, defaults: dict, header: dict) -> Measurement:
    where = f"{path}: row {n}"
    row = _mean_lengths(row, where)
    for name in REQUIRED:
        if row.get(name) in (None, "") and not (name == "tp" and row.get("disagg") not in NONE):
            raise LedgerError(f"{where} field {name}: missing")
    labels = {k: str(row.get(k, "")) for k in ("model", "gpu", "precision", "engine", "ep")}
    reason = _refusal(row)
    if reason:  # a disaggregated row has no single tp; it is reported, not evaluated
        return Measurement(n, "", "", "", "", 0, 0, 0, 0, reason=reason, labels=labels)
    model, why_model = _resolve("models", row["model"])
    if "moe" in defaults and "ep" not in row and model and _is_moe(model):
        row = {**row, "ep": row["tp"], "dp_attention": defaults["moe"].get("dp_attention", False)}
        labels["layout"] = "file default for MoE: ep = tp, dp_attention"
    tp, pp, replicas, published_tp = _layout(row, where)
    gpu, why_gpu = _resolve("gpus", row["gpu"])
    engine, why_engine = _engine(row)
    weight, kv = _dtypes(row, where)
    concurrency = _whole(row.get("concurrency") or 0, f"{where} field concurrency", 0)
    return Measurement(
        n,
        model,
        gpu,
        weight,
        kv,
        tp,
        pp,
        _whole(row["isl"], f"{where} field isl", 1, MAX_TOKENS),
        _whole(row["osl"], f"{where} field osl", 1, MAX_TOKENS),
        _metrics(row, where, published_tp * pp),
        concurrency,
        replicas,
        engine,
        _limits(row, where),
        why_model or why_gpu or why_engine,
        labels,
        _harness(header, row, where),
        _parts(model, weight),
    )


def _parts(model: str, weight: str) -> dict[str, str]:
    """The parts a published checkpoint keeps in another format: the weight format's, then the
    model's own (aliases.yaml checkpoint_parts, checkpoint_parts_by_model)."""
    table = aliases()
    parts = {**table.get("checkpoint_parts", {}).get(weight, {})}
    parts.update(table.get("checkpoint_parts_by_model", {}).get(model or "", {}).get(weight, {}))
    return {k: str(v) for k, v in parts.items()}


def _key(m: Measurement) -> tuple:
    return (m.model, m.gpu, m.weight_dtype, m.kv_dtype, m.tp, m.pp, m.replicas, m.isl, m.osl, m.concurrency)


def load(path: str | Path | None = None) -> tuple[Path, list[Measurement]]:
    """(path, rows) of a measurement file, refused rows included (`reason`); the shipped v0.17
    table when no path is given."""
    path = Path(path) if path else shipped_path()
    header, raw = _read_rows(path)
    defaults = _layout_defaults(header)
    rows = [_measurement(r, n, path, defaults, header) for n, r in enumerate(raw, start=1)]
    if not rows:
        raise LedgerError(f"{path}: no rows")
    seen: dict[tuple, int] = {}
    for i, m in enumerate(rows):
        if m.reason:
            continue
        key = (*_key(m), m.engine)
        if key in seen:
            rows[i] = _refused(m, f"duplicate of row {seen[key]} (same model, gpu, precision, layout, shape)")
        else:
            seen[key] = m.row
    return path, rows


def _refused(m: Measurement, reason: str) -> Measurement:
    from dataclasses import replace

    return replace(m, reason=reason)


def evaluable(rows: list[Measurement]) -> list[Measurement]:
    return [m for m in rows if not m.reason]


def load_many(paths: list[str | Path] | None) -> list[tuple[Path, list[Measurement]]]:
    """Every file given, or every shipped file when none is."""
    if not paths:
        return [load(shipped_path(name)) for name in SHIPPED]
    seen: set[Path] = set()
    for p in paths:  # a file named twice would count its rows twice in a fit
        if Path(p).resolve() in seen:
            raise LedgerError(f"{p}: named twice; each measurement file once")
        seen.add(Path(p).resolve())
    return [load(p) for p in paths]
