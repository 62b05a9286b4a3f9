"""Calibration: fit the time model's physical figures to measured throughput, TTFT and TPOT.

Scope: every evaluable measured row is resolved once to the ledger's inputs (exact, as `show`
would), grouped by architecture variant; the metrics (`output_tokens_per_s`, `ttft_s`,
`tpot_s`: offline rows at concurrency 0 are offline.py's figures) and their roofline bounds
are evaluated as numpy functions generated from the same declarations (`sweeps`), so a fit
never re-implements a formula. Least squares on log(predicted / measured) over every measured
figure fits mfu, bandwidth_efficiency, step_overhead_s, sequence_overhead_s, layer_overhead_s,
allreduce_efficiency and allreduce_latency_s (and, from TTFT rows, request_overhead_s, and from
TTFT rows of a fixed-length harness wave_prompt_token_s; a source's stated harness overhead and
lengths are inputs, not fitted) within
physical bounds (BOUNDS: achieved bandwidth <= 0.95 of the datasheet, MFU <= 0.85, per-step
overhead <= 1 ms, per-layer kernel overhead <= 30 us), overlap = 0 (the times add).

The transfer rule: one set of figures for every GPU (`calibrated`), so a GPU never measured
runs at its own datasheet peaks (per format: FP4, FP8, BF16), HBM and link bandwidth with the
fitted efficiencies, the kernel efficiency (mfu) carrying from one format to another; the
measured GPUs of its vendor, architecture and memory class (else of its vendor and its
architecture or memory class, else of its vendor: measurements/transfer.yaml) refit its
efficiencies and overheads (FAMILY_FREE); the link and expert figures are the all-GPU fit's; a GPU
with measurements also gets its own refit (`calibrated@gpu`), starting from those figures; a
GPU without multi-GPU rows keeps the shared all-reduce figures (the report says so).
`cross_validate` refits with each group's rows left out and predicts them: the figure that says
whether the fit transfers.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np
import yaml

from . import catalog
from .errors import LedgerError
from .measurements import Measurement
from .numeric import NumericEvaluator
from .sweeps import sweep_function

# metric -> (ledger quantity, scale to the metric's unit, its roofline bound, bound kind)
METRICS = {
    "output_tokens_per_s": ("output_tokens_per_s", 1.0, "output_tokens_per_s_ceiling", "ceiling"),
    "ttft_ms": ("ttft_s", 1000.0, "ttft_floor_s", "floor"),
    "tpot_ms": ("tpot_s", 1000.0, "tpot_floor_s", "floor"),
}
# fitted figure -> (lower, upper, start): the physical bounds the fit may not leave
BOUNDS = {
    "mfu": (0.05, 0.85, 0.5),
    "bandwidth_efficiency": (0.05, 0.95, 0.8),
    "step_overhead_s": (0.0, 1e-3, 1e-4),
    "sequence_overhead_s": (0.0, 1e-4, 5e-6),
    # a layer's ~6 kernels (Hazy Research 2025: ~100 per Llama-1B forward of 16 layers) at <= 5 us
    # of launch (1.3 us under CUDA graphs on H100), ramp-up and teardown each
    "layer_overhead_s": (0.0, 3e-5, 5e-6),
    "allreduce_efficiency": (0.05, 1.0, 0.6),
    "allreduce_latency_s": (0.0, 5e-5, 1e-5),
    "request_overhead_s": (0.0, 0.25, 0.05),  # HTTP, tokenization, scheduling (TTFT rows only)
    "wave_prompt_token_s": (0.0, 2e-5, 1e-6),  # per prompt token of a wave (fixed-length TTFT rows)
    "expert_efficiency": (0.1, 1.0, 0.7),  # grouped GEMMs (MoE rows only)
    "expert_imbalance": (1.0, 3.0, 1.3),  # busiest EP GPU over the mean (EP rows only)
}
LINK = ("allreduce_efficiency", "allreduce_latency_s")
# what a vendor/architecture family refits for a GPU it transfers to: the silicon's kernel and
# memory efficiencies and its host's overheads; the wave wait (fitted only where a harness states
# fixed lengths; host work), the link and expert figures are kept from the fit over every measured
# GPU (a family of one or two GPUs refitting them carries its own rows' quirks, e.g. a PCIe
# system's all-reduce to an NVLink GPU, one model's routing to every MoE)
FAMILY_FREE = (
    "mfu",
    "bandwidth_efficiency",
    "step_overhead_s",
    "sequence_overhead_s",
    "layer_overhead_s",
    "request_overhead_s",
)


@dataclass
class Prepared:
    """Measured rows resolved to ledger inputs, grouped by variant; refused rows apart."""

    rows: list[Measurement]
    measured: dict[str, np.ndarray]  # metric -> per row (nan: not measured)
    groups: list = field(default_factory=list)  # (row indices, values, {metric: (fn, bound fn)})
    refused: list[Measurement] = field(default_factory=list)
    moe: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))  # per row: an MoE model

    @property
    def gpus(self) -> np.ndarray:
        return np.array([m.gpu for m in self.rows])


def prepare(rows: list[Measurement], engine: str = "tensorrt-llm", time_model: str | None = None) -> Prepared:
    """Resolve every evaluable row's inputs once (the slow, exact part); a row the ledger cannot
    resolve, or whose model does not fit its layout under the engine's memory pool, joins the
    refused rows with the reason."""
    prepared = _prepare(rows, engine, time_model)
    ceiling = bounds(prepared)["output_tokens_per_s"]
    if (ceiling > 0).all():
        return prepared
    unfit = {id(prepared.rows[i]) for i in np.where(~(ceiling > 0))[0]}
    why = "does not fit: the weights and one request's KV exceed the engine preset's memory pool"
    marked = [replace(m, reason=f"{why} ({m.engine or engine})") if id(m) in unfit else m for m in rows]
    return _prepare(marked, engine, time_model)


def _prepare(rows: list[Measurement], engine: str, time_model: str | None) -> Prepared:
    by_tags: dict = {}
    models: dict = {}
    kept: list[Measurement] = []
    refused = [m for m in rows if m.reason]
    for m in (m for m in rows if not m.reason):
        sets = m.scenario(engine) | ({"time_model": time_model} if time_model else {})
        try:
            if m.model not in models:
                models[m.model] = catalog.load_model(m.model)
            _, inputs, tags = NumericEvaluator(sets).inputs_for(*models[m.model])
        except LedgerError as e:
            refused.append(replace(m, reason=f"cannot be evaluated: {e}"))
            continue
        by_tags.setdefault(tags, []).append((len(kept), inputs))
        kept.append(m)
    measured = {k: np.array([m.metrics.get(k, np.nan) for m in kept], dtype=float) for k in METRICS}
    moe = np.array([bool(models[m.model][1].get("n_routed_experts")) for m in kept], dtype=bool)
    prepared = Prepared(kept, measured, refused=sorted(refused, key=lambda m: m.row), moe=moe)
    for tags, members in by_tags.items():
        fns, names = {}, set()
        for metric, (quantity, _, bound, _) in METRICS.items():
            qn, qf = sweep_function(quantity, tags)
            bn, bf = sweep_function(bound, tags)
            fns[metric] = (qf, bf)
            names |= set(qn) | set(bn)
        values = {n: np.array([float(inp[n]) for _, inp in members]) for n in names}
        prepared.groups.append((np.array([i for i, _ in members], dtype=int), values, fns))
    return prepared


def _evaluate(prepared: Prepared, which: int, params: dict | None) -> dict[str, np.ndarray]:
    out = {k: np.full(len(prepared.rows), np.nan) for k in METRICS}
    gpus = prepared.gpus
    for idx, values, fns in prepared.groups:
        env = dict(values)
        if params:
            for name in [*BOUNDS, "overlap"]:
                env[name] = np.array([params[g][name] for g in gpus[idx]], dtype=float)
        for metric, pair in fns.items():
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                out[metric][idx] = pair[which](env) * METRICS[metric][1]
    return out


def predict(prepared: Prepared, params: dict | None = None) -> dict[str, np.ndarray]:
    """Predicted figures per metric and row: under `params` (gpu -> figures) or the rows' time model."""
    return _evaluate(prepared, 0, params)


