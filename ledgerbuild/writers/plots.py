"""Plots for derivations (matplotlib, SVG and PNG): roofline, KV vs context, serving vs batch,
RoPE wavelengths per rotary pair.

Every plotted number comes from the ledger: points from an evaluated Result, curves from the
vectorised `sweep` of the same declarations (computed in this process); drawing, the slow
part, runs in worker processes, each reusing one figure for its models. Shortcuts: one figure
of three panels per model; plain tick labels (1K, 1M) instead of mathtext, which is several
times slower to draw.
"""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path
from typing import Any

import numpy as np

from ..evaluate import Result, to_plain
from ..files import atomic_save
from ..rope import wavelengths
from ..sweeps import sweep

CONTEXTS = np.array([2**i for i in range(8, 18)])  # 256 .. 128K
BATCHES = np.array([1, 2, 4, 8, 16, 32, 64, 128, 256, 512])


def caption(result: Result) -> str:
    """What the figure shows, in words: its caption and its alt text."""
    return (
        f"{result.model_id} on {to_plain(result.value('total_gpus'))} x {result.keys['gpu']}: "
        "roofline with the prefill and decode points (dotted line: the ridge point); KV "
        "cache of one sequence against context; output tokens/s and USD per million output "
        "tokens against the batch cap; RoPE wavelength of each rotary pair before and after "
        "the model's scaling, against its trained context"
    )


def figure_data(result: Result, sets: dict) -> dict:
    one = ([result.model_id], [result.keys["gpu"]])
    data: dict[str, Any] = {
        n: float(to_plain(result.value(n)))
        for n in (
            "peak_flops_per_s",
            "hbm_bandwidth_bytes_per_s",
            "gpu_count",
            "prefill_intensity",
            "decode_intensity",
            "ridge_point_flops_per_byte",
        )
    }
    data["kv"] = sweep("kv_bytes_at_context", *one, {"context_tokens": CONTEXTS}, sets)["kv_bytes_at_context"]
    for q in ("throughput_tokens_per_s", "usd_per_million_output_tokens"):
        data[q] = sweep(q, *one, {"max_batch": BATCHES}, sets)[q]
    data["rope_pairs"], data["rope_before"], data["rope_after"] = wavelengths(result)
    data["rope_trained"] = float(to_plain(result.inputs["rope_original_max_position"]))
    data["title"] = f"{result.model_id} on {int(data['gpu_count'])} x {result.keys['gpu']}"
    data["caption"] = caption(result)
    return data


def _si(x, _=None):
    for scale, suffix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "K")):
        if abs(x) >= scale:
            return f"{x / scale:g}{suffix}"
    return f"{x:g}"


class ModelFigure:
    """One matplotlib figure reused for every model: only the data changes between models
    (a new figure's first draw is three times slower than a redraw)."""

    def __init__(self):
        import matplotlib

        matplotlib.use("Agg")
        matplotlib.rcParams["svg.fonttype"] = "none"
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter

        self.plt = plt
        self.fig, (self.roof, self.kv, self.serve, self.rope) = plt.subplots(1, 4, figsize=(17, 3.6))
        self.fig.subplots_adjust(left=0.05, right=0.97, bottom=0.16, top=0.86, wspace=0.45)
        self.cost = self.serve.twinx()
        x = np.logspace(-1, 5, 100)
        self.x = x
        (self.bound,) = self.roof.loglog(x, x, color="k", lw=1)
        (self.prefill,) = self.roof.loglog([1], [1], "o", label="prefill")
        (self.decode,) = self.roof.loglog([1], [1], "s", label="decode")
        self.ridge = self.roof.axvline(1, ls=":", color="grey")
        self.roof.set(title="roofline (dotted: ridge)", xlabel="FLOP / byte", ylabel="attainable FLOP/s")
        self.roof.legend(fontsize=8)
        (self.kv_line,) = self.kv.semilogx(CONTEXTS, CONTEXTS, marker=".")
        self.kv.set(title="KV cache of one sequence", xlabel="context (tokens)", ylabel="GB (1e9 bytes)")
        (self.thr,) = self.serve.semilogx(BATCHES, BATCHES, marker=".")
        self.serve.set(title="serving vs batch cap", xlabel="max_batch", ylabel="output tokens/s")
        (self.usd,) = self.cost.semilogx(BATCHES, BATCHES, color="C1", marker=".")
        self.cost.set_ylabel("USD / M output tokens (0: no fit)", color="C1")
        (self.rope_before,) = self.rope.semilogy([0, 1], [1, 1], label="unscaled")
        (self.rope_after,) = self.rope.semilogy([0, 1], [1, 1], label="scaled")
        self.trained = self.rope.axhline(1, ls=":", color="grey")
        self.rope.set(
            title="RoPE wavelength (dotted: trained context)", xlabel="rotary pair", ylabel="tokens"
        )
        self.rope.legend(fontsize=8)
        for ax in (self.roof, self.kv, self.serve, self.cost, self.rope):
            ax.minorticks_off()
            ax.xaxis.set_major_formatter(FuncFormatter(_si))
            ax.yaxis.set_major_formatter(FuncFormatter(_si))

    def update(self, data: dict) -> None:
        peak = data["peak_flops_per_s"] * data["gpu_count"]
        bw = data["hbm_bandwidth_bytes_per_s"] * data["gpu_count"]
        self.bound.set_ydata(np.minimum(peak, self.x * bw))
        for line, name in ((self.prefill, "prefill_intensity"), (self.decode, "decode_intensity")):
            line.set_data([data[name]], [min(peak, data[name] * bw)])
        self.ridge.set_xdata([data["ridge_point_flops_per_byte"]] * 2)
        self.kv_line.set_ydata(data["kv"] / 1e9)
        self.thr.set_ydata(data["throughput_tokens_per_s"])
        self.usd.set_ydata(data["usd_per_million_output_tokens"])
        self.rope_before.set_data(data["rope_pairs"], data["rope_before"])
        self.rope_after.set_data(data["rope_pairs"], data["rope_after"])
        self.trained.set_ydata([max(data["rope_trained"], 1)] * 2)
        for ax in (self.roof, self.kv, self.serve, self.cost, self.rope):
            ax.relim()
            ax.autoscale_view()
        self.fig.suptitle(data["title"], fontsize=10)
        self.metadata = {"Title": data["title"], "Description": data["caption"]}

    def save(self, out_dir: str, stem: str) -> list[str]:
        names = [f"{stem}.svg", f"{stem}.png"]
        for name in names:
            fmt = name.rsplit(".", 1)[1]

            def save(tmp: str, fmt: str = fmt) -> None:
                self.fig.savefig(tmp, dpi=80, format=fmt, metadata=self.metadata)

            atomic_save(Path(out_dir) / name, save)
        return names


