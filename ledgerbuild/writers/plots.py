"""Plots for derivations (matplotlib, SVG and PNG): roofline, KV vs context, serving vs batch.

Every plotted number comes from the ledger: points from an evaluated Result, curves from the
vectorised `sweep` of the same declarations (computed in this process); drawing, the slow
part, runs in a pool of worker processes. Shortcuts: one figure of three panels per model;
plain tick labels (1K, 1M) instead of mathtext, which is several times slower to draw.
"""
from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import numpy as np

from ..evaluate import Result, to_plain
from ..sweeps import sweep

CONTEXTS = np.array([2**i for i in range(8, 18)])  # 256 .. 128K
BATCHES = np.array([1, 2, 4, 8, 16, 32, 64, 128, 256, 512])


def figure_data(result: Result, sets: dict) -> dict:
    one = ([result.model_id], [result.keys["gpu"]])
    data = {n: float(to_plain(result.value(n))) for n in
            ("peak_flops_per_s", "hbm_bandwidth_bytes_per_s", "gpu_count", "prefill_intensity",
             "decode_intensity", "ridge_point_flops_per_byte")}
    data["kv"] = sweep("kv_bytes_at_context", *one, {"context_tokens": CONTEXTS}, sets)[
        "kv_bytes_at_context"]
    for q in ("throughput_tokens_per_s", "usd_per_million_output_tokens"):
        data[q] = sweep(q, *one, {"max_batch": BATCHES}, sets)[q]
    data["title"] = f"{result.model_id} on {int(data['gpu_count'])} x {result.keys['gpu']}"
    return data


def _si(x, _=None):
    for scale, suffix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "K")):
        if abs(x) >= scale:
            return f"{x / scale:g}{suffix}"
    return f"{x:g}"


def draw(data: dict, out_dir: str, stem: str) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    fig, (roof, kv, serve) = plt.subplots(1, 3, figsize=(13, 3.6))
    fig.subplots_adjust(left=0.06, right=0.93, bottom=0.16, top=0.86, wspace=0.4)
    fig.suptitle(data["title"], fontsize=10)
    peak = data["peak_flops_per_s"] * data["gpu_count"]
    bw = data["hbm_bandwidth_bytes_per_s"] * data["gpu_count"]
    x = np.logspace(-1, 5, 100)
    roof.loglog(x, np.minimum(peak, x * bw), color="k", lw=1)
    for name, marker in (("prefill_intensity", "o"), ("decode_intensity", "s")):
        roof.loglog(data[name], min(peak, data[name] * bw), marker, label=name.split("_")[0])
    roof.axvline(data["ridge_point_flops_per_byte"], ls=":", color="grey")
    roof.set(title="roofline (dotted: ridge)", xlabel="FLOP / byte", ylabel="attainable FLOP/s")
    roof.legend(fontsize=8)
    kv.semilogx(CONTEXTS, data["kv"] / 1e9, marker=".")
    kv.set(title="KV cache of one sequence", xlabel="context (tokens)", ylabel="GB (1e9 bytes)")
    serve.semilogx(BATCHES, data["throughput_tokens_per_s"], marker=".")
    serve.set(title="serving vs batch cap", xlabel="max_batch", ylabel="output tokens/s")
    cost = serve.twinx()
    cost.semilogx(BATCHES, data["usd_per_million_output_tokens"], color="C1", marker=".")
    cost.set_ylabel("USD / M output tokens (0: no fit)", color="C1")
    for ax in (roof, kv, serve, cost):
        ax.minorticks_off()
        ax.xaxis.set_major_formatter(FuncFormatter(_si))
        ax.yaxis.set_major_formatter(FuncFormatter(_si))
    names = []
    for ext in ("svg", "png"):
        names.append(f"{stem}.{ext}")
        fig.savefig(os.path.join(out_dir, names[-1]), dpi=80)
    plt.close(fig)
    return names


class FigureJobs:
    """Figures drawn in worker processes while the caller renders documents.

    `names` are known at once (documents can refer to them); `wait()` returns when every
    file is written (and re-raises a worker's error).
    """

    def __init__(self, results: list[Result], sets: dict, out_dir: Path):
        self.names = {r.model_id: [f"{r.model_id}-plots.svg", f"{r.model_id}-plots.png"]
                      for r in results}
        jobs = [(figure_data(r, sets), str(out_dir), f"{r.model_id}-plots") for r in results]
        workers = min(len(jobs), os.cpu_count() or 1)
        self._pool = multiprocessing.get_context("fork").Pool(workers) if workers > 1 else None
        self._pending = (self._pool.starmap_async(draw, jobs) if self._pool
                         else [draw(*job) for job in jobs])

    def wait(self) -> int:
        if self._pool is not None:
            try:
                self._pending.get()
            finally:
                self._pool.close()
                self._pool.join()
        return sum(len(n) for n in self.names.values())