def bounds(prepared: Prepared) -> dict[str, np.ndarray]:
    """The roofline ceiling (throughput) or floor (TTFT, TPOT) of every row."""
    return _evaluate(prepared, 1, None)


def _residuals(prepared: Prepared, params: dict, mask: np.ndarray) -> np.ndarray:
    pred = predict(prepared, params)
    parts = []
    for metric in METRICS:
        meas = prepared.measured[metric]
        use = mask & np.isfinite(meas)
        p = pred[metric][use]
        ok = np.isfinite(p) & (p > 0)
        parts.append(np.where(ok, np.log(np.where(ok, p, 1) / meas[use]), 5.0))
    return np.concatenate(parts)


def _fit(prepared: Prepared, mask: np.ndarray, free: list[str], fixed: dict, start: dict) -> dict:
    from scipy.optimize import least_squares

    gpus = set(prepared.gpus)
    lo = [BOUNDS[n][0] for n in free]
    hi = [BOUNDS[n][1] for n in free]

    def residuals(x):
        figures = {**fixed, **dict(zip(free, x, strict=True)), "overlap": 0}
        return _residuals(prepared, dict.fromkeys(gpus, figures), mask)

    x0 = [min(max(start[n], BOUNDS[n][0]), BOUNDS[n][1]) for n in free]
    sol = least_squares(residuals, x0, bounds=(lo, hi), x_scale=np.maximum(hi, 1e-9))
    return {**fixed, **{n: float(v) for n, v in zip(free, sol.x, strict=True)}, "overlap": 0}