def draw_many(jobs: list[tuple[dict, str, str]]) -> list[list[str]]:
    figure = ModelFigure()
    out = []
    for data, out_dir, stem in jobs:
        figure.update(data)
        out.append(figure.save(out_dir, stem))
    figure.plt.close(figure.fig)
    return out


class FigureJobs:
    """Figures drawn in worker processes while the caller renders documents.

    `names` are known at once (documents can refer to them); `wait()` returns when every
    file is written (and re-raises a worker's error).
    """

    def __init__(self, results: list[Result], sets: dict, out_dir: Path):
        self.names = {r.model_id: [f"{r.model_id}-plots.svg", f"{r.model_id}-plots.png"] for r in results}
        jobs = [(figure_data(r, sets), str(out_dir), f"{r.model_id}-plots") for r in results]
        workers = min(len(jobs), os.cpu_count() or 1)
        chunks = [jobs[i::workers] for i in range(workers)]
        self._pool = multiprocessing.get_context("fork").Pool(workers) if workers > 1 else None
        self._pending: Any = (
            self._pool.map_async(draw_many, chunks) if self._pool else [draw_many(c) for c in chunks]
        )

    def wait(self) -> int:
        if self._pool is not None:
            try:
                self._pending.get()
            finally:
                self._pool.close()
                self._pool.join()
        return sum(len(n) for n in self.names.values())


SIDES = np.array([224, 336, 448, 560, 672, 896, 1024, 1344, 1792, 2048, 3072, 4096])
VISION_CAPTION = (
    "Vision-language models: tokens one square image becomes (left) and the KV cache those "
    "tokens hold (right; for a cross-attention model, the keys and values in its "
    "cross-attention layers), against the image's side in pixels"
)


def vision_figure(results: list[Result], sets: dict, out_dir: Path) -> list[str]:
    """One figure for every vision-language model among `results`: image tokens and image KV
    against the side of a square image (the ledger's image_tokens and image_kv_bytes, swept
    over image_height x image_width and read on the diagonal)."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    fig, (tokens_ax, kv_ax) = plt.subplots(1, 2, figsize=(10, 3.6))
    fig.subplots_adjust(left=0.08, right=0.97, bottom=0.16, top=0.86, wspace=0.3)
    grid = {"image_height": SIDES, "image_width": SIDES}
    square = np.arange(len(SIDES)) * (len(SIDES) + 1)  # diagonal of the side x side grid
    for r in results:
        one = ([r.model_id], [r.keys["gpu"]])
        tokens = sweep("image_tokens", *one, grid, sets)["image_tokens"][square]
        kv = sweep("image_kv_bytes", *one, grid, sets)["image_kv_bytes"][square]
        tokens_ax.loglog(SIDES, tokens, marker=".", label=r.model_id)
        kv_ax.loglog(SIDES, kv / 2**20, marker=".", label=r.model_id)
    tokens_ax.set(title="image tokens", xlabel="image side (pixels)", ylabel="tokens")
    kv_ax.set(title="image KV cache", xlabel="image side (pixels)", ylabel="MiB (2^20 bytes)")
    tokens_ax.legend(fontsize=8)
    for ax in (tokens_ax, kv_ax):
        ax.minorticks_off()
        ax.xaxis.set_major_formatter(FuncFormatter(_si))
        ax.yaxis.set_major_formatter(FuncFormatter(_si))
    fig.suptitle("what an image becomes", fontsize=10)
    names = ["vision-plots.svg", "vision-plots.png"]
    for name in names:
        fmt = name.rsplit(".", 1)[1]

        def save(tmp: str, fmt: str = fmt) -> None:
            fig.savefig(
                tmp,
                dpi=80,
                format=fmt,
                metadata={"Title": "what an image becomes", "Description": VISION_CAPTION},
            )

        atomic_save(Path(out_dir) / name, save)
    plt.close(fig)
    return names