def _measured_count(prepared: Prepared, mask: np.ndarray) -> int:
    return int(sum(np.isfinite(prepared.measured[k][mask]).sum() for k in METRICS))


@cache
def families() -> dict[str, tuple[str, ...]]:
    """GPU id -> (vendor, architecture, memory technology): measurements/transfer.yaml."""
    path = Path(str(resources.files("ledgerbuild.catalog_measurements").joinpath("transfer.yaml")))
    return {g: tuple(v) for g, v in yaml.safe_load(path.read_text(encoding="utf-8"))["families"].items()}


def family_keys(gpu: str) -> list[tuple[str, frozenset[str]]]:
    """The groups whose figures a GPU without its own fit takes, nearest first, with their GPUs:
    its vendor's GPUs of its architecture and memory class; else of its architecture or its memory
    class (the same tensor cores and kernels, or the same memory system); else its vendor's."""
    table = families()
    vendor, arch, memory = table.get(gpu, (gpu, gpu, gpu))
    rules = [
        (f"{vendor} {arch} {memory}", lambda v, a, m: (v, a, m) == (vendor, arch, memory)),
        (f"{vendor} {arch} or {memory}", lambda v, a, m: v == vendor and (a == arch or m == memory)),
        (vendor, lambda v, a, m: v == vendor),
    ]
    return [(name, frozenset({gpu} | {g for g, f in table.items() if rule(*f)})) for name, rule in rules]


@dataclass
class Fit:
    shared: dict  # the figures of every measured GPU together (the rule's last resort)
    per_gpu: dict  # gpu -> figures
    notes: list[str]  # parameters at a bound, figures it could not fit
    per_family: dict = field(default_factory=dict)  # "vendor architecture memory", ... -> figures

    def for_gpu(self, gpu: str) -> tuple[dict, str]:
        """(figures, where they come from) under the transfer rule."""
        if gpu in self.per_gpu:
            return self.per_gpu[gpu], "its own fit"
        for key, _ in family_keys(gpu):
            if key in self.per_family:
                return self.per_family[key], f"the {key} GPUs' fit"
        return self.shared, "every measured GPU's fit"

    def params(self, gpus) -> dict:
        return {g: self.for_gpu(g)[0] for g in gpus}


def fit(
    prepared: Prepared, mask: np.ndarray | None = None, per_gpu: bool = True, serve: set | None = None
) -> Fit:
    """The shared figures over the rows in `mask` (default: all), the family figures of the GPUs
    in `serve` (default: every catalog and measured GPU), then each GPU's own refit."""
    mask = np.ones(len(prepared.rows), dtype=bool) if mask is None else mask
    if not mask.any():
        first = prepared.refused[0] if prepared.refused else None
        why = f": row {first.row}, {first.reason}" if first else ""
        raise LedgerError(f"no measured row to fit (every row was refused{why})")
    start = {n: b[2] for n, b in BOUNDS.items()}
    notes: list[str] = []
    keep = _unidentified(prepared, mask, start, "calibrated", notes)
    shared = _fit(prepared, mask, [n for n in BOUNDS if n not in keep], keep, start)
    notes += _at_bounds("calibrated", {n: v for n, v in shared.items() if n not in keep})
    per_family = _family_fits(prepared, mask, shared, serve)
    fitted = {}
    for gpu in sorted(set(prepared.gpus[mask])) if per_gpu else []:
        own = mask & (prepared.gpus == gpu)
        keep = _unidentified(prepared, own, shared, gpu, notes)
        if _measured_count(prepared, own) < len(BOUNDS) - len(keep):
            notes.append(f"{gpu}: fewer measured figures than free parameters, keeps the transfer rule's")
            continue
        fitted[gpu] = _fit(prepared, own, [n for n in BOUNDS if n not in keep], keep, shared)
        notes += _at_bounds(f"calibrated@{gpu}", {n: v for n, v in fitted[gpu].items() if n not in keep})
    return Fit(shared, fitted, notes, per_family)


def _family_fits(prepared: Prepared, mask: np.ndarray, shared: dict, serve: set | None) -> dict:
    """Each served GPU's nearest family with enough measured rows in `mask`, refitted (FAMILY_FREE)."""
    serve = set(catalog.gpus()) | set(prepared.gpus) if serve is None else serve
    per_family: dict = {}
    done: dict[bytes, dict] = {}  # two families with the same measured rows: one fit
    for gpu in sorted(serve):
        for key, members in family_keys(gpu):
            own = mask & np.isin(prepared.gpus, sorted(members))
            held = _unidentified(prepared, own, shared, key, [])
            free = [n for n in FAMILY_FREE if n not in held]
            if not own.any() or _measured_count(prepared, own) < len(free) or own.sum() == mask.sum():
                continue
            if own.tobytes() not in done:
                kept = {n: v for n, v in shared.items() if n not in free}
                done[own.tobytes()] = _fit(prepared, own, free, kept, shared)
            per_family[key] = done[own.tobytes()]
            break
    return per_family


def _unidentified(prepared: Prepared, mask: np.ndarray, start: dict, who: str, notes: list) -> dict:
    """Figures the rows in `mask` cannot fix, held at `start` (the note says so)."""
    keep: dict[str, float] = {}
    multi = np.array([m.tp > 1 or m.replicas > 1 for m in prepared.rows])
    if not (mask & multi).any():
        keep |= {n: start[n] for n in LINK}
        notes.append(
            f"{who}: no multi-GPU rows, all-reduce figures not fitted (kept: "
            + ", ".join(f"{n} {start[n]:g}" for n in LINK)
            + ")"
        )
    ttft = np.isfinite(prepared.measured["ttft_ms"]) & mask
    if not ttft.any():
        keep["request_overhead_s"] = start["request_overhead_s"] if who != "calibrated" else 0.0
        kept = keep["request_overhead_s"]
        notes.append(f"{who}: no TTFT rows, request_overhead_s not fitted (kept: {kept:g})")
    fixed = np.array(
        [m.harness.get("harness_fixed_lengths") == "1" and m.concurrency > 1 for m in prepared.rows]
    )
    if not (ttft & fixed).any():
        keep["wave_prompt_token_s"] = start["wave_prompt_token_s"]
        notes.append(
            f"{who}: no TTFT rows of a fixed-length harness at a concurrency, wave_prompt_token_s not fitted "
            f"(kept: {keep['wave_prompt_token_s']:g})"
        )
    ep = np.array([m.replicas > 1 for m in prepared.rows]) & prepared.moe
    if not (mask & ep).any():
        keep["expert_imbalance"] = start["expert_imbalance"] if who != "calibrated" else 1.0
        notes.append(f"{who}: no MoE rows with expert parallel, expert_imbalance not fitted")
    if not (mask & prepared.moe).any():
        keep["expert_efficiency"] = start["expert_efficiency"] if who != "calibrated" else 1.0
        notes.append(
            f"{who}: no MoE rows, expert_efficiency not fitted (kept: {keep['expert_efficiency']:g})"
        )
    return keep


def _at_bounds(ident: str, figures: dict) -> list[str]:
    out = []
    for name, (lo, hi, _) in BOUNDS.items():
        if name not in figures:
            continue
        v = figures[name]
        span = hi - lo
        if v <= lo + 1e-3 * span:
            out.append(f"{ident}: {name} at its lower bound {lo:g}")
        elif v >= hi - 1e-3 * span:
            out.append(f"{ident}: {name} at its upper bound {hi:g}")
    return out


def groups_of(prepared: Prepared, by: str) -> np.ndarray:
    """The group each row belongs to for leave-one-group-out: gpu, model or engine."""
    if by not in ("gpu", "model", "engine"):
        raise LedgerError(f"--cv {by!r}: expected gpu, model or engine")
    return np.array([getattr(m, by) or "-" for m in prepared.rows])


def cross_validate(prepared: Prepared, by: str, engine: str) -> dict[str, np.ndarray]:
    """Every row predicted by a fit that never saw its group (leave one gpu/model/engine out)."""
    labels = groups_of(prepared, by)
    if by == "engine":
        labels = np.array([x if x != "-" else engine for x in labels])
    out = {k: np.full(len(prepared.rows), np.nan) for k in METRICS}
    for g in sorted(set(labels)):
        held = labels == g
        if held.all():
            raise LedgerError(f"--cv {by}: every row is {str(g)!r}; nothing left to fit on")
        # a held-out GPU gets its family's figures under the transfer rule
        result = fit(prepared, ~held, per_gpu=by != "gpu", serve=set(prepared.gpus))
        pred = predict(prepared, result.params(set(prepared.gpus)))
        for k in METRICS:
            out[k][held] = pred[k][held]
    return out


def errors(predicted: np.ndarray, measured: np.ndarray) -> dict:
    use = np.isfinite(measured) & np.isfinite(predicted)
    rel = np.abs(predicted[use] / measured[use] - 1)
    if not len(rel):
        return {"rows": 0, "median": None, "p90": None, "max": None}
    return {
        "rows": int(len(rel)),
        "median": float(np.median(rel)),
        "p90": float(np.percentile(rel, 90)),
        "max": float(rel.max()),
    }
